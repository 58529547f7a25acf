"""[Where] a random coin choosing a helper that validates and branches on static values: from
pytorch/vision: torchvision/transforms/transforms.py: RandomGrayscale.forward (`if
torch.rand(1) < self.p: return F.rgb_to_grayscale(img, num_output_channels=...)`, `return
img`) and torchvision/transforms/_functional_tensor.py: rgb_to_grayscale (its
`_assert_channels` check left out). The helper is pure in the frame of the call: its static
ifs on `img.shape[-3]` and `num_output_channels` are resolved while tracing, its validations
(`img.ndim < 3`, `num_output_channels not in (1, 3)`) are checked before the statement, and
the coin is drawn once, first. A two-channel image raises ValueError only when the coin
says grayscale, as in the original."""
import torch
from torch import Tensor, nn


def rgb_to_grayscale(img: Tensor, num_output_channels: int = 1) -> Tensor:
    if img.ndim < 3:
        raise TypeError(f"Input image tensor should have at least 3 dimensions, but found {img.ndim}")

    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")

    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        # This implementation closely follows the TF one:
        # https://github.com/tensorflow/tensorflow/blob/v2.3.0/tensorflow/python/ops/image_ops_impl.py#L2105-L2138
        l_img = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype)
        l_img = l_img.unsqueeze(dim=-3)
    else:
        l_img = img.clone()

    if num_output_channels == 3:
        return l_img.expand(img.shape)

    return l_img


class ENTRY(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        num_output_channels = img.shape[-3]
        if torch.rand(1) < self.p:
            return rgb_to_grayscale(img, num_output_channels=num_output_channels)
        return img


def reset():
    torch.manual_seed(0)


RANDOM = True
torch.manual_seed(0)
INPUTS = [
    (torch.rand(3, 2, 4),),  # RGB; seed 0 draws grayscale
    (torch.rand(1, 2, 4),),  # one channel
    (torch.rand(2, 3, 2, 4),),  # a batch of RGB images
    (torch.rand(2, 2, 4),),  # two channels: ValueError where the coin says grayscale
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
