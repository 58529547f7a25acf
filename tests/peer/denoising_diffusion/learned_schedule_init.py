"""denoising-diffusion-pytorch's ContinuousTimeGaussianDiffusion.__init__: for the learned
noise schedule, the bounds of the linear schedule's log-SNR are read as Python floats
(`beta_linear_log_snr(torch.tensor([time])).item()`) and become the learned schedule's
slope and intercept; an unknown schedule raises. A sampling step builds the diffusion
for the schedule it is given and evaluates its log-SNR at the step's times. Shrunk: the
model is a stand-in with the two flags the constructor asserts, einops' `Rearrange`
layers are written as `unsqueeze`/`squeeze` modules, a hidden size of 4."""

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.special import expm1

ORIGIN = "lucidrains/denoising-diffusion-pytorch: denoising_diffusion_pytorch/continuous_time_gaussian_diffusion.py: ContinuousTimeGaussianDiffusion.__init__"
CATEGORY = "out_of_scope"


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return x + self.fn(x)


class MonotonicLinear(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.net = nn.Linear(*args, **kwargs)

    def forward(self, x):
        return F.linear(x, self.net.weight.abs(), self.net.bias.abs())


class Unsqueeze(nn.Module):  # einops: Rearrange('... -> ... 1')
    def forward(self, x):
        return x.unsqueeze(-1)


class Squeeze(nn.Module):  # einops: Rearrange('... 1 -> ...')
    def forward(self, x):
        return x.squeeze(-1)


def log(t, eps = 1e-20):
    return torch.log(t.clamp(min = eps))


def beta_linear_log_snr(t):
    return -log(expm1(1e-4 + 10 * (t ** 2)))


def alpha_cosine_log_snr(t, s = 0.008):
    return -log((torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** -2) - 1, eps = 1e-5)


class learned_noise_schedule(nn.Module):
    """ described in section H and then I.2 of the supplementary material for variational ddpm paper """

    def __init__(
        self,
        *,
        log_snr_max,
        log_snr_min,
        hidden_dim = 1024,
        frac_gradient = 1.
    ):
        super().__init__()
        self.slope = log_snr_min - log_snr_max
        self.intercept = log_snr_max

        self.net = nn.Sequential(
            Unsqueeze(),
            MonotonicLinear(1, 1),
            Residual(nn.Sequential(
                MonotonicLinear(1, hidden_dim),
                nn.Sigmoid(),
                MonotonicLinear(hidden_dim, 1)
            )),
            Squeeze(),
        )

        self.frac_gradient = frac_gradient

    def forward(self, x):
        frac_gradient = self.frac_gradient
        device = x.device

        out_zero = self.net(torch.zeros_like(x))
        out_one =  self.net(torch.ones_like(x))

        x = self.net(x)

        normed = self.slope * ((x - out_zero) / (out_one - out_zero)) + self.intercept
        return normed * frac_gradient + normed.detach() * (1 - frac_gradient)


class Model(nn.Module):
    random_or_learned_sinusoidal_cond = True
    self_condition = False


class ContinuousTimeGaussianDiffusion(nn.Module):
    def __init__(
        self,
        model,
        *,
        image_size,
        channels = 3,
        noise_schedule = 'linear',
        num_sample_steps = 500,
        clip_sample_denoised = True,
        learned_schedule_net_hidden_dim = 1024,
        learned_noise_schedule_frac_gradient = 1.,   # between 0 and 1, determines what percentage of gradients go back, so one can update the learned noise schedule more slowly
        min_snr_loss_weight = False,
        min_snr_gamma = 5
    ):
        super().__init__()
        assert model.random_or_learned_sinusoidal_cond
        assert not model.self_condition, 'not supported yet'

        self.model = model

        # image dimensions

        self.channels = channels
        self.image_size = image_size

        # continuous noise schedule related stuff

        if noise_schedule == 'linear':
            self.log_snr = beta_linear_log_snr
        elif noise_schedule == 'cosine':
            self.log_snr = alpha_cosine_log_snr
        elif noise_schedule == 'learned':
            log_snr_max, log_snr_min = [beta_linear_log_snr(torch.tensor([time])).item() for time in (0., 1.)]

            self.log_snr = learned_noise_schedule(
                log_snr_max = log_snr_max,
                log_snr_min = log_snr_min,
                hidden_dim = learned_schedule_net_hidden_dim,
                frac_gradient = learned_noise_schedule_frac_gradient
            )
        else:
            raise ValueError(f'unknown noise schedule {noise_schedule}')

        # sampling

        self.num_sample_steps = num_sample_steps
        self.clip_sample_denoised = clip_sample_denoised

        # proposed https://arxiv.org/abs/2303.09556

        self.min_snr_loss_weight = min_snr_loss_weight
        self.min_snr_gamma = min_snr_gamma


def schedule_log_snr(times, noise_schedule):
    diffusion = ContinuousTimeGaussianDiffusion(
        Model(), image_size = 2, noise_schedule = noise_schedule,
        learned_schedule_net_hidden_dim = 4)
    return diffusion.log_snr(times * 1.0)


ENTRY = schedule_log_snr

def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.rand(3), 'learned'),
    (torch.rand(3), 'linear'),
    (torch.rand(3), 'cosine'),
    (torch.rand(3), 'sigmoid'),
]
