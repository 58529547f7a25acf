"""[Defer] declined branch deferral: transformers' `detect_overflow`
(huggingface/transformers: src/transformers/debug_utils.py) prints when a tensor holds NaNs or
infs and sets `detected = True`, which it returns: a variable assigned in the branch is used
after it, so the body cannot run whatever the condition. The prints are deferred one by one;
the branches stay."""
import torch


def ENTRY(var: torch.Tensor, ctx: str = "layer 0"):
    var = var * 1
    detected = False
    if torch.isnan(var).any():
        detected = True
        print(f"{ctx} has nans")
    if torch.isinf(var).any():
        detected = True
        print(f"{ctx} has infs")
    return detected


INPUTS = [
    (torch.tensor([1.0, float("nan")]),),
    (torch.tensor([1.0, float("inf")]),),
    (torch.tensor([1.0, 2.0]),),
]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined"), ("GM102", "defer"), ("GM102", "defer")]
EXPECTED_DECLINES = [
    ("GM101", "variable `detected` assigned in the branch is used after it"),
    ("GM101", "variable `detected` assigned in the branch is used after it"),
]
