"""[Where]: a branch stores a local that solely holds a new tensor, from a running mean and
variance normaliser of RL observations (the parallel-variance update of a `RunningMeanStd`
kept in buffers): `if self.count == 0: self.mean = batch_mean; self.var = batch_var`, else
the merged moments via `new_mean`. `batch_mean` and `new_mean` are each bound once, to a new
tensor, read elsewhere only as operands, and dead after the if: the attribute holding a copy
of them, not them, is unseen, so the stores merge like variables. The batch size
`x.shape[0]` is a size, never a tensor, and is not checked as one. The normaliser updates
twice a call: the first call initialises, the second merges."""
import torch
from torch import nn


class RunningMeanStd(nn.Module):
    def __init__(self, size, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("mean", torch.zeros(size))
        self.register_buffer("var", torch.ones(size))
        self.register_buffer("count", torch.zeros(()))

    def update(self, x):
        batch_mean = x.mean(0)
        batch_var = x.var(0, unbiased=False)
        batch_count = x.shape[0]
        if self.count == 0:
            self.mean = batch_mean
            self.var = batch_var
        else:
            delta = batch_mean - self.mean
            total = self.count + batch_count
            new_mean = self.mean + delta * batch_count / total
            m2 = self.var * self.count + batch_var * batch_count + delta**2 * self.count * batch_count / total
            self.mean = new_mean
            self.var = m2 / total
        self.count = self.count + batch_count

    def forward(self, x):
        self.update(x)
        return (x - self.mean) / torch.sqrt(self.var + self.eps)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = RunningMeanStd(3)

    def forward(self, x):
        first = self.norm(x)
        second = self.norm(x * 2.0 + 1.0)
        return first, second, self.norm.mean, self.norm.var, self.norm.count


torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 3),),  # initialised, then merged
    (torch.zeros(5, 3),),  # a constant batch: zero variance at first
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (5, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
