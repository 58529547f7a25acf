"""[Scalar] captured reads: scalars read from tensors that only size, index and scale. A
padded batch is cut to its longest sequence (`max_len = int(lengths.max())`, then a slice
and `new_zeros` sized by it, as speech and text collators do), and a loss is normalised by
its token count (`loss.sum() / max(n_tokens.item(), 1)`, as fairseq's and DETR's criteria
do). Each read becomes `runtime.captured_*`, and Dynamo traces the function with
`capture_scalar_outputs`: both reads stay in the graph. One break is left, Dynamo's: each
slice by the captured length gets a size of its own, and cross_entropy's check that the
two sizes agree cannot be decided while tracing ("Could not guard on data-dependent
expression"), which Dynamo answers with a break there."""
import torch
import torch.nn.functional as F


@torch.compile
def masked_loss(logits, target, lengths):
    max_len = int(lengths.max())
    logits = logits[:, :max_len]
    target = target[:, :max_len]
    mask = torch.arange(max_len)[None, :] < lengths[:, None]
    losses = F.cross_entropy(logits.transpose(1, 2), target, reduction="none") * mask
    padding = logits.new_zeros(logits.shape[0], max_len - 1)
    n_tokens = mask.sum()
    return losses.sum() / max(n_tokens.item(), 1), padding.sum() * 0.5


ENTRY = masked_loss.__wrapped__  # the undecorated function: the suite runs and compiles it
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 6, 5), torch.randint(0, 5, (2, 6)), torch.tensor([4, 2])),
    (torch.randn(2, 6, 5), torch.randint(0, 5, (2, 6)), torch.tensor([6, 6])),
    # no tokens at all: the count is clamped to 1
    (torch.randn(2, 6, 5), torch.randint(0, 5, (2, 6)), torch.tensor([1, 1]) * 0 + 1),
]
EXPECTED_BREAKS = (2, 1)
EXPECTED_GRAPHS = (3, 2)
EXPECTED_TAGS = [("GM106", "scalar_capture"), ("GM106", "scalar_capture")]
EXPECTED_DECLINES = []
