"""detectron2's Matcher: an `assert torch.all(match_quality_matrix >= 0)` on the IoU matrix,
then labels per threshold band by boolean-mask assignment. (Low-quality matches off: they
use `nonzero`.) Dynamo traces the assert without a break, as an in-graph assertion that
raises RuntimeError("assertion error") instead of AssertionError."""

import torch

ORIGIN = "facebookresearch/detectron2: detectron2/modeling/matcher.py: Matcher.__call__"
CATEGORY = "no_break"


class Matcher:
    def __init__(self, thresholds=(0.3, 0.7), labels=(0, -1, 1), allow_low_quality_matches=False):
        thresholds = list(thresholds)
        thresholds.insert(0, -float("inf"))
        thresholds.append(float("inf"))
        self.thresholds = thresholds
        self.labels = list(labels)
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix):
        assert match_quality_matrix.dim() == 2
        if match_quality_matrix.numel() == 0:
            default_matches = match_quality_matrix.new_full((match_quality_matrix.size(1),), 0, dtype=torch.int64)
            default_match_labels = match_quality_matrix.new_full(
                (match_quality_matrix.size(1),), self.labels[0], dtype=torch.int8
            )
            return default_matches, default_match_labels

        assert torch.all(match_quality_matrix >= 0)

        # match_quality_matrix is M (gt) x N (predicted)
        # Max over gt elements (dim 0) to find best gt candidate for each prediction
        matched_vals, matches = match_quality_matrix.max(dim=0)

        match_labels = matches.new_full(matches.size(), 1, dtype=torch.int8)

        for (l, low, high) in zip(self.labels, self.thresholds[:-1], self.thresholds[1:]):
            low_high = (matched_vals >= low) & (matched_vals < high)
            match_labels[low_high] = l

        return matches, match_labels


def match(match_quality_matrix):
    return Matcher()(match_quality_matrix * 1.0)


ENTRY = match
INPUTS = [
    (torch.tensor([[0.1, 0.5, 0.9], [0.8, 0.2, 0.4]]),),
    (torch.tensor([[0.1, -0.5, 0.9], [0.8, 0.2, 0.4]]),),
]
