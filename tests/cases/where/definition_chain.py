"""[Where] The condition is data-dependent through a chain of single definitions
(`seq_len = torch.max(position_ids) + 1`)."""
import torch


def ENTRY(position_ids: torch.Tensor, short: torch.Tensor, long: torch.Tensor):
    seq_len = torch.max(position_ids) + 1
    too_long = seq_len > 4
    if too_long:
        freqs = long
    else:
        freqs = short
    return position_ids[:, None] * freqs


INPUTS = [
    (torch.arange(6.0), torch.ones(3), torch.full((3,), 0.5)),
    (torch.arange(3.0), torch.ones(3), torch.full((3,), 0.5)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
