"""[Trap] an assert comparing `.item()` with a Python number (transformers' XLM,
src/transformers/models/xlm/modeling_xlm.py, `assert lengths.max().item() <= slen`):
compared in the graph (runtime.item_compare) and raised as the AssertionError eager code
raises; the GM106 site goes with it."""
import torch


def ENTRY(x, lengths, slen=4):
    assert lengths.max().item() <= slen
    return x[:, :slen] * 2


INPUTS = [
    (torch.ones(2, 5), torch.tensor([3, 4])),
    (torch.ones(2, 5), torch.tensor([3, 5])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM106", "trap"), ("GM110", "trap")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
