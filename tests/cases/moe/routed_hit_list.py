"""[Moe]: the routed expert loop as transformers 4.52.4's Mixtral writes it: the experts hit
(`.nonzero(as_tuple=True)[0].tolist()`), `torch.where(mask[e])`, the rows gathered, run
through the expert and weighted, `index_add_` back. Mended, the loop calls the runtime's
experts_hit, routed_where and routed_index_add_: while compiling over row-wise experts
(torch.nn layers here) the indices are padded to a static size and the loop is one graph.
Inputs route tokens to every expert and leave some experts with no token; with gradients."""

import torch
import torch.nn.functional as F
from torch import nn

HIDDEN, EXPERTS, TOP_K = 6, 4, 2


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(HIDDEN, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(HIDDEN, 10), nn.SiLU(), nn.Linear(10, HIDDEN))
            for _ in range(EXPERTS)
        )

    def forward(self, hidden_states):
        routing_weights = F.softmax(self.gate(hidden_states), dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, TOP_K, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = F.one_hot(selected_experts, num_classes=EXPERTS).permute(2, 1, 0)
        expert_hitted = (expert_mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()
        for expert_idx in expert_hitted:
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[None, top_x].reshape(-1, HIDDEN)
            current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        return final_hidden_states


def _one_token_per_expert_pair():
    # Two tokens: top-2 of four experts, so at least two experts get no token.
    return (torch.randn(2, HIDDEN),)


torch.manual_seed(0)
INPUTS = [(torch.randn(7, HIDDEN),), _one_token_per_expert_pair(), (torch.randn(1, HIDDEN),)]
GRAD = True
ROUNDING = True
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM106", "moe"), ("GM107", "moe"), ("GM107", "moe")]
