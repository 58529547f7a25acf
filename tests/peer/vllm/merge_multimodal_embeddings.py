"""vLLM's _merge_multimodal_embeddings: the number of placeholder tokens is read with
`is_multimodal.sum().item()` and compared with the embeddings' rows to raise a ValueError
whose f-string formats it; then the embeddings are scattered in with a boolean-mask
assignment."""

import torch

ORIGIN = "vllm-project/vllm: vllm/model_executor/models/utils.py: _merge_multimodal_embeddings"
CATEGORY = "trap"


def _flatten_embeddings(embeddings):
    if isinstance(embeddings, torch.Tensor):
        # Flatten all but the last dimension.
        return embeddings.flatten(0, -2)
    return torch.cat(tuple(_flatten_embeddings(t) for t in embeddings))


def _embedding_count_expression(embeddings):
    if isinstance(embeddings, torch.Tensor):
        return " x ".join([str(dim) for dim in embeddings.shape[:-1]])
    return " + ".join(_embedding_count_expression(inner) for inner in embeddings)


def _merge_multimodal_embeddings(inputs_embeds, is_multimodal, multimodal_embeddings):
    num_expected_tokens = is_multimodal.sum().item()
    assert isinstance(num_expected_tokens, int)

    flattened = _flatten_embeddings(multimodal_embeddings)
    if flattened.shape[0] != num_expected_tokens:
        expr = _embedding_count_expression(multimodal_embeddings)
        raise ValueError(
            f"Attempted to assign {expr} = {flattened.shape[0]} "
            f"multimodal tokens to {num_expected_tokens} placeholders")

    inputs_embeds[is_multimodal] = flattened
    return inputs_embeds


def merge(input_ids, inputs_embeds, multimodal_embeddings):
    return _merge_multimodal_embeddings(inputs_embeds * 1.0, input_ids == 9, multimodal_embeddings)


torch.manual_seed(0)
ENTRY = merge
INPUTS = [
    (torch.tensor([1, 9, 9, 3]), torch.randn(4, 2), torch.randn(1, 2, 2)),
    (torch.tensor([1, 9, 9, 9]), torch.randn(4, 2), torch.randn(1, 2, 2)),
]
