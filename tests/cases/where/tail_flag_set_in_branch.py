"""[Where] tail duplication of a flag set in a branch and tested later, from
huggingface/diffusers: src/diffusers/image_processor.py: VaeImageProcessor.preprocess (`if
do_normalize and image.min() < 0: warnings.warn(...); do_normalize = False`, then `if
do_normalize: image = self.normalize(image)` and `if self.config.do_binarize: image =
self.binarize(image)`). Each side calls the rest of the function with its own flag, a
literal there, so the later test is static on each side; `self.normalize` is computed as its
definition shows, checked by runtime.same_method; `binarize` changes the image in place, so
the rewrite runs only where `not self.config.do_binarize` holds, checked before it, and the
original runs otherwise (the second module sets it). The warning is recorded with its
condition."""
import warnings

import torch
from torch import nn


class Config:
    do_normalize = True
    do_binarize = False


class ENTRY(nn.Module):
    def __init__(self, binarize=False):
        super().__init__()
        self.config = Config()
        self.config.do_binarize = binarize

    @staticmethod
    def normalize(images):
        return 2.0 * images - 1.0

    def binarize(self, image):
        image[image < 0.5] = 0
        image[image >= 0.5] = 1
        return image

    def forward(self, image):
        image = torch.cat([image], axis=0)
        do_normalize = self.config.do_normalize
        if do_normalize and image.min() < 0:
            warnings.warn(
                "Passing `image` as torch tensor with value range in [-1,1] is deprecated. "
                f"You passed `image` with value range [{image.min()},{image.max()}]",
                FutureWarning,
            )
            do_normalize = False
        if do_normalize:
            image = self.normalize(image)

        if self.config.do_binarize:
            image = self.binarize(image)

        return image


class Binarizing(ENTRY):
    def __init__(self):
        super().__init__(binarize=True)


def make():
    return ENTRY()


INPUTS = [
    (torch.tensor([[0.25, 0.75]]),),  # in [0, 1]: normalized
    (torch.tensor([[-0.5, 0.75]]),),  # in [-1, 1]: warns, left as it is
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM104", "where")]
EXPECTED_DECLINES = []
