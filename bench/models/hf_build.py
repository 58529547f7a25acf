"""Tiny transformers models from their config classes, and inputs made from `forward`'s
signature and the config: the builder of the transformers survey (hf_survey.py).

A class is built from `cls.config_class` scaled down by `zoo.tiny_config` (seeded, never the
hub), with every dropout probability set to 0 so that a training-mode forward is
deterministic and the original and mended models can be compared exactly; the code that
runs only in training mode (`if self.training ...`, layer drop drawing `torch.rand`) still
runs. Inputs are tried as variants, richest first (every modality the forward takes, then
one modality less, ...): the first that runs eagerly is the model's input. Every variant is
a pure function of the seed, so a second process rebuilds the same inputs from its name.
"""

from __future__ import annotations

import inspect
import itertools
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SEED = 0
BATCH = 2
TEXT_LEN = 8
TARGET_LEN = 6
VOCAB = 256
AUDIO_SAMPLES = 8000  # 0.5 s at 16 kHz: about 25 frames after a wav2vec2-style extractor
AUDIO_FRAMES = 32
DEFAULT_IMAGE = 64

# forward parameters -> the modality they carry, in the order variants drop them.
MODALITY_INPUTS = {
    "vision": ("pixel_values",),
    "audio": ("input_values", "input_features"),
    "time-series": ("past_values",),
    "text": ("input_ids",),
}


# ---------------------------------------------------------------------------------------------
# The model.

# Config fields some defaults leave unset and the config's own checks want.
REQUIRED_FIELDS = {"prediction_length": 4}
# Fields dropped from the scaled-down dict (at any depth): serialisation bookkeeping, and
# backbone outputs named after stages that the cut per-stage lists removed.
DROPPED_FIELDS = ("transformers_version", "_name_or_path", "dtype", "torch_dtype", "out_features", "out_indices")


def tiny_model(cls, seed: int = SEED):
    """`cls` built from its tiny config, float32, in eval mode."""
    import torch

    config = tiny_config(cls)
    torch.manual_seed(seed)
    model = cls(config).to(torch.float32).eval()
    if getattr(config, "languages", None) and hasattr(model, "set_default_language"):
        model.set_default_language(config.languages[0])  # X-MOD's adapters want a language
    return model


def tiny_config(cls):
    """`zoo.tiny_config_dict` of the class's default config, with what the defaults leave
    unset that the config refuses to be without (a forecast length) and without the
    backbone stage names that name stages the tiny config no longer has."""
    import zoo

    config_class = cls.config_class
    try:
        defaults = config_class()
    except ValueError:
        defaults = config_class(**REQUIRED_FIELDS)
    values = _without(zoo.tiny_config_dict(defaults.to_dict(), VOCAB), DROPPED_FIELDS)
    values.update({k: v for k, v in REQUIRED_FIELDS.items() if k in values and values[k] is None})
    _divisible_stage_heads(values)
    _ssm_head_dim(values)
    config = config_class.from_dict(values)
    if cls.__name__.endswith("ForCausalLM") and not getattr(config, "is_encoder_decoder", False):
        config.is_decoder = True  # encoder families' *ForCausalLM classes want a decoder
    for sub in all_configs(config):
        zero_dropout(sub)
        fit_mrope_sections(sub)
    return config


def _divisible_stage_heads(values: dict) -> None:
    """Hierarchical vision transformers (Swin and kin) list heads per stage for a width that
    doubles per stage from `embed_dim`: the tiny width (a power of two) wants power-of-two
    heads, each the largest not above the default (3, 6, 12, 24 -> 2, 4, 8, 16)."""
    for value in values.values():
        if isinstance(value, dict):
            _divisible_stage_heads(value)
    heads = values.get("num_heads")
    if isinstance(heads, list) and "embed_dim" in values and all(isinstance(h, int) and h > 0 for h in heads):
        values["num_heads"] = [1 << (h.bit_length() - 1) for h in heads]


def _ssm_head_dim(values: dict) -> None:
    """Mamba-2 wants heads x head size = hidden size x expand, and groups that divide the
    (cut) heads."""
    if all(isinstance(values.get(k), int) for k in ("num_heads", "head_dim", "expand", "hidden_size", "n_groups")):
        values["head_dim"] = values["hidden_size"] * values["expand"] // values["num_heads"]
        values["n_groups"] = 1


