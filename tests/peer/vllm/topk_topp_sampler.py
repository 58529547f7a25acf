"""vLLM's apply_top_k_top_p: top-k and top-p masking of logits by sorting and scattering,
written to stay in one graph; conditions only on whether k and p are given."""

import torch

ORIGIN = "vllm-project/vllm: vllm/v1/sample/ops/topk_topp_sampler.py: apply_top_k_top_p"
CATEGORY = "no_break"


def apply_top_k_top_p(logits, k, p):
    if p is None:
        if k is None:
            return logits

    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)

    if k is not None:
        # Apply top-k.
        top_k_mask = logits_sort.size(1) - k.to(torch.long)  # shape: B
        # Get all the top_k values.
        top_k_mask = logits_sort.gather(1, top_k_mask.unsqueeze(dim=1))
        top_k_mask = logits_sort < top_k_mask
        logits_sort.masked_fill_(top_k_mask, -float("inf"))

    if p is not None:
        # Apply top-p.
        probs_sort = logits_sort.softmax(dim=-1)
        probs_sum = torch.cumsum(probs_sort, dim=-1, out=probs_sort)
        top_p_mask = probs_sum <= 1 - p.unsqueeze(dim=1)
        # at least one
        top_p_mask[:, -1] = False
        logits_sort.masked_fill_(top_p_mask, -float("inf"))

    # Re-sort the probabilities.
    logits = logits_sort.scatter(dim=-1, index=logits_idx, src=logits_sort)
    return logits


ENTRY = apply_top_k_top_p
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 5), torch.tensor([2, 3]), torch.tensor([0.9, 0.5])),
    (torch.randn(2, 5), None, None),
]
