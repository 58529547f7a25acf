"""generative-models' do_sample, the text-to-image path of its inference API: under
`torch.no_grad()`, `autocast(device)` and the model's `ema_scope()` it builds the conditioning
batch (`get_batch`), prints every entry (the shape of a tensor, the item lengths of a list,
any other value as is), embeds the conditional and unconditional batches, cuts the
non-crossattn embeddings to the number of samples, draws the initial latents, runs the
sampler with the model's denoiser, decodes, clamps to [0, 1], optionally filters and returns
the samples (and the latents). Dynamo breaks at the `print`s, inside the three context
managers. Shrunk: a tiny engine stands in for the DiffusionEngine it is given (small
embedders, a text stand-in for CLIP, the EDM denoiser over an elementwise network, a
nearest-upsampling decoder, no EMA), a two-step Euler EDM sampler for the sampler;
`get_batch` keeps the branches of the keys used and defaults to "cpu" (do_sample leaves it
at "cuda"), and the device is "cpu" (CPU autocast touches none of the stand-ins' ops).
INPUTS[0] is class-conditional: a prompt goes through `np.repeat` over strings, which Dynamo
cannot trace (get_batch.py)."""

import math
from contextlib import contextmanager
from typing import List, Optional

import numpy as np
import torch
import torch.nn as nn
from torch import autocast

ORIGIN = "Stability-AI/generative-models: sgm/inference/helpers.py: do_sample"
CATEGORY = "defer"


def append_dims(x, target_dims):
    return x[(...,) + (None,) * (target_dims - x.ndim)]


class Embedder(nn.Embedding):
    """Stands in for the embedders: class labels to vectors, prompts to a [B, 4, 4] sequence
    of their first letters."""

    def __init__(self, input_key):
        super().__init__(128, 4)
        self.input_key = input_key

    def forward(self, x):
        if isinstance(x, list):
            x = torch.tensor([[ord(ch) % 128 for ch in (t + "    ")[:4]] for t in x])
        x = torch.as_tensor(x)
        return super().forward(x if x.ndim else x[None])


class GeneralConditioner(nn.Module):
    OUTPUT_DIM2KEYS = {2: "vector", 3: "crossattn", 4: "concat"}
    KEY2CATDIM = {"vector": 1, "crossattn": 2, "concat": 1}

    def __init__(self, keys):
        super().__init__()
        self.embedders = nn.ModuleList(Embedder(key) for key in keys)

    def forward(self, batch, force_zero_embeddings=None):
        output = dict()
        if force_zero_embeddings is None:
            force_zero_embeddings = []
        for embedder in self.embedders:
            emb = embedder(batch[embedder.input_key])
            out_key = self.OUTPUT_DIM2KEYS[emb.dim()]
            if embedder.input_key in force_zero_embeddings:
                emb = torch.zeros_like(emb)
            if out_key in output:
                output[out_key] = torch.cat((output[out_key], emb), self.KEY2CATDIM[out_key])
            else:
                output[out_key] = emb
        return output

    def get_unconditional_conditioning(self, batch_c, batch_uc=None, force_uc_zero_embeddings=None):
        return self(batch_c), self(batch_c if batch_uc is None else batch_uc, force_uc_zero_embeddings)


class TinyEngine(nn.Module):
    def __init__(self, keys, sigma_data=0.5):
        super().__init__()
        self.conditioner = GeneralConditioner(keys)
        self.scale = nn.Parameter(torch.randn(1, 4, 1, 1))
        self.sigma_data = sigma_data
        self.model = lambda x, t, c, **kwargs: torch.tanh(
            x * self.scale + append_dims(c["vector"].mean(1) + c.get("crossattn", t).mean() + t, x.ndim))

    def denoiser(self, network, input, sigma, cond, **additional_model_inputs):
        sigma_shape, sigma = sigma.shape, append_dims(sigma, input.ndim)
        c_skip = self.sigma_data**2 / (sigma**2 + self.sigma_data**2)
        c_out = sigma * self.sigma_data / (sigma**2 + self.sigma_data**2) ** 0.5
        c_in = 1 / (sigma**2 + self.sigma_data**2) ** 0.5
        c_noise = (0.25 * sigma.log()).reshape(sigma_shape)
        return network(input * c_in, c_noise, cond, **additional_model_inputs) * c_out + input * c_skip

    @contextmanager
    def ema_scope(self, context=None):
        yield None

    @torch.no_grad()
    def decode_first_stage(self, z):
        return torch.nn.functional.interpolate(z[:, :3], scale_factor=4.0, mode="nearest")


