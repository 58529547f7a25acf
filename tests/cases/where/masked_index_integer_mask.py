"""[Where] wav2vec2's masked logits (transformers, src/transformers/models/wav2vec2/
modeling_wav2vec2.py, Wav2Vec2ForPreTraining.forward, `if neg_is_pos.any():
logits[1:][neg_is_pos] = ...`) with an integer "mask": `logits[idx] = v` then indexes rows,
and an all-zero index still writes row 0, where the original skips the assignment. The
rewrite is static, the mask's dtype is not: `runtime.masked_index_ok` sees an integer
tensor and the original `if` runs, break included."""
import torch


def ENTRY(quantized_features: torch.Tensor, negative_quantized_features: torch.Tensor):
    logits = torch.cosine_similarity(quantized_features, negative_quantized_features, dim=-1) / 0.1
    neg_is_pos = (quantized_features == negative_quantized_features).all(-1).long()
    if neg_is_pos.any():
        logits[neg_is_pos] = float("-inf")
    return logits


torch.manual_seed(0)
_q = torch.randn(3, 4)
_same = _q.clone()
_same[2] = torch.randn(4)
INPUTS = [(_q, torch.randn(3, 4)), (_q, _same)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
