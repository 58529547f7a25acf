"""DINOv2's Mask2Former segmentation losses (mmseg-style), `cross_entropy`: the per-pixel
cross entropy is weighted and reduced; averaged over the non-ignored pixels only
(`avg_non_ignore`), its average factor is read as a Python number
(`avg_factor = label.numel() - (label == ignore_index).sum().item()`) and divides the sum.
A Python value computed from the labels feeding the arithmetic: not fixable by design.
`avg_factor` with `reduction="sum"` raises ValueError (mmseg's weight_reduce_loss)."""

import torch
import torch.nn.functional as F

ORIGIN = "facebookresearch/dinov2: dinov2/eval/segmentation_m2f/models/losses/cross_entropy_loss.py: cross_entropy"
CATEGORY = "out_of_scope"


def reduce_loss(loss, reduction):
    """mmseg.models.losses.utils.reduce_loss"""
    reduction_enum = F._Reduction.get_enum(reduction)
    # none: 0, elementwise_mean:1, sum: 2
    if reduction_enum == 0:
        return loss
    elif reduction_enum == 1:
        return loss.mean()
    elif reduction_enum == 2:
        return loss.sum()


def weight_reduce_loss(loss, weight=None, reduction="mean", avg_factor=None):
    """mmseg.models.losses.utils.weight_reduce_loss"""
    # if weight is specified, apply element-wise weight
    if weight is not None:
        assert weight.dim() == loss.dim()
        if weight.dim() > 1:
            assert weight.size(1) == 1 or weight.size(1) == loss.size(1)
        loss = loss * weight

    # if avg_factor is not specified, just reduce the loss
    if avg_factor is None:
        loss = reduce_loss(loss, reduction)
    else:
        # if reduction is mean, then average the loss by avg_factor
        if reduction == "mean":
            # Avoid causing ZeroDivisionError when avg_factor is 0.0,
            # i.e., all labels of an image belong to ignore index.
            eps = torch.finfo(torch.float32).eps
            loss = loss.sum() / (avg_factor + eps)
        # if reduction is 'none', then do nothing, otherwise raise an error
        elif reduction != "none":
            raise ValueError('avg_factor can not be used with reduction="sum"')
    return loss


def cross_entropy(
    pred,
    label,
    weight=None,
    class_weight=None,
    reduction="mean",
    avg_factor=None,
    ignore_index=-100,
    avg_non_ignore=False,
):
    # class_weight is a manual rescaling weight given to each class.
    # If given, has to be a Tensor of size C element-wise losses
    loss = F.cross_entropy(pred, label, weight=class_weight, reduction="none", ignore_index=ignore_index)

    # apply weights and do the reduction
    # average loss over non-ignored elements
    # pytorch's official cross_entropy average loss over non-ignored elements
    if (avg_factor is None) and avg_non_ignore and reduction == "mean":
        avg_factor = label.numel() - (label == ignore_index).sum().item()
    if weight is not None:
        weight = weight.float()
    loss = weight_reduce_loss(loss, weight=weight, reduction=reduction, avg_factor=avg_factor)

    return loss


torch.manual_seed(0)
_LABEL = torch.randint(0, 3, (2, 4, 4))
_LABEL[0, 0] = 255
ENTRY = cross_entropy
INPUTS = [
    # averaged over the non-ignored pixels
    (torch.randn(2, 3, 4, 4), _LABEL, None, None, "mean", None, 255, True),
    # weighted, the plain mean
    (torch.randn(2, 3, 4, 4), _LABEL, torch.rand(2, 4, 4), torch.tensor([1.0, 2.0, 0.5]), "mean", None, 255, False),
    # a given average factor with sum
    (torch.randn(2, 3, 4, 4), _LABEL, None, None, "sum", 10.0, 255, False),
    (torch.randn(2, 3, 4, 4), _LABEL, None, None, "none", None, 255, True),
]