def euler_edm_sampler(denoiser, x, cond, uc=None, num_steps=2, sigma_min=0.002, sigma_max=80.0, rho=7.0):
    ramp = torch.linspace(0, 1, num_steps)
    sigmas = (sigma_max ** (1 / rho) + ramp * (sigma_min ** (1 / rho) - sigma_max ** (1 / rho))) ** rho
    sigmas = torch.cat([sigmas, sigmas.new_zeros([1])])
    x = x * torch.sqrt(1.0 + sigmas[0] ** 2.0)
    s_in = x.new_ones([x.shape[0]])
    for i in range(num_steps):
        sigma, next_sigma = s_in * sigmas[i], s_in * sigmas[i + 1]
        d = (x - denoiser(x, sigma, cond)) / append_dims(sigma, x.ndim)
        x = x + append_dims(next_sigma - sigma, x.ndim) * d
    return x


def get_unique_embedder_keys_from_conditioner(conditioner):
    # the original's list({...}): a set's order follows the strings' hashes, and Dynamo
    # iterates a set in insertion order, so the keys are kept in insertion order here
    return list(dict.fromkeys(x.input_key for x in conditioner.embedders))


def get_batch(keys, value_dict, N, device="cpu"):
    batch = {}
    batch_uc = {}
    for key in keys:
        if key == "txt":
            batch["txt"] = np.repeat([value_dict["prompt"]], repeats=math.prod(N)).reshape(N).tolist()
            batch_uc["txt"] = (
                np.repeat([value_dict["negative_prompt"]], repeats=math.prod(N)).reshape(N).tolist())
        else:
            batch[key] = value_dict[key]
    for key in batch.keys():
        if key not in batch_uc and isinstance(batch[key], torch.Tensor):
            batch_uc[key] = torch.clone(batch[key])
    return batch, batch_uc


def do_sample(model, sampler, value_dict, num_samples, H, W, C, F,
              force_uc_zero_embeddings: Optional[List] = None, batch2model_input: Optional[List] = None,
              return_latents=False, filter=None, device="cuda"):
    if force_uc_zero_embeddings is None:
        force_uc_zero_embeddings = []
    if batch2model_input is None:
        batch2model_input = []

    with torch.no_grad():
        with autocast(device) as precision_scope:
            with model.ema_scope():
                num_samples = [num_samples]
                batch, batch_uc = get_batch(
                    get_unique_embedder_keys_from_conditioner(model.conditioner), value_dict, num_samples)
                for key in batch:
                    if isinstance(batch[key], torch.Tensor):
                        print(key, batch[key].shape)
                    elif isinstance(batch[key], list):
                        print(key, [len(l) for l in batch[key]])
                    else:
                        print(key, batch[key])
                c, uc = model.conditioner.get_unconditional_conditioning(
                    batch, batch_uc=batch_uc, force_uc_zero_embeddings=force_uc_zero_embeddings)

                for k in c:
                    if not k == "crossattn":
                        c[k], uc[k] = map(lambda y: y[k][: math.prod(num_samples)].to(device), (c, uc))

                additional_model_inputs = {}
                for k in batch2model_input:
                    additional_model_inputs[k] = batch[k]

                shape = (math.prod(num_samples), C, H // F, W // F)
                randn = torch.randn(shape).to(device)

                def denoiser(input, sigma, c):
                    return model.denoiser(model.model, input, sigma, c, **additional_model_inputs)

                samples_z = sampler(denoiser, randn, cond=c, uc=uc)
                samples_x = model.decode_first_stage(samples_z)
                samples = torch.clamp((samples_x + 1.0) / 2.0, min=0.0, max=1.0)

                if filter is not None:
                    samples = filter(samples)

                if return_latents:
                    return samples, samples_z
                return samples


class Pipeline(nn.Module):
    def __init__(self):
        super().__init__()
        self.engines = nn.ModuleDict({"class": TinyEngine(["cls"]), "text": TinyEngine(["txt", "cls"])})

    def forward(self, engine, value_dict, num_samples, options):
        return do_sample(self.engines[engine], euler_edm_sampler, value_dict, num_samples,
                         H=8, W=8, C=4, F=4, device="cpu", **options)


def mirror(samples):
    return samples.flip(-1)


def reset():
    torch.manual_seed(0)


ENTRY = Pipeline
torch.manual_seed(0)
INPUTS = [
    ("class", {"cls": torch.tensor([3, 7])}, 2, {"batch2model_input": ["cls"]}),
    ("text", {"prompt": "a cat", "negative_prompt": "", "cls": torch.tensor([1, 4])}, 2,
     {"force_uc_zero_embeddings": ["txt"], "return_latents": True, "filter": mirror}),
    # a plain label is printed as it is, and not copied into the unconditional batch, whose
    # embedding then raises KeyError
    ("class", {"cls": 5}, 1, {}),
]
