"""make_grid with normalize=True: each image is scaled by its own range, read with
`float(t.min())` and `float(t.max())`, which feed arithmetic (`max(high - low, 1e-5)`) and
not a condition. Not fixable by design: Python floats computed from tensor data."""

import torch

ORIGIN = "pytorch/vision: torchvision/utils.py: make_grid"
CATEGORY = "out_of_scope"


def norm_ip(img, low, high):
    img.clamp_(min=low, max=high)
    img.sub_(low).div_(max(high - low, 1e-5))


def norm_range(t, value_range):
    if value_range is not None:
        norm_ip(t, value_range[0], value_range[1])
    else:
        norm_ip(t, float(t.min()), float(t.max()))


def make_grid(tensor, normalize=True, value_range=None, scale_each=False):
    tensor = tensor * 1.0
    if normalize is True:
        tensor = tensor.clone()  # avoid modifying tensor in-place
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")

        if scale_each is True:
            for t in tensor:  # loop over mini-batch dimension
                norm_range(t, value_range)
        else:
            norm_range(tensor, value_range)
    return tensor


ENTRY = make_grid
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 2, 2),),
    (torch.randn(2, 3, 2, 2), True, (-1.0, 1.0)),
    (torch.randn(2, 3, 2, 2), True, None, True),
]
