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
