"""RAG's token-level loss: a nested helper zeroes the log-likelihood of padding tokens in
place, only when the target has any (`if pad_mask.any(): ll.masked_fill_(...)`)."""

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/rag/modeling_rag.py: RagTokenForGeneration.get_nll"
CATEGORY = "where"


class RagLoss(nn.Module):
    pad_token_id = 0

    def get_nll(self, seq_logits, target, reduce_loss=False, epsilon=0.1):
        def _mask_pads(ll, smooth_obj):
            pad_mask = target.eq(self.pad_token_id)
            if pad_mask.any():
                ll.masked_fill_(pad_mask, 0.0)
                smooth_obj.masked_fill_(pad_mask, 0.0)
            return ll.squeeze(-1), smooth_obj.squeeze(-1)

        rag_logprobs = seq_logits.log_softmax(-1)
        target = target.unsqueeze(-1)
        ll = rag_logprobs.gather(dim=-1, index=target)
        smooth_obj = rag_logprobs.sum(dim=-1, keepdim=True)  # total sum of all (normalised) logits
        ll, smooth_obj = _mask_pads(ll, smooth_obj)
        ll = ll.sum(1)  # sum over tokens
        smooth_obj = smooth_obj.sum(1)
        nll_loss = -ll
        smooth_loss = -smooth_obj
        if reduce_loss:
            nll_loss = nll_loss.sum()
            smooth_loss = smooth_loss.sum()
        eps_i = epsilon / rag_logprobs.size(-1)
        loss = (1.0 - epsilon) * nll_loss + eps_i * smooth_loss
        return loss

    def forward(self, seq_logits, target):
        return self.get_nll(seq_logits, target)


ENTRY = RagLoss
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
]
