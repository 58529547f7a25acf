"""[Trap] a message formatted from tensor values (`{x.min()}`): the guard's test becomes
runtime.rerun_if, an in-graph assert whose failure runs the call again eagerly, where the
original raises with its message."""
import torch


def ENTRY(x: torch.Tensor):
    if (x < 0).any():
        raise ValueError(f"negative input: {x.min()}")
    return x.sqrt()


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "trap")]
