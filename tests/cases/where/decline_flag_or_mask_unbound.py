"""declined: a condition variable from `or` over a flag and a mask (fairseq's `has_pads`,
TransformerEncoderBase.forward_scriptable) bound on only some paths: the run-time check
before the `if` would read a name the original may never bind (the rewrite evaluates it
first), so it is not assumed to be a tensor."""
import torch


def ENTRY(src_tokens: torch.Tensor, check_pads: bool):
    encoder_padding_mask = src_tokens.eq(1)
    x = src_tokens.float() * 2.0
    if check_pads:
        has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()
    if check_pads and has_pads:
        x = x * (1 - encoder_padding_mask.type_as(x))
    return x


INPUTS = [
    (torch.tensor([[2, 3, 4, 1]]), True),
    (torch.tensor([[2, 3, 4, 5]]), True),
    (torch.tensor([[2, 3, 4, 1]]), False),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not a tensor expression")]
