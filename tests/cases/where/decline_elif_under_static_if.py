"""[Where] declined: a data-dependent elif under an if on a Python value (`if n > 3: ...
elif x.sum() > 0: ... else: ...`). The elif is no statement of its own: a rewrite of it alone
would replace the `elif` and its `else` with statements after the static arm, overwriting
its value (with n = 5 the mended program returned `x * 2` where the original returns `x`),
so it is left as it is."""
import torch


def ENTRY(x: torch.Tensor, n: int):
    if n > 3:
        y = x
    elif x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


INPUTS = [(torch.ones(3), 1), (-torch.ones(3), 1), (torch.ones(3), 5), (-torch.ones(3), 5)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "an elif whose if is not predicated with it")]

torch.compile(ENTRY)  # traced: an entry point of the mender
