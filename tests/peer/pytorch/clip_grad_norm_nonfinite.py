"""torch.nn.utils.clip_grad_norm_'s total-norm helper: with `error_if_nonfinite`, a NaN or
infinite norm raises (`if error_if_nonfinite and torch.logical_or(total_norm.isnan(),
total_norm.isinf()): raise RuntimeError(f"The total norm of order {norm_type} ...")`): a
Python flag and a tensor predicate, and an f-string over a config value."""

import torch

ORIGIN = "pytorch/pytorch: torch/nn/utils/clip_grad.py: _get_total_norm"
CATEGORY = "trap"


def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False):
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    norms = [torch.linalg.vector_norm(g, norm_type) for g in tensors]
    total_norm = torch.linalg.vector_norm(torch.stack(norms), norm_type)

    if error_if_nonfinite and torch.logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`"
        )
    return total_norm


def total_norm(grad_a, grad_b, error_if_nonfinite):
    return _get_total_norm([grad_a * 1.0, grad_b], 2.0, error_if_nonfinite)


ENTRY = total_norm
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3), torch.randn(2), True),
    (torch.randn(3), torch.tensor([1.0, float("inf")]), True),
    (torch.randn(3), torch.tensor([1.0, float("inf")]), False),
]
