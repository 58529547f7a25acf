"""[Defer] An f-string with format specs and conversions, formatted at replay."""
import torch


def ENTRY(x: torch.Tensor):
    total = x.sum()
    print(f"total={total:.3f} first={x[0]!r} shape={tuple(x.shape)} {{literal}}")
    return total


INPUTS = [(torch.tensor([1.25, 2.5]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM102", "defer")]
