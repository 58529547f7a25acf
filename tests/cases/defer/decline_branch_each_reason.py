"""[Defer] branch deferral declined, one function per condition it relies on: the body may
only assign names nobody reads after the `if` from static values (constants, f-strings
without format specs, ==/!=/is, and/or/not, string concatenation, locals bound before the `if`
and their attributes, getattr with a constant default), test static ifs (a raise may only end
an arm of one that ends the branch), and call print, a logger method or warnings.warn; the
condition must be one tensor value, `in`, or and/or/not of pure tensor conditions. (The
shapes come from transformers' `warn_if_padding_and_no_attention_mask`,
huggingface/transformers: src/transformers/modeling_utils.py, varied one condition at a time.)"""
import logging
import warnings

import torch

logger = logging.getLogger(__name__)
LIMIT = 3


class Status:
    def __str__(self):
        return "status"


@torch.compile
def format_spec(x: torch.Tensor, ratio: float):
    if (x < 0).any():
        message = f"negative values ({ratio:.2f})"
        logger.warning(message)
    return x


@torch.compile
def ordering(x: torch.Tensor, low, high):
    if (x < 0).any():
        message = "negative values"
        if low < high:
            message += " in range"
        logger.warning(message)
    return x


@torch.compile
def global_read(x: torch.Tensor):
    if (x < 0).any():
        message = f"negative values beyond {LIMIT}"
        logger.warning(message)
    return x


@torch.compile
def nested_tensor_if(x: torch.Tensor):
    if (x < 0).any():
        if (x > 10).any():
            logger.warning("wide range")
        logger.warning("negative values")
    return x


@torch.compile
def other_call(x: torch.Tensor, seen: list):
    if (x < 0).any():
        seen.append(1)
        logger.warning("negative values")
    return x


@torch.compile
def returns(x: torch.Tensor):
    if (x < 0).any():
        logger.warning("negative values")
        return None
    return x


@torch.compile
def call_not_deferred(x: torch.Tensor):
    if (x < 0).any():
        print(Status(), "negative values")
    return x


@torch.compile
def warn_caller_frame(x: torch.Tensor):
    if (x < 0).any():
        warnings.warn("negative values", UserWarning, skip_file_prefixes=("lib/",))
    return x


@torch.compile
def impure_operand(x: torch.Tensor, y):
    if (x < 0).any() or y.pop().any():
        logger.warning("negative values")
    return x


@torch.compile
def tuple_target(x: torch.Tensor):
    if (x < 0).any():
        first, second = "negative", "values"
        logger.warning(first + second)
    return x


@torch.compile
def read_before_assigned(x: torch.Tensor, message: str):
    if (x < 0).any():
        if message is None:
            message = "negative values"
        logger.warning(message)
    return x


@torch.compile
def raise_before_end(x: torch.Tensor, strict: bool):
    if (x < 0).any():
        if strict:
            raise ValueError("negative values")
        logger.warning("negative values")
    return x


EXPECTED_TAGS = [
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "defer"),
    ("GM102", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM103", "defer"),
    ("GM104", "declined"),
]
EXPECTED_DECLINES = [
    ("GM101", "an f-string field with a format spec"),
    ("GM101", "a comparison other than ==, !=, is, is not"),
    ("GM101", "which is not a local bound before the if"),
    ("GM101", "a data-dependent if nested in the branch"),
    ("GM101", "neither a print, logging or warnings call nor an assignment of a name"),
    ("GM101", "neither a print, logging or warnings call nor an assignment of a name"),
    ("GM101", "the branch calls `Status()`"),
    ("GM101", "cannot be deferred: warnings.warn with skip_file_prefixes"),
    ("GM104", "warnings.warn with skip_file_prefixes"),
    ("GM101", "is not a combination of pure tensor conditions"),
    ("GM101", "an assignment to a target that is not one name"),
    ("GM101", "the branch reads `message` before assigning it"),
    ("GM101", "the branch raises before its end"),
]
