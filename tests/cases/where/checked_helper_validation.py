"""[Where] checked: a branch value that calls a module helper with a validation, from
pytorch/vision: torchvision/transforms/_functional_tensor.py: hflip (`_assert_image_tensor(img)`,
which raises TypeError unless `img.ndim >= 2`, then `img.flip(-1)`), called as
torchvision/transforms/transforms.py: RandomHorizontalFlip.forward calls it, here with the
coin passed in and the probability a buffer. The helper is pure in the frame of the call
where its validation holds: the rewrite checks `_is_tensor_a_torch_image(img)` before the
statement, after `runtime.tensors(img, coin)`, and runs the original where it does not, so a
one-dimensional input raises only when it is flipped, as in the original."""
import torch
from torch import Tensor, nn


def _is_tensor_a_torch_image(x: Tensor) -> bool:
    return x.ndim >= 2


def _assert_image_tensor(img: Tensor) -> None:
    if not _is_tensor_a_torch_image(img):
        raise TypeError("Tensor is not a torch image.")


def hflip(img: Tensor) -> Tensor:
    _assert_image_tensor(img)

    return img.flip(-1)


class ENTRY(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.register_buffer("p", torch.tensor(p))

    def forward(self, img, coin):
        img = img * 1.0
        if coin < self.p:
            return hflip(img)
        return img


INPUTS = [
    (torch.arange(6.0).reshape(1, 2, 3), torch.tensor(0.25)),  # flipped
    (torch.arange(6.0).reshape(1, 2, 3), torch.tensor(0.75)),  # kept
    (torch.arange(3.0), torch.tensor(0.75)),  # not an image, kept: no error
    (torch.arange(3.0), torch.tensor(0.25)),  # not an image, flipped: TypeError
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
