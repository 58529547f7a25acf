"""x-transformers' AutoregressiveWrapper.generate: the sampling loop of the language model;
each step takes the network's last logits (through contrastive decoding against amateur
models when given), samples greedily or from the filtered softmax, and appends the token;
with an end-of-sequence token it stops once every row holds one,
`if is_eos_tokens.any(dim = -1).all(): break`, a branch on tensor data, and masks out what
follows. Prompts given as a list of tensors are padded and aligned right. Contrastive
decoding raises the original's own errors: `contrastive_decode_fn` calls `log(alpha)` with the
module's tensor `log` (which shadows `math.log`) on a float, an AttributeError, and an amateur
given as an AutoregressiveWrapper is assigned into a tuple (`amateur_model[i] = module.net`),
a TypeError. Shrunk: a one-layer causal decoder with a key-value cache stands in for
TransformerWrapper; einops' pack and unpack written as reshapes."""

from math import ceil
from typing import Tuple

import torch
from torch import nn, tensor, Tensor
from torch.nn import Module
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

ORIGIN = "lucidrains/x-transformers: x_transformers/autoregressive_wrapper.py: AutoregressiveWrapper.generate"
CATEGORY = "where"


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def identity(t, *args, **kwargs):
    return t


def cast_tuple(t, length = 1):
    return t if isinstance(t, tuple) else (t,) * length


def join(arr, delimiter = ', '):
    return delimiter.join(arr)


def eval_decorator(fn):
    def inner(self, *args, **kwargs):
        was_training = self.training
        self.eval()
        out = fn(self, *args, **kwargs)
        self.train(was_training)
        return out
    return inner


def log(t, eps = 1e-20):
    return t.clamp(min = eps).log()


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


def top_k(logits, frac_num_tokens = 0.1, k = None):
    num_tokens = logits.shape[-1]

    k = default(k, ceil(frac_num_tokens * num_tokens))
    k = min(k, num_tokens)

    val, ind = torch.topk(logits, k)
    probs = torch.full_like(logits, float('-inf'))
    probs.scatter_(1, ind, val)
    return probs


def min_p(logits, min_p = 0.1):
    probs = logits.softmax(dim = -1)
    max_probs = probs.amax(dim = -1, keepdim = True)
    limit = min_p * max_probs
    return torch.where(probs < limit, float('-inf'), logits)


FILTER_LOGITS_FN = dict(
    top_k = top_k,
    min_p = min_p
)


def contrastive_decode_fn(
    expert_logits,
    amateur_logits,
    alpha = 0.1,
    beta = 0.5
):
    """
    Appendix A Algorithm 2
    https://arxiv.org/abs/2309.09117
    """

    cutoff = log(alpha) + expert_logits.amax(dim = -1, keepdim = True)
    diffs = (1 + beta) * expert_logits - beta * amateur_logits
    contrastive_decode_logits = diffs.masked_fill(expert_logits < cutoff, -torch.finfo(expert_logits.dtype).max)
    return contrastive_decode_logits


class Intermediates:
    def __init__(self, layer_type, cached_kv):
        self.layer_type = layer_type
        self.cached_kv = cached_kv


class LayerIntermediates:
    def __init__(self, attn_intermediates):
        self.attn_intermediates = attn_intermediates


