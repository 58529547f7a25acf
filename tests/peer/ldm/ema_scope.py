"""latent-diffusion's VQModel.ema_scope, the context manager that runs a block with the
exponential-moving-average weights: with `use_ema` it stores the training parameters
(`LitEma.store`), copies the EMA shadows into the model (`LitEma.copy_to`) and, given a
context, prints `f"{context}: Switched to EMA weights"`; on the way out it restores the
training weights and prints `f"{context}: Restored training weights"`. `log_images(...,
plot_ema=True)` and `validation_step` reconstruct a batch once with the training weights
and once inside the scope. Here the step reconstructs a batch as `log_images` does, with the
model with EMA weights or the one without, and the scope's context. VQModel's own constructor
cannot build `model_ema` in this snapshot (autoencoder.py does not import LitEma; see
vqmodel_init.py), so the model here builds it as DDPM's constructor does, with the project's
LitEma (ldm/modules/ema.py), after which one EMA update follows a change of the weights.
Plain torch.compile breaks at the scope's `print` (inside the `@contextmanager` generator,
where Dynamo cannot resume, so it gives up on that frame) and then at `store`'s iteration of
the `self.parameters()` generator. Shrunk: pl.LightningModule is nn.Module, and a 1x1
convolution stands for each of the encoder, the quantizer's convolutions and the decoder."""

from contextlib import contextmanager

import torch
from torch import nn

ORIGIN = "CompVis/latent-diffusion: ldm/models/autoencoder.py: VQModel.ema_scope"
CATEGORY = "defer"


class LitEma(nn.Module):
    def __init__(self, model, decay=0.9999, use_num_upates=True):
        super().__init__()
        if decay < 0.0 or decay > 1.0:
            raise ValueError('Decay must be between 0 and 1')
        self.m_name2s_name = {}
        self.register_buffer('decay', torch.tensor(decay, dtype=torch.float32))
        self.register_buffer('num_updates', torch.tensor(0,dtype=torch.int) if use_num_upates
                             else torch.tensor(-1,dtype=torch.int))
        for name, p in model.named_parameters():
            if p.requires_grad:
                #remove as '.'-character is not allowed in buffers
                s_name = name.replace('.','')
                self.m_name2s_name.update({name:s_name})
                self.register_buffer(s_name,p.clone().detach().data)
        self.collected_params = []

    def forward(self, model):
        decay = self.decay
        if self.num_updates >= 0:
            self.num_updates += 1
            decay = min(self.decay,(1 + self.num_updates) / (10 + self.num_updates))
        one_minus_decay = 1.0 - decay
        with torch.no_grad():
            m_param = dict(model.named_parameters())
            shadow_params = dict(self.named_buffers())
            for key in m_param:
                if m_param[key].requires_grad:
                    sname = self.m_name2s_name[key]
                    shadow_params[sname] = shadow_params[sname].type_as(m_param[key])
                    shadow_params[sname].sub_(one_minus_decay * (shadow_params[sname] - m_param[key]))
                else:
                    assert not key in self.m_name2s_name

    def copy_to(self, model):
        m_param = dict(model.named_parameters())
        shadow_params = dict(self.named_buffers())
        for key in m_param:
            if m_param[key].requires_grad:
                m_param[key].data.copy_(shadow_params[self.m_name2s_name[key]].data)
            else:
                assert not key in self.m_name2s_name

    def store(self, parameters):
        self.collected_params = [param.clone() for param in parameters]

    def restore(self, parameters):
        for c_param, param in zip(self.collected_params, parameters):
            param.data.copy_(c_param.data)


class VQModel(nn.Module):
    def __init__(self, use_ema=False):
        super().__init__()
        self.encoder = nn.Conv2d(3, 2, 1)
        self.quant_conv = nn.Conv2d(2, 2, 1)
        self.post_quant_conv = nn.Conv2d(2, 2, 1)
        self.decoder = nn.Conv2d(2, 3, 1)
        self.use_ema = use_ema
        if self.use_ema:
            self.model_ema = LitEma(self)
            print(f"Keeping EMAs of {len(list(self.model_ema.buffers()))}.")

    @contextmanager
    def ema_scope(self, context=None):
        if self.use_ema:
            self.model_ema.store(self.parameters())
            self.model_ema.copy_to(self)
            if context is not None:
                print(f"{context}: Switched to EMA weights")
        try:
            yield None
        finally:
            if self.use_ema:
                self.model_ema.restore(self.parameters())
                if context is not None:
                    print(f"{context}: Restored training weights")

    def on_train_batch_end(self, *args, **kwargs):
        if self.use_ema:
            self.model_ema(self)

    def forward(self, input):
        quant = self.quant_conv(self.encoder(input))
        return self.decoder(self.post_quant_conv(quant))

    def log_images(self, x, context=None):  # log_images(batch, plot_ema=True), shrunk
        log = dict()
        log["inputs"] = x
        log["reconstructions"] = self(x)
        with self.ema_scope(context):
            log["reconstructions_ema"] = self(x)
        return log


class LogImages(nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = VQModel(use_ema=False)
        self.ema = VQModel(use_ema=True)
        with torch.no_grad():  # a training step moves the weights, then the EMA follows
            for p in self.ema.parameters():
                p.add_(0.5)
        self.ema.on_train_batch_end()

    def forward(self, x, use_ema, context):
        model = self.ema if use_ema else self.plain
        return model.log_images(x, context)


ENTRY = LogImages
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 4, 4), True, "Plotting"),  # EMA weights, announced
    (torch.randn(2, 3, 4, 4), True, None),  # EMA weights, silent
    (torch.randn(2, 3, 4, 4), False, "Plotting"),  # no EMA: nothing to switch
]
