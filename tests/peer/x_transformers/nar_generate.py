"""x-transformers' NonAutoregressiveWrapper.generate (MaskGIT-style decoding): the sequence
starts all masked and, over `steps` steps, is sampled everywhere still masked (Gumbel
sampling at an annealed temperature) and re-masked at the least confident positions; how
many to re-mask at each step comes from the schedule over `torch.linspace`, read as Python
numbers (`all_mask_num_tokens.tolist()`) that size `topk`. Python values from tensor data:
not fixable by design. With self-conditioning the last embeddings feed the next step, and a
token critic (here the self critic) scores the positions instead of the probabilities.
Shrunk: a one-layer decoder stands in for TransformerWrapper; einops' rearrange written as
views."""

import math
from collections import namedtuple

import torch
from torch import nn, pi
from torch.nn import Module
from torch.func import grad_and_value, vmap
import torch.nn.functional as F

ORIGIN = "lucidrains/x-transformers: x_transformers/nonautoregressive_wrapper.py: NonAutoregressiveWrapper.generate"
CATEGORY = "out_of_scope"

Losses = namedtuple('Losses', ['loss', 'generator_loss', 'critic_loss'])


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def top_k(logits, thres = 0.9):
    k = math.ceil((1 - thres) * logits.shape[-1])
    val, ind = logits.topk(k, dim = -1)
    probs = torch.full_like(logits, float('-inf'))
    probs.scatter_(2, ind, val)
    return probs


def log(t, eps = 1e-10):
    return torch.log(t + eps)


def gumbel_noise(t):
    noise = torch.zeros_like(t).uniform_(0, 1)
    return -log(-log(noise))


def gumbel_sample(t, temperature = 1., dim = -1):
    return ((t / max(temperature, 1e-10)) + gumbel_noise(t)).argmax(dim = dim)


def linear_schedule(t):
    return 1 - t


def cosine_schedule(t):
    """ https://arxiv.org/abs/2202.04200 """
    return torch.cos(t * pi / 2)


class AttentionLayers(Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.to_qkv = nn.Linear(dim, dim * 3, bias = False)

    def forward(self, x):
        q, k, v = self.to_qkv(x).chunk(3, dim = -1)
        attn = (q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5).softmax(dim = -1)
        return x + attn @ v


class TransformerWrapper(Module):
    def __init__(self, num_tokens = 7, dim = 8, max_seq_len = 6):
        super().__init__()
        self.num_tokens = num_tokens
        self.emb_dim = dim
        self.max_seq_len = max_seq_len
        self.token_emb = nn.Embedding(num_tokens + 1, dim)
        self.attn_layers = AttentionLayers(dim)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x, return_embeddings = False, sum_embeds = None, return_logits_and_embeddings = False):
        x = self.token_emb(x)
        if exists(sum_embeds):
            x = x + sum_embeds
        embeds = self.attn_layers(x)
        if return_embeddings:
            return embeds
        logits = self.to_logits(embeds)
        if return_logits_and_embeddings:
            return logits, embeds
        return logits


