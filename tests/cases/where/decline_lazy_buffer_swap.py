"""declined: each branch rebinds a buffer to another attribute's tensor, and one lazily
creates that attribute through a callable (the shape of transformers 4.52's longrope update).
Predicating it would run the lazy initialisation on every call, and writing the selected
values in place would overwrite the tensor the buffer aliases."""
import torch
from torch import nn


def long_frequencies(dim):
    return 1.0 / (100.0 ** (torch.arange(0, dim, 2).float() / dim)), 1.0


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.init_fn = long_frequencies
        self.original_inv_freq = 1.0 / (10.0 ** (torch.arange(0, 4, 2).float() / 4))
        self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)

    def forward(self, position_ids: torch.Tensor):
        seq_len = torch.max(position_ids) + 1
        if seq_len > 4:
            if not hasattr(self, "long_inv_freq"):
                self.long_inv_freq, _ = self.init_fn(4)
            self.register_buffer("inv_freq", self.long_inv_freq, persistent=False)
        else:
            self.original_inv_freq = self.original_inv_freq.to(position_ids.device)
            self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)
        return position_ids.float()[:, None] * self.inv_freq[None, :]


INPUTS = [(torch.arange(6),), (torch.arange(3),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "mutates state")]
