"""[Where] checked: branches calling a module helper that validates its argument and batches it
with static ifs, from kornia/kornia: kornia/utils/image.py: _to_bchw (`if not
isinstance(tensor, Tensor): raise TypeError(...)`, `if len(tensor.shape) < 2: raise
ValueError(...)`, then `if len(tensor.shape) == 2: tensor = tensor.unsqueeze(0)` and the
same for 3 and above 4). Dynamo resolves the static ifs while tracing; the validations are
checked before the statement (`isinstance(img, Tensor) and not len(img.shape) < 2`), and the
original runs where they fail, raising as it does."""
import torch
from torch import Tensor


def _to_bchw(tensor: Tensor) -> Tensor:
    """Convert a PyTorch tensor image to BCHW format."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(tensor)}")

    if len(tensor.shape) < 2:
        raise ValueError(f"Input size must be a two, three or four dimensional tensor. Got {tensor.shape}")

    if len(tensor.shape) == 2:
        tensor = tensor.unsqueeze(0)

    if len(tensor.shape) == 3:
        tensor = tensor.unsqueeze(0)

    if len(tensor.shape) > 4:
        tensor = tensor.view(-1, tensor.shape[-3], tensor.shape[-2], tensor.shape[-1])

    return tensor


def ENTRY(img, gain: float):
    img = img * 1.0
    if img.mean() > 0.5:
        out = _to_bchw(img) * gain
    else:
        out = _to_bchw(img)
    return out


INPUTS = [
    (torch.full((2, 3), 0.75), 0.5),  # HW, bright: scaled
    (torch.full((1, 2, 3), 0.25), 0.5),  # CHW, dark
    (torch.full((2, 1, 1, 2, 3), 0.75), 2.0),  # five dimensions, viewed as BCHW
    (torch.full((3,), 0.75), 0.5),  # one dimension: ValueError
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
