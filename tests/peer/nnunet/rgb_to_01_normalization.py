"""nnU-Net's normalization of RGB images (numpy), run per channel by the preprocessor's
`_normalize` (from `run_case_npy`, which `run_case` runs for the predictor): both ends of the
8-bit range are checked by asserts on the image's values with their messages (`assert
image.min() >= 0, "RGB images are uint 8, ..."`, `assert image.max() <= 255, ...`), then the
image is cast to the target dtype and divided by 255. The step copies the image to float32 as
`run_case_npy` does and normalizes each channel as `_normalize` does (the scheme's class
looked up by name is this one); the result is handed back as a tensor so runs compare. Plain
torch.compile fails on it: Dynamo raises InternalTorchDynamoError ("NotImplementedError: argument
of type: <class 'type'>") at `image.astype(self.target_dtype, copy=False)`, the dtype being
`np.float32` from the `__init__` default of a normalizer built in the compiled loop."""

from abc import ABC, abstractmethod
from typing import Type

import numpy as np
import torch
from numpy import number

ORIGIN = "MIC-DKFZ/nnUNet: nnunetv2/preprocessing/normalization/default_normalization_schemes.py: RGBTo01Normalization.run"
CATEGORY = "trap"


class ImageNormalization(ABC):
    leaves_pixels_outside_mask_at_zero_if_use_mask_for_norm_is_true = None

    def __init__(self, use_mask_for_norm: bool = None, intensityproperties: dict = None,
                 target_dtype: Type[number] = np.float32):
        assert use_mask_for_norm is None or isinstance(use_mask_for_norm, bool)
        self.use_mask_for_norm = use_mask_for_norm
        assert isinstance(intensityproperties, dict)
        self.intensityproperties = intensityproperties
        self.target_dtype = target_dtype

    @abstractmethod
    def run(self, image: np.ndarray, seg: np.ndarray = None) -> np.ndarray:
        """
        Image and seg must have the same shape. Seg is not always used
        """
        pass


class RGBTo01Normalization(ImageNormalization):
    leaves_pixels_outside_mask_at_zero_if_use_mask_for_norm_is_true = False

    def run(self, image: np.ndarray, seg: np.ndarray = None) -> np.ndarray:
        assert image.min() >= 0, "RGB images are uint 8, for whatever reason I found pixel values smaller than 0. " \
                                 "Your images do not seem to be RGB images"
        assert image.max() <= 255, "RGB images are uint 8, for whatever reason I found pixel values greater than 255" \
                                   ". Your images do not seem to be RGB images"
        image = image.astype(self.target_dtype, copy=False)
        image /= 255.
        return image


def normalize(data, seg, use_mask_for_norm, intensity_properties):
    data = data.astype(np.float32)  # this creates a copy
    for c in range(data.shape[0]):
        normalizer = RGBTo01Normalization(use_mask_for_norm=use_mask_for_norm[c],
                                          intensityproperties=intensity_properties[str(c)])
        data[c] = normalizer.run(data[c], seg[0])
    return torch.from_numpy(data)


ENTRY = normalize
torch.manual_seed(0)
_rng = np.random.RandomState(0)
_seg = np.zeros((1, 4, 4), dtype=np.int8)
_props = {'0': {}, '1': {}, '2': {}}
_masks = [False, False, False]
_bad_low = _rng.randint(0, 256, (3, 4, 4)).astype(np.int16)
_bad_low[1, 2, 3] = -4
_bad_high = _rng.randint(0, 256, (3, 4, 4)).astype(np.int16)
_bad_high[2, 0, 1] = 300
INPUTS = [
    (_rng.randint(0, 256, (3, 4, 4)).astype(np.uint8), _seg, _masks, _props),
    # a negative value in the second channel: the first assert fails
    (_bad_low, _seg, _masks, _props),
    # a value over 255 in the third channel: the second assert fails
    (_bad_high, _seg, _masks, _props),
]
