"""Not a break: `assert <tensor condition>, "msg"` is rewritten by Dynamo itself to an
in-graph assert; GraphMend leaves asserts alone. Compiled, a failing assert raises
RuntimeError (Dynamo's behaviour, not GraphMend's), so the compiled reference is
torch.compile of the original."""
import torch


def ENTRY(x: torch.Tensor):
    h = x * 2
    assert (h > -100).all(), "input out of range"
    return h + 1


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-100.0, 2.0]),)]
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = []
COMPILED_REFERENCE = "torch.compile"