def _without(values: dict, keys) -> dict:
    return {k: _without(v, keys) if isinstance(v, dict) else v for k, v in values.items() if k not in keys}


def all_configs(config) -> list:
    """The config and every config nested in it (vision_config, text_config, ...)."""
    from transformers import PretrainedConfig

    found, pending = [], [config]
    while pending:
        current = pending.pop()
        if any(current is seen for seen in found):
            continue
        found.append(current)
        pending += [v for v in vars(current).values() if isinstance(v, PretrainedConfig)]
    return found


def zero_dropout(config) -> None:
    """Every float field naming a dropout or layer-drop probability to 0."""
    for key, value in list(vars(config).items()):
        dropping = "dropout" in key or "drop_prob" in key or "layerdrop" in key or "drop_path" in key
        if dropping and isinstance(value, float):
            setattr(config, key, 0.0)


def fit_mrope_sections(config) -> None:
    """Multimodal rotary embeddings (Qwen2-VL, GLM-4V and kin) split the rotary frequencies
    into sections for time, height and width, by default sized for the full head: sized
    here for the tiny head (in the default's 2:3:3 proportion)."""
    if "mrope_section" not in getattr(type(config), "ignore_keys_at_rope_validation", ()):
        return
    rope = getattr(config, "rope_parameters", None)
    heads = getattr(config, "num_attention_heads", None)
    if not isinstance(rope, dict) or "mrope_section" in rope or not heads:
        return
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    frequencies = int(head_dim * rope.get("partial_rotary_factor", 1.0)) // 2
    time_section = frequencies // 4
    height = (frequencies - time_section) // 2
    rope["mrope_section"] = [time_section, height, frequencies - time_section - height]


def modality(cls) -> str:
    """text, vision, audio, time-series, multimodal (text with images or audio) or other, by
    the inputs `forward` takes."""
    taken = set(forward_parameters(cls))
    kinds = [kind for kind, names in MODALITY_INPUTS.items() if taken & set(names)]
    if len(kinds) > 1:
        return "multimodal"
    return kinds[0] if kinds else "other"


def forward_parameters(cls) -> list[str]:
    return [name for name in inspect.signature(cls.forward).parameters if name != "self"]


# ---------------------------------------------------------------------------------------------
# Inputs.


def variants(cls) -> list[tuple[str, ...]]:
    """The input variants to try, richest first: every modality `forward` takes, then each
    subset with one fewer, down to single modalities; then `inputs_embeds` alone."""
    taken = set(forward_parameters(cls))
    kinds = [kind for kind, names in MODALITY_INPUTS.items() if taken & set(names)]
    out = []
    for size in range(len(kinds), 0, -1):
        out += [tuple(combo) for combo in itertools.combinations(kinds, size)]
    if "inputs_embeds" in taken:
        out.append(("embeddings",))  # last: a model that refuses ids, or takes none
    return out


