"""[Where] a random coin in a conditional expression, drawn on the image's device: the
returned form of torchvision's RandomHorizontalFlip/RandomVerticalFlip (pytorch/vision:
torchvision/transforms/transforms.py: RandomVerticalFlip.forward, `if torch.rand(1) < self.p:
return F.vflip(img)`; F.vflip of a tensor is `img.flip(-2)`) written as `return A if C else
B`, and the assigned form. The coin is drawn once, first; the fallback tests the drawn value.
Applied per sample; each call draws a further number after the flips, which must come next
in the stream."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def vflip(self, img: torch.Tensor):
        return img.flip(-2) if torch.rand((), device=img.device) < self.p else img

    def flip(self, img: torch.Tensor):
        out = self.vflip(img)
        out = out.flip(-1) if torch.rand(1, device=out.device) < self.p else out
        return out

    def forward(self, images: torch.Tensor):
        flipped = torch.stack([self.flip(img) for img in images.unbind(0)])
        return flipped, torch.rand(1)


def make():
    return ENTRY(p=0.3)  # under seed 0: the first sample flips neither way, the second both


def reset():
    torch.manual_seed(0)


RANDOM = True
torch.manual_seed(0)
INPUTS = [(torch.rand(2, 2, 3),), (torch.rand(3, 2, 3),)]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (6, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]
EXPECTED_DECLINES = []
