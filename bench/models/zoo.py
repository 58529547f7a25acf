"""Tiny, seeded, randomly initialised Hugging Face models whose forward passes break
TorchDynamo graphs, with example inputs that reach the breaking code paths.

Every model is built from its config class (the hub is never contacted) with the
architecture of a real checkpoint scaled down to 1-2 layers and a hidden size of 32-64,
so that it builds in well under a second and runs on a couple of CPU cores. The same
names build under transformers 4.52.4 and 5.x; where the config API differs the builder
branches on `TF_MAJOR`.

    from zoo import MODELS, build
    model, kwargs = build("phi3")
    model(**kwargs)
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import torch
import transformers

TF_VERSION = transformers.__version__
TF_MAJOR = int(TF_VERSION.split(".")[0])

# Small vocabularies keep embeddings tiny; ids 0-2 stay free for pad/bos/eos.
VOCAB = 128
FIRST_TOKEN = 3


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    name: str
    checkpoint: str  # the real checkpoint whose architecture is scaled down
    builder: Callable[[torch.Generator], tuple[torch.nn.Module, dict]]
    default_dtype: torch.dtype | None = None  # None: float32
    note: str = ""


MODELS: dict[str, ModelSpec] = {}


def _register(name, checkpoint, default_dtype=None, note=""):
    def wrap(builder):
        MODELS[name] = ModelSpec(name, checkpoint, builder, default_dtype, note)
        return builder

    return wrap


def build(name: str, *, seed: int = 0, dtype: torch.dtype | None = None):
    """Returns (model in eval mode, example keyword arguments) for `name`.

    Weights and inputs depend only on `seed`. `dtype` defaults to the model's registered
    dtype (float16 for bart, whose overflow guard exists only in float16); floating
    inputs are cast along with the model.
    """
    spec = MODELS[name]
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model, kwargs = spec.builder(generator)
    model.eval()
    dtype = dtype or spec.default_dtype
    if dtype is not None:
        model = model.to(dtype)
        kwargs = {k: _cast_floating(v, dtype) for k, v in kwargs.items()}
    return model, kwargs


def _cast_floating(value, dtype):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(dtype)
    return value


def _token_ids(generator, batch, length, vocab=VOCAB):
    return torch.randint(FIRST_TOKEN, vocab, (batch, length), generator=generator)


def _padded_mask(batch, length, pad_last_row=2):
    """An attention mask whose last row ends in padding, so masking code is not a no-op."""
    mask = torch.ones(batch, length, dtype=torch.long)
    if batch > 1 and pad_last_row:
        mask[-1, -pad_last_row:] = 0
    return mask


def _seq2seq_inputs(generator, source_len=12, target_len=7, batch=2):
    return {
        "input_ids": _token_ids(generator, batch, source_len),
        "attention_mask": _padded_mask(batch, source_len),
        "decoder_input_ids": _token_ids(generator, batch, target_len),
    }


# Shared by the BART family: 1 encoder + 1 decoder layer, d_model 32.
_BART_SIZES = dict(
    vocab_size=VOCAB,
    d_model=32,
    encoder_layers=1,
    decoder_layers=1,
    encoder_attention_heads=2,
    decoder_attention_heads=2,
    encoder_ffn_dim=64,
    decoder_ffn_dim=64,
    max_position_embeddings=64,
    pad_token_id=1,
    bos_token_id=0,
    eos_token_id=2,
    decoder_start_token_id=2,
)


def _bart_family(prefix: str, generator):
    """`<prefix>ForConditionalGeneration` at the shared BART-family sizes, with seq2seq inputs."""
    config = getattr(transformers, f"{prefix}Config")(**_BART_SIZES)
    model = getattr(transformers, f"{prefix}ForConditionalGeneration")(config)
    return model, _seq2seq_inputs(generator)


# --------------------------------------------------------------------------------------------
# Encoder-decoder text models.


@_register("t5", "google/flan-t5-small", note="T5 v1.1 / flan: gated-gelu, untied head")
def _t5(generator):
    config = transformers.T5Config(
        vocab_size=VOCAB,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        relative_attention_num_buckets=32,
        relative_attention_max_distance=128,
        feed_forward_proj="gated-gelu",
        tie_word_embeddings=False,
        dropout_rate=0.0,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    return transformers.T5ForConditionalGeneration(config), _seq2seq_inputs(generator)


@_register(
    "bart",
    "facebook/bart-base",
    default_dtype=torch.float16,
    note="float16: the encoder's inf/nan clamp runs only for float16 activations",
)
def _bart(generator):
    return _bart_family("Bart", generator)


@_register("marian", "Helsinki-NLP/opus-mt-en-de", note="static sinusoidal positions, scaled embeddings")
def _marian(generator):
    sizes = dict(_BART_SIZES, pad_token_id=VOCAB - 1, decoder_start_token_id=VOCAB - 1, eos_token_id=0)
    config = transformers.MarianConfig(
        **sizes, scale_embedding=True, share_encoder_decoder_embeddings=True, activation_function="swish"
    )
    return transformers.MarianMTModel(config), _seq2seq_inputs(generator)


@_register("blenderbot", "facebook/blenderbot-400M-distill", note="pre-norm, scaled embeddings")
def _blenderbot(generator):
    sizes = dict(_BART_SIZES, decoder_layers=2, max_position_embeddings=128)
    config = transformers.BlenderbotConfig(
        **sizes,
        normalize_before=True,
        scale_embedding=True,
        activation_function="gelu",
        layernorm_variant="prelayernorm",
    )
    model = transformers.BlenderbotForConditionalGeneration(config)
    return model, _seq2seq_inputs(generator)


@_register(
    "plbart",
    "uclanlp/plbart-base",
    default_dtype=torch.float16,
    note="float16: the BART family's inf/nan clamp, written with isfinite",
)
def _plbart(generator):
    return _bart_family("PLBart", generator)


@_register("mbart", "facebook/mbart-large-50", note="pre-norm BART with a final layer norm")
def _mbart(generator):
    return _bart_family("MBart", generator)


@_register("m2m100", "facebook/nllb-200-distilled-600M", note="NLLB's architecture: sinusoidal positions")
def _m2m100(generator):
    return _bart_family("M2M100", generator)


# --------------------------------------------------------------------------------------------
# Decoder-only text models.


@_register("pegasus", "google/pegasus-large", note="decoder of Pegasus as a causal LM")
def _pegasus(generator):
    sizes = dict(_BART_SIZES, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    config = transformers.PegasusConfig(
        **sizes, scale_embedding=True, activation_function="relu", is_decoder=True, is_encoder_decoder=False
    )
    model = transformers.PegasusForCausalLM(config)
    return model, {"input_ids": _token_ids(generator, 2, 12), "attention_mask": _padded_mask(2, 12)}


@_register("biogpt", "microsoft/biogpt", note="scaled embeddings, learned positions")
def _biogpt(generator):
    config = transformers.BioGptConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        scale_embedding=True,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    model = transformers.BioGptForCausalLM(config)
    return model, {"input_ids": _token_ids(generator, 2, 12), "attention_mask": _padded_mask(2, 12)}


# Phi-4-mini: head_dim 128 with partial_rotary_factor 0.75 (96 rotary dims, 48 factors),
# grouped-query attention 24/8, tied embeddings, longrope 4096 -> 131072. Scaled down:
# head_dim 16 (12 rotary dims, 6 factors), 4/2 heads, longrope 16 -> 64.
PHI3_ORIGINAL_MAX_POSITIONS = 16
PHI3_MAX_POSITIONS = 64
PHI3_SEQUENCE = 24  # longer than the original context: the long factors apply


@_register("phi3", "microsoft/Phi-4-mini-instruct", note="longrope, input past original context")
def _phi3(generator):
    hidden, heads, partial = 64, 4, 0.75
    n_factors = int(hidden // heads * partial) // 2
    short_factor = [1.0 + 0.05 * i for i in range(n_factors)]
    long_factor = [1.0 + 0.5 * i for i in range(n_factors)]
    common = dict(
        vocab_size=VOCAB,
        hidden_size=hidden,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=heads,
        num_key_value_heads=2,
        max_position_embeddings=PHI3_MAX_POSITIONS,
        original_max_position_embeddings=PHI3_ORIGINAL_MAX_POSITIONS,
        tie_word_embeddings=True,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    if TF_MAJOR >= 5:
        rope = dict(
            rope_type="longrope",
            rope_theta=10000.0,
            partial_rotary_factor=partial,
            short_factor=short_factor,
            long_factor=long_factor,
            original_max_position_embeddings=PHI3_ORIGINAL_MAX_POSITIONS,
        )
        config = transformers.Phi3Config(**common, rope_parameters=rope)
    else:
        rope = dict(type="longrope", short_factor=short_factor, long_factor=long_factor)
        config = transformers.Phi3Config(
            **common, rope_theta=10000.0, partial_rotary_factor=partial, rope_scaling=rope
        )
    model = transformers.Phi3ForCausalLM(config)
    return model, {"input_ids": _token_ids(generator, 2, PHI3_SEQUENCE)}


# --------------------------------------------------------------------------------------------
# Encoders.


LONGFORMER_WINDOW = 4
LONGFORMER_SEQUENCE = 11  # not a multiple of the window: the padding path runs


@_register("longformer", "allenai/longformer-base-4096", note="sliding window 4, length 11, one global token")
def _longformer(generator):
    model = _longformer_model()
    global_attention = torch.zeros(2, LONGFORMER_SEQUENCE, dtype=torch.long)
    global_attention[:, 0] = 1
    return model, {
        "input_ids": _token_ids(generator, 2, LONGFORMER_SEQUENCE),
        "attention_mask": _padded_mask(2, LONGFORMER_SEQUENCE),
        "global_attention_mask": global_attention,
    }


@_register(
    "longformer_local",
    "allenai/longformer-base-4096",
    note="as longformer, called without a global attention mask (local attention only)",
)
def _longformer_local(generator):
    model = _longformer_model()
    return model, {
        "input_ids": _token_ids(generator, 2, LONGFORMER_SEQUENCE),
        "attention_mask": _padded_mask(2, LONGFORMER_SEQUENCE),
    }


def _longformer_model():
    config = transformers.LongformerConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        attention_window=LONGFORMER_WINDOW,
        max_position_embeddings=64,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        sep_token_id=2,
    )
    return transformers.LongformerModel(config, add_pooling_layer=False)


@_register("layoutlmv3", "microsoft/layoutlmv3-base", note="text + layout, no image")
def _layoutlmv3(generator):
    # The spatial embedding concatenates 4 coordinate and 2 shape embeddings: 4*8 + 2*8 = 48.
    config = transformers.LayoutLMv3Config(
        vocab_size=VOCAB,
        hidden_size=48,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=96,
        max_position_embeddings=64,
        max_2d_position_embeddings=128,
        coordinate_size=8,
        shape_size=8,
        rel_pos_bins=32,
        max_rel_pos=64,
        rel_2d_pos_bins=32,
        max_rel_2d_pos=64,
        input_size=32,
        patch_size=16,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    model = transformers.LayoutLMv3Model(config)
    return model, {
        "input_ids": _token_ids(generator, 2, 10),
        "attention_mask": _padded_mask(2, 10),
        "bbox": _boxes(generator, 2, 10, limit=127),
    }


def _boxes(generator, batch, length, limit):
    """Valid (x0, y0, x1, y1) boxes with 0 <= x0 <= x1 <= limit."""
    corners = torch.randint(0, limit + 1, (batch, length, 2, 2), generator=generator)
    low, high = corners.min(dim=2).values, corners.max(dim=2).values
    return torch.cat([low, high], dim=-1)


# --------------------------------------------------------------------------------------------
# Speech and audio.


WHISPER_SOURCE_POSITIONS = 16  # the encoder wants exactly 2x this many mel frames


@_register("whisper", "openai/whisper-tiny")
def _whisper(generator):
    config = transformers.WhisperConfig(
        vocab_size=VOCAB,
        num_mel_bins=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        d_model=32,
        max_source_positions=WHISPER_SOURCE_POSITIONS,
        max_target_positions=32,
        pad_token_id=VOCAB - 1,
        bos_token_id=VOCAB - 2,
        eos_token_id=VOCAB - 1,
        decoder_start_token_id=VOCAB - 2,
        suppress_tokens=None,
        begin_suppress_tokens=None,
    )
    model = transformers.WhisperForConditionalGeneration(config)
    features = torch.randn(2, 16, 2 * WHISPER_SOURCE_POSITIONS, generator=generator)
    return model, {"input_features": features, "decoder_input_ids": _token_ids(generator, 2, 6)}


# CLAP's audio tower (HTS-AT): mel spectrogram folded into a square image of spec_size;
# with fusion the input carries 4 channels (a global view + 3 local crops) and `is_longer`
# picks the clips whose local crops are fused in.
CLAP_MEL_BINS = 16
CLAP_SPEC_SIZE = 32
CLAP_FRAMES = 64  # spec_size * (spec_size // mel_bins) frames fill the square image


@_register("clap", "laion/clap-htsat-fused", note="audio tower with fusion, one long clip and one short")
def _clap(generator):
    config = transformers.ClapAudioConfig(
        window_size=4,
        num_mel_bins=CLAP_MEL_BINS,
        spec_size=CLAP_SPEC_SIZE,
        patch_size=4,
        patch_stride=[4, 4],
        patch_embeds_hidden_size=16,
        hidden_size=32,
        depths=[1, 1],
        num_attention_heads=[2, 2],
        enable_fusion=True,
        fusion_type="aff_2d",
        projection_dim=16,
    )
    model = transformers.ClapAudioModel(config)
    features = torch.randn(2, 4, CLAP_FRAMES, CLAP_MEL_BINS, generator=generator)
    is_longer = torch.tensor([[True], [False]])
    return model, {"input_features": features, "is_longer": is_longer}


# --------------------------------------------------------------------------------------------
# Vision-language.


def _tiny_swin_backbone():
    return transformers.SwinConfig(
        image_size=64,
        patch_size=4,
        embed_dim=8,
        depths=[1, 1, 1, 1],
        num_heads=[1, 1, 2, 2],
        window_size=2,
        out_indices=[2, 3, 4],
    )


# Grounding DINO tokenizes with BERT's vocabulary and looks for [CLS]=101, [SEP]=102 and
# "."=1012 to split the prompt into phrases; the text vocabulary must hold those ids.
BERT_CLS, BERT_SEP, BERT_PERIOD = 101, 102, 1012


@_register("grounding_dino", "IDEA-Research/grounding-dino-tiny", note="Swin backbone, BERT text tower")
def _grounding_dino(generator):
    text_config = transformers.BertConfig(
        vocab_size=BERT_PERIOD + 8,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    config = transformers.GroundingDinoConfig(
        backbone_config=_tiny_swin_backbone(),
        text_config=text_config,
        d_model=32,
        encoder_layers=1,
        # Two decoder layers: the shared box head ties layer 1 to layer 0 (5.x refuses one).
        decoder_layers=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        num_queries=10,
        num_feature_levels=4,
        encoder_n_points=2,
        decoder_n_points=2,
        max_text_len=32,
        disable_custom_kernels=True,
    )
    model = transformers.GroundingDinoForObjectDetection(config)
    # "[CLS] a cat . a remote control . [SEP]" with random word ids.
    words = torch.randint(1000, BERT_PERIOD, (2, 5), generator=generator)
    period = torch.full((2, 1), BERT_PERIOD)
    input_ids = torch.cat(
        [torch.full((2, 1), BERT_CLS), words[:, :2], period, words[:, 2:], period, torch.full((2, 1), BERT_SEP)],
        dim=1,
    )
    pixel_values = torch.randn(2, 3, 64, 64, generator=generator)
    return model, {
        "pixel_values": pixel_values,
        "input_ids": input_ids,
        "attention_mask": torch.ones_like(input_ids),
    }


# --------------------------------------------------------------------------------------------
# Mixture-of-experts decoders: token routing picks experts with data-dependent indexing.

_MOE_SIZES = dict(
    vocab_size=VOCAB,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
    num_experts_per_tok=2,
    pad_token_id=0,
    bos_token_id=1,
    eos_token_id=2,
)


@_register("qwen2_moe", "Qwen/Qwen1.5-MoE-A2.7B", note="4 routed experts (top-2) + a gated shared expert")
def _qwen2_moe(generator):
    config = transformers.Qwen2MoeConfig(
        **_MOE_SIZES,
        num_experts=4,
        moe_intermediate_size=32,
        shared_expert_intermediate_size=64,
        decoder_sparse_step=1,
        tie_word_embeddings=False,
    )
    model = transformers.Qwen2MoeForCausalLM(config)
    return model, {"input_ids": _token_ids(generator, 2, 12), "attention_mask": _padded_mask(2, 12)}


@_register("mixtral", "mistralai/Mixtral-8x7B-v0.1", note="4 experts, top-2 routing")
def _mixtral(generator):
    config = transformers.MixtralConfig(**_MOE_SIZES, num_local_experts=4)
    model = transformers.MixtralForCausalLM(config)
    return model, {"input_ids": _token_ids(generator, 2, 12), "attention_mask": _padded_mask(2, 12)}


# --------------------------------------------------------------------------------------------
# Any architecture, tiny: a config class's defaults scaled down by field name.

TINY_HIDDEN = 64
TINY_HEADS = 4
TINY_HEAD_DIM = TINY_HIDDEN // TINY_HEADS
TINY_LAYERS = 2
TINY_FFN = 64
TINY_POSITIONS = 128
# Exact field names -> the tiny value; a default at or below it is kept.
_TINY_FIELDS = {
    **dict.fromkeys(
        ("hidden_size", "d_model", "n_embd", "n_embed", "embed_dim", "embedding_dim", "model_dim",
         "hidden_size_global", "attention_hidden_size", "word_embed_proj_dim", "input_size",
         "mamba_d_ssm", "encoder_hidden_size"),
        TINY_HIDDEN,
    ),
    **dict.fromkeys(
        ("num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads",
         "decoder_attention_heads", "num_decoder_attention_heads", "mamba_n_heads",
         "n_mamba_heads", "linear_num_key_heads", "linear_num_value_heads"),
        TINY_HEADS,
    ),
    **dict.fromkeys(
        ("head_dim", "d_kv", "d_head", "attention_head_size", "attention_head_dim", "kv_channels",
         "linear_key_head_dim", "linear_value_head_dim", "rotary_dim"),
        TINY_HEAD_DIM,
    ),
    **dict.fromkeys(
        ("num_hidden_layers", "n_layer", "n_layers", "num_layers", "num_decoder_layers",
         "encoder_layers", "decoder_layers", "num_blocks"),
        TINY_LAYERS,
    ),
    **dict.fromkeys(
        ("intermediate_size", "ffn_dim", "d_ff", "d_inner", "dff", "n_inner", "encoder_ffn_dim",
         "decoder_ffn_dim", "feed_forward_size", "ffn_hidden_size"),
        TINY_FFN,
    ),
    **dict.fromkeys(
        ("max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "context_length",
         "max_target_positions", "max_source_positions", "max_sequence_length"),
        TINY_POSITIONS,
    ),
    **dict.fromkeys(("moe_intermediate_size", "shared_expert_intermediate_size"), 32),
    **dict.fromkeys(("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"), 4),
    **dict.fromkeys(("num_experts_per_tok", "top_k", "moe_topk"), 2),
    **dict.fromkeys(("n_group", "topk_group", "n_shared_experts", "first_k_dense_replace"), 1),
    **dict.fromkeys(("kv_lora_rank", "q_lora_rank"), 16),
    **dict.fromkeys(("qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"), TINY_HEAD_DIM),
    **dict.fromkeys(("state_size", "mamba_d_state", "time_step_rank", "mamba_dt_rank", "mamba_headdim",
                     "mamba_d_head", "ssm_state_size"), 8),
    **dict.fromkeys(("chunk_size", "mamba_chunk_size"), 16),
    "sliding_window": 64,
}
_LAYER_COUNT_FIELDS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers")


def tiny_config_dict(values: dict, vocab: int = VOCAB) -> dict:
    """A config's `to_dict()` scaled down: the fields of `_TINY_FIELDS` (and nested configs'),
    key/value heads to 2 where the default groups queries, vocabularies to `vocab`, per-layer
    lists cut to the new layer count, and token ids past the vocabulary moved into its top
    (input ids stay below `vocab - 16`)."""
    out = {}
    layers = next((values[k] for k in _LAYER_COUNT_FIELDS if isinstance(values.get(k), int)), None)
    heads = values.get("num_attention_heads")
    high_ids = iter(range(vocab - 1, vocab - 16, -1))
    for key, value in values.items():
        if "layer" in key and isinstance(value, dict) and value and all(isinstance(k, int) for k in value):
            value = {k: v for k, v in value.items() if k < TINY_LAYERS}  # per-layer settings
        elif isinstance(value, dict) and ("model_type" in value or key.endswith("config")):
            value = tiny_config_dict(value, vocab)
        elif isinstance(value, bool) or not isinstance(value, (int, list)):
            pass
        elif key in ("num_key_value_heads", "num_query_groups", "multi_query_group_num") and isinstance(value, int):
            value = TINY_HEADS if value == heads else min(value, 2)
        elif key in _TINY_FIELDS and isinstance(value, int):
            value = min(value, _TINY_FIELDS[key])
        elif "vocab" in key and isinstance(value, int):
            value = min(value, vocab)
        elif isinstance(value, list) and layers and len(value) == layers and layers > TINY_LAYERS:
            kinds = list(dict.fromkeys(v for v in value if isinstance(v, (str, int, float))))
            # Hybrid layouts keep one layer of each of their first kinds (attention and SSM).
            value = (kinds[:TINY_LAYERS] + value)[:TINY_LAYERS] if len(kinds) > 1 else value[:TINY_LAYERS]
        elif key.endswith("_layer_period") and isinstance(value, int):
            value = min(value, TINY_LAYERS)
        elif key.endswith("_layer_offset") and isinstance(value, int):
            value = min(value, TINY_LAYERS - 1)
        elif (key.endswith(("_token_id", "_token_index")) and isinstance(value, int) and value >= vocab - 16):
            value = next(high_ids, vocab - 1)
        elif key.endswith("_token_id") and isinstance(value, list):
            value = [v if v < vocab - 16 else vocab - 1 for v in value]
        out[key] = value
    if "qk_head_dim" in out and "qk_nope_head_dim" in out and "qk_rope_head_dim" in out:
        out["qk_head_dim"] = out["qk_nope_head_dim"] + out["qk_rope_head_dim"]  # multi-head latent
    if isinstance(out.get("mamba_d_head"), int) and isinstance(out.get("mamba_n_heads"), int):
        inner = out.get("mamba_d_ssm") or out.get("mamba_expand", 2) * out.get("hidden_size", TINY_HIDDEN)
        out["mamba_d_head"] = inner // out["mamba_n_heads"]  # heads x head size = the SSM's width
    return out


def tiny_config(config_class, vocab: int = VOCAB):
    """`config_class` with its defaults scaled down by `tiny_config_dict`, float32."""
    values = tiny_config_dict(config_class().to_dict(), vocab)
    for key in ("transformers_version", "_name_or_path", "dtype", "torch_dtype"):
        values.pop(key, None)
    return config_class.from_dict(values)
