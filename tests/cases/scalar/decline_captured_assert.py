"""[Scalar] captures no read in a file holding an assert on a scalar read from a tensor: the
option holds for the whole frame, and Dynamo lowers `assert self.weight.item() > 0, msg` on a
captured float to a runtime assertion that raises RuntimeError where the original raises
AssertionError (torch 2.13). AudioCraft's metrics (facebookresearch/audiocraft:
audiocraft/metrics/chroma_cosinesim.py: ChromaCosineSimilarityMetric.compute) assert the
weight and return the mean as a Python float; the empty batch drives the assert."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cosine_sum", torch.tensor(0.0))
        self.register_buffer("weight", torch.tensor(0.0))

    def compute(self) -> float:
        assert self.weight.item() > 0, "Unable to compute with total number of comparisons <= 0"
        return (self.cosine_sum / self.weight).item()

    def forward(self, similarities):
        self.cosine_sum = similarities.sum()
        self.weight = torch.tensor(float(similarities.numel()))
        return self.compute()


INPUTS = [(torch.tensor([0.5, 0.25, 1.0]),), (torch.zeros(0),)]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM106", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [
    ("GM106", "an assert of the file tests a scalar"),
    ("GM106", "an assert of the file tests a scalar"),
]
