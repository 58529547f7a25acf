"""Branches on a tensor the text does not show: a 0-d timestep passed unannotated, as
diffusers' schedulers take it (`scheduler.step(model_output, timestep, sample)`). Only a run
shows Dynamo breaking on them (runtime-aware ``graphmend.compile``)."""

import torch
from torch import nn


class Blend(nn.Module):
    """A conditional expression and an if statement on the timestep, over tensor values."""

    def forward(self, x, t):
        h = x * 2
        scale = h * 0.5 if t > 0 else h + 1  # SITE: conditional
        if t >= 3:  # SITE: if
            scale = scale - 1
        return scale


class Denoise(nn.Module):
    """A denoising loop over the timesteps calling the step, as diffusers' pipelines call
    `scheduler.step`: the step's branch breaks inside the loop, so Dynamo gives up on the
    loop's frame and compiles the step alone; the branch after the loop shows only once the
    step is mended (a second round)."""

    def step(self, x, t):
        h = x * 0.9
        return h * 0.5 if t > 0 else h + 1  # SITE: step

    def forward(self, x, timesteps):
        h = x * 1
        for t in timesteps:
            h = self.step(h, t)
        last = timesteps[-1]
        if last > 0:  # SITE: after
            h = h - 1
        return h


class Guard(nn.Module):
    """A validation guard on the timestep."""

    def forward(self, x, t):
        h = x + 1
        if t < 0:  # SITE: guard
            raise ValueError("timestep must not be negative")
        return h * t
