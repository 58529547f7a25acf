"""[Moe] at run time: the loop is rewritten, but its expert normalises over the routed tokens
(batch norm), so a row's output depends on which other rows the expert sees. The runtime's
check (rowwise_experts, resolved while tracing) does not know it row-wise: the loop keeps
`torch.where` and `.tolist()` and their breaks, and computes exactly what the original does."""

import torch
import torch.nn.functional as F
from torch import nn

HIDDEN, EXPERTS = 6, 3


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(HIDDEN, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.BatchNorm1d(HIDDEN)) for _ in range(EXPERTS)
        )
        self.eval()

    def forward(self, hidden_states):
        selected = self.gate(hidden_states).argmax(-1, keepdim=True)
        expert_mask = F.one_hot(selected, num_classes=EXPERTS).permute(2, 1, 0)
        out = torch.zeros_like(hidden_states)
        expert_hitted = (expert_mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()
        for expert_idx in expert_hitted:
            idx, top_x = torch.where(expert_mask[expert_idx])
            out.index_add_(0, top_x, self.experts[expert_idx](hidden_states[top_x]))
        return out


torch.manual_seed(0)
INPUTS = [(torch.randn(5, HIDDEN),), (torch.randn(1, HIDDEN),)]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM106", "moe"), ("GM107", "moe"), ("GM107", "moe")]
