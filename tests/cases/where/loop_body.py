"""[Where] A data-dependent branch inside a static for loop (Dynamo unrolls the loop; a
break there would make it give up on the whole frame)."""
import torch


def ENTRY(x: torch.Tensor):
    for step in range(3):
        if x.sum() > step:
            x = x * 0.5
        else:
            x = x + 1
    return x


INPUTS = [(torch.tensor([4.0, 4.0]),), (torch.tensor([-1.0, 0.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM101", "where")]
