"""nnU-Net's foreground sampling for oversampling (numpy), run by the preprocessor on every
case with a segmentation: the voxels of the requested labels are found once (`np.isin`,
`np.argwhere`), sorted by label into blocks, and for each class or region (a tuple or list of
labels) a seeded draw without replacement picks at least `min_percent_coverage` of its voxels
and at most `min_num_samples`; a class none of whose labels is present gets no locations, and
no voxel of any requested label returns early. Verbose mode prints each class and its number of
samples (`print(c, target_num_samples)`). The locations are handed back as tensors so runs
compare. Plain torch.compile breaks before the `print` is reached: at `np.flatnonzero` (a
dynamic shape), `np.r_` (skipped), the `int()` reads of array elements, and in the loop over the
classes (`int(np.sum(counts))`), which then runs eagerly, the `print` with it."""

from typing import List, Tuple, Union

import numpy as np
import torch

ORIGIN = "MIC-DKFZ/nnUNet: nnunetv2/preprocessing/preprocessors/default_preprocessor.py: DefaultPreprocessor._sample_foreground_locations"
CATEGORY = "defer"


class DefaultPreprocessor(object):
    @staticmethod
    def _sample_foreground_locations(
            seg: np.ndarray,
            classes_or_regions: Union[List[int], List[Tuple[int, ...]]],
            seed: int = 1234,
            verbose: bool = False,
            min_num_samples=10000,
            min_percent_coverage = 0.01
    ):

        rndst = np.random.RandomState(seed)

        class_locs = {}

        # the requested labels, and the set of all labels they name
        normalized = []
        requested_labels = set()
        for c in classes_or_regions:
            if isinstance(c, (tuple, list)):
                labs = tuple(int(x) for x in c)
                normalized.append(labs)
                requested_labels.update(labs)
            else:
                lab = int(c)
                normalized.append(lab)
                requested_labels.add(lab)

        requested_labels_arr = np.fromiter(requested_labels, dtype=np.int32)
        valid_mask = np.isin(seg, requested_labels_arr)

        coords = np.argwhere(valid_mask)
        seg_sel = seg[valid_mask]
        del valid_mask

        n = seg_sel.size
        if n == 0:
            for c in classes_or_regions:
                k = tuple(c) if isinstance(c, (tuple, list)) else int(c)
                class_locs[k] = []
            return class_locs

        # sort once, then the blocks of each label
        order = np.argsort(seg_sel, kind="stable")
        lab_sorted = seg_sel[order]
        coords_sorted = coords[order]

        change = np.flatnonzero(lab_sorted[1:] != lab_sorted[:-1]) + 1
        starts = np.r_[0, change]
        ends = np.r_[change, n]
        labels_present = lab_sorted[starts]

        label_to_range = {int(l): (int(s), int(e)) for l, s, e in zip(labels_present, starts, ends)}
        present_labels = set(label_to_range.keys())

        for c in classes_or_regions:
            is_region = isinstance(c, (tuple, list))
            labs = tuple(int(x) for x in c) if is_region else (int(c),)
            k = labs if is_region else labs[0]

            if not any(lab in present_labels for lab in labs):
                class_locs[k] = []
                continue

            ranges = []
            counts = []
            for lab in labs:
                r = label_to_range.get(lab)
                if r is None:
                    continue
                s, e = r
                cnt = e - s
                if cnt > 0:
                    ranges.append((s, e))
                    counts.append(cnt)

            if len(counts) == 0:
                class_locs[k] = []
                continue

            total = int(np.sum(counts))
            target_num_samples = min(min_num_samples, total)
            target_num_samples = max(target_num_samples, int(np.ceil(total * min_percent_coverage)))

            # target_num_samples distinct offsets into the union of the ranges
            offsets = rndst.choice(total, target_num_samples, replace=False)

            cum = np.cumsum(counts)
            which = np.searchsorted(cum, offsets, side="right")
            prev = np.concatenate(([0], cum[:-1]))
            in_range = offsets - prev[which]

            starts_for_pick = np.fromiter((ranges[i][0] for i in which), dtype=np.int64, count=which.size)
            picked_idx = starts_for_pick + in_range.astype(np.int64)

            selected = coords_sorted[picked_idx]
            class_locs[k] = selected

            if verbose:
                print(c, target_num_samples)

        return class_locs


def sample_locations(seg, classes_or_regions, verbose, min_num_samples, min_percent_coverage):
    class_locs = DefaultPreprocessor._sample_foreground_locations(
        seg, classes_or_regions, verbose=verbose, min_num_samples=min_num_samples,
        min_percent_coverage=min_percent_coverage)
    return {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in class_locs.items()}


ENTRY = sample_locations
torch.manual_seed(0)
_rng = np.random.RandomState(0)
_seg = _rng.choice(4, size=(1, 5, 6), p=[0.5, 0.3, 0.15, 0.05]).astype(np.int16)
INPUTS = [
    # labels, a region (tuple) and a region given as a list, a label that is absent: printed
    (_seg, [1, 2, (1, 2), [2, 3], 5], True, 10000, 0.01),
    # few samples allowed: 4, unless half of the class's voxels is more
    (_seg, [1, 2, (1, 3)], False, 4, 0.5),
    # none of the requested labels present: the early return
    (np.zeros((1, 3, 3), dtype=np.int16), [1, (2, 3)], True, 10000, 0.01),
]
