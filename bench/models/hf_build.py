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
MONO = "audio-mono"  # the variant's waveform as [B, 1, samples]
# Config fields of neural audio codecs (EnCodec, DAC, Mimi and kin): their waveform has a channel axis.
CODEC_FIELDS = ("codebook_size", "n_codebooks", "num_quantizers", "audio_channels")
DEFAULT_IMAGE = 64

# forward parameters -> the modality they carry, in the order variants drop them.
MODALITY_INPUTS = {
    "vision": ("pixel_values",),
    "audio": ("input_values", "input_features"),
    "time-series": ("past_values",),
    "text": ("input_ids",),
}
# forward parameters that take the grid (frames, rows, columns) of flattened image patches.
GRID_INPUTS = ("grid_thw", "image_grid_thw")
GRID_SIDE = 4  # patches per side of each image: a multiple of every spatial merge size (1, 2, 4)


# ---------------------------------------------------------------------------------------------
# The model.

# Config fields some defaults leave unset and the config's own checks want.
REQUIRED_FIELDS = {"prediction_length": 4}
# Fields dropped from the scaled-down dict (at any depth): serialisation bookkeeping, and
# backbone outputs named after stages that the cut per-stage lists removed.
DROPPED_FIELDS = ("transformers_version", "_name_or_path", "dtype", "torch_dtype", "out_features", "out_indices",
                  "per_layer_config")  # per-layer overrides name the default's layers: rederived from the cut layout
# The model widths zoo.tiny_config_dict scales, whose equalities with other widths are kept.
WIDTH_FIELDS = ("hidden_size", "d_model", "embed_dim", "hidden_dim", "dim")
SLIDING_WINDOW = 4
# Mixture-of-experts fields: how many experts, and how many each token is routed to.
EXPERT_COUNTS = ("num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts")
EXPERTS_PER_TOKEN = ("num_experts_per_tok", "num_experts_per_token", "top_k", "moe_topk", "top_k_experts", "moe_k")
# Shared (always-on) experts beside the routed ones, and the routed experts' width.
SHARED_EXPERT_COUNTS = ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts")
EXPERT_WIDTHS = ("moe_intermediate_size",)
# Backbones built from transformers' own classes instead of timm's, never downloaded.
IN_LIBRARY_BACKBONE = {"use_timm_backbone": False, "use_pretrained_backbone": False}
# Hybrid layouts that list their attention layers by index: the tiny model keeps one, the last.
ATTENTION_LAYER_LISTS = ("attn_layer_indices", "attention_layer_indices", "full_attn_idxs")


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
    default_values = defaults.to_dict()
    values = _without(zoo.tiny_config_dict(default_values, VOCAB), DROPPED_FIELDS)
    values.update({k: v for k, v in REQUIRED_FIELDS.items() if k in values and values[k] is None})
    _keep_width_equalities(values, _width_changes(default_values, values))
    _in_library_backbone(values, inspect.getsource(config_class))
    _keep_one_attention_layer(values)
    _every_kind_in_repeated_patterns(values)
    _rescale_mrope_sections(values)
    _unset_attention_fields(values)
    _expert_counts(values)
    _image_placeholder_id(values)
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


def _width_changes(default: dict, tiny: dict) -> dict:
    """{default width: tiny width} of the model widths (`WIDTH_FIELDS`) the scaling changed,
    in the config and its nested configs."""
    changes = {}
    for key, value in default.items():
        if isinstance(value, dict) and isinstance(tiny.get(key), dict):
            changes.update(_width_changes(value, tiny[key]))
        elif key in WIDTH_FIELDS and isinstance(value, int) and tiny.get(key) != value:
            changes.setdefault(value, tiny.get(key))
    return {k: v for k, v in changes.items() if isinstance(v, int)}


