"""generative-models' Img2ImgDiscretizationWrapper, which image-to-image sampling puts in
place of the sampler's discretization: `__call__` asks the wrapped discretization for its
sigmas, prints them, keeps the last `strength` share of them (at least one; the list is
flipped, cut and flipped back), prints the prune index and prints the sigmas kept. The
sampler calls it through `self.discretization` in `prepare_sampling_loop` (run by every
sampler's `__call__`), then scales the initial latents by `sqrt(1 + sigmas[0] ** 2)`. Dynamo
breaks at each of the three `print`s. Shrunk: the EDM discretization is the wrapped one, and
the step prepares the sampling loop with a wrapper built for the given strength, as the
inference API builds one per image-to-image call (its `assert 0.0 <= self.strength <= 1.0`
fails for 1.5)."""

import torch

ORIGIN = "Stability-AI/generative-models: sgm/inference/helpers.py: Img2ImgDiscretizationWrapper.__call__"
CATEGORY = "defer"


def append_zero(x):
    return torch.cat([x, x.new_zeros([1])])


class Discretization:
    def __call__(self, n, do_append_zero=True, device="cpu", flip=False):
        sigmas = self.get_sigmas(n, device=device)
        sigmas = append_zero(sigmas) if do_append_zero else sigmas
        return sigmas if not flip else torch.flip(sigmas, (0,))


class EDMDiscretization(Discretization):
    def __init__(self, sigma_min=0.002, sigma_max=80.0, rho=7.0):
        self.sigma_min = sigma_min
        self.sigma_max = sigma_max
        self.rho = rho

    def get_sigmas(self, n, device="cpu"):
        ramp = torch.linspace(0, 1, n, device=device)
        min_inv_rho = self.sigma_min ** (1 / self.rho)
        max_inv_rho = self.sigma_max ** (1 / self.rho)
        sigmas = (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** self.rho
        return sigmas


class Img2ImgDiscretizationWrapper:
    """
    wraps a discretizer, and prunes the sigmas
    params:
        strength: float between 0.0 and 1.0. 1.0 means full sampling (all sigmas are returned)
    """

    def __init__(self, discretization, strength: float = 1.0):
        self.discretization = discretization
        self.strength = strength
        assert 0.0 <= self.strength <= 1.0

    def __call__(self, *args, **kwargs):
        # sigmas start large first, and decrease then
        sigmas = self.discretization(*args, **kwargs)
        print(f"sigmas after discretization, before pruning img2img: ", sigmas)
        sigmas = torch.flip(sigmas, (0,))
        sigmas = sigmas[: max(int(self.strength * len(sigmas)), 1)]
        print("prune index:", max(int(self.strength * len(sigmas)), 1))
        sigmas = torch.flip(sigmas, (0,))
        print(f"sigmas after pruning: ", sigmas)
        return sigmas


def prepare_sampling_loop(x, num_steps, strength, options):
    discretization = Img2ImgDiscretizationWrapper(EDMDiscretization(), strength=strength)
    sigmas = discretization(num_steps, device="cpu", **options)

    x *= torch.sqrt(1.0 + sigmas[0] ** 2.0)
    num_sigmas = len(sigmas)

    s_in = x.new_ones([x.shape[0]])

    return x, s_in, sigmas, num_sigmas


ENTRY = prepare_sampling_loop
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 4, 4), 5, 0.6, {}),
    # strength 0: a single sigma is kept
    (torch.randn(1, 3, 4, 4), 4, 0.0, {"do_append_zero": False}),
    (torch.randn(2, 3, 4, 4), 3, 1.0, {"flip": True}),
    # out of range: the wrapper's assert fails
    (torch.randn(1, 3, 4, 4), 3, 1.5, {}),
]
