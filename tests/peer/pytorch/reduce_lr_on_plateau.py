"""ReduceLROnPlateau.step: the metric (a 0-d loss tensor in practice) is turned into a
Python float (`current = float(metrics)`) that is compared with the best so far and stored
as the new best: Python state computed from tensor data. Not fixable by design."""

import torch
from torch import nn

ORIGIN = "pytorch/pytorch: torch/optim/lr_scheduler.py: ReduceLROnPlateau.step"
CATEGORY = "out_of_scope"


class ReduceLROnPlateau(nn.Module):
    def __init__(self):
        super().__init__()
        self.mode = "min"
        self.threshold = 1e-4
        self.threshold_mode = "rel"
        self.best = float("inf")
        self.num_bad_epochs = 0
        self.patience = 1
        self.lr = 0.1
        self.factor = 0.5

    def is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            rel_epsilon = 1.0 - self.threshold
            return a < best * rel_epsilon
        return a > best

    def forward(self, loss):
        # convert `metrics` to float, in case it's a zero-dim Tensor
        metrics = loss * 1.0
        current = float(metrics)

        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1

        if self.num_bad_epochs > self.patience:
            self.lr = self.lr * self.factor
            self.num_bad_epochs = 0
        return self.lr


ENTRY = ReduceLROnPlateau
INPUTS = [(torch.tensor(1.0),), (torch.tensor(0.5),), (torch.tensor(0.7),), (torch.tensor(0.6),)]
