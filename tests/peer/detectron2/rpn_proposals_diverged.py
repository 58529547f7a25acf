"""detectron2's find_top_rpn_proposals, per image: in training, non-finite boxes or scores
mean training diverged (`raise FloatingPointError(...)`); otherwise they are dropped by
boolean-mask indexing. A guard (fixable) next to a data-dependent shape (not fixable)."""

import torch
from torch import nn

ORIGIN = "facebookresearch/detectron2: detectron2/modeling/proposal_generator/proposal_utils.py: find_top_rpn_proposals"
CATEGORY = "out_of_scope"


class ProposalFilter(nn.Module):
    def forward(self, boxes, scores_per_img):
        training = self.training
        valid_mask = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores_per_img)
        if not valid_mask.all():
            if training:
                raise FloatingPointError(
                    "Predicted boxes or scores contain Inf/NaN. Training has diverged."
                )
            boxes = boxes[valid_mask]
            scores_per_img = scores_per_img[valid_mask]
        return boxes.clamp(min=0.0), scores_per_img


def make():
    return ProposalFilter().eval()


ENTRY = ProposalFilter
torch.manual_seed(0)
INPUTS = [
    (torch.rand(3, 4), torch.tensor([0.5, float("nan"), 0.2])),
    (torch.rand(3, 4), torch.rand(3)),
]
