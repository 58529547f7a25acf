"""torchvision's random horizontal flip, applied per sample: the coin is a tensor (`if
torch.rand(1) < self.p: return F.hflip(img)`, `return img`), so the branch that returns the
flipped or the unflipped image is on a tensor value. Seeded so that the first two samples take
one branch each."""

import torch
from torch import Tensor, nn

ORIGIN = "pytorch/vision: torchvision/transforms/transforms.py: RandomHorizontalFlip.forward"
CATEGORY = "where"


def _is_tensor_a_torch_image(x: Tensor) -> bool:
    return x.ndim >= 2


def _assert_image_tensor(img: Tensor) -> None:
    if not _is_tensor_a_torch_image(img):
        raise TypeError("Tensor is not a torch image.")


def hflip(img: Tensor) -> Tensor:
    _assert_image_tensor(img)

    return img.flip(-1)


class RandomHorizontalFlip(torch.nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if torch.rand(1) < self.p:
            return hflip(img)
        return img


class Augment(nn.Module):
    def __init__(self):
        super().__init__()
        self.flip = RandomHorizontalFlip()

    def forward(self, images):
        return torch.stack([self.flip(img) for img in images.unbind(0)])


def reset():
    torch.manual_seed(0)


ENTRY = Augment
torch.manual_seed(0)
INPUTS = [
    (torch.rand(2, 1, 2, 3),),
    (torch.rand(3, 1, 2, 3),),
]
