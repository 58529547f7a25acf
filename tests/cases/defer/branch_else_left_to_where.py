"""[Defer] leaves a branch with an else branch to [Where]: LexaLCM's
`NaNGradChecker.on_step_begin` (Lexa-B/LexaLCM_Pre3: src/LexaLCM/Utils/NaNGradChecker.py)
prints which kind of non-finite value a gradient holds with `if ...: print(...) elif ...:
print(...)`. [Defer] does not defer a branch with an else branch whole; [Where] predicates
the if/elif, each print recorded with its leaf's path condition (the elif's: the first
condition false, its own true), replayed after the compiled region only if that held."""
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
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where"), ("GM102", "where"), ("GM102", "where")]
EXPECTED_DECLINES = []
