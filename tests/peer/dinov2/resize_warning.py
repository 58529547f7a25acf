"""DINOv2's depth estimation heads, the `resize` every head and the depther call
(F.interpolate): asked to, it warns when corners are aligned but the sizes are not of the
form `x+1` → `nx+1` (`warnings.warn(f"When align_corners={align_corners}, ...")`); the
sizes are read with `int(x) for x in input.shape[2:]`. Called here as the DPT-style decode
head does, upsampling its features by a given size."""

import warnings

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "facebookresearch/dinov2: dinov2/eval/depth/ops/wrappers.py: resize"
CATEGORY = "defer"


def resize(input, size=None, scale_factor=None, mode="nearest", align_corners=None, warning=False):
    if warning:
        if size is not None and align_corners:
            input_h, input_w = tuple(int(x) for x in input.shape[2:])
            output_h, output_w = tuple(int(x) for x in size)
            if output_h > input_h or output_w > output_h:
                if (
                    (output_h > 1 and output_w > 1 and input_h > 1 and input_w > 1)
                    and (output_h - 1) % (input_h - 1)
                    and (output_w - 1) % (input_w - 1)
                ):
                    warnings.warn(
                        f"When align_corners={align_corners}, "
                        "the output would more aligned if "
                        f"input size {(input_h, input_w)} is `x+1` and "
                        f"out size {(output_h, output_w)} is `nx+1`"
                    )
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class UpsampleHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 2, 1)

    def forward(self, x, size, align_corners, warning):
        x = resize(self.conv(x), size=size, mode="bilinear", align_corners=align_corners, warning=warning)
        return x.relu()


torch.manual_seed(0)
ENTRY = UpsampleHead
INPUTS = [
    # 4x4 -> 8x8 with aligned corners: 7 % 3 != 0, it warns
    (torch.randn(1, 4, 4, 4), (8, 8), True, True),
    # 4x4 -> 7x7: `nx+1`, no warning
    (torch.randn(1, 4, 4, 4), (7, 7), True, True),
    # corners not aligned, and no check asked
    (torch.randn(1, 4, 4, 4), (8, 8), False, True),
    (torch.randn(1, 4, 3, 3), (8, 8), True, False),
]
