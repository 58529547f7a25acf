"""_BatchNorm.forward in training with `momentum=None` (a cumulative moving average): the
factor is `1.0 / float(self.num_batches_tracked)`, a Python float computed from a buffer and
passed to batch_norm. Not fixable by design: a Python scalar from tensor data that feeds
arithmetic, not a condition."""

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "pytorch/pytorch: torch/nn/modules/batchnorm.py: _BatchNorm.forward"
CATEGORY = "out_of_scope"


class BatchNorm1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.momentum = None
        self.eps = 1e-5
        self.track_running_stats = True
        self.weight = nn.Parameter(torch.ones(3))
        self.bias = nn.Parameter(torch.zeros(3))
        self.register_buffer("running_mean", torch.zeros(3))
        self.register_buffer("running_var", torch.ones(3))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        self.train()

    def forward(self, input):
        # exponential_average_factor is set to self.momentum
        # (when it is available) only so that it gets updated
        # in ONNX graph when this node is exported to ONNX.
        if self.momentum is None:
            exponential_average_factor = 0.0
        else:
            exponential_average_factor = self.momentum

        if self.training and self.track_running_stats:
            # TODO: if statement only here to tell the jit to skip emitting this when it is None
            if self.num_batches_tracked is not None:  # type: ignore[has-type]
                self.num_batches_tracked.add_(1)  # type: ignore[has-type]
                if self.momentum is None:  # use cumulative moving average
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:  # use exponential moving average
                    exponential_average_factor = self.momentum

        bn_training = True
        return F.batch_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            bn_training,
            exponential_average_factor,
            self.eps,
        )


ENTRY = BatchNorm1d
torch.manual_seed(0)
INPUTS = [(torch.randn(4, 3),), (torch.randn(4, 3),)]
