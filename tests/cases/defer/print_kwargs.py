"""[Defer] print with sep= and end= keywords."""
import torch


def ENTRY(x: torch.Tensor):
    y = x.exp()
    print("values", y, y.shape, sep=" | ", end=" <end>\n")
    return y - 1


INPUTS = [(torch.tensor([0.0, 1.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM102", "defer")]
