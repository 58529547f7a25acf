"""speechbrain's HMMAligner._make_pi_prob: the initial (log) probabilities of the phoneme
states, sized by the longest phoneme sequence read as a Python int
(`U_max = int(phn_lens_abs.max())`), which becomes a tensor's shape. The module's forward
here only calls the method."""

import torch

ORIGIN = "speechbrain/speechbrain: speechbrain/alignment/aligner.py: HMMAligner._make_pi_prob"
CATEGORY = "out_of_scope"


class HMMAligner(torch.nn.Module):
    def __init__(self, neg_inf=-1e5):
        super().__init__()
        self.neg_inf = neg_inf

    def _make_pi_prob(self, phn_lens_abs):
        batch_size = len(phn_lens_abs)
        U_max = int(phn_lens_abs.max())

        pi_prob = self.neg_inf * torch.ones([batch_size, U_max])
        pi_prob[:, 0] = 0

        return pi_prob

    def forward(self, phn_lens_abs):
        return self._make_pi_prob(phn_lens_abs)


ENTRY = HMMAligner
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([3, 5, 2]),),
    (torch.tensor([4]),),
]
