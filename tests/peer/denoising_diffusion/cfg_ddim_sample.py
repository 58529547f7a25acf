"""denoising-diffusion-pytorch's classifier-free-guidance GaussianDiffusion.ddim_sample:
the DDIM time pairs are read as Python ints (`list(reversed(times.int().tolist()))`),
then each step asks the guided model for noise and start (`forward_with_cond_scale`,
conditioned and unconditioned, the update's parallel component removed), stops at the last
pair (`if time_next < 0:` on an int) and otherwise steps with fresh noise. Shrunk: a
one-layer conditional net, four timesteps sampled in three, the `pred_noise` objective,
and no tqdm progress bar (its timings would differ from run to run)."""

import math
from collections import namedtuple
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "lucidrains/denoising-diffusion-pytorch: denoising_diffusion_pytorch/classifier_free_guidance.py: GaussianDiffusion.ddim_sample"
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


def project(x, y):
    shape, dtype = x.shape, x.dtype
    x, y = x.flatten(1).double(), y.flatten(1).double()
    unit = F.normalize(y, dim = -1)
    parallel = (x * unit).sum(dim = -1, keepdim = True) * unit
    orthogonal = x - parallel
    return parallel.reshape(shape).to(dtype), orthogonal.reshape(shape).to(dtype)


class Unet(nn.Module):
    def __init__(self, channels = 1, num_classes = 3):
        super().__init__()
        self.proj = nn.Conv2d(channels, channels, 1)
        self.classes_emb = nn.Embedding(num_classes, channels)
        self.null_classes_emb = nn.Parameter(torch.randn(channels))

    def forward(self, x, time, classes, cond_drop_prob = 0.):
        classes_emb = self.classes_emb(classes)
        if cond_drop_prob > 0:
            classes_emb = self.null_classes_emb.expand_as(classes_emb) if cond_drop_prob == 1. else classes_emb
        t = torch.tanh(time.float() / 4).view(-1, 1, 1, 1)
        return self.proj(x) * (1 + t) + classes_emb[:, :, None, None]

    def forward_with_cond_scale(
        self,
        *args,
        cond_scale = 1.,
        rescaled_phi = 0.,
        remove_parallel_component = True,
        keep_parallel_frac = 0.,
        **kwargs
    ):
        logits = self.forward(*args, cond_drop_prob = 0., **kwargs)

        if cond_scale == 1:
            return logits

        null_logits = self.forward(*args, cond_drop_prob = 1., **kwargs)
        update = logits - null_logits

        if remove_parallel_component:
            parallel, orthog = project(update, logits)
            update = orthog + parallel * keep_parallel_frac

        scaled_logits = logits + update * (cond_scale - 1.)

        if rescaled_phi == 0.:
            return scaled_logits, null_logits

        std_fn = partial(torch.std, dim = tuple(range(1, scaled_logits.ndim)), keepdim = True)
        rescaled_logits = scaled_logits * (std_fn(logits) / std_fn(scaled_logits))
        interpolated_rescaled_logits = rescaled_logits * rescaled_phi + scaled_logits * (1. - rescaled_phi)

        return interpolated_rescaled_logits, null_logits


class GaussianDiffusion(nn.Module):
    def __init__(self, timesteps = 4, sampling_timesteps = 3, ddim_sampling_eta = 1.):
        super().__init__()
        self.model = Unet()
        self.objective = 'pred_noise'
        self.use_cfg_plus_plus = False
        self.num_timesteps = timesteps
        self.sampling_timesteps = sampling_timesteps
        self.ddim_sampling_eta = ddim_sampling_eta

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

    def model_predictions(self, x, t, classes, cond_scale = 6., rescaled_phi = 0.7, clip_x_start = False):
        model_output, model_output_null = self.model.forward_with_cond_scale(x, t, classes, cond_scale = cond_scale, rescaled_phi = rescaled_phi)
        maybe_clip = partial(torch.clamp, min = -1., max = 1.) if clip_x_start else identity

        pred_noise = model_output if not self.use_cfg_plus_plus else model_output_null

        x_start = self.predict_start_from_noise(x, t, model_output)
        x_start = maybe_clip(x_start)

        return ModelPrediction(pred_noise, x_start)

    @torch.no_grad()
    def ddim_sample(self, classes, shape, cond_scale = 6., rescaled_phi = 0.7, clip_denoised = True):
        batch, device, total_timesteps, sampling_timesteps, eta, objective = shape[0], self.betas.device, self.num_timesteps, self.sampling_timesteps, self.ddim_sampling_eta, self.objective

        times = torch.linspace(-1, total_timesteps - 1, steps=sampling_timesteps + 1)   # [-1, 0, 1, 2, ..., T-1] when sampling_timesteps == total_timesteps
        times = list(reversed(times.int().tolist()))
        time_pairs = list(zip(times[:-1], times[1:])) # [(T-1, T-2), (T-2, T-3), ..., (1, 0), (0, -1)]

        img = torch.randn(shape, device = device)

        x_start = None

        for time, time_next in time_pairs:
            time_cond = torch.full((batch,), time, device=device, dtype=torch.long)
            pred_noise, x_start, *_ = self.model_predictions(img, time_cond, classes, cond_scale = cond_scale, rescaled_phi = rescaled_phi, clip_x_start = clip_denoised)

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

        img = unnormalize_to_zero_to_one(img)
        return img

    def forward(self, classes, cond_scale = 6., rescaled_phi = 0.7):
        return self.ddim_sample(classes, (classes.shape[0], 1, 2, 2), cond_scale, rescaled_phi)


ENTRY = GaussianDiffusion

def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0, 2]),),
    (torch.tensor([1]), 3., 0.),
]