class SelfCritic(Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

        dim = net.attn_layers.dim
        self.to_logits = nn.Linear(dim, 1)

    def forward(self, x):
        embed = self.net(x, return_embeddings = True)
        return self.to_logits(embed)


class NonAutoregressiveWrapper(Module):
    """
    https://arxiv.org/abs/1904.09324
    https://arxiv.org/abs/2202.04200
    """

    def __init__(
        self,
        net,
        *,
        mask_id,
        steps = 18,
        self_cond = False,
        self_cond_train_prob = 0.75,
        no_replace_prob = 0.15,          # which percentage of the tokens masked will stay the same, done in original MLM paper
        random_token_prob = 0.1,         # which percentage of tokens to be replaced with random token, done in original MLM paper
        schedule = 'linear',
        can_mask_prev_unmasked = False,  # when unmasking, whether it can remask previously unmasked
        token_critic = None,
        self_token_critic = False,
        critic_loss_weight = 1.,
        use_simple_mdlm_loss_weight = True # Sahoo et al. https://arxiv.org/abs/2406.07524
    ):
        super().__init__()
        assert not (self_token_critic and exists(token_critic))

        self.net = net

        dim = net.emb_dim
        self.dim = dim
        self.num_tokens = net.num_tokens

        self.mask_id = mask_id

        self.no_replace_prob = no_replace_prob
        self.random_token_prob = random_token_prob

        self.max_seq_len = net.max_seq_len
        self.steps = steps

        if callable(schedule):
            self.schedule_fn = schedule
        if schedule == 'linear':
            self.schedule_fn = linear_schedule
        elif schedule == 'cosine':
            self.schedule_fn = cosine_schedule
        else:
            raise ValueError(f'invalid schedule {schedule}')

        # whether to use the loss weighting proposed in simple diffusion lm paper

        self.loss_weight_fn = None

        if use_simple_mdlm_loss_weight:
            grad_and_value_schedule_fn = vmap(grad_and_value(self.schedule_fn))

            # eq (10)

            def loss_weight_fn(times):
                grad, value = grad_and_value_schedule_fn(times)
                return grad / (1. - value)

            self.loss_weight_fn = loss_weight_fn

        self.can_mask_prev_unmasked = can_mask_prev_unmasked

        # self conditioning

        self.self_cond = self_cond

        if self_cond:
            self.null_embed = nn.Parameter(torch.randn(dim))
            self.to_self_cond = nn.Linear(dim, dim, bias = False) if self_cond else None
            self.self_cond_train_prob = self_cond_train_prob

        # token critic

        self.token_critic = token_critic

        if self_token_critic:
            self.token_critic = SelfCritic(net)

        self.critic_loss_weight = critic_loss_weight

    @torch.no_grad()
    def generate(
        self,
        batch_size = None,
        start_temperature = 1.,
        filter_thres = 0.7,
        noise_level_scale = 1.,
        **kwargs
    ):
        sample_one = not exists(batch_size)
        batch_size = default(batch_size, 1)

        device = next(self.net.parameters()).device

        was_training = self.training
        self.eval()

        times = torch.linspace(0., 1., self.steps + 1)

        # sequence starts off as all masked

        shape = (batch_size, self.max_seq_len)

        seq = torch.full(shape, self.mask_id, device = device)
        mask = torch.full(shape, True, device = device)

        # slowly demask

        all_mask_num_tokens = (self.schedule_fn(times[1:]) * self.max_seq_len).long()

        # self conditioning

        has_self_cond = self.self_cond
        last_embed = self.null_embed if has_self_cond else None

        for mask_num_tokens, steps_until_x0 in zip(all_mask_num_tokens.tolist(), reversed(range(self.steps))):

            self_cond = self.to_self_cond(last_embed) if has_self_cond else None

            logits, embeds = self.net(
                seq,
                sum_embeds = self_cond,
                return_logits_and_embeddings = True,
                **kwargs
            )

            if has_self_cond:
                last_embed = embeds

            if exists(filter_thres):
                logits = top_k(logits, filter_thres)

            annealing_scale = steps_until_x0 / self.steps
            temperature = start_temperature * annealing_scale

            probs = (logits / max(temperature, 1e-3)).softmax(dim = -1)

            sampled_ids = gumbel_sample(logits, temperature = max(temperature, 1e-3))

            seq = torch.where(mask, sampled_ids, seq)

            if exists(self.token_critic):
                scores = self.token_critic(seq)
                scores = scores.squeeze(-1)
                scores = scores + noise_level_scale * gumbel_noise(scores) * annealing_scale
            else:
                scores = 1 - logits.softmax(dim = -1)
                scores = scores.gather(2, sampled_ids[..., None])
                scores = scores.squeeze(-1)

            if mask_num_tokens == 0:
                pass

            if not self.can_mask_prev_unmasked:
                scores = scores.masked_fill(~mask, -torch.finfo(scores.dtype).max)

            mask_indices = scores.topk(mask_num_tokens, dim = -1).indices
            mask = torch.zeros_like(scores, dtype = torch.bool).scatter(1, mask_indices, True)
            seq = seq.masked_fill(mask, self.mask_id)

        self.train(was_training)

        if sample_one:
            seq = seq.squeeze(0)

        return seq


class Generate(Module):
    def __init__(self):
        super().__init__()
        self.wrapper = NonAutoregressiveWrapper(TransformerWrapper(), mask_id = 7, steps = 3)
        self.critic_wrapper = NonAutoregressiveWrapper(
            TransformerWrapper(), mask_id = 7, steps = 4, self_cond = True, schedule = 'cosine',
            self_token_critic = True, can_mask_prev_unmasked = True)

    def forward(self, batch_size = None, critic = False, filter_thres = 0.7):
        wrapper = self.critic_wrapper if critic else self.wrapper
        return wrapper.generate(batch_size, filter_thres = filter_thres)


def reset():
    torch.manual_seed(0)


ENTRY = Generate
INPUTS = [
    (2,),
    (None, True),
    (3, False, None),
]
