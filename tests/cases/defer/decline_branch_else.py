"""[Defer] declined branch deferral: LexaLCM's `NaNGradChecker.on_step_begin`
(Lexa-B/LexaLCM_Pre3: src/LexaLCM/Utils/NaNGradChecker.py) prints which kind of non-finite
value a gradient holds with `if ...: print(...) elif ...: print(...)`: a branch with an else
branch is not deferred (its print is, on its own). The `elif` is an `if` of its own, with no
else branch: it is deferred whole, reached only where the first condition is false."""
import torch


def ENTRY(grad: torch.Tensor, name: str = "layer.weight"):
    grad = grad * 1
    if torch.isnan(grad).any():
        print(f"NaN in gradient of {name}")
    elif torch.isinf(grad).any():
        print(f"Inf in gradient of {name}")
    return grad


INPUTS = [
    (torch.tensor([1.0, float("nan")]),),
    (torch.tensor([1.0, float("inf")]),),
    (torch.tensor([1.0, 2.0]),),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "defer"), ("GM102", "defer"), ("GM102", "defer")]
EXPECTED_DECLINES = [
    ("GM101", "has an else branch"),
]
