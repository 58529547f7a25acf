"""[Trap] declined: the message formats the very value the condition tests (transformers'
`generalized_box_iou`, src/transformers/loss/loss_for_object_detection.py): its text is
tensor data, which no constant in the graph can hold."""
import torch


def ENTRY(boxes1):
    if not (boxes1[:, 2:] >= boxes1[:, :2]).all():
        raise ValueError(f"boxes1 must be in [x0, y0, x1, y1] (corner) format, but got {boxes1}")
    return boxes1.sum()


INPUTS = [(torch.tensor([[0.0, 0.0, 1.0, 1.0]]),), (torch.tensor([[0.0, 0.0, -1.0, 1.0]]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM105", "declined")]
EXPECTED_DECLINES = [("GM105", "neither a string literal")]

torch.compile(ENTRY)  # traced: an entry point of the mender
