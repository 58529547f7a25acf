"""speechbrain's HMMAligner._dp_viterbi: Viterbi alignment by dynamic programming over
frames (`batch_log_maxvecmul`), then a backtrace per utterance that reads the chosen final
state, the last phoneme and every back-pointer as Python ints (`.item()`) to index and
build lists. The module's forward here only calls the method."""

import torch

ORIGIN = "speechbrain/speechbrain: speechbrain/alignment/aligner.py: HMMAligner._dp_viterbi"
CATEGORY = "out_of_scope"


def batch_log_maxvecmul(A, b):
    b = b.unsqueeze(1)
    x, argmax = torch.max(A + b, dim=2)
    return x, argmax


class HMMAligner(torch.nn.Module):
    def __init__(self, neg_inf=-1e5):
        super().__init__()
        self.neg_inf = neg_inf

    def _dp_viterbi(
        self,
        pi_prob,
        trans_prob,
        emiss_pred_useful,
        lens_abs,
        phn_lens_abs,
        phns,
        final_states,
    ):
        # useful values
        batch_size = len(phn_lens_abs)
        U_max = phn_lens_abs.max()
        fb_max_length = lens_abs.max()
        device = emiss_pred_useful.device

        pi_prob = pi_prob.to(device)
        trans_prob = trans_prob.to(device)

        v_matrix = self.neg_inf * torch.ones(
            [batch_size, U_max, fb_max_length], device=device
        )
        backpointers = -99 * torch.ones(
            [batch_size, U_max, fb_max_length], device=device
        )

        # initialise
        v_matrix[:, :, 0] = pi_prob + emiss_pred_useful[:, :, 0]

        for t in range(1, fb_max_length):
            x, argmax = batch_log_maxvecmul(
                trans_prob.permute(0, 2, 1), v_matrix[:, :, t - 1]
            )
            v_matrix[:, :, t] = x + emiss_pred_useful[:, :, t]

            backpointers[:, :, t] = argmax.type(dtype=torch.float32)

        z_stars = []
        z_stars_loc = []

        for utterance_in_batch in range(batch_size):
            len_abs = lens_abs[utterance_in_batch]

            if final_states is not None:
                final_states_utter = final_states[utterance_in_batch]
                # Pick most probable of the final states
                viterbi_finals = v_matrix[
                    utterance_in_batch, final_states_utter, len_abs - 1
                ]
                final_state_chosen = torch.argmax(viterbi_finals).item()
                U = final_states_utter[final_state_chosen]
            else:
                U = phn_lens_abs[utterance_in_batch].long().item() - 1

            z_star_i_loc = [U]
            z_star_i = [phns[utterance_in_batch, z_star_i_loc[0]].item()]
            for time_step in range(len_abs, 1, -1):
                current_best_loc = z_star_i_loc[0]

                earlier_best_loc = (
                    backpointers[
                        utterance_in_batch, current_best_loc, time_step - 1
                    ]
                    .long()
                    .item()
                )
                earlier_z_star = phns[
                    utterance_in_batch, earlier_best_loc
                ].item()

                z_star_i_loc.insert(0, earlier_best_loc)
                z_star_i.insert(0, earlier_z_star)
            z_stars.append(z_star_i)
            z_stars_loc.append(z_star_i_loc)

        # picking out viterbi_scores
        viterbi_scores = v_matrix[
            torch.arange(batch_size), phn_lens_abs - 1, lens_abs - 1
        ]

        return z_stars, z_stars_loc, viterbi_scores

    def forward(self, pi_prob, trans_prob, emiss_pred_useful, lens_abs, phn_lens_abs, phns,
                final_states=None):
        return self._dp_viterbi(pi_prob, trans_prob, emiss_pred_useful, lens_abs,
                                phn_lens_abs, phns, final_states)


def _trans(batch, n):
    eye = torch.eye(n) + torch.diag(torch.ones(n - 1), 1)
    logits = torch.where(eye > 0, torch.zeros(n, n), torch.full((n, n), -1e5))
    return logits.log_softmax(-1).expand(batch, n, n).clone()


ENTRY = HMMAligner
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([[0.0, -1e5, -1e5], [0.0, -1e5, -1e5]]), _trans(2, 3),
     torch.randn(2, 3, 4).log_softmax(1), torch.tensor([4, 3]), torch.tensor([3, 2]),
     torch.tensor([[5, 2, 7], [1, 6, 0]])),
    (torch.tensor([[0.0, -1e5, -1e5, -1e5]]), _trans(1, 4),
     torch.randn(1, 4, 5).log_softmax(1), torch.tensor([5]), torch.tensor([4]),
     torch.tensor([[3, 1, 4, 1]]), [[2, 3]]),
]
