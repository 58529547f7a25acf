"""[Defer] declined branch deferral: deep-tensor's `check_for_nans`
(DeepTransport/deep-tensor-py: deep_tensor/tools/validation.py) formats the count of NaNs (a
tensor) into a message before warning with it: formatting a tensor while tracing breaks, and
its text depends on tensor data, so the body cannot run whatever the condition."""
import warnings

import torch


def ENTRY(xs: torch.Tensor):
    xs = xs * 1
    n_nans = xs.isnan().sum()
    if n_nans > 0:
        msg = f"{n_nans} NAN values detected."
        warnings.warn(msg)
    return xs


INPUTS = [(torch.tensor([1.0, float("nan")]),), (torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "declined"), ("GM104", "defer")]
EXPECTED_DECLINES = [("GM101", "formats the tensor `n_nans` outside a deferred call")]
