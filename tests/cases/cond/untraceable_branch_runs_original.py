"""[Cond] verified by tracing: the branch calls a helper the mender's proofs accept
(straight-line torch calls), but `torch.clamp(x, 0, top)` with a 0-d tensor bound reads
it as a Python number, which torch.cond cannot capture (text-generation-inference's GPTQ
quantiser). Dynamo fails the first trace of the frame; the site is switched off
(`runtime.cond_on`) and the frame traced again, taking the original `if` with its break.
The call runs once: the print before the `if` appears once and `torch.rand` draws once."""

import torch


def reset():
    torch.manual_seed(0)  # every run draws the same noise


def squash(x, top):
    return torch.clamp(x, 0, top) * 2


def ENTRY(x: torch.Tensor, top: torch.Tensor):
    print("drawing noise")
    x = x + torch.rand(x.shape)
    if x.sum() > 0:
        y = squash(x, top)
    else:
        y = x - 1
    return y


INPUTS = [(torch.ones(3), torch.tensor(1.5)), (-torch.ones(3) * 3, torch.tensor(1.5))]
RANDOM = True
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "cond"), ("GM102", "defer")]

torch.compile(ENTRY)  # traced: an entry point of the mender
