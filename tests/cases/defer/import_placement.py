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
