"""[Trap] checked: a guard on unannotated parameters, `or` of two reductions, with a message
formatted from a Python number (torchmetrics' `_tweedie_deviance_score_update`,
src/torchmetrics/functional/regression/tweedie_deviance.py). Nothing shows `targets` is a
tensor, and Python may skip `torch.any(targets < 0)`: the guard runs under
`runtime.tensors(targets, preds)`, the original `if` otherwise."""
import torch


def ENTRY(preds, targets, power=1.5):
    if torch.any(preds <= 0) or torch.any(targets < 0):
        raise ValueError(
            f"For power={power}, 'preds' has to be strictly positive and 'targets' cannot be negative."
        )
    return (preds - targets).pow(2).mean()


INPUTS = [
    (torch.tensor([1.0, 2.0]), torch.tensor([0.5, 1.0])),
    (torch.tensor([1.0, -2.0]), torch.tensor([0.5, 1.0])),
    (torch.tensor([1.0, 2.0]), torch.tensor([-0.5, 1.0]), 2.0),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM105", "trap")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
