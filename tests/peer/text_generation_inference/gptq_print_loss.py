"""Text Generation Inference's GPTQ quantisation report for one layer: the quantised weight
is assigned to the layer, and when the layer's inputs were observed, the input is quantised
to int8 and the signal-to-noise errors of the quantised and of the full-precision outputs are
read with `.item()` into a table row that is printed (`print(table.draw().split("\\n")[-2])`):
Python values (the row's text) computed from tensor data. Not fixable by design. The
`texttable` package is a small stand-in that draws the row the same way."""

import math

import torch
import torch.nn as nn

ORIGIN = "huggingface/text-generation-inference: server/text_generation_server/layers/gptq/quantize.py: GPTQ.print_loss"
CATEGORY = "out_of_scope"


class Texttable:
    def __init__(self):
        self._rows = []

    def header(self, cells):
        self._header = cells

    def add_row(self, cells):
        self._rows.append(cells)

    def _cell(self, value):
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    def draw(self):
        rows = [self._header] + self._rows
        widths = [max(len(self._cell(r[i])) for r in rows) for i in range(len(self._header))]
        border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        lines = [border]
        for row in rows:
            lines.append("| " + " | ".join(self._cell(c).ljust(w) for c, w in zip(row, widths)) + " |")
            lines.append(border)
        return "\n".join(lines)


def torch_snr_error(y_pred, y_real, reduction="mean"):
    if y_pred.shape != y_real.shape:
        raise ValueError(
            f"Can not compute snr loss for tensors with different shape. "
            f"({y_pred.shape} and {y_real.shape})"
        )
    reduction = str(reduction).lower()

    if y_pred.ndim == 1:
        y_pred = y_pred.unsqueeze(0)
        y_real = y_real.unsqueeze(0)

    y_pred = y_pred.flatten(start_dim=1)
    y_real = y_real.flatten(start_dim=1)

    noise_power = torch.pow(y_pred - y_real, 2).sum(dim=-1)
    signal_power = torch.pow(y_real, 2).sum(dim=-1)
    snr = (noise_power) / (signal_power + 1e-7)

    if reduction == "mean":
        return torch.mean(snr)
    elif reduction == "sum":
        return torch.sum(snr)
    elif reduction == "none":
        return snr
    else:
        raise ValueError("Unsupported reduction method.")


class Quantizer(nn.Module):
    def __init__(self, shape=1):
        super(Quantizer, self).__init__()
        self.register_buffer("maxq", torch.tensor(0))
        self.register_buffer("scale", torch.zeros(shape))
        self.register_buffer("zero", torch.zeros(shape))

    def configure(self, bits, perchannel=False, sym=True, mse=False):
        self.maxq = torch.tensor(2**bits - 1)
        self.perchannel = perchannel
        self.sym = sym
        self.mse = mse
        self.scale = torch.zeros_like(self.scale)

    def find_params(self, x, weight=False):
        # The per-tensor, symmetric path that print_loss takes (no mse search).
        dev = x.device
        self.maxq = self.maxq.to(dev)
        shape = x.shape
        x = x.flatten().unsqueeze(0)

        tmp = torch.zeros(x.shape[0], device=dev)
        xmin = torch.minimum(x.min(1)[0], tmp)
        xmax = torch.maximum(x.max(1)[0], tmp)

        xmax = torch.maximum(torch.abs(xmin), xmax)
        tmp = xmin < 0
        if torch.any(tmp):
            xmin[tmp] = -xmax[tmp]
        tmp = (xmin == 0) & (xmax == 0)
        xmin[tmp] = -1
        xmax[tmp] = +1

        self.scale = (xmax - xmin) / self.maxq
        self.zero = torch.full_like(self.scale, (self.maxq + 1) / 2)

        tmp = shape[1] if len(shape) != 3 else shape[2]
        self.scale = self.scale.repeat(tmp)
        self.zero = self.zero.repeat(tmp)
        if len(shape) == 3:
            self.scale = self.scale.reshape((1, 1, -1))
            self.zero = self.zero.reshape((1, 1, -1))
        if len(shape) == 2:
            self.scale = self.scale.unsqueeze(0)
            self.zero = self.zero.unsqueeze(0)

    def _quantize(self, x, scale, zero, maxq):
        q = torch.clamp(torch.round(x / scale) + zero, 0, maxq)
        return scale * (q - zero)

    def quantize(self, x):
        if self.ready():
            return self._quantize(x, self.scale, self.zero, self.maxq)

        return x

    def ready(self):
        return torch.all(self.scale != 0)


class GPTQ:
    def __init__(self, layer, observe=False):
        self.layer = layer
        self.dev = self.layer.weight.device
        self.quantizer = Quantizer()
        self.observe = observe
        self.inp1 = None
        self.out1 = None

    def print_loss(self, name, q_weight, weight_error, timecost):
        table = Texttable()
        length = 28
        name = (
            (name + " " * (length - len(name)))
            if len(name) <= length
            else name[:length]
        )

        table.header(["name", "weight_error", "fp_inp_SNR", "q_inp_SNR", "time"])

        # assign weight
        self.layer.weight.data = q_weight.reshape(self.layer.weight.shape).to(
            self.layer.weight.data.dtype
        )

        if self.inp1 is not None:
            # quantize input to int8
            quantizer = Quantizer()
            quantizer.configure(8, perchannel=False, sym=True, mse=False)
            quantizer.find_params(self.inp1)
            q_in = quantizer.quantize(self.inp1).type(torch.float16)
            q_out = self.layer(q_in)

            # get kinds of SNR
            q_SNR = torch_snr_error(q_out, self.out1).item()
            fp_SNR = torch_snr_error(self.layer(self.inp1), self.out1).item()
        else:
            q_SNR = "-"
            fp_SNR = "-"

        table.add_row([name, weight_error, fp_SNR, q_SNR, timecost])
        print(table.draw().split("\n")[-2])


class LayerReport(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(6, 3, bias=False).half()
        self.gptq = GPTQ(self.layer, observe=True)

    def forward(self, name, inp, out, q_weight, weight_error, timecost):
        self.gptq.inp1 = inp
        self.gptq.out1 = out
        self.gptq.print_loss(name, q_weight, weight_error, timecost)
        return self.layer.weight


ENTRY = LayerReport
torch.manual_seed(0)
INPUTS = [
    ("model.layers.0.self_attn.q_proj", torch.randn(2, 6).half(), torch.randn(2, 3).half(),
     torch.randn(18), 0.25, 1.5),
    ("model.layers.0.mlp.down_proj.with.a.long.name", None, None, torch.randn(3, 6), 0.5, 2.0),
]
