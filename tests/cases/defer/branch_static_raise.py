"""[Defer] a branch deferred whole whose nested static if raises in one arm: MONAI's
`RetinaNetDetector._reshape_maps` (Project-MONAI/MONAI:
monai/apps/detection/networks/retinanet_detector.py) checks the maps it concatenates for NaN
or Inf, raising in training (`torch.is_grad_enabled()`) and warning otherwise. Here a `strict`
flag raises, training warns and evaluation prints. While compiling, the body runs whatever
the condition: the warning and the print are recorded with the condition, and the raise
becomes the condition's guard, so it raises only where the condition held, as the original
did. The query of the grad mode is a static test Dynamo resolves while tracing."""
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


GRAD = True
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
