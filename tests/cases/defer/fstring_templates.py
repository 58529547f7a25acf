"""[Defer] f-string arguments become str.format templates over their field values."""
import torch


@torch.compile
def forward(x: torch.Tensor, step: int):
    loss = (x * x).mean()
    print(f"step {step}: loss={loss:.4f}")
    print(f"{x!r} {{literal}} {loss=} {step:>{step}}", end=f" [{step}]\n")
    print("prefix " f"{x.shape}" " suffix")
    return loss
