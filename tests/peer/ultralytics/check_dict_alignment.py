"""Ultralytics' configuration check, run by `get_cfg` whenever `Model.predict` (and the
trainer, validator, exporter) merge call arguments into the model's configuration:
`check_dict_alignment` first maps deprecated keys onto their replacements
(`_handle_deprecation`: `hide_labels` -> `show_labels`, `end2end` -> `nms`, `half`/`int8` ->
`quantize`, removed keys dropped, each announced by `deprecation_warn`'s `LOGGER.warning`), then
looks for keys the base configuration does not know; for those it suggests close matches
(difflib), logs the CLI help (`LOGGER.info(CLI_HELP_MSG)`) and raises SyntaxError. The step
stands in for `Model.predict`'s argument update: it checks the call's overrides against the
predictor's arguments, merges them and applies the confidence threshold to a tiny model's
scores. The logger calls (the warning in the helper, the info before the raise) are the sites.
Plain torch.compile (torch 2.13) does break at the deprecation warning of the first input, but
before the step's first tensor operation, so nothing is cut: Dynamo's explain records one graph
and no break, and the program counts as no_break. The base configuration is a handful of the
default.yaml keys; the help text is shortened."""

import logging

import torch
import torch.nn as nn

ORIGIN = "ultralytics/ultralytics: ultralytics/cfg/__init__.py: check_dict_alignment"
CATEGORY = "no_break"

LOGGER = logging.getLogger(__name__)

CLI_HELP_MSG = """
    Ultralytics 'yolo' commands use the following syntax:

        yolo TASK MODE ARGS

    See all ARGS at https://docs.ultralytics.com/usage/cfg or with 'yolo cfg'
    """


def deprecation_warn(arg, new_arg=None):
    """Issue a deprecation warning when a deprecated argument is used, suggesting an updated argument."""
    msg = f"'{arg}' is deprecated and will be removed in the future."
    if new_arg is not None:
        msg += f" Use '{new_arg}' instead."
    LOGGER.warning(msg)


def _handle_deprecation(custom: dict) -> dict:
    deprecated_mappings = {
        "boxes": ("show_boxes", lambda v: v),
        "hide_labels": ("show_labels", lambda v: not bool(v)),
        "hide_conf": ("show_conf", lambda v: not bool(v)),
        "line_thickness": ("line_width", lambda v: v),
    }
    removed_keys = {"label_smoothing", "save_hybrid", "crop_fraction", "keras"}

    if "end2end" in custom:
        end2end = custom.pop("end2end")
        if end2end is not None:
            if not isinstance(end2end, bool):
                raise TypeError("Deprecated 'end2end' must be a bool.")
            custom["nms"] = False if end2end else True if custom.get("nms") is True else None
            deprecation_warn(f"end2end={end2end}", f"nms={custom.get('nms')}")

    # Forward the deprecated precision flags onto the unified `quantize` scheme (int8 wins over half).
    int8 = custom.pop("int8", None)
    half = custom.pop("half", None)
    if (int8 is not None or half is not None) and "quantize" not in custom:
        int8_on = int8 is not None and str(int8).strip().lower() not in {"none", "false", "0"}
        half_on = half is not None and str(half).strip().lower() not in {"none", "false", "0"}
        custom["quantize"] = 8 if int8_on else 16 if half_on else None  # False/0 clears precision back to FP32
        deprecation_warn("int8" if int8 is not None else "half", "quantize")

    for old_key, (new_key, transform) in deprecated_mappings.items():
        if old_key not in custom:
            continue
        deprecation_warn(old_key, new_key)
        custom[new_key] = transform(custom.pop(old_key))

    for key in removed_keys:
        if key not in custom:
            continue
        deprecation_warn(key)
        custom.pop(key)

    return custom


def check_dict_alignment(base: dict, custom: dict, e: Exception | None = None, allowed_custom_keys: set | None = None) -> None:
    custom = _handle_deprecation(custom)
    base_keys, custom_keys = (frozenset(x.keys()) for x in (base, custom))
    # Allow 'augmentations' as a valid custom parameter for custom Albumentations transforms
    if allowed_custom_keys is None:
        allowed_custom_keys = {"augmentations", "save_dir"}
    if mismatched := [k for k in custom_keys if k not in base_keys and k not in allowed_custom_keys]:
        from difflib import get_close_matches

        string = ""
        for x in mismatched:
            matches = get_close_matches(x, base_keys)  # key list
            matches = [f"{k}={base[k]}" if base.get(k) is not None else k for k in matches]
            match_str = f"Similar arguments are i.e. {matches}." if matches else ""
            string += f"'{x}' is not a valid YOLO argument. {match_str}\n"
        LOGGER.info(CLI_HELP_MSG)
        raise SyntaxError(string) from e


# A few of default.yaml's predict arguments, the predictor's current ones.
ARGS = {"conf": 0.25, "iou": 0.7, "max_det": 300, "show_labels": True, "show_conf": True, "show_boxes": True,
        "line_width": None, "nms": None, "quantize": None, "imgsz": 640, "batch": 1}


class TinyDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        return self.head(x).sigmoid()


torch.manual_seed(0)
MODEL = TinyDetector()


def predict(x, kwargs):
    overrides = {"mode": "predict", **kwargs}  # a fresh dict each call, as Model.predict builds it
    check_dict_alignment({**ARGS, "mode": "predict"}, overrides)
    args = {**ARGS, **overrides}
    scores = MODEL(x)
    return torch.where(scores > args["conf"], scores, torch.zeros_like(scores)), args["show_labels"], args["quantize"]


ENTRY = predict
torch.manual_seed(0)
INPUTS = [
    # a deprecated key: mapped onto its replacement with a warning
    (torch.randn(5, 4), {"hide_labels": True, "conf": 0.5}),
    (torch.randn(5, 4), {"conf": 0.1, "save_dir": "runs/predict"}),
    # the deprecated precision flag and a removed key
    (torch.randn(5, 4), {"half": True, "save_hybrid": True}),
    # end2end maps onto nms
    (torch.randn(5, 4), {"end2end": True}),
    # a misspelt key with a close match: the CLI help is logged, then SyntaxError
    (torch.randn(5, 4), {"confidence": 0.3}),
    # a key with no close match
    (torch.randn(5, 4), {"xyzzy": 1}),
    # end2end must be a bool
    (torch.randn(5, 4), {"end2end": "yes"}),
]
