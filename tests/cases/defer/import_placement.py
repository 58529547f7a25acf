#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""The runtime import goes after the docstring and the __future__ imports."""

from __future__ import annotations
from __future__ import division

import torch


@torch.compile
def forward(x: torch.Tensor):
    print(x)
    return x


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM102", "defer")]