def make_inputs(model, kinds: tuple[str, ...], seed: int = SEED) -> dict:
    """The keyword arguments of one variant: `kinds` are modality names."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    taken = set(forward_parameters(type(model)))
    config = model.config
    kwargs: dict = {}
    if "text" in kinds:
        kwargs.update(text_inputs(generator, config, taken))
    if "vision" in kinds:
        kwargs["pixel_values"] = image(generator, config)
    if "audio" in kinds:
        kwargs.update(audio_inputs(generator, config, taken))
    if "time-series" in kinds:
        kwargs.update(time_series_inputs(generator, config, taken))
    if "embeddings" in kinds:
        kwargs["inputs_embeds"] = embeddings(generator, model)
    if "decoder_input_ids" in taken and getattr(config, "is_encoder_decoder", False):
        kwargs.setdefault("decoder_input_ids", decoder_ids(generator))  # audio/vision to text
    return kwargs


def text_inputs(generator, config, taken: set) -> dict:
    import zoo

    top = VOCAB - 16  # zoo.tiny_config_dict moves special ids above this
    out = {"input_ids": zoo._token_ids(generator, BATCH, TEXT_LEN, vocab=top)}
    if "attention_mask" in taken:
        out["attention_mask"] = zoo._padded_mask(BATCH, TEXT_LEN)
    if "decoder_input_ids" in taken and getattr(config, "is_encoder_decoder", False):
        out["decoder_input_ids"] = decoder_ids(generator)
    return out


def embeddings(generator, model):
    """inputs_embeds [B, L, width]: the input embedding's width, else the config's hidden size."""
    import torch

    try:
        width = model.get_input_embeddings().weight.shape[-1]
    except (AttributeError, NotImplementedError, TypeError):
        width = _find_value(model.config, "hidden_size") or _find_value(model.config, "d_model")
    return torch.randn(BATCH, TEXT_LEN, width, generator=generator)


def decoder_ids(generator):
    import zoo

    return zoo._token_ids(generator, BATCH, TARGET_LEN, vocab=VOCAB - 16)


def image(generator, config):
    """pixel_values [B, channels, H, W] from the (vision) config's image_size and
    num_channels."""
    import torch

    vision = _find_field(config, "image_size") or config
    size = getattr(vision, "image_size", None) or DEFAULT_IMAGE
    height, width = (size, size) if isinstance(size, int) else tuple(size)[:2]
    channels = getattr(vision, "num_channels", None) or _find_value(config, "num_channels") or 3
    return torch.randn(BATCH, channels, height, width, generator=generator)


def audio_inputs(generator, config, taken: set) -> dict:
    """A raw waveform (`input_values`; a spectrogram [B, max length, mel bins] for the Audio
    Spectrogram Transformer) or log-mel features (`input_features`), shaped as the config
    says: Whisper-style [B, mel bins, 2 x source positions], Speech2Text-style
    [B, frames, features x channels], else [B, frames, feature_size]."""
    import torch

    mel_bins = _find_value(config, "num_mel_bins")
    positions = _find_value(config, "max_source_positions")
    if "input_values" in taken and mel_bins and _find_value(config, "max_length"):  # AST
        return {"input_values": torch.randn(BATCH, _find_value(config, "max_length"), mel_bins, generator=generator)}
    if "input_values" in taken:
        return {"input_values": torch.randn(BATCH, AUDIO_SAMPLES, generator=generator)}
    if mel_bins and positions:
        shape = (BATCH, mel_bins, 2 * positions)
    elif _find_value(config, "input_feat_per_channel"):
        features = _find_value(config, "input_feat_per_channel") * (_find_value(config, "input_channels") or 1)
        shape = (BATCH, AUDIO_FRAMES, features)
    else:
        width = _find_value(config, "feature_projection_input_dim") or _find_value(config, "feature_size")
        shape = (BATCH, AUDIO_FRAMES, width or mel_bins or 80)
    return {"input_features": torch.randn(*shape, generator=generator)}


def time_series_inputs(generator, config, taken: set) -> dict:
    """past values (and time features, observed mask, future values for the forecasting
    transformers) as long as the context plus the largest lag."""
    import torch

    context = getattr(config, "context_length", None) or 32
    lags = getattr(config, "lags_sequence", None) or [0]
    history = context + max(lags)
    channels = getattr(config, "num_input_channels", None) or getattr(config, "input_size", None) or 1
    shape = (BATCH, history) if channels == 1 and "past_time_features" in taken else (BATCH, history, channels)
    if "past_time_features" not in taken:
        shape = (BATCH, context, channels)
    out = {"past_values": torch.randn(*shape, generator=generator)}
    time_features = getattr(config, "num_time_features", 0) or 0
    if "past_time_features" in taken:
        out["past_time_features"] = torch.randn(BATCH, shape[1], time_features, generator=generator)
        out["past_observed_mask"] = torch.ones(shape)
    prediction = getattr(config, "prediction_length", None)
    if "future_values" in taken and prediction and "past_time_features" in taken:
        out["future_values"] = torch.randn(BATCH, prediction, *shape[2:], generator=generator)
        out["future_time_features"] = torch.randn(BATCH, prediction, time_features, generator=generator)
    return out


def _find_field(config, name: str):
    """The first of the config and its nested configs that has `name` set."""
    return next((c for c in all_configs(config) if getattr(c, name, None)), None)


def _find_value(config, name: str):
    holder = _find_field(config, name)
    return getattr(holder, name) if holder is not None else None
