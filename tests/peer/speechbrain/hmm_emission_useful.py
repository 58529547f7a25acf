"""speechbrain's HMMAligner._make_emiss_pred_useful: the acoustic model's posteriors
rearranged in the order of each utterance's phonemes, masked by the frame and phoneme
lengths; both maxima are read as Python ints (`int(phn_lens_abs.max().item())`,
`int(lens_abs.max().item())`) and size the masks. The module's forward here only calls
the method."""

import torch

ORIGIN = "speechbrain/speechbrain: speechbrain/alignment/aligner.py: HMMAligner._make_emiss_pred_useful"
CATEGORY = "out_of_scope"


class HMMAligner(torch.nn.Module):
    def __init__(self, neg_inf=-1e5):
        super().__init__()
        self.neg_inf = neg_inf

    def _make_emiss_pred_useful(
        self, emission_pred, lens_abs, phn_lens_abs, phns
    ):
        # Extract useful values for later
        U_max = int(phn_lens_abs.max().item())
        fb_max_length = int(lens_abs.max().item())
        device = emission_pred.device

        # apply mask based on lens_abs
        mask_lens = (
            torch.arange(fb_max_length).to(device)[None, :] < lens_abs[:, None]
        )

        emiss_pred_acc_lens = torch.where(
            mask_lens[:, :, None],
            emission_pred,
            torch.tensor([0.0], device=device),
        )

        # manipulate phn tensor, and then 'torch.gather'
        phns = phns.to(device)
        phns_copied = phns.unsqueeze(1).expand(-1, fb_max_length, -1)
        emiss_pred_useful = torch.gather(emiss_pred_acc_lens, 2, phns_copied)

        # apply mask based on phn_lens_abs
        mask_phn_lens = (
            torch.arange(U_max).to(device)[None, :] < phn_lens_abs[:, None]
        )
        emiss_pred_useful = torch.where(
            mask_phn_lens[:, None, :],
            emiss_pred_useful,
            torch.tensor([self.neg_inf], device=device),
        )

        emiss_pred_useful = emiss_pred_useful.permute(0, 2, 1)

        return emiss_pred_useful

    def forward(self, emission_pred, lens_abs, phn_lens_abs, phns):
        return self._make_emiss_pred_useful(emission_pred, lens_abs, phn_lens_abs, phns)


ENTRY = HMMAligner
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 5, 6).log_softmax(-1), torch.tensor([5, 3]), torch.tensor([3, 2]),
     torch.tensor([[1, 4, 2], [0, 5, 0]])),
    (torch.randn(1, 4, 6).log_softmax(-1), torch.tensor([4]), torch.tensor([2]),
     torch.tensor([[3, 1]])),
]
