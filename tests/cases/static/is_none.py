"""Not a break: `if mask is None` is static; left untouched."""
import torch


def ENTRY(x: torch.Tensor, mask: torch.Tensor = None):
    if mask is None:
        mask = torch.ones_like(x)
    if x.dim() > 1 and mask is not None:
        mask = mask.reshape(x.shape)
    return x * mask


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([1.0, 2.0]), torch.tensor([0.0, 1.0]))]
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = []
