"""[Where] a branch that warns and clamps, from cornellius-gp/gpytorch:
gpytorch/distributions/multivariate_normal.py: MultivariateNormal.variance (`if
variance.lt(min_variance).any(): warnings.warn(f"Variance values smaller than
{min_variance} are detected. ...", NumericalWarning, stacklevel=2); variance =
variance.clamp_min(min_variance)`; here a method the module's forward calls rather than a
property, and the minimum for float32 as a literal where gpytorch reads it from its
settings). The clamp is
predicated; the warning is recorded with the branch's condition and replayed after the
compiled call only if it held, with its category, message and the caller's file and line
(stacklevel=2)."""

import warnings

import torch
from torch import nn


class NumericalWarning(RuntimeWarning):
    pass


class ENTRY(nn.Module):
    def variance(self, covariance):
        variance = covariance.diagonal(dim1=-2, dim2=-1)
        min_variance = 1e-6
        if variance.lt(min_variance).any():
            warnings.warn(
                f"Variance values smaller than {min_variance} are detected. "
                "This is likely due to and may cause numerical instabilities. "
                f"Clamping these variances up to {min_variance}.",
                NumericalWarning,
                stacklevel=2,
            )
            variance = variance.clamp_min(min_variance)
        return variance

    def forward(self, covariance):
        return self.variance(covariance) * 2


INPUTS = [
    (torch.diag(torch.tensor([1.0, 1e-9, 2.0])),),
    (torch.diag(torch.tensor([1.0, 0.5, 2.0])),),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM104", "where")]
