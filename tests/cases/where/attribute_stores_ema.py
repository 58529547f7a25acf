"""[Where]: every branch stores the same attributes, from huggingface/transformers:
src/transformers/models/ibert/quant_modules.py: QuantAct.forward (an activation observer's
running range in training: `if self.x_min.min() > -1.1e-5 and self.x_max.max() < 1.1e-5:`
initialises `self.x_min`/`self.x_max` from the batch, `elif self.act_range_momentum == -1:`
keeps their running min/max, else an exponential moving average). Each branch stores a new
tensor in both buffers, in one order, so the stores merge like variables:
`self.x_min = torch.where(c, <init>, <running>)`. The observers run twice a call, so the
first call initialises and the second updates; inputs drive every branch of both."""
import torch
from torch import nn


class QuantAct(nn.Module):
    def __init__(self, act_range_momentum=0.95):
        super().__init__()
        self.act_range_momentum = act_range_momentum
        self.register_buffer("x_min", torch.zeros(1))
        self.register_buffer("x_max", torch.zeros(1))

    def forward(self, x):
        if self.training:
            x_min = x.data.min()
            x_max = x.data.max()
            if self.x_min.min() > -1.1e-5 and self.x_max.max() < 1.1e-5:
                self.x_min = self.x_min + x_min
                self.x_max = self.x_max + x_max
            elif self.act_range_momentum == -1:
                self.x_min = torch.min(self.x_min, x_min)
                self.x_max = torch.max(self.x_max, x_max)
            else:
                self.x_min = self.x_min * self.act_range_momentum + x_min * (1 - self.act_range_momentum)
                self.x_max = self.x_max * self.act_range_momentum + x_max * (1 - self.act_range_momentum)
        scale = torch.max(self.x_min.abs(), self.x_max.abs()).clamp(min=1e-8) / 127
        return torch.round(x / scale).clamp(-128, 127) * scale


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.ema = QuantAct()
        self.running = QuantAct(act_range_momentum=-1)

    def forward(self, x):
        y = self.ema(self.ema(x) * 0.5)
        z = self.running(self.running(x) * 2.0)
        return y + z, self.ema.x_min, self.ema.x_max, self.running.x_min, self.running.x_max


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3),),  # initialised, then updated
    (torch.zeros(2, 3),),  # an empty range: initialised on both calls
    (torch.rand(2, 3) + 1.0,),  # positive only: x_min stays above zero
]
EXPECTED_BREAKS = (4, 0)
EXPECTED_GRAPHS = (8, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
