"""[Scalar] declines where no other fix rewrites the comparison the scalar feeds, since the
break would only move there: the NaN guard of funcwj/aps (aps/task/objf.py: ctc_objf), with
the log-softmax that follows it moved into an else branch ([Trap] declines a guard with an
else branch, and [Where] one whose message formats a tensor)."""
import torch


@torch.compile
def checked_log_softmax(outs: torch.Tensor):
    num_nans = torch.isnan(outs).sum().item()
    if num_nans > 0:
        raise ValueError(f"Get {num_nans} NANs in the tensor")
    else:
        outs = torch.log_softmax(outs, dim=-1)
    return outs


ENTRY = checked_log_softmax.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.tensor([[0.5, 1.5], [2.0, -1.0]]),),
    (torch.tensor([[0.5, float("nan")], [2.0, -1.0]]),),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM105", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [("GM106", "not rewritten by another fix"), ("GM105", "else branch")]
