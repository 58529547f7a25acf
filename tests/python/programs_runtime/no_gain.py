"""A Python-scalar break where capture_scalar_outputs removes nothing: the scalar feeds a
Python branch, so Dynamo still breaks (on the data-dependent guard)."""

import torch


def clamp_count(x):
    n = int(x.sum().item())  # SITE: item
    if n > 3:
        print("many", n)
    return x + n
