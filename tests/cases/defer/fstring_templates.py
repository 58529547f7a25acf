"""[Defer] f-string arguments become str.format templates over their field values."""
import torch


@torch.compile
def forward(x: torch.Tensor, step: int):
    loss = (x * x).mean()
    print(f"step {step}: loss={loss:.4f}")
    print(f"{x!r} {{literal}} {loss=} {step:>{step}}", end=f" [{step}]\n")
    print("prefix " f"{x.shape}" " suffix")
    return loss


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [(torch.tensor([1.25, 2.5]), 3)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM102", "defer"), ("GM102", "defer"), ("GM102", "defer")]
