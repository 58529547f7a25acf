"""[Trap] guards whose messages are formatted from values that are not tensors: an
f-string over a dtype (torchvision's `normalize`, torchvision/transforms/_functional_tensor.py),
`%` over a Python number and `.format` over a config value (torchmetrics'
`_tweedie_deviance_score_update` formats `power` the same way). The message is built only
when the guard fails; compiled, Dynamo folds it to a constant while tracing."""
import torch


class Config:
    max_norm = 8.0


CONFIG = Config()


def ENTRY(x, std, power=1.5):
    dtype = x.dtype
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to division by zero.")
    if torch.any(x < 0):
        raise ValueError("For power=%s, 'x' has to be non-negative." % power)
    if x.norm() > CONFIG.max_norm:
        raise RuntimeError("norm above {:.1f} (limit {limit})".format(CONFIG.max_norm, limit=CONFIG.max_norm))
    return x / std


INPUTS = [
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])),
    (torch.tensor([1.0, 2.0]), torch.tensor([0.0, 2.0])),
    (torch.tensor([-1.0, 2.0]), torch.tensor([1.0, 2.0]), 2.5),
    (torch.tensor([10.0, 2.0]), torch.tensor([1.0, 2.0])),
]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM105", "trap"), ("GM105", "trap"), ("GM105", "trap")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
