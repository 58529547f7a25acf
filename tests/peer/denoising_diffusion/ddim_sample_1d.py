"""denoising-diffusion-pytorch's GaussianDiffusion1D.ddim_sample: the DDIM time pairs are
read as Python ints (`list(reversed(times.int().tolist()))`), then each step predicts noise
and start from a 1-d model (keyword arguments passed through), stops at the last pair
(`if time_next < 0:` on an int) and otherwise steps with fresh noise; it returns the
starting noise too when asked. Shrunk: a one-layer net, four timesteps sampled in three,
the `pred_noise` objective, and no tqdm progress bar (its timings would differ from run
to run)."""

from collections import namedtuple
from functools import partial

import torch
from torch import nn
from torch.nn import Module

ORIGIN = "lucidrains/denoising-diffusion-pytorch: denoising_diffusion_pytorch/denoising_diffusion_pytorch_1d.py: GaussianDiffusion1D.ddim_sample"
CATEGORY = "out_of_scope"

ModelPrediction = namedtuple('ModelPrediction', ['pred_noise', 'pred_x_start'])


def identity(t, *args, **kwargs):
    return t


def unnormalize_to_zero_to_one(t):
    return (t + 1) * 0.5


def extract(a, t, x_shape):
    b, *_ = t.shape
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


class Unet1D(Module):
    def __init__(self, channels = 2):
        super().__init__()
        self.proj = nn.Conv1d(channels, channels, 1)

    def forward(self, x, time, x_self_cond = None, scale = 1.):
        t = torch.tanh(time.float() / 4).view(-1, 1, 1)
        return self.proj(x) * (1 + t) * scale


class GaussianDiffusion1D(Module):
    def __init__(self, timesteps = 4, sampling_timesteps = 3, ddim_sampling_eta = 1.):
        super().__init__()
        self.model = Unet1D()
        self.self_condition = False
        self.objective = 'pred_noise'
        self.num_timesteps = timesteps
        self.sampling_timesteps = sampling_timesteps
        self.ddim_sampling_eta = ddim_sampling_eta
        self.unnormalize = unnormalize_to_zero_to_one

        betas = torch.linspace(0.1, 0.4, timesteps, dtype = torch.float64)
        alphas_cumprod = torch.cumprod(1. - betas, dim = 0)
        register_buffer = lambda name, val: self.register_buffer(name, val.to(torch.float32))
        register_buffer('betas', betas)
        register_buffer('alphas_cumprod', alphas_cumprod)
        register_buffer('sqrt_recip_alphas_cumprod', torch.sqrt(1. / alphas_cumprod))
        register_buffer('sqrt_recipm1_alphas_cumprod', torch.sqrt(1. / alphas_cumprod - 1))

    def predict_start_from_noise(self, x_t, t, noise):
        return (
            extract(self.sqrt_recip_alphas_cumprod, t, x_t.shape) * x_t -
            extract(self.sqrt_recipm1_alphas_cumprod, t, x_t.shape) * noise
        )

    def model_predictions(self, x, t, x_self_cond = None, clip_x_start = False, rederive_pred_noise = False, model_forward_kwargs: dict = dict()):
        model_output = self.model(x, t, x_self_cond, **model_forward_kwargs)
        maybe_clip = partial(torch.clamp, min = -1., max = 1.) if clip_x_start else identity

        pred_noise = model_output
        x_start = self.predict_start_from_noise(x, t, pred_noise)
        x_start = maybe_clip(x_start)

        return ModelPrediction(pred_noise, x_start)

    @torch.no_grad()
    def ddim_sample(self, shape, clip_denoised = True, model_forward_kwargs: dict = dict(), return_noise = False):
        batch, device, total_timesteps, sampling_timesteps, eta, objective = shape[0], self.betas.device, self.num_timesteps, self.sampling_timesteps, self.ddim_sampling_eta, self.objective

        times = torch.linspace(-1, total_timesteps - 1, steps=sampling_timesteps + 1)   # [-1, 0, 1, 2, ..., T-1] when sampling_timesteps == total_timesteps
        times = list(reversed(times.int().tolist()))
        time_pairs = list(zip(times[:-1], times[1:])) # [(T-1, T-2), (T-2, T-3), ..., (1, 0), (0, -1)]

        noise = torch.randn(shape, device = device)
        img = noise

        x_start = None

        for time, time_next in time_pairs:
            time_cond = torch.full((batch,), time, device=device, dtype=torch.long)
            self_cond = x_start if self.self_condition else None
            pred_noise, x_start, *_ = self.model_predictions(img, time_cond, self_cond, clip_x_start = clip_denoised, model_forward_kwargs = model_forward_kwargs)

            if time_next < 0:
                img = x_start
                continue

            alpha = self.alphas_cumprod[time]
            alpha_next = self.alphas_cumprod[time_next]

            sigma = eta * ((1 - alpha / alpha_next) * (1 - alpha_next) / (1 - alpha)).sqrt()
            c = (1 - alpha_next - sigma ** 2).sqrt()

            noise = torch.randn_like(img)

            img = x_start * alpha_next.sqrt() + \
                  c * pred_noise + \
                  sigma * noise

        img = self.unnormalize(img)

        if not return_noise:
            return img

        return img, noise

    def forward(self, batch_size, clip_denoised = True, return_noise = False):
        return self.ddim_sample((batch_size, 2, 3), clip_denoised, dict(scale = 0.5), return_noise)


ENTRY = GaussianDiffusion1D

def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (2,),
    (1, False, True),
]
