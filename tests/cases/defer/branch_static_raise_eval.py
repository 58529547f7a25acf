"""[Defer] the branch of `branch_static_raise.py` in evaluation (grad off): the grad-mode
query selects the print, recorded with the condition; `strict` still raises through the
condition's guard."""
import warnings

import torch


def ENTRY(x: torch.Tensor, scale: torch.Tensor, strict: bool):
    y = x * scale
    if torch.isnan(y).any() or torch.isinf(y).any():
        if strict:
            raise ValueError("Concatenated result is NaN or Inf.")
        elif torch.is_grad_enabled():
            warnings.warn("Concatenated result is NaN or Inf.")
        else:
            print("non-finite maps in evaluation")
    return y.sum(-1)


INPUTS = [
    (torch.tensor([[1.0, 2.0]]), torch.tensor(2.0), False),
    (torch.tensor([[1.0, float("nan")]]), torch.tensor(2.0), False),
    (torch.tensor([[1.0, float("inf")]]), torch.tensor(2.0), True),
    (torch.tensor([[1.0, 2.0]]), torch.tensor(2.0), True),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "defer"), ("GM102", "defer"), ("GM104", "defer")]

torch.compile(ENTRY)  # traced: an entry point of the mender
