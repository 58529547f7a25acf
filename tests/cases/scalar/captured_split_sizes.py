"""[Scalar] captures a list of sizes read with `.tolist()`: segment pooling as graph and
speech models write it (`torch.split(x, counts.tolist())`, then a mean per segment, and a
buffer sized by the first count). `runtime.captured_tolist` reads the list in the graph
for an integer tensor, where the original breaks at the read; a loop over the list's
values would run a data-dependent number of times and is declined
(`decline_captured_accumulated.py` declines a value accumulated in a loop)."""
import torch


@torch.compile
def pool_segments(x: torch.Tensor, counts: torch.Tensor):
    x = x.relu()
    sizes = counts.tolist()
    parts = torch.split(x, sizes)
    pooled = torch.stack([part.mean(0) for part in parts])
    return pooled, x.new_zeros(sizes[0], 2)


ENTRY = pool_segments.__wrapped__  # the undecorated function: the suite runs and compiles it
torch.manual_seed(0)
INPUTS = [
    (torch.randn(6, 3), torch.tensor([1, 2, 3])),
    (torch.randn(6, 3), torch.tensor([4, 1, 1])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM106", "scalar_capture")]
EXPECTED_DECLINES = []
