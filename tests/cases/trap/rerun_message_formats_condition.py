"""[Trap] the message formats the very value the condition tests (transformers'
`generalized_box_iou`, src/transformers/loss/loss_for_object_detection.py), an operand whose
type the text does not show: runtime.rerun_if, under a check that it is a tensor."""
import torch


def ENTRY(boxes1):
    if not (boxes1[:, 2:] >= boxes1[:, :2]).all():
        raise ValueError(f"boxes1 must be in [x0, y0, x1, y1] (corner) format, but got {boxes1}")
    return boxes1.sum()


INPUTS = [(torch.tensor([[0.0, 0.0, 1.0, 1.0]]),), (torch.tensor([[0.0, 0.0, -1.0, 1.0]]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "trap")]

torch.compile(ENTRY)  # traced: an entry point of the mender
