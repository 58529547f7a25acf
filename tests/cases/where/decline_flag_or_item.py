"""declined: a condition variable from `or` over a Python flag and a Python scalar
(`.item()`), not a tensor: speculation assumes only a variable bound to `or`/`and` with an
operand the text shows to be a tensor (fairseq's `has_pads`, with the mask's `.any()`
converted by `.item()`, as code written before torch.compile often does). A run-time check
could never pass on it."""
import torch


def ENTRY(src_tokens: torch.Tensor, on_xla: bool):
    encoder_padding_mask = src_tokens.eq(1)
    x = src_tokens.float() * 2.0
    has_pads = on_xla or encoder_padding_mask.any().item()
    if has_pads:
        x = x * (1 - encoder_padding_mask.type_as(x))
    return x


INPUTS = [
    (torch.tensor([[2, 3, 4, 1]]), False),
    (torch.tensor([[2, 3, 4, 5]]), False),
    (torch.tensor([[2, 3, 4, 5]]), True),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [("GM106", ""), ("GM101", "not a tensor expression")]
