"""[Where] declined: a read by a tuple index holding a computed tensor index, the pooling of
huggingface/transformers: src/transformers/models/gpt2/modeling_gpt2.py:
GPT2ForSequenceClassification.forward (`logits[torch.arange(batch_size), sequence_lengths]`),
under a data-dependent condition. The masked read (runtime.index_where) takes one 0-d index
into the first dimension only: this one keeps its branch."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, logits: torch.Tensor, sequence_lengths: torch.Tensor):
        batch_size = logits.shape[0]
        if sequence_lengths.min() >= 0:
            pooled = logits[torch.arange(batch_size), sequence_lengths]
        else:
            pooled = logits[:, -1]
        return pooled


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 5, 3), torch.tensor([4, 2])),
    (torch.randn(2, 5, 3), torch.tensor([-1, 2])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "indexes by a computed index")]
