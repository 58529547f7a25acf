"""MONAI's COCO metric, one IoU threshold: recall and precision from the cumulative true and
false positives; the precision curve is read into a Python list (`pr = pr.tolist()`) and
smoothed by comparing its entries (`if pr[i] > pr[i - 1]`), then sampled at the recall
thresholds with `np.searchsorted`, an index past the end ending the loop through
`except BaseException: pass`. Python values computed from the data: out of scope. The
results are handed back as tensors so runs compare."""

import numpy as np
import torch

ORIGIN = "Project-MONAI/MONAI: monai/apps/detection/metrics/coco.py: _compute_stats_single_threshold"
CATEGORY = "out_of_scope"


def _compute_stats_single_threshold(tp, fp, dt_scores_sorted, recall_thresholds, num_gt):
    num_recall_th = len(recall_thresholds)

    rc = tp / num_gt
    # np.spacing(1) is the smallest representable epsilon with float
    pr = tp / (fp + tp + np.spacing(1))

    if len(tp):
        recall = rc[-1]
    else:
        # no prediction
        recall = 0

    # array where precision values nearest to given recall th are saved
    precision = np.zeros((num_recall_th,))
    # save scores for corresponding recall value in here
    th_scores = np.zeros((num_recall_th,))
    # numpy is slow without cython optimization for accessing elements
    # use python array gets significant speed improvement
    pr = pr.tolist()
    precision = precision.tolist()

    # smooth precision curve (create box shape)
    for i in range(len(tp) - 1, 0, -1):
        if pr[i] > pr[i - 1]:
            pr[i - 1] = pr[i]

    # get indices to nearest given recall threshold (nn interpolation!)
    inds = np.searchsorted(rc, recall_thresholds, side="left")
    try:
        for save_idx, array_index in enumerate(inds):
            precision[save_idx] = pr[array_index]
            th_scores[save_idx] = dt_scores_sorted[array_index]
    except BaseException:
        pass

    return recall, np.array(precision), np.array(th_scores)


RECALL_THRESHOLDS = np.linspace(0.0, 1.00, 5, endpoint=True)


def single_threshold(tp, fp, dt_scores_sorted, num_gt):
    recall, precision, th_scores = _compute_stats_single_threshold(
        tp, fp, dt_scores_sorted, RECALL_THRESHOLDS, num_gt)
    return float(recall), torch.from_numpy(precision), torch.from_numpy(th_scores)


torch.manual_seed(0)
ENTRY = single_threshold
INPUTS = [
    # a detection that misses after the first ones: the curve is smoothed
    (np.cumsum([1, 0, 1, 1, 0]).astype(np.float32), np.cumsum([0, 1, 0, 0, 1]).astype(np.float32),
     np.array([0.9, 0.8, 0.6, 0.5, 0.1]), 3),
    # recall never reaches the last thresholds: the loop ends by the IndexError
    (np.cumsum([1, 0]).astype(np.float32), np.cumsum([0, 1]).astype(np.float32), np.array([0.7, 0.2]), 4),
    # no detections at all
    (np.zeros((0,), dtype=np.float32), np.zeros((0,), dtype=np.float32), np.zeros((0,)), 2),
]
