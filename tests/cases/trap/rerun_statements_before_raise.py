"""[Trap] statements before the raise: Lightning's `detect_nan_parameters`
(Lightning-AI/pytorch-lightning: src/lightning/pytorch/utilities/finite_checks.py) logs
before it raises, with the offending tensor in an f-string. The test becomes
runtime.rerun_if; on a failure the call runs again eagerly, logging and raising as the
original does (the print and the log call in the body are never traced: reported fixed
with the guard)."""
import logging

import torch

log = logging.getLogger(__name__)


def ENTRY(x: torch.Tensor, name: str):
    y = x * 2
    if not torch.isfinite(y).all():
        log.info(f"{name}: {y}")
        print("non-finite values in", name)
        raise ValueError(f"Detected nan and/or inf values in `{name}`.")
    return y + 1


INPUTS = [
    (torch.tensor([1.0, 2.0]), "weight"),
    (torch.tensor([1.0, float("inf")]), "bias"),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM102", "trap"), ("GM103", "trap"), ("GM105", "trap")]
