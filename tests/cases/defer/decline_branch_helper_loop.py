"""[Defer] of a branch whose body calls a helper that walks a module, declined, one function
per condition the walk must meet: a loop over `<parameter>.parameters()` (or another of
nn.Module's walks) without arguments, without an else branch, not rebinding a parameter,
over a module the call hands it (not a default) as a local bound before the `if`, whose
body's branches are deferred whole. (The shape is Lightning's `print_nan_gradients`,
Lightning-AI/pytorch-lightning: src/lightning/pytorch/utilities/finite_checks.py, varied one
condition at a time.)"""
import logging

import torch

log = logging.getLogger(__name__)
MODULES = [torch.nn.Linear(2, 2)]


def walks_a_list(items):
    for item in items:
        log.info("item")


def walks_with_arguments(model):
    for param in model.parameters(False):
        log.info("parameter")


def walks_with_else(model):
    for param in model.parameters():
        log.info("parameter")
    else:
        log.info("done")


def rebinds(model):
    for model in model.children():
        log.info("child")


def walks_a_default(message, model=MODULES[0]):
    for param in model.parameters():
        log.info(message)


def walks(model):
    for param in model.parameters():
        log.info("parameter")


def counts(model):
    for param in model.parameters():
        if torch.isnan(param).any():
            model.nan_seen = True
            log.info("nan")


@torch.compile
def over_a_list(x: torch.Tensor):
    if (x < 0).any():
        walks_a_list([1, 2])
    return x


@torch.compile
def with_arguments(x: torch.Tensor, model):
    if (x < 0).any():
        walks_with_arguments(model)
    return x


@torch.compile
def with_else(x: torch.Tensor, model):
    if (x < 0).any():
        walks_with_else(model)
    return x


@torch.compile
def rebinding(x: torch.Tensor, model):
    if (x < 0).any():
        rebinds(model)
    return x


@torch.compile
def default_module(x: torch.Tensor):
    if (x < 0).any():
        walks_a_default("negative")
    return x


@torch.compile
def computed_module(x: torch.Tensor):
    if (x < 0).any():
        walks(MODULES[0])
    return x


@torch.compile
def branch_not_deferred(x: torch.Tensor, model):
    if (x < 0).any():
        counts(model)
    return x

EXPECTED_TAGS = [
    ('GM101', 'declined'),
    ('GM101', 'declined'),
    ('GM101', 'declined'),
    ('GM101', 'declined'),
    ('GM101', 'declined'),
    ('GM101', 'declined'),
    ('GM101', 'declined'),
    ('GM101', 'declined'),
    ('GM103', 'defer'),
    ('GM103', 'defer'),
    ('GM103', 'defer'),
    ('GM103', 'defer'),
    ('GM103', 'defer'),
    ('GM103', 'defer'),
    ('GM103', 'defer'),
    ('GM103', 'defer'),
]
EXPECTED_DECLINES = [
    ("GM101", "an assignment to a target that is not one name"),
    ("GM101", "its loop runs over `items`, not over the members of a module"),
    ("GM101", "its loop runs over `model.parameters(False)`"),
    ("GM101", "its loop has an else branch"),
    ("GM101", "its loop rebinds a parameter"),
    ("GM101", "walks the default of `model`"),
    ("GM101", "to a helper that walks it, not a local bound before the if"),
    ("GM101", "its branch `torch.isnan(param).any()` cannot be deferred"),
]
