"""Fast R-CNN's box loss: the positive proposals are found with `torch.where(labels > 0)[0]`
and the regression targets indexed with them; the number of positives, so the shape of
what follows, depends on the data. Not fixable by design (data-dependent output shape)."""

import torch
import torch.nn.functional as F

ORIGIN = "pytorch/vision: torchvision/models/detection/roi_heads.py: fastrcnn_loss"
CATEGORY = "out_of_scope"


def fastrcnn_loss(class_logits, box_regression, labels, regression_targets):
    classification_loss = F.cross_entropy(class_logits, labels)

    # get indices that correspond to the regression targets for
    # the corresponding ground truth labels, to be used with
    # advanced indexing
    sampled_pos_inds_subset = torch.where(labels > 0)[0]
    labels_pos = labels[sampled_pos_inds_subset]
    N, num_classes = class_logits.shape
    box_regression = box_regression.reshape(N, box_regression.size(-1) // 4, 4)

    box_loss = F.smooth_l1_loss(
        box_regression[sampled_pos_inds_subset, labels_pos],
        regression_targets[sampled_pos_inds_subset],
        beta=1 / 9,
        reduction="sum",
    )
    box_loss = box_loss / labels.numel()

    return classification_loss, box_loss


ENTRY = fastrcnn_loss
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 3), torch.randn(4, 12), torch.tensor([0, 2, 1, 0]), torch.randn(4, 4)),
    (torch.randn(4, 3), torch.randn(4, 12), torch.tensor([1, 2, 1, 1]), torch.randn(4, 4)),
]
