"""[Where] declines a branch on `torch.allclose(*pair)`: the arguments are unpacked from a
sequence, so the text does not show which tensors `isclose` would compare, and the branch
stays as written (a break, as in the original)."""
import torch


def ENTRY(k: torch.Tensor, update: torch.Tensor):
    pair = (update, torch.zeros_like(update))
    if torch.allclose(*pair):
        out = k
    else:
        out = k + update
    return out


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 3), torch.randn(3, 3)),
    (torch.randn(3, 3), torch.zeros(3, 3)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "is not a tensor expression")]
