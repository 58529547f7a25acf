"""declined: wav2vec2's masked logits (transformers, src/transformers/models/wav2vec2/
modeling_wav2vec2.py, Wav2Vec2ForPreTraining.forward, `if neg_is_pos.any():
logits[1:][neg_is_pos] = float("-inf")`) on logits broadcast with `expand`: the elements
of an expanded tensor overlap, and an in-place update of one warns (or raises) even under
an all-False mask, so only values no other memory shares are updated unconditionally."""
import torch


def ENTRY(quantized_features: torch.Tensor, negative_quantized_features: torch.Tensor):
    row = torch.cosine_similarity(quantized_features, quantized_features, dim=-1) / 0.1
    logits = row[None].expand(3, -1, -1)
    neg_is_pos = (quantized_features == negative_quantized_features).all(-1)
    if neg_is_pos.any():
        logits[1:][neg_is_pos] = float("-inf")
    return logits


torch.manual_seed(0)
_q = torch.randn(2, 3, 4)
_neg = torch.randn(2, 2, 3, 4)
INPUTS = [(_q, _neg)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "may not be one the traced code created")]
