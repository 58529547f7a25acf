"""DINOv2's Mask2Former segmentation losses (mmseg-style), `binary_cross_entropy`: for a
one-channel prediction the labels must be binary (`assert label.max() <= 1, "For pred with
shape [N, 1, H, W], its label must have at most 2 classes"`); class labels are expanded to
one-hot (`torch.nonzero` of the valid pixels, then `if inds[0].numel() > 0`), the ignored
pixels masked out, and averaged over the valid ones the factor is read as a Python number
(`avg_factor = valid_mask.sum().item()`). The assert is a guard on tensor values, but the
count read back into arithmetic and the data-dependent `nonzero` are not fixable by
design."""

import torch
import torch.nn.functional as F

ORIGIN = "facebookresearch/dinov2: dinov2/eval/segmentation_m2f/models/losses/cross_entropy_loss.py: binary_cross_entropy"
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
    if weight is not None:
        assert weight.dim() == loss.dim()
        if weight.dim() > 1:
            assert weight.size(1) == 1 or weight.size(1) == loss.size(1)
        loss = loss * weight

    if avg_factor is None:
        loss = reduce_loss(loss, reduction)
    else:
        if reduction == "mean":
            eps = torch.finfo(torch.float32).eps
            loss = loss.sum() / (avg_factor + eps)
        elif reduction != "none":
            raise ValueError('avg_factor can not be used with reduction="sum"')
    return loss


def _expand_onehot_labels(labels, label_weights, target_shape, ignore_index):
    """Expand onehot labels to match the size of prediction."""
    bin_labels = labels.new_zeros(target_shape)
    valid_mask = (labels >= 0) & (labels != ignore_index)
    inds = torch.nonzero(valid_mask, as_tuple=True)

    if inds[0].numel() > 0:
        if labels.dim() == 3:
            bin_labels[inds[0], labels[valid_mask], inds[1], inds[2]] = 1
        else:
            bin_labels[inds[0], labels[valid_mask]] = 1

    valid_mask = valid_mask.unsqueeze(1).expand(target_shape).float()

    if label_weights is None:
        bin_label_weights = valid_mask
    else:
        bin_label_weights = label_weights.unsqueeze(1).expand(target_shape)
        bin_label_weights = bin_label_weights * valid_mask

    return bin_labels, bin_label_weights, valid_mask


def binary_cross_entropy(
    pred,
    label,
    weight=None,
    reduction="mean",
    avg_factor=None,
    class_weight=None,
    ignore_index=-100,
    avg_non_ignore=False,
    **kwargs,
):
    if pred.size(1) == 1:
        # For binary class segmentation, the shape of pred is
        # [N, 1, H, W] and that of label is [N, H, W].
        assert label.max() <= 1, "For pred with shape [N, 1, H, W], its label must have at " "most 2 classes"
        pred = pred.squeeze()
    if pred.dim() != label.dim():
        assert (pred.dim() == 2 and label.dim() == 1) or (pred.dim() == 4 and label.dim() == 3), (
            "Only pred shape [N, C], label shape [N] or pred shape [N, C, " "H, W], label shape [N, H, W] are supported"
        )
        # `weight` returned from `_expand_onehot_labels`
        # has been treated for valid (non-ignore) pixels
        label, weight, valid_mask = _expand_onehot_labels(label, weight, pred.shape, ignore_index)
    else:
        # should mask out the ignored elements
        valid_mask = ((label >= 0) & (label != ignore_index)).float()
        if weight is not None:
            weight = weight * valid_mask
        else:
            weight = valid_mask
    # average loss over non-ignored and valid elements
    if reduction == "mean" and avg_factor is None and avg_non_ignore:
        avg_factor = valid_mask.sum().item()

    loss = F.binary_cross_entropy_with_logits(pred, label.float(), pos_weight=class_weight, reduction="none")
    # do the reduction for the weighted loss
    loss = weight_reduce_loss(loss, weight, reduction=reduction, avg_factor=avg_factor)

    return loss


torch.manual_seed(0)
_BINARY = torch.randint(0, 2, (2, 4, 4))
_BINARY[1, 0] = -1  # label < 0 is invalid: masked out
_CLASSES = torch.randint(0, 3, (2, 4, 4))
_CLASSES[0, 1] = 255
ENTRY = binary_cross_entropy
INPUTS = [
    # one-channel prediction, binary labels, averaged over the valid pixels
    (torch.randn(2, 1, 4, 4), _BINARY, None, "mean", None, None, 255, True),
    # class labels expanded to one-hot, weighted
    (torch.randn(2, 3, 4, 4), _CLASSES, torch.rand(2, 4, 4), "mean", None, None, 255, False),
    # every pixel ignored: nothing to expand
    (torch.randn(2, 3, 4, 4), torch.full((2, 4, 4), 255), None, "mean", None, None, 255, True),
    # [N, C] with labels [N], summed
    (torch.randn(5, 3), torch.tensor([0, 2, 1, 1, 0]), None, "sum", None, None, -100, False),
    # a one-channel prediction with a third class: the assert fails
    (torch.randn(2, 1, 4, 4), torch.randint(0, 3, (2, 4, 4)), None, "mean", None, None, 255, False),
]
