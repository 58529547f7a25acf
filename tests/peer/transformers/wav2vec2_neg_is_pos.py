"""Wav2Vec2's pre-training loss: a sampled negative equal to the positive (low codebook
use) gets its contrastive logit masked, only when there is any (`if neg_is_pos.any():`),
by an in-place masked assignment."""

import torch

ORIGIN = "huggingface/transformers: src/transformers/models/wav2vec2/modeling_wav2vec2.py: Wav2Vec2ForPreTraining.forward"
CATEGORY = "where"


def compute_contrastive_logits(target_features, negative_features, predicted_features, temperature=0.1):
    target_features = torch.cat([target_features, negative_features], dim=0)
    logits = torch.cosine_similarity(predicted_features.float(), target_features.float(), dim=-1).type_as(
        target_features
    )
    logits = logits / temperature
    return logits


def contrastive_logits(quantized_features, negative_quantized_features, transformer_features):
    logits = compute_contrastive_logits(
        quantized_features[None, :],
        negative_quantized_features,
        transformer_features,
        0.1,
    )

    # if a negative vector is identical to the positive (i.e. when codebook utilization is low),
    # its cosine similarity will be masked
    neg_is_pos = (quantized_features == negative_quantized_features).all(-1)

    if neg_is_pos.any():
        logits[1:][neg_is_pos] = float("-inf")

    return logits


torch.manual_seed(0)
_q = torch.randn(2, 3, 4)
_neg = torch.randn(2, 2, 3, 4)
_neg_same = _neg.clone()
_neg_same[1, 0, 2] = _q[0, 2]
_neg_same[0, 1, 1] = _q[1, 1]

ENTRY = contrastive_logits
INPUTS = [
    (_q, _neg_same, torch.randn(2, 3, 4)),
    (_q, _neg, torch.randn(2, 3, 4)),
]
