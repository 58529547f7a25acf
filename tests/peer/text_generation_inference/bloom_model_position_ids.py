"""Text Generation Inference's BLOOM model forward (its non-flash modelling): a
`position_ids` keyword, which BLOOM ignores, is popped from `**deprecated_arguments` and
warned about (`warnings.warn(..., FutureWarning)`), other leftovers raise a ValueError; then
the embeddings, the ALiBi bias, the causal mask and the blocks. The warning is issued on a
Python condition, and plain torch.compile does not break on it (Dynamo traces this
`warnings.warn`): GraphMend must leave it working. The blocks are one small ALiBi attention
layer here."""

import math
import warnings

import torch
from torch import nn

ORIGIN = "huggingface/text-generation-inference: server/text_generation_server/models/custom_modeling/bloom_modeling.py: BloomModel.forward"
CATEGORY = "no_break"


class BloomConfig:
    n_layer = 1
    n_head = 2
    hidden_size = 8
    vocab_size = 13
    output_attentions = False
    output_hidden_states = False
    use_cache = False
    use_return_dict = False


def _make_causal_mask(input_ids_shape, device, past_key_values_length):
    batch_size, target_length = input_ids_shape
    mask = torch.ones((target_length, target_length + past_key_values_length), dtype=torch.bool, device=device)
    mask = mask.triu(1 + past_key_values_length)

    expanded_mask = mask.unsqueeze(0).expand(batch_size, target_length, target_length + past_key_values_length)
    return expanded_mask


def _expand_mask(mask, tgt_length):
    batch_size, src_length = mask.shape
    tgt_length = tgt_length if tgt_length is not None else src_length

    expanded_mask = ~(mask[:, None, :].to(torch.bool))
    return expanded_mask.expand(batch_size, tgt_length, src_length)


def build_alibi_tensor(attention_mask, num_heads):
    batch_size, seq_length = attention_mask.shape
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(
        2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))), device=attention_mask.device, dtype=torch.float32
    )
    powers = torch.arange(1, 1 + closest_power_of_2, device=attention_mask.device, dtype=torch.int32)
    slopes = torch.pow(base, powers)
    arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
    alibi = slopes[..., None] * arange_tensor
    return alibi


class BloomBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.n_head
        self.head_dim = config.hidden_size // config.n_head
        self.input_layernorm = nn.LayerNorm(config.hidden_size)
        self.query_key_value = nn.Linear(config.hidden_size, 3 * config.hidden_size)
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states, layer_past=None, attention_mask=None, head_mask=None, use_cache=False,
                output_attentions=False, alibi=None):
        batch_size, q_length, _ = hidden_states.shape
        residual = hidden_states
        fused = self.query_key_value(self.input_layernorm(hidden_states))
        query, key, value = fused.view(batch_size, q_length, 3, self.num_heads, self.head_dim).unbind(2)
        query = query.transpose(1, 2).reshape(batch_size * self.num_heads, q_length, self.head_dim)
        key = key.permute(0, 2, 3, 1).reshape(batch_size * self.num_heads, self.head_dim, q_length)
        value = value.transpose(1, 2).reshape(batch_size * self.num_heads, q_length, self.head_dim)
        scores = alibi.baddbmm(batch1=query, batch2=key, beta=1.0, alpha=1.0 / math.sqrt(self.head_dim))
        scores = scores.masked_fill(attention_mask, torch.finfo(scores.dtype).min)
        probs = torch.softmax(scores, dim=-1)
        context = torch.bmm(probs, value).view(batch_size, self.num_heads, q_length, self.head_dim)
        context = context.transpose(1, 2).reshape(batch_size, q_length, -1)
        outputs = (self.dense(context) + residual,)
        if output_attentions:
            outputs = outputs + (probs,)
        return outputs


class BloomModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = config = BloomConfig()
        self.num_heads = config.n_head
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.word_embeddings_layernorm = nn.LayerNorm(config.hidden_size)
        self.h = nn.ModuleList([BloomBlock(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.hidden_size)

    def get_head_mask(self, head_mask, num_hidden_layers):
        return [None] * num_hidden_layers if head_mask is None else head_mask

    def _prepare_attn_mask(self, attention_mask, input_shape, past_key_values_length):
        # create causal mask
        # [batch_size, seq_length] -> [batch_size, tgt_length, src_length]
        combined_attention_mask = None
        device = attention_mask.device
        _, src_length = input_shape

        if src_length > 1:
            combined_attention_mask = _make_causal_mask(
                input_shape, device=device, past_key_values_length=past_key_values_length
            )

        # [batch_size, seq_length] -> [batch_size, tgt_length, src_length]
        expanded_attn_mask = _expand_mask(attention_mask, tgt_length=src_length)
        combined_attention_mask = (
            expanded_attn_mask if combined_attention_mask is None else expanded_attn_mask | combined_attention_mask
        )

        return combined_attention_mask

    def forward(
        self,
        input_ids=None,
        past_key_values=None,
        attention_mask=None,
        head_mask=None,
        inputs_embeds=None,
        use_cache=None,
        output_attentions=None,
        output_hidden_states=None,
        return_dict=None,
        **deprecated_arguments,
    ):
        if deprecated_arguments.pop("position_ids", False) is not False:
            # `position_ids` could have been `torch.Tensor` or `None` so defaulting pop to `False` allows to detect if users were passing explicitly `None`
            warnings.warn(
                "`position_ids` have no functionality in BLOOM and will be removed in v5.0.0. You can safely ignore"
                " passing `position_ids`.",
                FutureWarning,
            )
        if len(deprecated_arguments) > 0:
            raise ValueError(f"Got unexpected arguments: {deprecated_arguments}")

        output_attentions = output_attentions if output_attentions is not None else self.config.output_attentions
        output_hidden_states = (
            output_hidden_states if output_hidden_states is not None else self.config.output_hidden_states
        )
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict

        if input_ids is not None and inputs_embeds is not None:
            raise ValueError("You cannot specify both input_ids and inputs_embeds at the same time")
        elif input_ids is not None:
            batch_size, seq_length = input_ids.shape
        elif inputs_embeds is not None:
            batch_size, seq_length, _ = inputs_embeds.shape
        else:
            raise ValueError("You have to specify either input_ids or inputs_embeds")

        if past_key_values is None:
            past_key_values = tuple([None] * len(self.h))

        head_mask = self.get_head_mask(head_mask, self.config.n_layer)

        if inputs_embeds is None:
            inputs_embeds = self.word_embeddings(input_ids)

        hidden_states = self.word_embeddings_layernorm(inputs_embeds)

        all_self_attentions = () if output_attentions else None
        all_hidden_states = () if output_hidden_states else None

        # Compute alibi tensor: check build_alibi_tensor documentation
        seq_length_with_past = seq_length
        past_key_values_length = 0
        if attention_mask is None:
            attention_mask = torch.ones((batch_size, seq_length_with_past), device=hidden_states.device)
        else:
            attention_mask = attention_mask.to(hidden_states.device)

        alibi = build_alibi_tensor(attention_mask, self.num_heads)

        causal_mask = self._prepare_attn_mask(
            attention_mask, input_shape=(batch_size, seq_length), past_key_values_length=past_key_values_length
        )

        alibi = alibi.reshape(batch_size * self.num_heads, 1, seq_length_with_past)
        causal_mask = torch.repeat_interleave(causal_mask, self.num_heads, dim=0)

        alibi = alibi.to(hidden_states.dtype)

        for i, (block, layer_past) in enumerate(zip(self.h, past_key_values)):
            if output_hidden_states:
                all_hidden_states = all_hidden_states + (hidden_states,)

            outputs = block(
                hidden_states,
                layer_past=layer_past,
                attention_mask=causal_mask,
                head_mask=head_mask[i],
                use_cache=use_cache,
                output_attentions=output_attentions,
                alibi=alibi,
            )

            hidden_states = outputs[0]

            if output_attentions:
                all_self_attentions = all_self_attentions + (outputs[1],)

        # Add last hidden state
        hidden_states = self.ln_f(hidden_states)

        if output_hidden_states:
            all_hidden_states = all_hidden_states + (hidden_states,)

        return tuple(v for v in [hidden_states, all_hidden_states, all_self_attentions] if v is not None)


class BloomCall(nn.Module):
    """The caller: keywords as the generation code passes them."""

    def __init__(self):
        super().__init__()
        self.transformer = BloomModel()

    def forward(self, input_ids, attention_mask=None, inputs_embeds=None, output_attentions=None,
                output_hidden_states=None, deprecated=None):
        return self.transformer(
            input_ids,
            attention_mask=attention_mask,
            inputs_embeds=inputs_embeds,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            **(deprecated or {}),
        )


ENTRY = BloomCall
torch.manual_seed(0)
_ids = torch.randint(0, 13, (2, 4))
INPUTS = [
    (_ids, torch.tensor([[1, 1, 1, 1], [0, 1, 1, 1]]), None, None, None, {"position_ids": torch.arange(4)}),
    (_ids, None, None, True, True, {"position_ids": None}),
    (_ids, None, None, None, None, {}),
    (None, None, torch.randn(1, 3, 8), None, None, None),
    (_ids, None, None, None, None, {"head_mask_v2": None}),
    (_ids, None, torch.randn(2, 4, 8), None, None, None),
    (None, None, None, None, None, None),
]
