"""[Where] declined: a random draw in a condition Python evaluates on some paths only (an
elif's, which runs only where the first test is false). Predicating the chain would draw on
every path and change the random stream; only the root's first operand, drawn first on every
path, may be impure (where/random_horizontal_flip)."""
import torch


def reset():
    torch.manual_seed(0)


def ENTRY(img: torch.Tensor):
    img = img * 2
    if img.sum() > 4:
        img = img - 1
    elif torch.rand(1) < 0.5:
        img = img.flip(-1)
    return img, torch.rand(1)


RANDOM = True
INPUTS = [(torch.ones(2, 3),), (torch.zeros(2, 3),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [
    ("GM101", "is not pure (Python evaluates it on some paths only"),
    ("GM101", "an elif whose if is not predicated with it"),
]

torch.compile(ENTRY)  # traced: an entry point of the mender
