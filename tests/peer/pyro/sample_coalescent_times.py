"""Pyro's `_sample_coalescent_times` (distributions/coalescent.py), the sampler behind
`CoalescentTimes.sample`: batched leaf times are sampled one row at a time (the function maps
itself over the flattened batch and stacks); for one row, the leaf times are sorted latest
first and read back as a Python list (`.tolist()`), exponential waiting times are drawn and
read back too (`proto.new_empty(N - 1).exponential_().tolist()`), and a Python loop walks
back in time: `while leaf + 1 < N and u > (t - leaf_times[leaf + 1]) * binomial` moves past
the next leaf (one more active lineage), then a coalescent event is placed at
`t -= u / binomial`; the times are returned as a new tensor. All of the arithmetic is on
Python floats read back from tensors: Python values computed from tensor data, not fixable by
design."""

import torch

ORIGIN = "pyro-ppl/pyro: pyro/distributions/coalescent.py: _sample_coalescent_times"
CATEGORY = "out_of_scope"


def _sample_coalescent_times(leaf_times):
    leaf_times = leaf_times.detach()
    proto = leaf_times
    N = leaf_times.size(-1)
    batch_shape = leaf_times.shape[:-1]

    # We don't bother to implement a version that vectorizes over batches;
    # instead we simply sequentially sample and stack.
    if batch_shape:
        flat_leaf_times = leaf_times.reshape(-1, N)
        flat_coal_times = torch.stack(
            list(map(_sample_coalescent_times, flat_leaf_times))
        )
        return flat_coal_times.reshape(batch_shape + (N - 1,))
    assert leaf_times.shape == (N,)

    # Sequentially sample coalescent events from latest to earliest.
    leaf_times = leaf_times.sort(dim=-1, descending=True).values.tolist()
    coal_times = []
    # Start with the minimum of two active leaves.
    leaf = 1
    t = leaf_times[leaf]
    active = 2
    binomial = active * (active - 1) / 2
    for u in proto.new_empty(N - 1).exponential_().tolist():
        while leaf + 1 < N and u > (t - leaf_times[leaf + 1]) * binomial:
            # Move past the next leaf.
            leaf += 1
            u -= (t - leaf_times[leaf]) * binomial
            t = leaf_times[leaf]
            active += 1
            binomial = active * (active - 1) / 2
        # Add a coalescent event.
        t -= u / binomial
        active -= 1
        binomial = active * (active - 1) / 2
        coal_times.append(t)
    coal_times.reverse()

    return proto.new_tensor(coal_times)


def reset():
    torch.manual_seed(0)


ENTRY = _sample_coalescent_times
torch.manual_seed(0)
INPUTS = [
    # one row of leaf times: events between the leaves and before the earliest
    (torch.tensor([0.0, 0.3, 1.5, 0.8, 2.0]),),
    # a batch of rows (2, 2): sampled one row at a time and stacked
    (torch.rand(2, 2, 4) * 2.0,),
]
