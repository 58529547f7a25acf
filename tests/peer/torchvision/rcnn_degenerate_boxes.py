"""GeneralizedRCNN.forward in training: each target's boxes are checked for positive width
and height; on a degenerate box, the first one is found (`torch.where(...)[0][0]`), turned
into a list (`.tolist()`) and formatted into the error (`torch._assert(False, "...".format(
degen_bb, target_idx))`). A guard whose message reads tensor data."""

import torch
from torch import nn

ORIGIN = "pytorch/vision: torchvision/models/detection/generalized_rcnn.py: GeneralizedRCNN.forward"
CATEGORY = "trap"


class GeneralizedRCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, images, boxes_a, boxes_b):
        targets = [{"boxes": boxes_a}, {"boxes": boxes_b}]
        if targets is not None:
            for target_idx, target in enumerate(targets):
                boxes = target["boxes"]
                degenerate_boxes = boxes[:, 2:] <= boxes[:, :2]
                if degenerate_boxes.any():
                    # print the first degenerate box
                    bb_idx = torch.where(degenerate_boxes.any(dim=1))[0][0]
                    degen_bb = boxes[bb_idx].tolist()
                    torch._assert(
                        False,
                        "All bounding boxes should have positive height and width."
                        f" Found invalid box {degen_bb} for target at index {target_idx}.",
                    )

        features = self.backbone(images)
        return features.mean((2, 3))


ENTRY = GeneralizedRCNN
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 3, 4, 4), torch.tensor([[0.0, 0.0, 2.0, 2.0]]), torch.tensor([[1.0, 1.0, 3.0, 2.0]])),
    (torch.randn(1, 3, 4, 4), torch.tensor([[0.0, 0.0, 2.0, 2.0]]), torch.tensor([[1.0, 1.0, 0.5, 2.0]])),
]
