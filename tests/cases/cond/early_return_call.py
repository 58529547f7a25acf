"""[Cond] An early return calling a local function becomes torch.cond."""
import torch


def project(x, w):
    return torch.relu(x @ w)


def ENTRY(x: torch.Tensor, w: torch.Tensor):
    if x.sum() > 0:
        return project(x, w)
    return x


INPUTS = [(torch.ones(3, 3), torch.eye(3) * 2), (-torch.ones(3, 3), torch.eye(3))]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]

torch.compile(ENTRY)  # traced: an entry point of the mender
