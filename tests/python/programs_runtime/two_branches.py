"""Two tensor branches; the second, and a helper in another file, are reached only when
``deep`` is true."""

import torch

from programs_runtime.helpers import shift


def run(x: torch.Tensor, deep: bool = False):
    if x.sum() > 0:  # SITE: reached
        y = x * 2
    else:
        y = x - 1
    print("y0", y[0])  # SITE: print
    if deep:
        if y.mean() > 1:  # SITE: unreached
            y = y + 10
        else:
            y = y - 10
        y = shift(y)
    return y
