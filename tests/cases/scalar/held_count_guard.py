"""[Scalar] with [Trap]: vLLM's `_merge_multimodal_embeddings` (vllm-project/vllm:
vllm/model_executor/models/utils.py) reads the number of placeholder tokens with `.item()`,
asserts it is an int, and raises a ValueError whose f-string formats it when the embeddings'
rows differ, after a statement that builds part of the message. The count is held as a
tensor while compiling; the guard becomes runtime.rerun_if, its body reads the count with
runtime.item_now."""
import torch


def _flatten_embeddings(embeddings):
    if isinstance(embeddings, torch.Tensor):
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


@torch.compile
def merge(input_ids, inputs_embeds, multimodal_embeddings):
    return _merge_multimodal_embeddings(inputs_embeds * 1.0, input_ids == 9, multimodal_embeddings)


ENTRY = merge.__wrapped__  # the undecorated function: the suite runs and compiles it

INPUTS = [
    (torch.tensor([1, 9, 9, 3]), torch.arange(8.0).reshape(4, 2), torch.ones(1, 2, 2)),
    (torch.tensor([1, 9, 9, 9]), torch.arange(8.0).reshape(4, 2), torch.ones(1, 2, 2)),
    (torch.tensor([9, 2, 3, 9]), torch.arange(8.0).reshape(4, 2), -torch.ones(2, 1, 2)),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM105", "trap"), ("GM106", "scalar")]
