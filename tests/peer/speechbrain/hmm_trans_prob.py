"""speechbrain's HMMAligner._make_trans_prob: the transition (log) probabilities, a
self-loop and a next-state diagonal sized by the longest phoneme sequence read as a
Python int (`U_max = int(phn_lens_abs.max())`), masked per utterance, normalised, with
NaN and -inf replaced by a large negative number through boolean-mask assignment. The
module's forward here only calls the method."""

import torch

ORIGIN = "speechbrain/speechbrain: speechbrain/alignment/aligner.py: HMMAligner._make_trans_prob"
CATEGORY = "out_of_scope"


class HMMAligner(torch.nn.Module):
    def __init__(self, neg_inf=-1e5):
        super().__init__()
        self.neg_inf = neg_inf

    def _make_trans_prob(self, phn_lens_abs):
        # Extract useful values for later
        batch_size = len(phn_lens_abs)
        U_max = int(phn_lens_abs.max())
        device = phn_lens_abs.device

        ## trans_prob matrix consists of 2 diagonals:
        ## (1) offset diagonal (next state) &
        ## (2) main diagonal (self-loop)
        # make offset diagonal
        trans_prob_off_diag = torch.eye(U_max - 1)
        zero_side = torch.zeros([U_max - 1, 1])
        zero_bottom = torch.zeros([1, U_max])
        trans_prob_off_diag = torch.cat((zero_side, trans_prob_off_diag), 1)
        trans_prob_off_diag = torch.cat((trans_prob_off_diag, zero_bottom), 0)

        # make main diagonal
        trans_prob_main_diag = torch.eye(U_max)

        # join the diagonals and repeat for whole batch
        trans_prob = trans_prob_off_diag + trans_prob_main_diag
        trans_prob = (
            trans_prob.reshape(1, U_max, U_max)
            .repeat(batch_size, 1, 1)
            .to(device)
        )

        # clear probabilities for too-long sequences
        mask_a = (
            torch.arange(U_max, device=device)[None, :] < phn_lens_abs[:, None]
        )
        mask_a = mask_a.unsqueeze(2)
        mask_a = mask_a.expand(-1, -1, U_max)
        mask_b = mask_a.permute(0, 2, 1)
        trans_prob = trans_prob * (mask_a & mask_b).float()

        ## put -infs in place of zeros:
        trans_prob = torch.where(
            trans_prob == 1,
            trans_prob,
            torch.tensor(-float("Inf"), device=device),
        )

        ## normalize
        trans_prob = torch.nn.functional.log_softmax(trans_prob, dim=2)

        ## set nans to v neg numbers
        trans_prob[trans_prob != trans_prob] = self.neg_inf
        ## set -infs to v neg numbers
        trans_prob[trans_prob == -float("Inf")] = self.neg_inf

        return trans_prob

    def forward(self, phn_lens_abs):
        return self._make_trans_prob(phn_lens_abs)


ENTRY = HMMAligner
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([3, 4, 2]),),
    (torch.tensor([2]),),
]
