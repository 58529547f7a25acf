"""Lightning's detect_nan_parameters: for each parameter, a non-finite value first logs the
gradients (`print_nan_gradients`: `log.info(f"{param}, {param.grad}")` for a NaN gradient),
then raises with the parameter's name in an f-string. A guard after logging in a helper."""

import logging

import torch
from torch import nn

ORIGIN = "Lightning-AI/pytorch-lightning: src/lightning/pytorch/utilities/finite_checks.py: detect_nan_parameters"
CATEGORY = "mixed"

log = logging.getLogger(__name__)


def print_nan_gradients(model):
    """Iterates over model parameters and prints out parameter + gradient information if NaN."""
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

    def forward(self, x, poison):
        with torch.no_grad():
            self.layer.bias.add_(poison)
        detect_nan_parameters(self)
        return self.layer(x)


ENTRY = Model
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 2), torch.zeros(2)),
    (torch.randn(3, 2), torch.tensor([0.0, float("inf")])),
]
