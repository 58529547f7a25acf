"""Asteroid's Binarize: a voice-activity sequence of probabilities is thresholded and read
back as Python lists (`active.squeeze(1).tolist()`), run-length counted with `groupby`, and
rebuilt as a 0/1 tensor in which runs shorter than the stability window are resolved by
majority or by the current state (`if active[-1][0] == 1:`); a fully silent or fully voiced
row returns at once. Python structure computed from tensor data: not fixable by design.
Shrunk: a stability of 3 samples at a sample rate of 1 (the class docstring's example)."""

from itertools import groupby

import torch

ORIGIN = "asteroid-team/asteroid: asteroid/binarize.py: Binarize.forward"
CATEGORY = "out_of_scope"


class Binarize(torch.nn.Module):
    def __init__(self, threshold=0.5, stability=3, sample_rate=1):
        super().__init__()
        self.threshold = threshold
        self.stability = stability
        self.sample_rate = sample_rate

    def forward(self, x):
        active = x > self.threshold
        active = active.squeeze(1).tolist()
        pairs = count_same_pair(active)
        active = transform_to_binary_sequence(pairs, self.stability, self.sample_rate)
        return active


def count_same_pair(nums):
    result = []
    for num in nums:
        result.append([[i, sum(1 for _ in group)] for i, group in groupby(num)])
    return result


def transform_to_binary_sequence(pairs, stability, sample_rate):
    batch_active = []
    for pair in pairs:
        active = []
        # Check for fully silent or fully voice sequence
        active, check = check_silence_or_voice(active, pair)
        if check:
            return active
        i = 0
        while i < len(pair):
            value, num_consecutive_occurrences = pair[i]
            actived = 0
            not_actived = 0
            if num_consecutive_occurrences < int(stability * sample_rate):
                # Resolve instability
                active, i = resolve_instability(
                    i, pair, stability, sample_rate, actived, not_actived, active
                )
            else:
                if value:
                    active.append(torch.ones(pair[i][1]))
                else:
                    active.append(torch.zeros(pair[i][1]))
                i += 1
        batch_active.append(torch.hstack(active))
    batch_active = torch.vstack(batch_active).unsqueeze(1)
    return batch_active


def check_silence_or_voice(active, pair):
    value, num_consecutive_occurrences = pair[0]
    check = False
    if len(pair) == 1:
        check = True
        if value:
            active = torch.ones(num_consecutive_occurrences)
        else:
            active = torch.zeros(num_consecutive_occurrences)
    return active, check


def resolve_instability(i, pair, stability, sample_rate, actived, not_actived, active):
    while i < len(pair) and pair[i][1] < int(stability * sample_rate):
        value, num_consecutive_occurrences = pair[i]
        if value:
            actived += num_consecutive_occurrences
            i += 1
        else:
            not_actived += num_consecutive_occurrences
            i += 1
    if actived + not_actived < int(stability * sample_rate) and len(active) > 0:
        # Last value
        if active[-1][0] == 1:
            active.append(torch.ones(actived + not_actived))
        else:
            active.append(torch.zeros(actived + not_actived))
    elif actived + not_actived < int(stability * sample_rate) and len(active) == 0:
        active.append(torch.zeros(actived + not_actived))
    else:
        if actived > not_actived:
            active.append(torch.ones(actived + not_actived))
        else:
            active.append(torch.zeros(actived + not_actived))

    return active, i


ENTRY = Binarize
torch.manual_seed(0)
_rows = torch.tensor([
    [.1, .6, .2, .6, .1, .1, .1, .7, .7, .7, .7, .1],
    [.7, .1, .1, .1, .7, .7, .7, .2, .7, .1, .1, .1],
    [.1, .1, .1, .7, .1, .1, .1, .7, .7, .1, .7, .7],
])
INPUTS = [
    ((_rows + 0.02 * torch.rand(3, 12)).unsqueeze(1),),
    (torch.stack([torch.full((12,), 0.1), _rows[0]]).unsqueeze(1),),
    (torch.full((1, 1, 12), 0.9),),
]