def _keep_width_equalities(values: dict, changes: dict) -> None:
    """A width field the scaling left alone (a projector's input or output size, a
    tower's output width) that equals a model width of the defaults is scaled with it:
    strict configs check such equalities (`out_hidden_size` == the text hidden size), and
    the layers they size are joined."""
    for key, value in values.items():
        if isinstance(value, dict):
            _keep_width_equalities(value, changes)
        elif isinstance(value, int) and not isinstance(value, bool) and value in changes and _names_width(key):
            values[key] = changes[value]


def _names_width(key: str) -> bool:
    excluded = ("vocab", "image", "patch", "position", "length", "window", "chunk", "batch", "intermediate")
    sized = "hidden" in key or key.endswith(("_size", "_dim", "_dims", "_groups"))  # grouped convolutions too
    return sized and key not in WIDTH_FIELDS and not any(word in key for word in excluded)


def _in_library_backbone(values: dict, source: str) -> None:
    """No timm backbone (timm is not installed; transformers' own ResNet is built instead):
    a nested timm backbone config goes, and the switches that ask for one are off (also
    where the config's `__init__` pops them from its arguments, so `to_dict` lacks them)."""
    for key, value in list(values.items()):
        if isinstance(value, dict) and value.get("model_type") == "timm_backbone":
            values[key] = None
    values.update({k: v for k, v in IN_LIBRARY_BACKBONE.items() if k in source})
    _set_present(values, IN_LIBRARY_BACKBONE)


def _set_present(values: dict, settings: dict) -> None:
    """`settings` for the keys the dict (or a nested config) has."""
    for key, value in values.items():
        if isinstance(value, dict):
            _set_present(value, settings)
        elif key in settings:
            values[key] = settings[key]


def _keep_one_attention_layer(values: dict) -> None:
    """A hybrid whose attention layers are listed by index past the tiny depth (or not at
    all) would have none left, and its cache no attention layer to measure the sequence
    by: the last layer is made the attention layer."""
    layers = next((values[k] for k in ("num_hidden_layers", "num_layers") if isinstance(values.get(k), int)), None)
    for key in ATTENTION_LAYER_LISTS:
        if key in values and layers and not any(isinstance(i, int) and i < layers for i in values[key] or ()):
            values[key] = [layers - 1]
    for value in values.values():
        if isinstance(value, dict):
            _keep_one_attention_layer(value)


def _every_kind_in_repeated_patterns(values: dict) -> None:
    """A layer pattern repeated over the depth (RecurrentGemma's `block_types`: recurrent,
    recurrent, attention) longer than the tiny depth: its kinds first, so the tiny layers
    have one of each (zoo cuts the lists as long as the depth in the same way)."""
    layers = values.get("num_hidden_layers")
    for key, value in values.items():
        if isinstance(value, dict):
            _every_kind_in_repeated_patterns(value)
        elif isinstance(layers, int) and isinstance(value, list) and len(value) > layers and _kinds(value):
            kinds = _kinds(value)
            if len(kinds) > 1 and set(value[:layers]) != set(kinds):
                values[key] = (kinds + value)[: len(value)]


def _kinds(value: list) -> list:
    return list(dict.fromkeys(value)) if all(isinstance(v, str) for v in value) else []


