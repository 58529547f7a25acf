"""[Where] checked: a branch value computed by helpers that upcast by dtype and assert a
shape, from pytorch/vision: torchvision/ops/boxes.py: _upcast (`if t.is_floating_point():
return t if t.dtype in (torch.float32, torch.float64) else t.float()`, else the int form) and
box_area, with the shape check detectron2's Boxes make (`assert boxes.dim() == 2 and
boxes.size(-1) == 4`, facebookresearch/detectron2: detectron2/structures/boxes.py:
Boxes.__init__) as an assert in the helper. The branch keeps the box areas only where some
score passes the threshold. The dtype tests are static; the assert is checked before the
statement, as it holds (`boxes.dim() == 2 and boxes.size(-1) == 4`), and where it fails the
original runs and raises its AssertionError only when the branch is taken."""
import torch
from torch import Tensor


def _upcast(t: Tensor) -> Tensor:
    # Protects from numerical overflows in multiplications by upcasting to the equivalent higher type
    if t.is_floating_point():
        return t if t.dtype in (torch.float32, torch.float64) else t.float()
    else:
        return t if t.dtype in (torch.int32, torch.int64) else t.int()


def box_area(boxes: Tensor) -> Tensor:
    assert boxes.dim() == 2 and boxes.size(-1) == 4, f"boxes of shape {tuple(boxes.shape)}"
    boxes = _upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def ENTRY(boxes, scores, threshold: float):
    scores = scores * 1.0
    if scores.max() > threshold:
        area = box_area(boxes)
    else:
        area = scores * 0
    return area


INPUTS = [
    (torch.tensor([[0.0, 0.0, 2.0, 3.0], [1.0, 1.0, 2.0, 4.0]]), torch.tensor([0.9, 0.2]), 0.5),
    (torch.tensor([[0.0, 0.0, 2.0, 3.0], [1.0, 1.0, 2.0, 4.0]]), torch.tensor([0.1, 0.2]), 0.5),
    (torch.tensor([[0, 0, 2, 3], [1, 1, 2, 4]], dtype=torch.int16), torch.tensor([0.9, 0.2]), 0.5),
    (torch.tensor([[0.0, 0.0, 2.0], [1.0, 1.0, 2.0]]), torch.tensor([0.1, 0.2]), 0.5),  # kept
    (torch.tensor([[0.0, 0.0, 2.0], [1.0, 1.0, 2.0]]), torch.tensor([0.9, 0.2]), 0.5),  # raises
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
