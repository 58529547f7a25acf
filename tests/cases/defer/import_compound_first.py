"""The first statement after the docstring is compound: the runtime import gets a line of
its own (a simple first statement shares its line, so no line moves)."""
try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


@torch.compile
def forward(x: torch.Tensor):
    print(x)
    return x


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM102", "defer")]
