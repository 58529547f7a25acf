"""Pyro's scANVI data loader (contrib/examples/scanvi_data.py), `BatchDataLoader`: it serves
mini-batches that are either all labelled or all unlabelled, never mixed. Each pass
(`__iter__`) calls `_sample_batch_indices`, which draws the order of the batches as a Python
list (`torch.randperm(len(self)).tolist()`), shuffles the unlabelled and the labelled cell
indices and slices them into batches; `__iter__` then walks the batches in that order and
yields `(x, one_hot(y))` for a labelled batch and `(x, None)` for an unlabelled one. The loader
is built once from the data, as the scANVI example's script does, and the step runs epochs over
it (the example's `svi.step(x, y)` left out: the batches are returned). The batch order read
back with `.tolist()` is Python structure computed from tensor data (which slice comes next):
not fixable by design."""

import math

import torch
import torch.nn as nn

ORIGIN = "pyro-ppl/pyro: pyro/contrib/examples/scanvi_data.py: BatchDataLoader._sample_batch_indices"
CATEGORY = "out_of_scope"


class BatchDataLoader(object):
    """
    This custom DataLoader serves mini-batches that are either fully-observed (i.e. labeled)
    or partially-observed (i.e. unlabeled) but never mixed.
    """

    def __init__(self, data_x, data_y, batch_size, num_classes=4, missing_label=-1):
        super().__init__()
        self.data_x = data_x
        self.data_y = data_y
        self.batch_size = batch_size
        self.num_classes = num_classes

        self.unlabeled = torch.where(data_y == missing_label)[0]
        self.num_unlabeled = self.unlabeled.size(0)
        self.num_unlabeled_batches = math.ceil(self.num_unlabeled / self.batch_size)

        self.labeled = torch.where(data_y != missing_label)[0]
        self.num_labeled = self.labeled.size(0)
        self.num_labeled_batches = math.ceil(self.num_labeled / self.batch_size)

        assert self.data_x.size(0) == self.data_y.size(0)
        assert len(self) > 0

    @property
    def size(self):
        return self.data_x.size(0)

    def __len__(self):
        return self.num_unlabeled_batches + self.num_labeled_batches

    def _sample_batch_indices(self):
        batch_order = torch.randperm(len(self)).tolist()
        unlabeled_idx = self.unlabeled[torch.randperm(self.num_unlabeled)]
        labeled_idx = self.labeled[torch.randperm(self.num_labeled)]

        slices = []

        for i in range(self.num_unlabeled_batches):
            _slice = unlabeled_idx[i * self.batch_size : (i + 1) * self.batch_size]
            slices.append((_slice, False))

        for i in range(self.num_labeled_batches):
            _slice = labeled_idx[i * self.batch_size : (i + 1) * self.batch_size]
            slices.append((_slice, True))

        return slices, batch_order

    def __iter__(self):
        slices, batch_order = self._sample_batch_indices()

        for i in range(len(batch_order)):
            _slice = slices[batch_order[i]]
            if _slice[1]:
                # labeled
                yield self.data_x[_slice[0]], nn.functional.one_hot(
                    self.data_y[_slice[0]], num_classes=self.num_classes
                )
            else:
                # unlabeled
                yield self.data_x[_slice[0]], None


def make():
    """The script: one loader over the data set, then the training epochs."""
    dataloader = BatchDataLoader(DATA_X, DATA_Y, batch_size=2)

    def run_epochs(num_epochs):
        batches = []
        for epoch in range(num_epochs):
            for x, y in dataloader:
                batches.append((x, y))
        return batches

    return run_epochs


def reset():
    torch.manual_seed(0)


ENTRY = BatchDataLoader._sample_batch_indices
torch.manual_seed(0)
DATA_X = torch.randn(9, 3)
DATA_Y = torch.tensor([0, -1, 2, -1, -1, 1, 3, -1, 0])  # 5 labelled cells, 4 unlabelled
INPUTS = [(1,), (2,)]
