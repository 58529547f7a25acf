"""[Trap] torch._check_tensor_all(cond) reads the tensor on the host (a break); mended, it is
an in-graph assert whose failure raises the same RuntimeError at the boundary."""
import torch


def check_positive(x):
    torch._check_tensor_all(x > 0)


def ENTRY(x: torch.Tensor):
    y = x * 2
    check_positive(y)
    return y + 1


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([1.0, -2.0]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM109", "trap")]
