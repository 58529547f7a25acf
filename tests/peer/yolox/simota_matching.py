"""YOLOX's SimOTA label assignment: each ground truth takes its dynamic-k cheapest anchors
(`torch.topk(..., k=dynamic_ks[gt_idx])`, a tensor k); when an anchor is taken by several
(`if anchor_matching_gt.max() > 1`) only its cheapest ground truth keeps it; the number of
foreground anchors is read with `.item()` and returned, and the masks select by boolean
indexing: data-dependent Python values and shapes, out of scope."""

import torch
from torch import nn

ORIGIN = "Megvii-BaseDetection/YOLOX: yolox/models/yolo_head.py: YOLOXHead.simota_matching"
CATEGORY = "out_of_scope"


class YOLOXHead(nn.Module):
    def simota_matching(self, cost, pair_wise_ious, gt_classes, num_gt, fg_mask):
        matching_matrix = torch.zeros_like(cost, dtype=torch.uint8)

        n_candidate_k = min(10, pair_wise_ious.size(1))
        topk_ious, _ = torch.topk(pair_wise_ious, n_candidate_k, dim=1)
        dynamic_ks = torch.clamp(topk_ious.sum(1).int(), min=1)
        for gt_idx in range(num_gt):
            _, pos_idx = torch.topk(
                cost[gt_idx], k=dynamic_ks[gt_idx], largest=False
            )
            matching_matrix[gt_idx][pos_idx] = 1

        del topk_ious, dynamic_ks, pos_idx

        anchor_matching_gt = matching_matrix.sum(0)
        # deal with the case that one anchor matches multiple ground-truths
        if anchor_matching_gt.max() > 1:
            multiple_match_mask = anchor_matching_gt > 1
            _, cost_argmin = torch.min(cost[:, multiple_match_mask], dim=0)
            matching_matrix[:, multiple_match_mask] *= 0
            matching_matrix[cost_argmin, multiple_match_mask] = 1
        fg_mask_inboxes = anchor_matching_gt > 0
        num_fg = fg_mask_inboxes.sum().item()

        fg_mask[fg_mask.clone()] = fg_mask_inboxes

        matched_gt_inds = matching_matrix[:, fg_mask_inboxes].argmax(0)
        gt_matched_classes = gt_classes[matched_gt_inds]

        pred_ious_this_matching = (matching_matrix * pair_wise_ious).sum(0)[
            fg_mask_inboxes
        ]
        return num_fg, gt_matched_classes, pred_ious_this_matching, matched_gt_inds

    def forward(self, cost, pair_wise_ious, gt_classes, fg_mask):
        fg_mask = fg_mask.clone()
        result = self.simota_matching(cost, pair_wise_ious, gt_classes, cost.shape[0], fg_mask)
        return result + (fg_mask,)


torch.manual_seed(0)
ENTRY = YOLOXHead
INPUTS = [
    # two ground truths whose candidates overlap
    (torch.tensor([[0.5, 0.1, 0.3, 2.0, 1.0], [0.2, 0.4, 1.5, 0.1, 3.0]]),
     torch.tensor([[0.6, 0.9, 0.5, 0.1, 0.2], [0.7, 0.3, 0.2, 0.8, 0.1]]),
     torch.tensor([1.0, 2.0]), torch.tensor([True, True, False, True, True, True, False])),
    # one ground truth: no anchor is taken twice
    (torch.tensor([[0.5, 0.1, 0.3, 2.0]]), torch.tensor([[0.6, 0.9, 0.5, 0.1]]),
     torch.tensor([3.0]), torch.tensor([True, True, True, True])),
]
