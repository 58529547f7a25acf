"""[Where] checked condition variable under `and`: PyTorch's clip_grad_norm_ (pytorch,
torch/nn/utils/clip_grad.py, _get_total_norm / clip_grad_norm_) tests
`error_if_nonfinite and torch.logical_or(total_norm.isnan(), total_norm.isinf())`; here the
test is kept in a variable, as fairseq keeps `has_pads`, and guards a replacement of the norm.
`and` returns `False` (the flag) or the tensor: checked with `runtime.tensors(nonfinite)`,
the original `if` runs when it is the flag."""
import torch


def ENTRY(grads, error_if_nonfinite: bool):
    total_norm = torch.linalg.vector_norm(grads, 2.0)
    nonfinite = error_if_nonfinite and torch.logical_or(total_norm.isnan(), total_norm.isinf())
    if nonfinite:
        total_norm = torch.zeros_like(total_norm)
    return grads / (total_norm + 1e-6)


INPUTS = [
    (torch.tensor([1.0, float("inf")]), True),
    (torch.tensor([1.0, 2.0]), True),
    (torch.tensor([1.0, float("nan")]), False),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
