"""[Defer] A self-documenting f-string field (`{x=}`)."""
import torch


def ENTRY(x: torch.Tensor):
    y = x.relu()
    print(f"{y=}")
    return y


INPUTS = [(torch.tensor([-1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM102", "defer")]
