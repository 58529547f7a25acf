"""denoising-diffusion-pytorch's GaussianDiffusion.ddim_sample: the DDIM time pairs are
read as Python ints (`list(reversed(times.int().tolist()))`), then each step predicts noise
and start (clipped, the noise re-derived from the clipped start), stops at the last pair
(`if time_next < 0:` on an int) and otherwise steps with fresh noise, keeping every step's
image when asked. Shrunk: a one-layer net, four timesteps sampled in three, the
`pred_noise` objective, and no tqdm progress bar (its timings would differ from run to
run); the original's `torch.inference_mode()` is kept."""

from collections import namedtuple
from functools import partial

import torch
from torch import nn
from torch.nn import Module

ORIGIN = "lucidrains/denoising-diffusion-pytorch: denoising_diffusion_pytorch/denoising_diffusion_pytorch.py: GaussianDiffusion.ddim_sample"
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


class Unet(Module):
    def __init__(self, channels = 1):
        super().__init__()
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, x, time, x_self_cond = None):
        t = torch.tanh(time.float() / 4).view(-1, 1, 1, 1)
        return self.proj(x) * (1 + t)


class GaussianDiffusion(Module):
    def __init__(self, timesteps = 4, sampling_timesteps = 3, ddim_sampling_eta = 1.):
        super().__init__()
        self.model = Unet()
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

    @property
    def device(self):
        return self.betas.device

    def predict_start_from_noise(self, x_t, t, noise):
        return (
            extract(self.sqrt_recip_alphas_cumprod, t, x_t.shape) * x_t -
            extract(self.sqrt_recipm1_alphas_cumprod, t, x_t.shape) * noise
        )

    def predict_noise_from_start(self, x_t, t, x0):
        return (
            (extract(self.sqrt_recip_alphas_cumprod, t, x_t.shape) * x_t - x0) / \
            extract(self.sqrt_recipm1_alphas_cumprod, t, x_t.shape)
        )

    def model_predictions(self, x, t, x_self_cond = None, clip_x_start = False, rederive_pred_noise = False):
        model_output = self.model(x, t, x_self_cond)
        maybe_clip = partial(torch.clamp, min = -1., max = 1.) if clip_x_start else identity

        pred_noise = model_output
        x_start = self.predict_start_from_noise(x, t, pred_noise)
        x_start = maybe_clip(x_start)

        if clip_x_start and rederive_pred_noise:
            pred_noise = self.predict_noise_from_start(x, t, x_start)

        return ModelPrediction(pred_noise, x_start)

    @torch.inference_mode()
    def ddim_sample(self, shape, return_all_timesteps = False):
        batch, device, total_timesteps, sampling_timesteps, eta, objective = shape[0], self.device, self.num_timesteps, self.sampling_timesteps, self.ddim_sampling_eta, self.objective

        times = torch.linspace(-1, total_timesteps - 1, steps = sampling_timesteps + 1)   # [-1, 0, 1, 2, ..., T-1] when sampling_timesteps == total_timesteps
        times = list(reversed(times.int().tolist()))
        time_pairs = list(zip(times[:-1], times[1:])) # [(T-1, T-2), (T-2, T-3), ..., (1, 0), (0, -1)]

        img = torch.randn(shape, device = device)
        imgs = [img]

        x_start = None

        for time, time_next in time_pairs:
            time_cond = torch.full((batch,), time, device = device, dtype = torch.long)
            self_cond = x_start if self.self_condition else None
            pred_noise, x_start, *_ = self.model_predictions(img, time_cond, self_cond, clip_x_start = True, rederive_pred_noise = True)

            if time_next < 0:
                img = x_start
                imgs.append(img)
                continue

            alpha = self.alphas_cumprod[time]
            alpha_next = self.alphas_cumprod[time_next]

            sigma = eta * ((1 - alpha / alpha_next) * (1 - alpha_next) / (1 - alpha)).sqrt()
            c = (1 - alpha_next - sigma ** 2).sqrt()

            noise = torch.randn_like(img)

            img = x_start * alpha_next.sqrt() + \
                  c * pred_noise + \
                  sigma * noise

            imgs.append(img)

        ret = img if not return_all_timesteps else torch.stack(imgs, dim = 1)

        ret = self.unnormalize(ret)
        return ret

    def forward(self, batch_size, return_all_timesteps = False):
        return self.ddim_sample((batch_size, 1, 2, 2), return_all_timesteps)


ENTRY = GaussianDiffusion

def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (2,),
    (1, True),
]
