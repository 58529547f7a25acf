"""[Where]: a branch value that draws random numbers (`img + torch.randn_like(img)`, noise
added with probability p) is never computed where the original does not compute it: the
torch.where form, which computes every branch value, declines it, and torch.cond, which runs
the side taken only, takes it (behind runtime.cond_on: a cond Dynamo cannot trace runs the
original statement). The draws are the original's, in order (Inductor's under
fallback_random)."""
import torch


def reset():
    torch.manual_seed(0)


def ENTRY(img: torch.Tensor):
    img = img * 2
    if torch.rand(1) < 0.5:
        img = img + torch.randn_like(img)
    return img, torch.rand(1)


RANDOM = True
INPUTS = [(torch.ones(2, 3),), (torch.ones(3, 3),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
