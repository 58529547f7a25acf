"""x-transformers' AutoregressiveWrapper.beam_search: per step the network's last logits
give log-probabilities, the top `beams` tokens extend every beam, the scores of the
`beams * beams` candidates are sorted and the best `beams` kept; left-padded prompts are
aligned right (`align_right`, whose `assert lens.amax() <= seq_len` checks the lengths);
the key-value cache is trimmed and repeated across beams. The end-of-sequence test
`if is_eos_tokens.any(dim = -1).all(): break` sits behind `assert not exists(eos_token),
'eos token not supported yet'`, so it never runs: asking for an eos token raises, and a
call with `restrict_to_max_seq_len = False` reaches the network with `x` unbound (the
original's own UnboundLocalError). Plain torch.compile does not break on the rest (the
length assert is rewritten by Dynamo), hence no_break. Shrunk: a one-layer causal decoder
with a key-value cache stands in for TransformerWrapper; einops' pack, unpack, repeat and
rearrange written as reshapes."""

from math import ceil

import torch
from torch import nn, Tensor
from torch.nn import Module
import torch.nn.functional as F

ORIGIN = "lucidrains/x-transformers: x_transformers/autoregressive_wrapper.py: AutoregressiveWrapper.beam_search"
CATEGORY = "no_break"


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def identity(t, *args, **kwargs):
    return t


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


def gumbel_noise(t):
    return -log(-log(torch.rand_like(t)))


def modify_cached_kv(cache, fn):
    for inter in cache.attn_intermediates:
        if inter.layer_type == 'a':
            inter.cached_kv = [fn(t) for t in inter.cached_kv]


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


FILTER_LOGITS_FN = dict(
    top_k = top_k,
)


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
    def beam_search(
        self,
        prompts,
        seq_len,
        beams = 4,
        return_beams_and_scores = False,
        eos_token = None,
        temperature = 1.,
        stochastic = False,
        prompt_lens: Tensor | None = None,
        filter_logits_fn = identity,
        restrict_to_max_seq_len = True,
        filter_kwargs: dict = dict(),
        cache_kv = True,
        **kwargs
    ):
        assert not exists(eos_token), 'eos token not supported yet'

        max_seq_len, greedy, device = self.max_seq_len, temperature == 0., prompts.device

        packed_shape = prompts.shape[:-1]
        prompts = prompts.reshape(-1, prompts.shape[-1])

        batch, orig_seq_len = prompts.shape

        # handle filter logits fn given as string

        if isinstance(filter_logits_fn, str):
            assert filter_logits_fn in FILTER_LOGITS_FN, f"only {join(FILTER_LOGITS_FN.keys())} are available"

            filter_logits_fn = FILTER_LOGITS_FN[filter_logits_fn]

        # handle variable lengthed prompts (prefixes)

        seq_start_pos = None
        if exists(prompt_lens):
            prompts = align_right(prompts, prompt_lens, pad_id = self.pad_value)
            seq_start_pos = orig_seq_len - prompt_lens

        # output from which sampled tokens appended to

        out = prompts

        # kv caches

        cache = None

        should_cache = cache_kv and self.net.can_cache_kv

        # scores for the beams

        scores = torch.zeros((batch,), device = device)

        batch_arange = torch.arange(batch, device = device)

        # sampling up to seq_len

        for i in range(seq_len):
            is_first = i == 0

            if restrict_to_max_seq_len:
                max_len_exceeded = out.shape[-1] > max_seq_len

                assert not (cache_kv and max_len_exceeded and not self.net.can_cache_kv_outside_max_seq_len), 'the network cannot use cached key values when decoding outside the max sequence length. most likely because you are using absolute positional embedding. you can switch to rotary embeddings to resolve this issue'

                x = out[:, -max_seq_len:]

                if exists(cache):
                    modify_cached_kv(cache, lambda t: t[..., -(max_seq_len - 1):, :])

            logits, new_cache = self.net(
                x,
                return_intermediates = True,
                cache = cache,
                seq_start_pos = seq_start_pos,
                **kwargs
            )

            if should_cache:
                cache = new_cache

            logits = logits[:, -1]

            # to add to the scores

            log_probs = logits.log_softmax(dim = -1)

            # maybe filter by top_k, top_p (nucleus) for stochastic beam search

            if stochastic and not greedy:
                logits = filter_logits_fn(logits, **filter_kwargs)
                logits = (logits / temperature) + gumbel_noise(logits)

            # (gumbel) topk

            samples = logits.topk(beams, dim = -1).indices

            # get the scores for keeping track of beams

            next_scores = log_probs.gather(-1, samples)

            # expand beam times

            scores = scores[:, None].expand(-1, beams)
            scores = scores + next_scores

            out = out.repeat_interleave(beams, dim = 0)
            samples = samples.reshape(-1, 1)

            if should_cache and is_first:
                modify_cached_kv(cache, lambda t: t.repeat_interleave(beams, dim = 0))

            # concat sample

            out = torch.cat((out, samples), dim=-1)

            # sort by score and excise
            # excise out the beams

            scores = scores.reshape(batch, -1)
            curr_num_beams = scores.shape[-1]

            if curr_num_beams > beams:
                scores, sort_indices = scores.sort(dim = -1, descending = True)

                scores = scores[:, :beams]
                top_beams_indices = sort_indices[:, :beams]

                top_beams_indices = curr_num_beams * batch_arange[:, None] + top_beams_indices

                flattened_beam_indices = top_beams_indices.reshape(-1)

                out = out[flattened_beam_indices]

            scores = scores.reshape(-1)

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

        # select out the top beam

        out = out.reshape(batch, -1, out.shape[-1])

        out = out[..., orig_seq_len:]

        out = out.reshape(*packed_shape, *out.shape[1:]) # prompt may have no batch dimension

        if not return_beams_and_scores:
            return out[..., 0, :]

        scores = scores.reshape(batch, -1).transpose(0, 1)
        out = out.transpose(0, 1)

        return out, scores


class BeamSearch(Module):
    def __init__(self):
        super().__init__()
        self.wrapper = AutoregressiveWrapper(TransformerWrapper())

    def forward(self, prompts, seq_len, beams = 2, options = None):
        return self.wrapper.beam_search(prompts, seq_len, beams = beams, **(options or {}))


def reset():
    torch.manual_seed(0)


ENTRY = BeamSearch
torch.manual_seed(0)
INPUTS = [
    (torch.randint(1, 7, (2, 3)), 4),
    (torch.randint(1, 7, (2, 3)), 3, 2, dict(return_beams_and_scores = True, prompt_lens = torch.tensor([3, 2]))),
    (torch.randint(1, 7, (3,)), 3, 3, dict(stochastic = True, filter_logits_fn = 'top_k', filter_kwargs = dict(k = 3), cache_kv = False)),
    (torch.randint(1, 7, (2, 3)), 2, 2, dict(eos_token = 6)),
    (torch.randint(1, 7, (2, 3)), 2, 2, dict(prompt_lens = torch.tensor([4, 2]))),
    (torch.randint(1, 7, (2, 3)), 2, 2, dict(restrict_to_max_seq_len = False)),
]
