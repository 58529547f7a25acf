"""[Where] RAG's padding fill in training, gradients compared (transformers,
src/transformers/models/rag/modeling_rag.py, RagTokenForGeneration.get_nll, `_mask_pads`):
grad mode is on, so `runtime.masked_fill_ok` is False and the original
`if pad_mask.any():` runs, break included. An unconditional fill would bump the version
counter of a tensor autograd may have saved; the gradients equal the original's."""
import torch
from torch import nn


class ENTRY(nn.Module):
    pad_token_id = 0

    def get_nll(self, seq_logits, target, epsilon=0.1):
        def _mask_pads(ll, smooth_obj):
            pad_mask = target.eq(self.pad_token_id)
            if pad_mask.any():
                ll.masked_fill_(pad_mask, 0.0)
                smooth_obj.masked_fill_(pad_mask, 0.0)
            return ll.squeeze(-1), smooth_obj.squeeze(-1)

        rag_logprobs = seq_logits.log_softmax(-1)
        target = target.unsqueeze(-1)
        ll = rag_logprobs.gather(dim=-1, index=target)
        smooth_obj = rag_logprobs.sum(dim=-1, keepdim=True)
        ll, smooth_obj = _mask_pads(ll, smooth_obj)
        nll_loss = -ll.sum(1)
        smooth_loss = -smooth_obj.sum(1)
        eps_i = epsilon / rag_logprobs.size(-1)
        return (1.0 - epsilon) * nll_loss + eps_i * smooth_loss

    def forward(self, seq_logits, target):
        return self.get_nll(seq_logits, target)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
]
GRAD = True
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (4, 4)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
