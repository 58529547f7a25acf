"""nnU-Net's sliding-window tiling, called by `predict_sliding_window_return_logits`: the tile
origins of every axis come from `compute_steps_for_sliding_window` (evenly spread steps at most
`tile_step_size` of a tile apart); a 2d configuration on a 3d image (a patch one entry shorter
than the image, checked by an assert with its message) tiles every slice, a 3d one the volume,
and in verbose mode the number of steps, the sizes and the steps are printed
(`print(f'n_steps {...}, image size is ...')`). The step tiles a small image and stacks the tiles,
as the sliding window's producer cuts them. The predictor is reduced to the settings the method
reads (the patch size of its configuration, the step size, `verbose`). The `print` breaks plain
torch.compile, and so do the steps' numpy roundings of Python numbers (`int(np.ceil(...))` over
a `zip` with the image's `torch.Size`, `int(np.round(...))` in the loop over the axes)."""

from types import SimpleNamespace
from typing import Tuple, List

import numpy as np
import torch

ORIGIN = "MIC-DKFZ/nnUNet: nnunetv2/inference/predict_from_raw_data.py: nnUNetPredictor._internal_get_sliding_window_slicers"
CATEGORY = "defer"


def compute_steps_for_sliding_window(image_size: Tuple[int, ...], tile_size: Tuple[int, ...], tile_step_size: float) -> \
        List[List[int]]:
    assert [i >= j for i, j in zip(image_size, tile_size)], "image size must be as large or larger than patch_size"
    assert 0 < tile_step_size <= 1, 'step_size must be larger than 0 and smaller or equal to 1'

    # at most patch_size*step_size apart, possibly narrower (even spread over the image)
    target_step_sizes_in_voxels = [i * tile_step_size for i in tile_size]

    num_steps = [int(np.ceil((i - k) / j)) + 1 for i, j, k in zip(image_size, target_step_sizes_in_voxels, tile_size)]

    steps = []
    for dim in range(len(tile_size)):
        max_step_value = image_size[dim] - tile_size[dim]
        if num_steps[dim] > 1:
            actual_step_size = max_step_value / (num_steps[dim] - 1)
        else:
            actual_step_size = 99999999999  # does not matter because there is only one step at 0

        steps_here = [int(np.round(actual_step_size * i)) for i in range(num_steps[dim])]

        steps.append(steps_here)

    return steps


class nnUNetPredictor(object):
    def __init__(self, patch_size, tile_step_size: float = 0.5, verbose: bool = False):
        self.configuration_manager = SimpleNamespace(patch_size=list(patch_size))
        self.tile_step_size = tile_step_size
        self.verbose = verbose

    def _internal_get_sliding_window_slicers(self, image_size: Tuple[int, ...]):
        slicers = []
        if len(self.configuration_manager.patch_size) < len(image_size):
            assert len(self.configuration_manager.patch_size) == len(
                image_size) - 1, 'if tile_size has less entries than image_size, ' \
                                 'len(tile_size) ' \
                                 'must be one shorter than len(image_size) ' \
                                 '(only dimension ' \
                                 'discrepancy of 1 allowed).'
            steps = compute_steps_for_sliding_window(image_size[1:], self.configuration_manager.patch_size,
                                                     self.tile_step_size)
            if self.verbose:
                print(f'n_steps {image_size[0] * len(steps[0]) * len(steps[1])}, image size is'
                      f' {image_size}, tile_size {self.configuration_manager.patch_size}, '
                      f'tile_step_size {self.tile_step_size}\nsteps:\n{steps}')
            for d in range(image_size[0]):
                for sx in steps[0]:
                    for sy in steps[1]:
                        slicers.append(
                            tuple([slice(None), d, *[slice(si, si + ti) for si, ti in
                                                     zip((sx, sy), self.configuration_manager.patch_size)]]))
        else:
            steps = compute_steps_for_sliding_window(image_size, self.configuration_manager.patch_size,
                                                     self.tile_step_size)
            if self.verbose:
                print(
                    f'n_steps {np.prod([len(i) for i in steps])}, image size is {image_size}, tile_size {self.configuration_manager.patch_size}, '
                    f'tile_step_size {self.tile_step_size}\nsteps:\n{steps}')
            for sx in steps[0]:
                for sy in steps[1]:
                    for sz in steps[2]:
                        slicers.append(
                            tuple([slice(None), *[slice(si, si + ti) for si, ti in
                                                  zip((sx, sy, sz), self.configuration_manager.patch_size)]]))
        return slicers


def tile(data, patch_size, tile_step_size, verbose):
    predictor = nnUNetPredictor(patch_size, tile_step_size, verbose)
    slicers = predictor._internal_get_sliding_window_slicers(data.shape[1:])
    tiles = torch.stack([torch.clone(data[s][None], memory_format=torch.contiguous_format) for s in slicers])
    return slicers, tiles


ENTRY = tile
torch.manual_seed(0)
INPUTS = [
    # 3d configuration: 2 x 2 x 1 tiles of a (6, 6, 4) volume, printed
    (torch.randn(1, 6, 6, 4), (4, 4, 4), 0.5, True),
    # 2d configuration on a 3d image: every one of the 2 slices tiled 3 x 1
    (torch.randn(2, 2, 7, 4), (4, 4), 0.5, True),
    (torch.randn(1, 5, 4, 4), (4, 4, 4), 1.0, False),
    # a patch two entries shorter than the image: the assert fails
    (torch.randn(1, 6, 6, 4), (4,), 0.5, True),
    # a step size over 1: compute_steps_for_sliding_window's assert fails
    (torch.randn(1, 6, 6, 4), (4, 4, 4), 1.5, True),
]
