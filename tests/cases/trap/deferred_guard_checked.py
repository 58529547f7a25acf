"""[Trap] a guard that logs through a helper before it raises (Lightning-AI/pytorch-lightning:
src/lightning/pytorch/utilities/finite_checks.py, detect_nan_parameters), where the checks
made while compiling keep its graph break: the graph goes on to change state after the guard
(a buffer's `add_`, which the original never reached when it raised: runtime._check_after_guard
traces again with the guard checked eagerly), and a module whose `parameters` is its own (the
helper's walk could run user code whatever the condition: runtime._plain_module). The output,
the log records, the exception and the counter are the original's on every input."""
import logging

import torch
from torch import nn

log = logging.getLogger(__name__)


def print_nan_gradients(model):
    for param in model.parameters():
        if (param.grad is not None) and torch.isnan(param.grad.float()).any():
            log.info(f"{param}, {param.grad}")


def detect_nan_parameters(model):
    for name, param in model.named_parameters():
        if not torch.isfinite(param).all():
            print_nan_gradients(model)
            raise ValueError(f"Detected nan and/or inf values in `{name}`.")


class Walked(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2))
        self.weight.grad = torch.full((2,), float("nan"))

    def parameters(self, recurse=True):
        log.info("walked")
        return super().parameters(recurse)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(2, 2)
        self.walked = Walked()
        self.register_buffer("steps", torch.zeros(()))

    def forward(self, x, poison):
        with torch.no_grad():
            self.layer.bias.add_(poison)
        detect_nan_parameters(self.walked)
        detect_nan_parameters(self.layer)
        self.steps.add_(1)
        return self.layer(x) + self.steps


ENTRY = Model
INPUTS = [
    (torch.randn(3, 2), torch.zeros(2)),
    (torch.randn(3, 2), torch.tensor([0.0, float("inf")])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "defer"), ("GM103", "defer"), ("GM105", "trap")]
