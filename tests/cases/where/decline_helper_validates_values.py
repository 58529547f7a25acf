"""[Where] declined: a branch value that calls a module helper whose validation reads tensor
values, from Lightning-AI/torchmetrics: src/torchmetrics/utilities/checks.py:
_check_same_shape and the value checks of _binary_stat_scores_tensor_validation (`if not
torch.all((target == 0) | (target == 1)): raise RuntimeError(...)`), here on the branch's
operand. The check cannot be made before the statement without reading tensor data, so the
helper is not pure and the branch is left as it is ([Trap] still lowers the validation itself
to an in-graph assert); a helper validating a local it computes from tensor data is declined
the same way."""
import torch
from torch import Tensor


def _check_binary(target: Tensor) -> Tensor:
    if not torch.all((target == 0) | (target == 1)):
        raise RuntimeError("Detected the following values in `target`: non-binary values.")
    return target.float()


def _check_total(x: Tensor) -> Tensor:
    total = x.sum()
    if total > 8:
        raise ValueError("the scores sum past 8")
    return x * 2


def ENTRY(target, scores):
    scores = scores * 1.0
    if scores.sum() > 0:
        out = _check_binary(target)
    else:
        out = scores
    if scores.mean() > 0.5:
        out = _check_total(out)
    return out


INPUTS = [
    (torch.tensor([0.0, 1.0]), torch.tensor([0.5, 0.75])),
    (torch.tensor([0.0, 2.0]), torch.tensor([-0.5, 0.25])),
    (torch.tensor([0.0, 2.0]), torch.tensor([0.5, 0.25])),
]
EXPECTED_BREAKS = (4, 2)
EXPECTED_GRAPHS = (6, 3)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined"), ("GM105", "trap"), ("GM105", "trap")]
EXPECTED_DECLINES = [("GM101", "is not pure"), ("GM101", "is not pure")]
