"""latent-diffusion's VQModel.__init__, the first-stage vector-quantised autoencoder: it builds
the Encoder and Decoder from `ddconfig`, the loss from `lossconfig` (`instantiate_from_config`
imports the class named by `target`), the quantizer and the 1x1 convolutions around it;
`colorize_nlabels` must be an int (an assert) and gives a random colorize buffer; a
`batch_resize_range` is announced with `print(f"{self.__class__.__name__}: Using per-batch
resizing in range ...")`; `use_ema` builds `LitEma(self)` and prints its buffer count, but
autoencoder.py does not import LitEma, so there it raises NameError (kept: none is defined
here). A step builds the model with its options and reconstructs a batch; the Encoder and
Decoder print too (`make_attn`'s and the Decoder's `print`). Shrunk: pl.LightningModule is
nn.Module; the Encoder and Decoder keep their signature and prints with one convolution in and
out (`attn_type` "none"); taming's VectorQuantizer2 is written out without its remapping (a
file); the loss is `torch.nn.Identity` (the LPIPS loss loads weights); the checkpoint branch
(a file) is left out. Plain torch.compile breaks at each module built in the step (Dynamo's
"Uninitialized nn.Module": VQModel, Encoder, Decoder, the quantizer) and at `make_attn`'s
`print`, whose f-string formats a channel count Dynamo holds as a symbolic int."""

import importlib

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "CompVis/latent-diffusion: ldm/models/autoencoder.py: VQModel.__init__"
CATEGORY = "defer"


def get_obj_from_str(string, reload=False):  # (the `reload` branch left out)
    module, cls = string.rsplit(".", 1)
    return getattr(importlib.import_module(module, package=None), cls)


def instantiate_from_config(config):
    if not "target" in config:  # (the '__is_first_stage__' and '__is_unconditional__' Nones left out)
        raise KeyError("Expected key `target` to instantiate.")
    return get_obj_from_str(config["target"])(**config.get("params", dict()))


def make_attn(in_channels, attn_type="vanilla"):
    assert attn_type in ["vanilla", "linear", "none"], f'attn_type {attn_type} unknown'
    print(f"making attention of type '{attn_type}' with {in_channels} in_channels")
    return nn.Identity(in_channels)  # "none" (AttnBlock, LinAttnBlock left out)


class OneConvInOut(nn.Module):
    def forward(self, x):
        h = self.mid.attn_1(self.conv_in(x))
        return self.conv_out(F.silu(h))


class Encoder(OneConvInOut):
    def __init__(self, *, ch, out_ch, ch_mult=(1,2,4,8), in_channels, resolution, z_channels,
                 double_z=True, attn_type="vanilla", **ignore_kwargs):
        super().__init__()
        self.conv_in = nn.Conv2d(in_channels, ch, kernel_size=3, stride=1, padding=1)
        self.mid = nn.Module()
        self.mid.attn_1 = make_attn(ch, attn_type=attn_type)
        self.conv_out = nn.Conv2d(ch, 2*z_channels if double_z else z_channels, kernel_size=3,
                                  stride=1, padding=1)


class Decoder(OneConvInOut):
    def __init__(self, *, ch, out_ch, ch_mult=(1,2,4,8), in_channels, resolution, z_channels,
                 attn_type="vanilla", **ignorekwargs):
        super().__init__()
        self.num_resolutions = len(ch_mult)
        block_in = ch*ch_mult[self.num_resolutions-1]
        curr_res = resolution // 2**(self.num_resolutions-1)
        self.z_shape = (1,z_channels,curr_res,curr_res)
        print("Working with z of shape {} = {} dimensions.".format(
            self.z_shape, np.prod(self.z_shape)))
        self.conv_in = nn.Conv2d(z_channels, block_in, kernel_size=3, stride=1, padding=1)
        self.mid = nn.Module()
        self.mid.attn_1 = make_attn(block_in, attn_type=attn_type)
        self.conv_out = nn.Conv2d(block_in, out_ch, kernel_size=3, stride=1, padding=1)


