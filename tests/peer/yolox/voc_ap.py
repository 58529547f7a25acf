"""YOLOX's VOC average precision from recall and precision arrays (numpy): the 2007
11-point metric takes, per recall threshold, the best precision where the recall reaches it,
or 0 when none does (`if np.sum(rec >= t) == 0`); the default one builds the precision
envelope in a loop and sums over the recall changes (`np.where(...)[0]`, a data-dependent
shape). The AP is handed back as a tensor so runs compare."""

import numpy as np
import torch

ORIGIN = "Megvii-BaseDetection/YOLOX: yolox/evaluators/voc_eval.py: voc_ap"
CATEGORY = "out_of_scope"


def voc_ap(rec, prec, use_07_metric=False):
    """
    Compute VOC AP given precision and recall.
    If use_07_metric is true, uses the
    VOC 07 11 point method (default:False).
    """
    if use_07_metric:
        # 11 point metric
        ap = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            if np.sum(rec >= t) == 0:
                p = 0
            else:
                p = np.max(prec[rec >= t])
            ap = ap + p / 11.0
    else:
        # correct AP calculation
        # first append sentinel values at the end
        mrec = np.concatenate(([0.0], rec, [1.0]))
        mpre = np.concatenate(([0.0], prec, [0.0]))

        # compute the precision envelope
        for i in range(mpre.size - 1, 0, -1):
            mpre[i - 1] = np.maximum(mpre[i - 1], mpre[i])

        # to calculate area under PR curve, look for points
        # where X axis (recall) changes value
        i = np.where(mrec[1:] != mrec[:-1])[0]

        # and sum (\Delta recall) * prec
        ap = np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1])
    return ap


def average_precision(rec, prec, use_07_metric):
    return torch.tensor(float(voc_ap(rec, prec, use_07_metric)), dtype=torch.float64)


torch.manual_seed(0)
_rec = np.array([0.1, 0.2, 0.2, 0.4, 0.5])
_prec = np.array([1.0, 0.5, 0.67, 0.5, 0.6])
ENTRY = average_precision
INPUTS = [
    (_rec, _prec, False),
    (_rec, _prec, True),
]
