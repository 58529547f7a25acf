"""timm's PatchEmbed with a strict image size: `_assert(H == self.img_size[0], f"Input height
({H}) doesn't match model ({self.img_size[0]}).")` on static shapes: no break; a wrong size
raises."""

import torch
from torch import nn

ORIGIN = "huggingface/pytorch-image-models: timm/layers/patch_embed.py: PatchEmbed.forward"
CATEGORY = "no_break"


def _assert(condition, message):
    assert condition, message


class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.img_size = (4, 4)
        self.patch_size = (2, 2)
        self.strict_img_size = True
        self.flatten = True
        self.proj = nn.Conv2d(3, 4, kernel_size=2, stride=2)
        self.norm = nn.Identity()

    def forward(self, x):
        B, C, H, W = x.shape
        if self.img_size is not None:
            if self.strict_img_size:
                _assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
                _assert(W == self.img_size[1], f"Input width ({W}) doesn't match model ({self.img_size[1]}).")
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)  # NCHW -> NLC
        x = self.norm(x)
        return x


ENTRY = PatchEmbed
torch.manual_seed(0)
INPUTS = [(torch.randn(1, 3, 4, 4),), (torch.randn(1, 3, 6, 4),)]
