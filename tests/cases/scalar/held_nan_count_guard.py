"""[Scalar] with [Trap]: the CTC objective of funcwj/aps (aps/task/objf.py: ctc_objf)
counts NaNs with `.item()` and raises a ValueError formatting the count when there are any.
The count is held as a tensor while compiling; the guard is checked in the graph and its
message formatted only where it fails. The CTC loss call itself is left out (Dynamo breaks on
ctc_loss, an operator with a data-dependent output shape, whatever is mended): a sum of the
target tokens' log-probabilities stands for it."""
import torch as th
import torch.nn.functional as tf


@th.compile
def ctc_objf(outs, tgts, out_len, tgt_len, blank: int = 0, reduction: str = "mean",
             add_softmax: bool = True):
    N, L = tgts.shape
    if outs.shape[1] < L:
        raise ValueError(
            f"#frames({outs.shape[1]}) < #labels({L}), not valid for CTC")
    num_nans = th.isnan(outs).sum().item()
    if num_nans > 0:
        raise ValueError(f"Get {num_nans} NANs in the tensor")
    # add log-softmax, N x T x V => T x N x V
    if add_softmax:
        outs = tf.log_softmax(outs, dim=-1)
    # CTC loss (in its place: the target tokens' log-probabilities)
    loss = -outs[:, :L].gather(-1, tgts.unsqueeze(-1)).sum()
    loss = loss / (th.sum(tgt_len) if reduction == "mean" else N)
    return loss


ENTRY = ctc_objf.__wrapped__  # the undecorated function: the suite runs and compiles it
_OUTS = th.linspace(-2.0, 2.0, 2 * 6 * 5).reshape(2, 6, 5)
_TGTS = th.tensor([[1, 2, 3], [4, 1, 0]])
_NAN_OUTS = _OUTS.clone()
_NAN_OUTS[1, 2, 3] = float("nan")
INPUTS = [
    (_OUTS, _TGTS, th.tensor([6, 5]), th.tensor([3, 2])),
    (_NAN_OUTS, _TGTS, th.tensor([6, 5]), th.tensor([3, 2])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "trap"), ("GM106", "scalar")]
