"""[Where]'s masked update with a value computed from selections by the mask: under
`if m.any():` the store runs densely whatever the mask (an all-False mask changes nothing),
behind `masked_assign_ok(..., guarded=True)`: grad mode off and a tensor the traced code
created (`xmin` from torch.minimum), as GPTQ's quantizer writes it."""
import torch


def ENTRY(x: torch.Tensor):
    tmp = torch.zeros(x.shape[0])
    xmin = torch.minimum(x.min(1)[0], tmp)
    xmax = torch.maximum(x.max(1)[0], tmp)
    xmax = torch.maximum(torch.abs(xmin), xmax)
    tmp = xmin < 0
    if torch.any(tmp):
        xmin[tmp] = -xmax[tmp]
    return xmin, xmax


torch.manual_seed(0)
INPUTS = [
    (torch.randn(5, 3),),
    (torch.rand(5, 3) + 0.1,),
    (-torch.rand(5, 3) - 0.1,),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM107", "where")]
EXPECTED_DECLINES = []
