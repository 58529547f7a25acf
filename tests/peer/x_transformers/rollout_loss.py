"""x-transformers' ContinuousAutoregressiveWrapper.forward_rollout: the rollout loss of the
continuous autoregressive model; sequences shorter than the rollout are dropped
(`x[valid_sample]`, boolean-mask indexing), a random window end is drawn per sequence and the
batch is cropped to the furthest end read as a Python number
(`max_end_pos = seq_end_pos.amax().item()`, which then slices the tensor), aligned right,
and the last prediction is fed back `rollout_steps` times (sampled from the predicted mean and
variance when the net is probabilistic). A data-dependent shape and a Python value from
tensor data: not fixable by design. The wrapper's `forward` dispatches to it when
`rollout_steps > 1`. Two inputs raise the original's own errors: given `lens` it reads
`inp.shape` before `inp` is assigned (UnboundLocalError), and a probabilistic net's
predictions (mean and variance stacked in front) are concatenated on dimension 1, the batch,
so the loss cannot broadcast them against the targets (RuntimeError). Shrunk: a one-layer causal decoder stands in for
ContinuousTransformerWrapper; einops' rearrange and einx's less written with broadcasting."""

import torch
from torch import nn, cat, arange
from torch.nn import Module
import torch.nn.functional as F

ORIGIN = "lucidrains/x-transformers: x_transformers/continuous.py: ContinuousAutoregressiveWrapper.forward_rollout"
CATEGORY = "out_of_scope"
GRAD = True


def exists(val):
    return val is not None


def sample_from_mean_variance(
    mean,
    variance,
    eps = 1e-5,
    temperature = 1.
):
    std = variance.clamp(min = eps).sqrt()
    return torch.normal(mean, std * temperature)


def masked_mean(t, mask):
    t = torch.where(mask[..., None], t, 0.)

    num = t.sum(dim = (1, 2))
    den = mask.sum(dim = -1)

    masked_average = num / den.clamp(min = 1.)
    return masked_average


def pad_at_dim(t, pad: tuple[int, int], dim = -1, value = 0.):
    if pad == (0, 0):
        return t

    dims_from_right = (- dim - 1) if dim < 0 else (t.ndim - dim - 1)
    zeros = ((0, 0) * dims_from_right)
    return F.pad(t, (*zeros, *pad), value = value)


def align_right(t, lens, pad_id = 0):
    batch, seq_len, device, dtype = *t.shape[:2], t.device, t.dtype

    assert lens.ndim == 1 and lens.shape[0] == batch
    assert lens.amax() <= seq_len

    pad_lens = seq_len - lens
    max_pad_len = pad_lens.amax()

    batch_arange = torch.arange(batch, device = device, dtype = torch.long)[..., None]
    prompt_len_arange = torch.arange(seq_len, device = device, dtype = torch.long)

    t = pad_at_dim(t, (max_pad_len, 0), value = pad_id, dim = 1)
    offset = max_pad_len - pad_lens

    aligned = t[batch_arange, prompt_len_arange + offset[..., None], ...]
    return aligned


class GaussianNLL(Module):
    def forward(self, pred, target):
        mean, var = pred
        return F.gaussian_nll_loss(mean, target, var, reduction = 'none')


class ContinuousTransformerWrapper(Module):
    """One causal attention layer between the input and output projections; keys before
    `seq_start_pos` are masked out; a probabilistic net outputs a mean and a variance."""

    def __init__(self, dim_in = 3, dim = 8, max_seq_len = 8, probabilistic = False):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.probabilistic = probabilistic
        self.project_in = nn.Linear(dim_in, dim, bias = False)
        self.to_qkv = nn.Linear(dim, dim * 3, bias = False)
        self.project_out = nn.Linear(dim, dim_in * (2 if probabilistic else 1), bias = False)

    def forward(self, x, return_intermediates = False, mask = None, cache = None, seq_start_pos = None):
        x = self.project_in(x)
        q, k, v = self.to_qkv(x).chunk(3, dim = -1)
        n = x.shape[-2]
        sim = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
        causal = torch.ones(n, n, dtype = torch.bool, device = x.device).triu(1)
        sim = sim.masked_fill(causal, -torch.finfo(sim.dtype).max)
        if exists(seq_start_pos):
            pad = torch.arange(n, device = x.device) < seq_start_pos[:, None, None]
            sim = sim.masked_fill(pad, -torch.finfo(sim.dtype).max)
        if exists(mask):
            sim = sim.masked_fill(~mask[:, None, :], -torch.finfo(sim.dtype).max)
        out = self.project_out(x + sim.softmax(dim = -1) @ v)
        if self.probabilistic:
            mean, log_var = out.unflatten(-1, (-1, 2)).movedim(-1, 0)
            variance = log_var.exp()
            out = torch.stack((mean, variance))
        if return_intermediates:
            return out, None
        return out


