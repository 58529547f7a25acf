"""timm's DropPath: per-sample stochastic depth; its conditions are on `drop_prob`,
`training` and `scale_by_keep` (Python values), so it does not break. Run in eval mode."""

import torch
from torch import nn

ORIGIN = "huggingface/pytorch-image-models: timm/layers/drop.py: drop_path"
CATEGORY = "no_break"


def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)  # work with diff dim tensors, not just 2D ConvNets
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob: float = 0.1, scale_by_keep: bool = True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep
        self.mlp = nn.Linear(4, 4)

    def forward(self, x):
        return x + drop_path(self.mlp(x), self.drop_prob, self.training, self.scale_by_keep)


def make():
    torch.manual_seed(0)
    return DropPath().eval()


ENTRY = DropPath
torch.manual_seed(0)
INPUTS = [(torch.randn(2, 4),), (torch.randn(3, 4),)]
