"""IPAdapterMaskProcessor.downsample, called by the IP-Adapter attention processors inside the
UNet forward: the mask is resized to the query grid and, when the mask's aspect ratio does
not fit the number of queries, a warning is raised while the mask is padded or cut
(`if downsampled_area < num_queries: warnings.warn(...); mask_downsample = F.pad(...)`)."""

import math
import warnings

import torch
import torch.nn.functional as F

ORIGIN = "huggingface/diffusers: src/diffusers/image_processor.py: IPAdapterMaskProcessor.downsample"
CATEGORY = "defer"


def downsample(mask: torch.Tensor, batch_size: int, num_queries: int, value_embed_dim: int):
    o_h = mask.shape[1]
    o_w = mask.shape[2]
    ratio = o_w / o_h
    mask_h = int(math.sqrt(num_queries / ratio))
    mask_h = int(mask_h) + int((num_queries % int(mask_h)) != 0)
    mask_w = num_queries // mask_h

    mask_downsample = F.interpolate(mask.unsqueeze(0), size=(mask_h, mask_w), mode="bicubic").squeeze(0)

    # Repeat batch_size times
    if mask_downsample.shape[0] < batch_size:
        mask_downsample = mask_downsample.repeat(batch_size, 1, 1)

    mask_downsample = mask_downsample.view(mask_downsample.shape[0], -1)

    downsampled_area = mask_h * mask_w
    # If the output image and the mask do not have the same aspect ratio, tensor shapes will not match
    # Pad tensor if downsampled_mask.shape[1] is smaller than num_queries
    if downsampled_area < num_queries:
        warnings.warn(
            "The aspect ratio of the mask does not match the aspect ratio of the output image. "
            "Please update your masks or adjust the output size for optimal performance.",
            UserWarning,
        )
        mask_downsample = F.pad(mask_downsample, (0, num_queries - mask_downsample.shape[1]), value=0.0)
    # Discard last embeddings if downsampled_mask.shape[1] is bigger than num_queries
    if downsampled_area > num_queries:
        warnings.warn(
            "The aspect ratio of the mask does not match the aspect ratio of the output image. "
            "Please update your masks or adjust the output size for optimal performance.",
            UserWarning,
        )
        mask_downsample = mask_downsample[:, :num_queries]

    # Repeat last dimension to match SDPA output shape
    mask_downsample = mask_downsample.view(mask_downsample.shape[0], mask_downsample.shape[1], 1).repeat(
        1, 1, value_embed_dim
    )

    return mask_downsample


ENTRY = downsample
torch.manual_seed(0)
INPUTS = [
    (torch.rand(1, 8, 8), 2, 10, 3),
    (torch.rand(1, 8, 8), 2, 16, 3),
    (torch.rand(2, 4, 12), 2, 7, 2),
]
