"""[Moe]: the routed loop in the other forms real code writes: over `range(E)` with the
emptiness test (`if top_x.shape[0] == 0: continue`, PhiMoE, DBRX), over
`enumerate(self.experts)`, and with the experts' weights stacked in one parameter and applied
with `F.linear` and a `.chunk(2, dim=-1)` (no expert module), a renamed index
(`token_list = token_idx`, DBRX) and the rows gathered without a leading None."""

import torch
import torch.nn.functional as F
from torch import nn

HIDDEN, INNER, EXPERTS, TOP_K = 6, 5, 4, 2


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(HIDDEN, EXPERTS, bias=False)
        self.experts = nn.ModuleList(nn.Linear(HIDDEN, HIDDEN) for _ in range(EXPERTS))
        self.gate_up = nn.Parameter(torch.randn(EXPERTS, 2 * INNER, HIDDEN) * 0.3)
        self.down = nn.Parameter(torch.randn(EXPERTS, HIDDEN, INNER) * 0.3)
        self.act = nn.GELU()

    def forward(self, x):
        weights = F.softmax(self.gate(x), dim=-1, dtype=torch.float)
        weights, selected = torch.topk(weights, TOP_K, dim=-1)
        mask = F.one_hot(selected, num_classes=EXPERTS).permute(2, 1, 0)
        out = torch.zeros_like(x)
        for expert_idx in range(EXPERTS):
            topk_idx, token_idx = torch.where(mask[expert_idx])
            if token_idx.shape[0] == 0:
                continue
            token_list = token_idx
            gate, up = F.linear(x[token_list], self.gate_up[expert_idx]).chunk(2, dim=-1)
            rows = F.linear(self.act(gate) * up, self.down[expert_idx])
            out.index_add_(0, token_idx, rows * weights[token_list, topk_idx, None])
        second = torch.zeros_like(x)
        for i, expert in enumerate(self.experts):
            k, t = torch.where(mask[i])
            second.index_add_(0, t, (expert(x[t]) * 0.5).to(x.dtype))
        return out + second


torch.manual_seed(0)
INPUTS = [(torch.randn(7, HIDDEN),), (torch.randn(2, HIDDEN),), (torch.randn(1, HIDDEN),)]
GRAD = True
ROUNDING = True
# The original's break inside the loop makes Dynamo give up on the whole frame: 0 graphs,
# and that break counted.
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM107", "moe"), ("GM107", "moe")]