def _rescale_mrope_sections(values: dict) -> None:
    """Multimodal rotary sections the defaults give for the full head, rescaled (in their
    proportion) to the tiny head: strict configs check that they sum to half its size."""
    for value in values.values():
        if isinstance(value, dict):
            _rescale_mrope_sections(value)
    rope, heads = values.get("rope_parameters"), values.get("num_attention_heads")
    sections = rope.get("mrope_section") if isinstance(rope, dict) else None
    if not sections or not isinstance(heads, int) or not isinstance(values.get("hidden_size"), int):
        return
    head_dim = values.get("head_dim") or values["hidden_size"] // heads
    frequencies = int(head_dim * (rope.get("partial_rotary_factor") or 1.0)) // 2
    if sum(sections) != frequencies:
        scaled = [max(1, s * frequencies // sum(sections)) for s in sections[:-1]]
        rope["mrope_section"] = [*scaled, frequencies - sum(scaled)]


def _unset_attention_fields(values: dict) -> None:
    """Attention sizes the defaults leave unset (`None`, filled by a checkpoint) that the
    model reads as numbers: the head size (width over heads), the key/value heads (as many
    as the query heads: plain multi-head attention) and, where sliding-window layers are
    laid out, the window (SLIDING_WINDOW, shorter than the ids so the window masks)."""
    for value in values.values():
        if isinstance(value, dict):
            _unset_attention_fields(value)
    heads, width = values.get("num_attention_heads"), values.get("hidden_size")
    if not isinstance(heads, int):
        return
    if "head_dim" in values and values["head_dim"] is None and isinstance(width, int):
        values["head_dim"] = width // heads
    if "num_key_value_heads" in values and values["num_key_value_heads"] is None:
        values["num_key_value_heads"] = heads
    if values.get("sliding_window", 0) is None and "sliding_attention" in (values.get("layer_types") or ()):
        values["sliding_window"] = SLIDING_WINDOW


def _expert_counts(values: dict) -> None:
    """Mixture-of-experts counts the defaults leave unset (`None`) where the config has
    others set: 4 experts, 2 per token (as zoo's tiny configs), 1 shared expert, the tiny
    MLP width for the experts'; and never more experts per token than the (cut) experts
    (`topk` over 4 experts asks for at most 4)."""
    for value in values.values():
        if isinstance(value, dict):
            _expert_counts(value)
    counts = [k for k in EXPERT_COUNTS if k in values]
    per_token = [k for k in EXPERTS_PER_TOKEN if k in values]
    if not counts or not per_token:
        return
    for key in counts:
        values[key] = 4 if values[key] is None else values[key]
    fewest = min((values[k] for k in counts if isinstance(values[k], int) and values[k] > 0), default=None)
    for key in per_token:
        values[key] = 2 if values[key] is None else values[key]
        if fewest is not None and isinstance(values[key], int) and values[key] > fewest:
            values[key] = fewest
    for key in SHARED_EXPERT_COUNTS:
        if key in values and values[key] is None:
            values[key] = 1
    for key in EXPERT_WIDTHS:
        if key in values and values[key] is None and isinstance(values.get("intermediate_size"), int):
            values[key] = values["intermediate_size"]


def _image_placeholder_id(values: dict) -> None:
    """A vision-language config whose image placeholder id the processor sets (`None` in
    the defaults): an id in the vocabulary's top, where no drawn input id falls."""
    for key in ("image_token_id", "image_token_index"):
        if key in values and values[key] is None and "vision_config" in values:
            values[key] = VOCAB - 2


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
    if not isinstance(rope, dict) or not heads:
        return
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    frequencies = int(head_dim * rope.get("partial_rotary_factor", 1.0)) // 2
    if sum(rope.get("mrope_section") or ()) == frequencies:
        return  # set by the defaults for this head size already
    time_section = frequencies // 4
    height = (frequencies - time_section) // 2
    rope["mrope_section"] = [time_section, height, frequencies - time_section - height]


def modality(cls) -> str:
    """text, vision, audio, time-series, multimodal (text with images or audio) or other, by
    the inputs `forward` takes."""
    kinds = input_kinds(cls)
    if len(kinds) > 1:
        return "multimodal"
    return kinds[0] if kinds else "other"


def input_kinds(cls) -> list[str]:
    """The modalities `forward` takes, in MODALITY_INPUTS order; a vision tower fed flattened
    patches with their grid (`hidden_states`, `grid_thw`: Qwen2-VL and kin) takes vision."""
    taken = set(forward_parameters(cls))
    if taken & set(GRID_INPUTS):
        taken.add("pixel_values")
    return [kind for kind, names in MODALITY_INPUTS.items() if taken & set(names)]


def forward_parameters(cls) -> list[str]:
    return [name for name in inspect.signature(cls.forward).parameters if name != "self"]


# ---------------------------------------------------------------------------------------------
# Inputs.


def variants(cls) -> list[tuple[str, ...]]:
    """The input variants to try, richest first: every modality `forward` takes, then each
    subset with one fewer, down to single modalities; then `inputs_embeds` alone."""
    taken = set(forward_parameters(cls))
    kinds = input_kinds(cls)
    out = []
    for size in range(len(kinds), 0, -1):
        out += [tuple(combo) for combo in itertools.combinations(kinds, size)]
    if "input_values" in taken:  # then the waveform with a channel axis, for encoders of [B, 1, samples]
        out += [tuple(MONO if kind == "audio" else kind for kind in variant) for variant in out if "audio" in variant]
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
        kwargs.update(vision_inputs(generator, config, taken))
    if "audio" in kinds:
        kwargs.update(audio_inputs(generator, config, taken))
    if MONO in kinds:
        kwargs["input_values"] = torch.randn(BATCH, 1, AUDIO_SAMPLES, generator=generator)
    if "time-series" in kinds:
        kwargs.update(time_series_inputs(generator, config, taken))
    if "embeddings" in kinds:
        kwargs["inputs_embeds"] = embeddings(generator, model)
    if "decoder_input_ids" in taken and getattr(config, "is_encoder_decoder", False):
        kwargs.setdefault("decoder_input_ids", decoder_ids(generator))  # audio/vision to text
    if "text" in kinds and "vision" in kinds:
        lay_out_image_tokens(model, kwargs)
    kwargs.update(required_inputs(generator, model, kwargs))
    return kwargs


def vision_inputs(generator, config, taken: set) -> dict:
    """`pixel_values` as an image batch, or, for a model that takes a patch grid, BATCH
    images of GRID_SIDE x GRID_SIDE flattened patches [patches, channels x frames x patch²]
    and their grid [[1, GRID_SIDE, GRID_SIDE]] * BATCH."""
    import torch

    grid_name = next((name for name in GRID_INPUTS if name in taken), None)
    if grid_name is None:
        return {"pixel_values": image(generator, config)}
    vision = _find_field(config, "patch_size") or config
    patch = _first_int(getattr(vision, "patch_size", None)) or 14
    frames = _first_int(getattr(vision, "temporal_patch_size", None)) or 1
    channels = getattr(vision, "in_channels", None) or getattr(vision, "num_channels", None) or 3
    patches = torch.randn(BATCH * GRID_SIDE * GRID_SIDE, channels * frames * patch * patch, generator=generator)
    grid = torch.tensor([[1, GRID_SIDE, GRID_SIDE]] * BATCH)
    patch_name = "pixel_values" if "pixel_values" in taken else "hidden_states"
    return {patch_name: patches, grid_name: grid}


def _first_int(value):
    return value[0] if isinstance(value, (list, tuple)) and value else value


def lay_out_image_tokens(model, kwargs: dict) -> None:
    """A vision-language model replaces its image placeholder tokens by the image features
    and wants one placeholder per feature row: as many as the model's own
    `get_image_features` gives for these images, at the start of each row of ids (the mask
    grown to match). Left as is where the model has no such method or placeholder id."""
    import torch

    token = _find_value(model.config, "image_token_id") or _find_value(model.config, "image_token_index")
    features = getattr(model, "get_image_features", None)
    if not isinstance(token, int) or features is None:
        return
    vision = {k: v for k, v in kwargs.items() if k == "pixel_values" or k in GRID_INPUTS}
    try:
        with torch.no_grad():
            rows = _feature_rows(features(**vision))
    except Exception:  # the model's own failure shows in the variant's run
        return
    if not rows or rows % BATCH:
        return
    ids = kwargs["input_ids"]
    placeholders = torch.full((BATCH, rows // BATCH), token, dtype=ids.dtype)
    kwargs["input_ids"] = torch.cat([placeholders, ids], dim=1)
    if "attention_mask" in kwargs:
        kwargs["attention_mask"] = torch.cat([torch.ones_like(placeholders), kwargs["attention_mask"]], dim=1)
    if "mm_token_type_ids" in forward_parameters(type(model)):
        kwargs["mm_token_type_ids"] = (kwargs["input_ids"] == token).long()  # 1: image, 0: text


def _feature_rows(output) -> int:
    """How many feature rows (one per placeholder token) image features hold: the pooled
    output where there is one (a tensor [images, rows, width] or [rows, width], or a list
    of such per image)."""
    import torch

    value = getattr(output, "pooler_output", None)
    if value is None:
        value = output[0] if isinstance(output, tuple) and not isinstance(output[0], torch.Tensor) else output
    if isinstance(value, torch.Tensor):
        return value.shape[0] * value.shape[1] if value.dim() == 3 else value.shape[0]
    if isinstance(value, (list, tuple)):
        return sum(_feature_rows(item) for item in value)
    return 0


def required_inputs(generator, model, made: dict) -> dict:
    """Inputs `forward` requires (no default) that the variant did not make, by their name:
    ids, images, boxes, masks and paddings shaped as the inputs made, small integers."""

    out = {}
    signature = inspect.signature(type(model).forward)
    for name, parameter in list(signature.parameters.items())[1:]:
        if parameter.default is not inspect.Parameter.empty or name in made:
            continue
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        value = _input_by_name(generator, model.config, name, made)
        if value is not None:
            out[name] = value
    if "bbox" in forward_parameters(type(model)) and "input_ids" in made and "bbox" not in made:
        out["bbox"] = boxes(generator, made["input_ids"].shape)  # layout models: every token's box
    return out


def _input_by_name(generator, config, name: str, made: dict):
    import torch

    reference = made.get("input_ids", next(iter(made.values()), None))
    if name.endswith("input_ids"):
        return text_inputs(generator, config, set())["input_ids"]
    if name.endswith("pixel_values"):
        return image(generator, config)
    if name == "bbox":
        return boxes(generator, (BATCH, TEXT_LEN))
    if name.endswith(("_mask", "_masks", "_padding")) and isinstance(reference, torch.Tensor):
        return torch.zeros(reference.shape[:2], dtype=torch.long if "mask" in name else torch.float)
    if name.endswith(("_idx", "_index", "freq")):
        return torch.zeros(BATCH, 1, dtype=torch.long) if name == "freq" else 1
    return None


def boxes(generator, shape) -> object:
    """Token boxes [B, L, 4] (x0, y0, x1, y1) on a 0..1000 page, x0 <= x1 and y0 <= y1."""
    import torch

    corners = torch.randint(0, 1000, (*shape, 2, 2), generator=generator)
    low, high = corners.min(dim=-2).values, corners.max(dim=-2).values
    return torch.cat([low, high], dim=-1)


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
    num_channels; [B, num_frames, channels, H, W] where the config counts frames."""
    import torch

    vision = _find_field(config, "image_size") or config
    size = getattr(vision, "image_size", None) or DEFAULT_IMAGE
    height, width = (size, size) if isinstance(size, int) else tuple(size)[:2]
    channels = getattr(vision, "num_channels", None) or _find_value(config, "num_channels") or 3
    frames = _find_value(config, "num_frames")
    if isinstance(frames, int):  # a video model (VideoMAE, TimeSformer, ViViT, X-CLIP): [B, frames, C, H, W]
        return torch.randn(BATCH, frames, channels, height, width, generator=generator)
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
    if "input_values" in taken and any(_find_value(config, name) for name in CODEC_FIELDS):
        channels = _find_value(config, "audio_channels") or 1  # a codec encodes [B, channels, samples]
        return {"input_values": torch.randn(BATCH, channels, AUDIO_SAMPLES, generator=generator)}
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