class TransformerWrapper(Module):
    """One causal attention layer with a key-value cache; keys before `seq_start_pos` (the
    left padding, repeated over the beams) are masked out."""

    def __init__(self, num_tokens = 7, dim = 8, max_seq_len = 5):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.can_cache_kv = True
        self.can_cache_kv_outside_max_seq_len = True
        self.looped = False
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.to_qkv = nn.Linear(dim, dim * 3, bias = False)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x, return_intermediates = False, cache = None, seq_start_pos = None):
        h = self.token_emb(x)
        q, k, v = self.to_qkv(h).chunk(3, dim = -1)
        if exists(cache):
            past_k, past_v = cache.attn_intermediates[0].cached_kv
            h, q = h[:, -1:], q[:, -1:]
            k = torch.cat((past_k, k[:, -1:]), dim = -2)
            v = torch.cat((past_v, v[:, -1:]), dim = -2)
        i, j = q.shape[-2], k.shape[-2]
        sim = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
        causal = torch.ones(i, j, dtype = torch.bool, device = x.device).triu(j - i + 1)
        sim = sim.masked_fill(causal, -torch.finfo(sim.dtype).max)
        if exists(seq_start_pos):
            seq_start_pos = seq_start_pos.repeat_interleave(x.shape[0] // seq_start_pos.shape[0])
            pad = torch.arange(j, device = x.device) < seq_start_pos[:, None, None]
            sim = sim.masked_fill(pad, -torch.finfo(sim.dtype).max)
        out = sim.softmax(dim = -1) @ v
        logits = self.to_logits(out + h)
        if not return_intermediates:
            return logits
        return logits, LayerIntermediates([Intermediates('a', [k, v])])


class AutoregressiveWrapper(Module):
    def __init__(
        self,
        net,
        ignore_index = -100,
        pad_value = 0,
    ):
        super().__init__()
        self.pad_value = pad_value
        self.ignore_index = ignore_index

        self.net = net
        self.max_seq_len = net.max_seq_len

    @torch.no_grad()
    @eval_decorator
    def generate(
        self,
        prompts: list[Tensor] | Tensor,
        seq_len,
        eos_token = None,
        temperature = 1.,
        prompt_lens: Tensor | None = None,
        filter_logits_fn = top_k,
        restrict_to_max_seq_len = True,
        amateur_model: Module | Tuple[Module] | None = None,
        filter_kwargs: dict = dict(),
        contrastive_decode_kwargs: dict | Tuple[dict] = dict(
            beta = 0.5,
            alpha = 0.1
        ),
        cache_kv = True,
        return_intermediates = False,
        **kwargs
    ):
        max_seq_len, greedy = self.max_seq_len, temperature == 0.

        # handle prompts given as list of variable lengthed token ids

        if isinstance(prompts, list):
            assert len(prompts) > 0, 'prompts cannot be empty list'
            assert not exists(prompt_lens), '`prompt_len` will be auto derived if prompts are passed in as list of Tensors'

            prompt_lens = tensor([t.shape[0] for t in prompts], device = prompts[0].device)

            prompts = pad_sequence(prompts, batch_first = True)

        # pack maybe no batch

        ps = prompts.shape[:-1]
        prompts = prompts.reshape(-1, prompts.shape[-1])

        b, t, device = *prompts.shape, prompts.device

        # handle filter logits fn given as string

        if isinstance(filter_logits_fn, str):
            assert filter_logits_fn in FILTER_LOGITS_FN, f"only {join(FILTER_LOGITS_FN.keys())} are available"

            filter_logits_fn = FILTER_LOGITS_FN[filter_logits_fn]

        # handle variable lengthed prompts (prefixes)

        seq_start_pos = None
        if exists(prompt_lens):
            prompts = align_right(prompts, prompt_lens, pad_id = self.pad_value)
            seq_start_pos = t - prompt_lens

        # output from which sampled tokens appended to

        out = prompts

        # kv caches

        cache = None

        # maybe looped

        if self.net.looped:
            kwargs.update(looped_inference = True)

        # if doing contrastive decoding, turn off filter automatically

        if exists(amateur_model):
            amateur_model = cast_tuple(amateur_model)
            contrastive_decode_kwargs = cast_tuple(contrastive_decode_kwargs)

            assert len(amateur_model) == len(contrastive_decode_kwargs)

            amateur_caches = [None] * len(amateur_model)
            filter_logits_fn = identity

            for i, module in enumerate(amateur_model):
                if isinstance(module, AutoregressiveWrapper):
                    amateur_model[i] = module.net

                module.eval()

        # sampling up to seq_len

        for _ in range(seq_len):

            if restrict_to_max_seq_len:
                max_len_exceeded = out.shape[-1] > max_seq_len

                assert not (cache_kv and max_len_exceeded and not self.net.can_cache_kv_outside_max_seq_len), 'the network cannot use cached key values when decoding outside the max sequence length. most likely because you are using absolute positional embedding. you can switch to rotary embeddings to resolve this issue'

                x = out[:, -max_seq_len:]

                if exists(cache):
                    for inter in cache.attn_intermediates:
                        if inter.layer_type == 'a':
                            inter.cached_kv = [t[..., -(max_seq_len - 1):, :] for t in inter.cached_kv]

            logits, new_cache = self.net(
                x,
                return_intermediates = True,
                cache = cache,
                seq_start_pos = seq_start_pos,
                **kwargs
            )

            if cache_kv and self.net.can_cache_kv:
                cache = new_cache

            logits = logits[:, -1]

            # handle contrastive decoding, Li et al.
            # https://arxiv.org/abs/2210.15097

            if exists(amateur_model):
                for i, (amateur, amateur_cache, amateur_contrastive_decode_kwargs) in enumerate(zip(amateur_model, amateur_caches, contrastive_decode_kwargs)):
                    amateur_logits, next_amateur_cache = amateur(
                        x,
                        return_intermediates = True,
                        cache = amateur_cache,
                        seq_start_pos = seq_start_pos,
                        **kwargs
                    )

                    amateur_logits = amateur_logits[:, -1]

                    assert amateur_logits.shape == logits.shape, 'logits dimension are not the same between amateur and expert model'
                    logits = contrastive_decode_fn(logits, amateur_logits, **amateur_contrastive_decode_kwargs)

                    if cache_kv and amateur.can_cache_kv:
                        amateur_caches[i] = next_amateur_cache

            # filter by top_k, top_p (nucleus), top_a, or custom

            if greedy:
                sample = logits.argmax(dim = -1, keepdim = True)
            else:
                filtered_logits = filter_logits_fn(logits, **filter_kwargs)
                probs = F.softmax(filtered_logits / temperature, dim=-1)
                sample = torch.multinomial(probs, 1)

            # concat sample

            out = torch.cat((out, sample), dim=-1)

            if not exists(eos_token):
                continue

            is_eos_tokens = (out == eos_token)

            if is_eos_tokens.any(dim = -1).all():
                break

        if exists(eos_token):
            # mask out everything after the eos tokens
            shifted_is_eos_tokens = F.pad(is_eos_tokens, (1, -1))
            mask = shifted_is_eos_tokens.float().cumsum(dim = -1) >= 1
            out = out.masked_fill(mask, self.pad_value)

        out = out[:, t:]

        out = out.reshape(*ps, out.shape[-1])

        if not return_intermediates:
            return out

        return out, cache


class Generate(Module):
    def __init__(self):
        super().__init__()
        self.wrapper = AutoregressiveWrapper(TransformerWrapper())
        self.amateur = TransformerWrapper()

    def forward(self, prompts, seq_len, options = None, amateur = None):
        options = dict(options or {})
        if amateur == 'net':
            options['amateur_model'] = self.amateur
        elif amateur == 'wrapper':
            options['amateur_model'] = AutoregressiveWrapper(self.amateur)
        out = self.wrapper.generate(prompts, seq_len, **options)
        if isinstance(out, tuple):
            out, cache = out
            return out, [inter.cached_kv for inter in cache.attn_intermediates]
        return out


def reset():
    torch.manual_seed(0)


ENTRY = Generate
torch.manual_seed(0)
INPUTS = [
    (torch.randint(1, 7, (2, 3)), 6, dict(eos_token = 6, filter_kwargs = dict(k = 4))),
    (torch.randint(1, 7, (2, 3)), 4, dict(temperature = 0., eos_token = 2)),
    ([torch.randint(1, 7, (3,)), torch.randint(1, 7, (2,))], 3, dict(filter_logits_fn = 'min_p', return_intermediates = True)),
    (torch.randint(1, 7, (4,)), 3, dict(temperature = 0.), 'net'),
    (torch.randint(1, 7, (2, 3)), 2, dict(temperature = 0.), 'wrapper'),
    (torch.randint(1, 7, (2, 3)), 2, dict(restrict_to_max_seq_len = False)),
]
