"""[Scalar] declines a scalar the function uses as a value: Longformer's encoder
(transformers: models/longformer/modeling_longformer.py: LongformerEncoder.forward) reads
`is_global_attn` with `.item()` and passes it to each layer, which branches on it; a held
tensor would reach the layer in its place."""
import torch


def _layer(hidden_states: torch.Tensor, is_index_global_attn: torch.Tensor, is_global_attn):
    if is_global_attn:
        return hidden_states + is_index_global_attn.unsqueeze(-1).to(hidden_states.dtype)
    return hidden_states * 2


@torch.compile
def encoder(hidden_states: torch.Tensor, attention_mask: torch.Tensor):
    is_index_masked = attention_mask < 0
    is_index_global_attn = attention_mask > 0
    is_global_attn = is_index_global_attn.flatten().any().item()
    for _ in range(2):
        hidden_states = _layer(hidden_states, is_index_global_attn, is_global_attn)
    return hidden_states.masked_fill(is_index_masked.unsqueeze(-1), 0.0)


ENTRY = encoder.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.ones(1, 3, 2), torch.tensor([[0, 1, -1]])),
    (torch.ones(1, 3, 2), torch.tensor([[0, 0, -1]])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM106", "declined")]
EXPECTED_DECLINES = [("GM106", "it is passed to `_layer`")]
