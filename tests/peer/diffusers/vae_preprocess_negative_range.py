"""VaeImageProcessor.preprocess on tensor input: an image already in [-1, 1] is detected by
its minimum (`if do_normalize and image.min() < 0:`), which warns with the tensor's range
formatted into the message (`warnings.warn(f"... [{image.min()},{image.max()}]",
FutureWarning)`) and turns off the later normalization (`do_normalize = False` ...
`if do_normalize: image = self.normalize(image)`). The PIL and numpy input paths are left
out."""

import warnings
from typing import Optional

import torch
from torch import nn

ORIGIN = "huggingface/diffusers: src/diffusers/image_processor.py: VaeImageProcessor.preprocess"
CATEGORY = "mixed"


class Config:
    do_resize = True
    vae_scale_factor = 2
    do_normalize = True
    do_binarize = False
    do_convert_grayscale = False
    vae_latent_channels = 4


class VaeImageProcessor(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = Config()

    @staticmethod
    def normalize(images):
        return 2.0 * images - 1.0

    def binarize(self, image):
        image[image < 0.5] = 0
        image[image >= 0.5] = 1
        return image

    def resize(self, image, height: int, width: int, resize_mode: str = "default"):
        return torch.nn.functional.interpolate(image, size=(height, width))

    def get_default_height_width(self, image, height: Optional[int] = None, width: Optional[int] = None):
        if height is None:
            height = image.shape[2]
        if width is None:
            width = image.shape[3]
        width, height = (x - x % self.config.vae_scale_factor for x in (width, height))  # resize to integer multiple of vae_scale_factor
        return height, width

    def preprocess(
        self,
        image,
        height: Optional[int] = None,
        width: Optional[int] = None,
        resize_mode: str = "default",  # "default", "fill", "crop"
    ) -> torch.Tensor:
        # Expand the missing dimension for 3-dimensional pytorch tensor or numpy array that represents grayscale image
        if self.config.do_convert_grayscale and isinstance(image, torch.Tensor) and image.ndim == 3:
            image = image.unsqueeze(1)

        if isinstance(image, list) and isinstance(image[0], torch.Tensor) and image[0].ndim == 4:
            warnings.warn(
                "Passing `image` as a list of 4d torch.Tensor is deprecated."
                "Please concatenate the list along the batch dimension and pass it as a single 4d torch.Tensor",
                FutureWarning,
            )
            image = torch.cat(image, axis=0)

        if not isinstance(image, list):
            image = [image]

        if isinstance(image[0], torch.Tensor):
            image = torch.cat(image, axis=0) if image[0].ndim == 4 else torch.stack(image, axis=0)

            if self.config.do_convert_grayscale and image.ndim == 3:
                image = image.unsqueeze(1)

            channel = image.shape[1]
            # don't need any preprocess if the image is latents
            if channel == self.config.vae_latent_channels:
                return image

            height, width = self.get_default_height_width(image, height, width)
            if self.config.do_resize:
                image = self.resize(image, height, width, resize_mode=resize_mode)

        # expected range [0,1], normalize to [-1,1]
        do_normalize = self.config.do_normalize
        if do_normalize and image.min() < 0:
            warnings.warn(
                "Passing `image` as torch tensor with value range in [-1,1] is deprecated. The expected value range for image tensor is [0,1] "
                f"when passing as pytorch tensor or numpy Array. You passed `image` with value range [{image.min()},{image.max()}]",
                FutureWarning,
            )
            do_normalize = False
        if do_normalize:
            image = self.normalize(image)

        if self.config.do_binarize:
            image = self.binarize(image)

        return image

    def forward(self, image, height=None, width=None):
        return self.preprocess(image, height, width)


ENTRY = VaeImageProcessor
torch.manual_seed(0)
INPUTS = [
    (torch.rand(1, 3, 5, 4) * 2 - 1,),
    (torch.rand(1, 3, 5, 4),),
    (torch.rand(3, 4, 4), 2, 2),
    (torch.randn(1, 4, 2, 2),),
]