class VectorQuantizer(nn.Module):
    """taming-transformers' VectorQuantizer2 (legacy loss), without `remap`."""
    def __init__(self, n_e, e_dim, beta, remap=None, sane_index_shape=False, legacy=True):
        super().__init__()
        self.n_e, self.e_dim, self.beta = n_e, e_dim, beta
        self.embedding = nn.Embedding(self.n_e, self.e_dim)
        self.embedding.weight.data.uniform_(-1.0 / self.n_e, 1.0 / self.n_e)
        self.sane_index_shape = sane_index_shape

    def forward(self, z):
        z = z.permute(0, 2, 3, 1).contiguous()
        z_flattened = z.view(-1, self.e_dim)
        d = torch.sum(z_flattened ** 2, dim=1, keepdim=True) + \
            torch.sum(self.embedding.weight**2, dim=1) - 2 * \
            torch.einsum('bd,dn->bn', z_flattened, self.embedding.weight.t())
        min_encoding_indices = torch.argmin(d, dim=1)
        z_q = self.embedding(min_encoding_indices).view(z.shape)
        loss = torch.mean((z_q.detach()-z)**2) + self.beta * torch.mean((z_q - z.detach()) ** 2)
        z_q = z + (z_q - z).detach()
        z_q = z_q.permute(0, 3, 1, 2).contiguous()
        if self.sane_index_shape:
            min_encoding_indices = min_encoding_indices.reshape(z_q.shape[0], z_q.shape[2], z_q.shape[3])
        return z_q, loss, (None, None, min_encoding_indices)


class VQModel(nn.Module):
    def __init__(self, ddconfig, lossconfig, n_embed, embed_dim, ckpt_path=None, ignore_keys=[],
                 image_key="image", colorize_nlabels=None, monitor=None, batch_resize_range=None,
                 scheduler_config=None, lr_g_factor=1.0, remap=None,
                 sane_index_shape=False,  # tell vector quantizer to return indices as bhw
                 use_ema=False):
        super().__init__()
        self.embed_dim = embed_dim
        self.n_embed = n_embed
        self.image_key = image_key
        self.encoder = Encoder(**ddconfig)
        self.decoder = Decoder(**ddconfig)
        self.loss = instantiate_from_config(lossconfig)
        self.quantize = VectorQuantizer(n_embed, embed_dim, beta=0.25, remap=remap,
                                        sane_index_shape=sane_index_shape)
        self.quant_conv = torch.nn.Conv2d(ddconfig["z_channels"], embed_dim, 1)
        self.post_quant_conv = torch.nn.Conv2d(embed_dim, ddconfig["z_channels"], 1)
        if colorize_nlabels is not None:
            assert type(colorize_nlabels)==int
            self.register_buffer("colorize", torch.randn(3, colorize_nlabels, 1, 1))
        if monitor is not None:
            self.monitor = monitor
        self.batch_resize_range = batch_resize_range
        if self.batch_resize_range is not None:
            print(f"{self.__class__.__name__}: Using per-batch resizing in range {batch_resize_range}.")
        self.use_ema = use_ema
        if self.use_ema:
            self.model_ema = LitEma(self)  # noqa: F821 (not imported by the original either)
            print(f"Keeping EMAs of {len(list(self.model_ema.buffers()))}.")
        self.scheduler_config = scheduler_config
        self.lr_g_factor = lr_g_factor

    def encode(self, x):
        h = self.encoder(x)
        h = self.quant_conv(h)
        quant, emb_loss, info = self.quantize(h)
        return quant, emb_loss, info

    def decode(self, quant):
        quant = self.post_quant_conv(quant)
        dec = self.decoder(quant)
        return dec

    def forward(self, input, return_pred_indices=False):
        quant, diff, (_,_,ind) = self.encode(input)
        dec = self.decode(quant)
        if return_pred_indices:
            return dec, diff, ind
        return dec, diff


DDCONFIG = {"double_z": False, "z_channels": 2, "resolution": 8, "in_channels": 3, "out_ch": 3,
            "ch": 4, "ch_mult": [1, 2], "num_res_blocks": 1, "attn_resolutions": [],
            "dropout": 0.0, "attn_type": "none"}
LOSSCONFIG = {"target": "torch.nn.Identity"}


def reconstruct(x, options):
    model = VQModel(DDCONFIG, LOSSCONFIG, n_embed=6, embed_dim=2, **options)
    return model(x, return_pred_indices=True)


ENTRY = reconstruct


def reset():  # the weights are drawn in the step
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 4, 4), {}),
    # per-batch resizing announced, a monitor, a colorize buffer, indices as bhw
    (torch.randn(2, 3, 4, 4), {"batch_resize_range": [8, 16], "monitor": "val/rec_loss",
                               "colorize_nlabels": 5, "sane_index_shape": True}),
    # EMA weights: LitEma is not imported, NameError
    (torch.randn(1, 3, 4, 4), {"use_ema": True}),
    # a colorize_nlabels that is not an int: the assert fails
    (torch.randn(1, 3, 4, 4), {"colorize_nlabels": 5.0}),
]
