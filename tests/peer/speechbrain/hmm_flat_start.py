"""speechbrain's HMMAligner._get_flat_start_batch: flat-start alignments, each phoneme
repeated for an equal share of the frames; the share is read as a Python int
(`repeat_amt = int(lens_abs[i].item() / len(utter_phns))`, at least 1) and the padding
from `int(lens_abs[i])`, sizes of the tensors built per utterance. The module's forward
here only calls the method."""

import torch

ORIGIN = "speechbrain/speechbrain: speechbrain/alignment/aligner.py: HMMAligner._get_flat_start_batch"
CATEGORY = "out_of_scope"


class HMMAligner(torch.nn.Module):
    def __init__(self, neg_inf=-1e5):
        super().__init__()
        self.neg_inf = neg_inf

    def _get_flat_start_batch(self, lens_abs, phn_lens_abs, phns):
        phns = phns.long()

        batch_size = len(lens_abs)
        fb_max_length = torch.max(lens_abs)

        flat_start_batch = torch.zeros(
            batch_size, fb_max_length, device=phns.device
        ).long()
        for i in range(batch_size):
            utter_phns = phns[i]
            utter_phns = utter_phns[: phn_lens_abs[i]]  # crop out zero padding
            repeat_amt = int(lens_abs[i].item() / len(utter_phns))

            # make sure repeat_amt is at least 1. (the code above
            # may make repeat_amt==0 if self.states_per_phoneme is too large).
            if repeat_amt == 0:
                repeat_amt = 1

            # repeat each phoneme in utter_phns by repeat_amt
            utter_phns = utter_phns.repeat_interleave(repeat_amt)

            # len(utter_phns) may be <, == or > lens_abs[i], so
            # make sure len(utter_phns) == lens_abs[i]
            utter_phns = utter_phns[: lens_abs[i]]
            utter_phns = torch.nn.functional.pad(
                utter_phns,
                (0, int(lens_abs[i]) - len(utter_phns)),
                value=utter_phns[-1],  # pad out with final phoneme
            )

            flat_start_batch[i, : len(utter_phns)] = utter_phns

        return flat_start_batch

    def forward(self, lens_abs, phn_lens_abs, phns):
        return self._get_flat_start_batch(lens_abs, phn_lens_abs, phns)


ENTRY = HMMAligner
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([7, 4]), torch.tensor([3, 2]), torch.tensor([[1, 4, 2], [5, 3, 0]])),
    (torch.tensor([2, 5]), torch.tensor([3, 2]), torch.tensor([[6, 1, 2], [2, 3, 0]])),
]