class ContinuousAutoregressiveWrapper(Module):
    def __init__(
        self,
        net: ContinuousTransformerWrapper,
        loss_fn: Module | None = None,
        use_l1_loss = False,
        equal_loss_weight_batch = False,  # setting this to True, if the mask is passed in and sequences are variable in length, each sequence will be weighted the same (as opposed to each token)
    ):
        super().__init__()
        self.net = net
        self.max_seq_len = net.max_seq_len

        probabilistic = net.probabilistic
        self.probabilistic = probabilistic

        # default loss function

        if not exists(loss_fn):
            if probabilistic:
                loss_fn = GaussianNLL()
            elif use_l1_loss:
                loss_fn = nn.L1Loss(reduction = 'none')
            else:
                loss_fn = nn.MSELoss(reduction = 'none')

        self.loss_fn = loss_fn
        self.equal_loss_weight_batch = equal_loss_weight_batch

    def forward_rollout(
        self,
        x,
        rollout_steps = 2,
        **kwargs
    ):
        assert rollout_steps > 1

        steps = rollout_steps

        device = x.device

        # assert inputs

        assert 'prepend_embeds' not in kwargs

        # lens

        lens = kwargs.pop('lens', None)

        if exists(lens):
            assert 'mask' not in kwargs, 'either `mask` or `lens` passed in, but not both'
            seq_len, device = inp.shape[1], inp.device
            seq_arange = arange(seq_len, device = device)
            mask = seq_arange[None, :] < lens[:, None]
            kwargs['mask'] = mask

        if not exists(lens):
            batch, seq_len = x.shape[:2]
            lens = torch.full((batch,), seq_len, device = device)

        # handle mask manually

        mask = kwargs.pop('mask', None)

        # pick a random range for each batch sample and aligh the sequence to the right for rollout loss

        valid_tokens_for_rollout = (lens - steps).clamp(min = 0)
        valid_sample = valid_tokens_for_rollout > 0

        x = x[valid_sample] # remove invalid sequence (lens less than rollout steps)

        if exists(mask):
            mask = mask[valid_sample]

        batch = x.shape[0]
        seq_start_pos = (torch.rand((batch,), device = device) * valid_tokens_for_rollout).floor().long()

        batch_arange = torch.arange(batch, device = device)
        batch_arange = batch_arange[:, None]

        # crop out sequence to use

        seq_end_pos = seq_start_pos + steps
        max_end_pos = seq_end_pos.amax().item()
        x = x[:, :max_end_pos]

        x = align_right(x, seq_end_pos)

        # get the input

        inp, targets = x[:, :-steps], x[:, -steps:]

        # maybe rollout

        cache = None
        preds = []

        for _ in range(steps):

            out, cache = self.net(
                inp,
                seq_start_pos = seq_start_pos,
                return_intermediates = True,
                **kwargs
            )

            last_pred = out[..., -1:, :]

            if self.probabilistic:
                mean, var = last_pred
                inp = sample_from_mean_variance(mean, var)
            else:
                inp = last_pred

            preds.append(last_pred)

        # stack for predictions

        preds = cat(preds, dim = 1)

        # loss

        loss = self.loss_fn(preds, targets)

        return loss.mean()

    def forward(
        self,
        x,
        rollout_steps = 1, # they used 2 rollout steps in a successful world model paper https://ai.meta.com/vjepa/
        **kwargs
    ):
        if rollout_steps > 1:
            return self.forward_rollout(x, rollout_steps = rollout_steps, **kwargs)

        inp, target = x[:, :-1], x[:, 1:]

        assert 'prepend_embeds' not in kwargs

        # lens

        lens = kwargs.pop('lens', None)

        if exists(lens):
            assert 'mask' not in kwargs, 'either `mask` or `lens` passed in, but not both'
            seq_len, device = inp.shape[1], inp.device
            seq_arange = torch.arange(seq_len, device = device)
            mask = seq_arange[None, :] < lens[:, None]

            kwargs['mask'] = mask

        # mask

        mask = kwargs.get('mask', None)

        if exists(mask) and mask.shape[1] == x.shape[1]:
            mask = mask[:, :-1]
            kwargs['mask'] = mask

        out = self.net(inp, **kwargs)

        loss = self.loss_fn(out, target)

        if exists(mask):
            assert loss.ndim > 1, 'loss should not be reduced if mask is passed in'

            if self.equal_loss_weight_batch:
                loss = masked_mean(loss, mask)
            else:
                loss = loss[mask]

        return loss.mean()


class Rollout(Module):
    def __init__(self):
        super().__init__()
        self.wrapper = ContinuousAutoregressiveWrapper(ContinuousTransformerWrapper())
        self.probabilistic_wrapper = ContinuousAutoregressiveWrapper(ContinuousTransformerWrapper(probabilistic = True))

    def forward(self, x, rollout_steps, probabilistic = False, options = None):
        wrapper = self.probabilistic_wrapper if probabilistic else self.wrapper
        return wrapper(x, rollout_steps = rollout_steps, **(options or {}))


def reset():
    torch.manual_seed(0)


ENTRY = Rollout
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 6, 3), 2),
    (torch.randn(2, 6, 3), 3, True),
    (torch.randn(2, 6, 3), 2, False, dict(mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2]))),
    (torch.randn(2, 6, 3), 2, False, dict(lens = torch.tensor([6, 3]))),
    (torch.randn(2, 6, 3), 1),
    (torch.randn(2, 6, 3), 1, False, dict(lens = torch.tensor([6, 4]))),
]
