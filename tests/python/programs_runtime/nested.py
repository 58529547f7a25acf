"""A Python-scalar break inside a helper: capture_scalar_outputs does not remove it (the
scalar feeds a Python branch), and Dynamo splits the caller at the call too, unless
nested_graph_breaks resumes tracing inside the helper."""

import torch


def shift_by_count(x):
    n = int(x.sum().item())  # SITE: nested item
    if n > 3:
        return x + n
    return x - n


def outer(x):
    y = torch.sin(x) * 2
    z = shift_by_count(y)  # SITE: call
    return torch.cos(z) + 1
