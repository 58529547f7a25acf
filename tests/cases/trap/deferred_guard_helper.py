"""[Trap] a guard that logs through a helper before it raises: Lightning's
`detect_nan_parameters` (Lightning-AI/pytorch-lightning:
src/lightning/pytorch/utilities/finite_checks.py, detect_nan_parameters and
print_nan_gradients), after an in-place update of a parameter under no_grad. The guard
becomes [Defer]'s branch form with its raise in-graph (runtime.guard_formatted): the helper's
records are made under the guard's condition, the guard is recorded after them, and the
boundary's flush logs, then raises. The helper walks the module's parameters and defers a
branch whose static prefix (`param.grad is not None`) stays a Python test. The parameters
carry a NaN gradient, a finite one and none, so every branch of the helper runs."""
import logging

import torch
from torch import nn

log = logging.getLogger(__name__)


def print_nan_gradients(model):
    """Logs each parameter whose gradient holds a NaN."""
    for param in model.parameters():
        if (param.grad is not None) and torch.isnan(param.grad.float()).any():
            log.info(f"{param}, {param.grad}")


def detect_nan_parameters(model):
    for name, param in model.named_parameters():
        if not torch.isfinite(param).all():
            print_nan_gradients(model)
            raise ValueError(
                f"Detected nan and/or inf values in `{name}`."
                " Check your forward pass for numerically unstable operations."
            )


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(2, 2)
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, x, poison):
        with torch.no_grad():
            self.layer.bias.add_(poison)
        detect_nan_parameters(self)
        return self.layer(x) * self.scale


def make():
    model = Model()
    model.layer.weight.grad = torch.full((2, 2), float("nan"))
    model.layer.bias.grad = torch.zeros(2)
    return model


ENTRY = Model
INPUTS = [
    (torch.randn(3, 2), torch.full((2,), 0.5)),
    (torch.randn(3, 2), torch.tensor([0.0, float("inf")])),
    (torch.randn(3, 2), torch.tensor([float("nan"), 0.0])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "defer"), ("GM103", "defer"), ("GM105", "trap")]
