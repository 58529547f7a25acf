"""[Scalar] with [Trap]: guards that test a held scalar's truth. The NaN guard of funcwj/aps
(aps/task/objf.py: ctc_objf), written `if num_nans:` rather than `if num_nans > 0:`, a flag
read with `int()` guarded by `if not ok:`, and one read with `bool()`. Each test is the held
tensor itself (its truth, in the graph); the first message formats the count where the guard
fails."""
import torch


@torch.compile
def checked_log_softmax(outs: torch.Tensor):
    num_nans = torch.isnan(outs).sum().item()
    if num_nans:
        raise ValueError(f"Get {num_nans} NANs in the tensor")
    ok = int((outs > -100).all())
    if not ok:
        raise ValueError("a logit below -100")
    has_inf = bool(torch.isinf(outs).any())
    if has_inf:
        raise ValueError("an infinite logit")
    return torch.log_softmax(outs, dim=-1)


ENTRY = checked_log_softmax.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.tensor([[0.5, 1.5], [2.0, -1.0]]),),
    (torch.tensor([[0.5, float("nan")], [float("nan"), -1.0]]),),
    (torch.tensor([[0.5, -200.0], [2.0, -1.0]]),),
    (torch.tensor([[0.5, float("inf")], [2.0, -1.0]]),),
]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [
    ("GM105", "trap"),
    ("GM105", "trap"),
    ("GM105", "trap"),
    ("GM106", "scalar"),
    ("GM106", "scalar"),
    ("GM106", "scalar"),
]
