"""[Defer] of a branch whose body calls a helper, declined, one function per condition the
helper must meet: undecorated, no *args, **kwargs or keyword-only parameters, every
parameter given a value by the call or a default, a body of deferrable calls only (after a
docstring), each handed parameters, constants, f-strings of parameters or an int parameter
plus a constant. (The shape is torchmetrics' `rank_zero_warn`, Lightning-AI/torchmetrics:
src/torchmetrics/utilities/prints.py, varied one condition at a time.)"""
import functools
import warnings

import torch


@functools.lru_cache(maxsize=None)
def warn_once(message):
    warnings.warn(message, UserWarning)


def warn_all(*messages):
    warnings.warn(messages[0], UserWarning)


def warn_keyword_only(message, *, category=UserWarning):
    warnings.warn(message, category)


def warn_assigns(message):
    text = message + "!"
    warnings.warn(text, UserWarning)


def warn_computes(message):
    warnings.warn(message.upper(), UserWarning)


def warn_plain(message):
    warnings.warn(message, UserWarning)


def warn_level(message, stacklevel):
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)


@torch.compile
def decorated(x: torch.Tensor):
    if (x < 0).any():
        warn_once("negative values")
    return x


@torch.compile
def star_parameters(x: torch.Tensor):
    if (x < 0).any():
        warn_all("negative values")
    return x


@torch.compile
def keyword_only(x: torch.Tensor):
    if (x < 0).any():
        warn_keyword_only("negative values")
    return x


@torch.compile
def assigns(x: torch.Tensor):
    if (x < 0).any():
        warn_assigns("negative values")
    return x


@torch.compile
def computes(x: torch.Tensor):
    if (x < 0).any():
        warn_computes("negative values")
    return x


@torch.compile
def level_not_an_int_constant(x: torch.Tensor, level):
    if (x < 0).any():
        warn_level("negative values", level)
    return x


@torch.compile
def missing_argument(x: torch.Tensor):
    if (x < 0).any():
        warn_computes()
    return x


@torch.compile
def tensor_argument(x: torch.Tensor):
    if (x < 0).any():
        warn_plain(x)
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
    ("GM104", "defer"),
    ("GM104", "defer"),
    ("GM104", "defer"),
    ("GM104", "defer"),
    ("GM104", "defer"),
    ("GM104", "defer"),
    ("GM104", "defer"),
]
EXPECTED_DECLINES = [
    ("GM101", "the function is decorated"),
    ("GM101", "*args, **kwargs or keyword-only parameters"),
    ("GM101", "*args, **kwargs or keyword-only parameters"),
    ("GM101", "not only deferrable calls"),
    ("GM101", "computes `message.upper()`"),
    ("GM101", "computes `stacklevel + 1`"),
    ("GM101", "leaves a parameter without a value"),
    ("GM101", "the branch formats the tensor `x`"),
]
