"""PyG's PRBCD adversarial attack loss: the masked cross entropy keeps the attacked nodes
(`log_prob[idx_mask]`) and, if any prediction is still correct (`if is_correct.any():`),
only the correctly classified ones (`log_prob[is_correct]`): a branch on tensor values whose
body indexes with a boolean mask, a data-dependent shape. Not fixable by design."""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor

ORIGIN = "pyg-team/pytorch_geometric: torch_geometric/contrib/nn/models/rbcd_attack.py: PRBCDAttack._masked_cross_entropy"
CATEGORY = "out_of_scope"


class PRBCDAttack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torch.nn.Linear(4, 3)

    @staticmethod
    def _masked_cross_entropy(log_prob: Tensor, labels: Tensor,
                              idx_mask: Optional[Tensor] = None) -> Tensor:
        """Calculate masked cross entropy loss, a node-classification loss that
        focuses on nodes next to decision boundary.
        """
        if idx_mask is not None:
            log_prob = log_prob[idx_mask]
            labels = labels[idx_mask]

        is_correct = log_prob.argmax(-1) == labels
        if is_correct.any():
            log_prob = log_prob[is_correct]
            labels = labels[is_correct]

        return F.nll_loss(log_prob, labels)

    def forward(self, x, labels, idx_attack=None):
        log_prob = F.log_softmax(self.model(x), dim=-1)
        return self._masked_cross_entropy(log_prob, labels, idx_attack)


ENTRY = PRBCDAttack
torch.manual_seed(0)
_x = torch.randn(5, 4)
INPUTS = [
    (_x, torch.tensor([2, 0, 1, 1, 1]), torch.tensor([0, 2, 3])),
    (_x, torch.tensor([2, 1, 0, 0, 2])),
    # no prediction is correct: the loss over every node
    (_x, torch.tensor([0, 2, 2, 0, 2]), None),
]
