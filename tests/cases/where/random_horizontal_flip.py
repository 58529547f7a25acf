"""[Where] a random branch condition, drawn once: torchvision's RandomHorizontalFlip, from
pytorch/vision: torchvision/transforms/transforms.py: RandomHorizontalFlip.forward (`if
torch.rand(1) < self.p: return F.hflip(img)`, `return img`; F.hflip of a tensor image is
`img.flip(-1)`), applied per sample. The coin is impure, but Python draws it first and on
every path: the rewrite draws it once, before the branch values, and the fallback tests the
drawn value instead of drawing again, so the mended program draws the same numbers in the
same order. `reset()` reseeds before each run; the first samples take one branch each."""
import torch
from torch import nn


class RandomHorizontalFlip(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if torch.rand(1) < self.p:
            return img.flip(-1)
        return img


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.flip = RandomHorizontalFlip()

    def forward(self, images):
        return torch.stack([self.flip(img) for img in images.unbind(0)])


def reset():
    torch.manual_seed(0)


RANDOM = True
torch.manual_seed(0)
INPUTS = [(torch.rand(2, 1, 2, 3),), (torch.rand(4, 1, 2, 3),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
