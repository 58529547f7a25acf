"""rescale_noise_cfg: classifier-free guidance noise rescaled by the ratio of standard
deviations (Common Diffusion Noise Schedules and Sample Steps are Flawed, section 3.4). Pure
tensor code: no break."""

import torch

ORIGIN = "huggingface/diffusers: src/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py: rescale_noise_cfg"
CATEGORY = "no_break"


def rescale_noise_cfg(noise_cfg, noise_pred_text, guidance_rescale=0.0):
    std_text = noise_pred_text.std(dim=list(range(1, noise_pred_text.ndim)), keepdim=True)
    std_cfg = noise_cfg.std(dim=list(range(1, noise_cfg.ndim)), keepdim=True)
    # rescale the results from guidance (fixes overexposure)
    noise_pred_rescaled = noise_cfg * (std_text / std_cfg)
    # mix with the original results from guidance by factor guidance_rescale to avoid "plain looking" images
    noise_cfg = guidance_rescale * noise_pred_rescaled + (1 - guidance_rescale) * noise_cfg
    return noise_cfg


ENTRY = rescale_noise_cfg
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 4), torch.randn(2, 3, 4), 0.7),
    (torch.randn(2, 3, 4), torch.randn(2, 3, 4)),
]
