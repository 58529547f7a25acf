"""[Where] declined: the coin may be random, but a branch value that draws random numbers
(`img + torch.randn_like(img)`, noise added with probability p) stays as written: the
predicated form computes every branch value, and so would draw the noise where the original
does not."""
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
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "branch value `img + torch.randn_like(img)` is not pure")]

torch.compile(ENTRY)  # traced: an entry point of the mender
