"""UNet2DConditionModel.forward: when the sample's size is not a multiple of the up
factor, it logs that it forwards the upsample size (`logger.info(...)`) on a condition over
static shapes; then the time embedding and a block. torch 2.13's Dynamo traces the
logging call without a break."""

import logging

import torch
from torch import nn

ORIGIN = "huggingface/diffusers: src/diffusers/models/unets/unet_2d_condition.py: UNet2DConditionModel.forward"
CATEGORY = "no_break"

logger = logging.getLogger(__name__)


class UNet2DConditionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_upsamplers = 1
        self.time_proj = nn.Linear(1, 2)
        self.conv_in = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, sample, timestep):
        default_overall_up_factor = 2**self.num_upsamplers

        # upsample size should be forwarded when sample is not a multiple of `default_overall_up_factor`
        forward_upsample_size = False
        upsample_size = None

        for dim in sample.shape[-2:]:
            if dim % default_overall_up_factor != 0:
                # Forward upsample size to force interpolation output size.
                forward_upsample_size = True
                break

        if forward_upsample_size:
            logger.info("Forward upsample size to force interpolation output size.")

        timesteps = timestep
        if not torch.is_tensor(timesteps):
            timesteps = torch.tensor([timesteps], dtype=torch.float32, device=sample.device)
        timesteps = timesteps.expand(sample.shape[0])
        emb = self.time_proj(timesteps[:, None].float())
        sample = self.conv_in(sample) + emb[:, :, None, None]
        return sample


ENTRY = UNet2DConditionModel
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3, 4), torch.tensor(5)),
    (torch.randn(1, 2, 4, 4), 3),
]
