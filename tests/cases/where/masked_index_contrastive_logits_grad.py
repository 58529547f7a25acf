"""[Where] wav2vec2's contrastive logits in training, gradients compared (transformers,
src/transformers/models/wav2vec2/modeling_wav2vec2.py, Wav2Vec2ForPreTraining.forward):
grad mode is on, so `runtime.masked_index_ok` is False and the original
`if neg_is_pos.any():` runs, break included; the gradients equal the original's."""
import torch


def compute_contrastive_logits(target_features, negative_features, predicted_features, temperature=0.1):
    target_features = torch.cat([target_features, negative_features], dim=0)
    logits = torch.cosine_similarity(predicted_features.float(), target_features.float(), dim=-1)
    logits = logits.type_as(target_features)
    logits = logits / temperature
    return logits


def ENTRY(quantized_features, negative_quantized_features, transformer_features):
    logits = compute_contrastive_logits(
        quantized_features[None, :], negative_quantized_features, transformer_features, 0.1
    )
    neg_is_pos = (quantized_features == negative_quantized_features).all(-1)
    if neg_is_pos.any():
        logits[1:][neg_is_pos] = float("-inf")
    return logits


torch.compile(ENTRY)  # traced: an entry point of the mender
torch.manual_seed(0)
_q = torch.randn(2, 3, 4)
_neg = torch.randn(2, 2, 3, 4)
_neg_same = _neg.clone()
_neg_same[1, 0, 2] = _q[0, 2]
_neg_same[0, 1, 1] = _q[1, 1]
INPUTS = [
    (_q, _neg_same, torch.randn(2, 3, 4)),
    (_q, _neg, torch.randn(2, 3, 4)),
]
GRAD = True
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
