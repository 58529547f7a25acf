"""[Where]: branches that unpack, in the form of quantisation observers and sorters
(torch.ao's MovingAverageMinMaxObserver: `min_val, max_val = torch.aminmax(x)` in one branch,
a moving average in the other): a tuple display of as many values (`lo, hi = a, b`) is
assigned value by value, and a call whose callee fixes how many tensors it gives
(`vals, order = y.sort(...)`, two) is computed once into a temp whose elements are read.
Inputs drive both branches."""
import torch


def ENTRY(x: torch.Tensor):
    y = x * 1.0
    if y.mean() > 0:
        lo, hi = y.min(-1).values, y.max(-1).values
        vals, order = y.sort(dim=-1)
    else:
        lo, hi = -y.max(-1).values, -y.min(-1).values
        vals, order = (-y).sort(dim=-1, descending=True)
    return vals * (hi - lo).unsqueeze(-1), order


torch.manual_seed(0)
INPUTS = [
    (torch.rand(2, 4) + 0.5,),  # positive mean
    (-torch.rand(2, 4) - 0.5,),  # negative mean
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
