"""MONAI's COCO metric for detection: per class and per maximum number of detections, the
matched detections of every image are concatenated (numpy), sorted by score and summed into
recall and precision curves; a class with no results, or with no ground truth left after
ignoring, is logged (`logger.warning(f"WARNING, no results found for coco metric for class
{cls_i}")`, where `num_gt == np.count_nonzero(gt_ignore == 0)` decides) and skipped. The
statistics are handed back as tensors so runs compare."""

import logging as logger

import numpy as np
import torch

ORIGIN = "Project-MONAI/MONAI: monai/apps/detection/metrics/coco.py: COCOMetric._compute_statistics"
CATEGORY = "defer"


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


class COCOMetric:
    def __init__(self, classes, iou_list=(0.1, 0.5, 0.75), iou_range=(0.1, 0.5, 0.4), max_detection=(1, 5)):
        self.classes = classes
        iou_list_np = np.array(iou_list)
        _iou_range = np.linspace(
            iou_range[0], iou_range[1], int(np.round((iou_range[1] - iou_range[0]) / iou_range[2])) + 1, endpoint=True
        )
        self.iou_thresholds = np.union1d(iou_list_np, _iou_range)
        self.recall_thresholds = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.25)) + 1, endpoint=True)
        self.max_detections = max_detection

    def check_number_of_iou(self, *args):
        num_ious = len(self.get_iou_thresholds())
        for arg in args:
            if arg.shape[0] != num_ious:
                raise ValueError(
                    f"Require arg.shape[0] == len(self.get_iou_thresholds()). Got arg.shape[0]={arg.shape[0]}, "
                    f"self.get_iou_thresholds()={self.get_iou_thresholds()}."
                )

    def get_iou_thresholds(self):
        return list(self.iou_thresholds)

    def _compute_statistics(self, results_list):
        num_iou_th = len(self.iou_thresholds)
        num_recall_th = len(self.recall_thresholds)
        num_classes = len(self.classes)
        num_max_detections = len(self.max_detections)

        # -1 for the precision of absent categories
        precision = -np.ones((num_iou_th, num_recall_th, num_classes, num_max_detections))
        recall = -np.ones((num_iou_th, num_classes, num_max_detections))
        scores = -np.ones((num_iou_th, num_recall_th, num_classes, num_max_detections))

        for cls_idx, cls_i in enumerate(self.classes):  # for each class
            for max_det_idx, max_det in enumerate(self.max_detections):  # for each maximum number of detections
                results = [r[cls_idx] for r in results_list if cls_idx in r]  # len is num_images

                if len(results) == 0:
                    logger.warning(f"WARNING, no results found for coco metric for class {cls_i}")
                    continue

                dt_scores = np.concatenate([r["dtScores"][0:max_det] for r in results])
                # different sorting method generates slightly different results.
                # mergesort is used to be consistent as Matlab implementation.
                inds = np.argsort(-dt_scores, kind="mergesort")
                dt_scores_sorted = dt_scores[inds]

                # r['dtMatches'] [T, R], where R = sum(all detections)
                dt_matches = np.concatenate([r["dtMatches"][:, 0:max_det] for r in results], axis=1)[:, inds]
                dt_ignores = np.concatenate([r["dtIgnore"][:, 0:max_det] for r in results], axis=1)[:, inds]
                self.check_number_of_iou(dt_matches, dt_ignores)
                gt_ignore = np.concatenate([r["gtIgnore"] for r in results])
                num_gt = np.count_nonzero(gt_ignore == 0)  # number of ground truth boxes (non ignored)
                if num_gt == 0:
                    logger.warning(f"WARNING, no gt found for coco metric for class {cls_i}")
                    continue

                # ignore cases need to be handled differently for tp and fp
                tps = np.logical_and(dt_matches, np.logical_not(dt_ignores))
                fps = np.logical_and(np.logical_not(dt_matches), np.logical_not(dt_ignores))

                tp_sum = np.cumsum(tps, axis=1).astype(dtype=np.float32)
                fp_sum = np.cumsum(fps, axis=1).astype(dtype=np.float32)

                for th_ind, (tp, fp) in enumerate(zip(tp_sum, fp_sum)):  # for each threshold th_ind
                    tp, fp = np.array(tp), np.array(fp)
                    r, p, s = _compute_stats_single_threshold(tp, fp, dt_scores_sorted, self.recall_thresholds, num_gt)
                    recall[th_ind, cls_idx, max_det_idx] = r
                    precision[th_ind, :, cls_idx, max_det_idx] = p
                    # corresponding score thresholds for recall steps
                    scores[th_ind, :, cls_idx, max_det_idx] = s

        return {
            "counts": [num_iou_th, num_recall_th, num_classes, num_max_detections],  # [4]
            "recall": recall,  # [num_iou_th, num_classes, num_max_detections]
            "precision": precision,  # [num_iou_th, num_recall_th, num_classes, num_max_detections]
            "scores": scores,  # [num_iou_th, num_recall_th, num_classes, num_max_detections]
        }


METRIC = COCOMetric(classes=["c0", "c1", "c2"])


def compute_statistics(results_list):
    stats = METRIC._compute_statistics(results_list)
    return stats["counts"], torch.from_numpy(stats["recall"]), torch.from_numpy(stats["precision"]), torch.from_numpy(stats["scores"])


def _image(seed, num_dt, gt_ignore):
    rng = np.random.default_rng(seed)
    return {
        "dtMatches": rng.random((3, num_dt)) > 0.4,
        "dtIgnore": np.zeros((3, num_dt), dtype=bool),
        "dtScores": rng.random(num_dt),
        "gtIgnore": np.array(gt_ignore),
    }


torch.manual_seed(0)
ENTRY = compute_statistics
INPUTS = [
    # class 2 has no results; class 1 has only ignored ground truth
    ([{0: _image(0, 4, [0, 0]), 1: _image(1, 2, [1])}, {0: _image(2, 3, [0])}],),
    ([{0: _image(3, 3, [0]), 1: _image(4, 2, [0]), 2: _image(5, 1, [0, 1])}],),
]
