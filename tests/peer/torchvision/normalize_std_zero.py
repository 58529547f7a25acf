"""torchvision's tensor normalize: the std sequence, converted to the image's dtype, is
checked for zeros (`if (std == 0).any(): raise ValueError(f"... {dtype} ...")`): a guard whose
message formats a dtype."""

import torch

ORIGIN = "pytorch/vision: torchvision/transforms/_functional_tensor.py: normalize"
CATEGORY = "trap"


def normalize(tensor, mean, std, inplace=False):
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")

    if tensor.ndim < 3:
        raise ValueError(
            f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = {tensor.size()}"
        )

    if not inplace:
        tensor = tensor.clone()

    dtype = tensor.dtype
    mean = torch.as_tensor(mean, dtype=dtype, device=tensor.device)
    std = torch.as_tensor(std, dtype=dtype, device=tensor.device)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to division by zero.")
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    return tensor.sub_(mean).div_(std)


def preprocess(image, mean, std):
    image = image * 2.0
    return normalize(image, mean, std)


ENTRY = preprocess
torch.manual_seed(0)
INPUTS = [
    (torch.rand(3, 2, 2), torch.tensor([0.5, 0.4, 0.3]), torch.tensor([0.2, 0.2, 0.25])),
    (torch.rand(3, 2, 2), torch.tensor([0.5, 0.4, 0.3]), torch.tensor([0.2, 0.0, 0.25])),
]
