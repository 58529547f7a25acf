"""torchmetrics' Tweedie deviance update: for the Poisson and Gamma powers, non-positive
predictions or targets raise (`if torch.any(preds <= 0) or torch.any(targets < 0): raise
ValueError(f"For power={power}, ...")`): guards with f-strings over a config value."""

import torch

ORIGIN = "Lightning-AI/torchmetrics: src/torchmetrics/functional/regression/tweedie_deviance.py: _tweedie_deviance_score_update"
CATEGORY = "trap"


def _safe_xlogy(x, y):
    res = x * torch.log(y)
    res[x == 0] = 0.0
    return res


def _tweedie_deviance_score_update(preds, targets, power=0.0):
    zero_tensor = torch.zeros(preds.shape, device=preds.device)

    if 0 < power < 1:
        raise ValueError(f"Deviance Score is not defined for power={power}.")

    if power == 0:
        deviance_score = torch.pow(targets - preds, exponent=2)
    elif power == 1:
        # Poisson distribution
        if torch.any(preds <= 0) or torch.any(targets < 0):
            raise ValueError(
                f"For power={power}, 'preds' has to be strictly positive and 'targets' cannot be negative."
            )

        deviance_score = 2 * (_safe_xlogy(targets, targets / preds) + preds - targets)
    elif power == 2:
        # Gamma distribution
        if torch.any(preds <= 0) or torch.any(targets <= 0):
            raise ValueError(f"For power={power}, both 'preds' and 'targets' have to be strictly positive.")

        deviance_score = 2 * (torch.log(preds / targets) + (targets / preds) - 1)
    else:
        deviance_score = zero_tensor

    sum_deviance_score = torch.sum(deviance_score)
    num_observations = torch.tensor(torch.numel(deviance_score), device=preds.device)

    return sum_deviance_score, num_observations


ENTRY = _tweedie_deviance_score_update
INPUTS = [
    (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 2.0]), 1),
    (torch.tensor([-1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 2.0]), 1),
    (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.5, 2.0]), 2),
    (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 2.0]), 2),
]
