"""[Cond] over a branch that calls a loss module (audiocraft's watermark detection loss:
`if not torch.all(mask == 1): target = target * mask[:, 0, :].to(int); return w *
self.criterion(pred, target)`, else the sum of two losses). torch.nn's losses are one
functional call on their operands, so torch.cond traces them; in training it differentiates
the branch taken, so the gradients are the original's on both sides. `.to(int)` converts to
torch's default integer dtype: a pure read."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.criterion = nn.NLLLoss()
        self.proj = nn.Linear(5, 5)
        self.p_weight = 1.0
        self.n_weight = 0.5

    def forward(self, positive, negative, mask):
        positive = torch.log_softmax(self.proj(positive), dim=1)
        negative = torch.log_softmax(self.proj(negative), dim=1)
        pos_classes = torch.ones_like(positive[:, 0, :], dtype=int)
        neg_classes = torch.zeros_like(positive[:, 0, :], dtype=int)
        if not torch.all(mask == 1):
            pos_classes = pos_classes * mask[:, 0, :].to(int)
            return self.p_weight * self.criterion(positive, pos_classes)
        else:
            loss_p = self.p_weight * self.criterion(positive, pos_classes)
            loss_n = self.n_weight * self.criterion(negative, neg_classes)
            return loss_p + loss_n


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 2, 5), torch.randn(2, 2, 5), torch.tensor([[[1.0, 1, 0, 0, 1]], [[1.0, 1, 1, 1, 1]]])),
    (torch.randn(2, 2, 5), torch.randn(2, 2, 5), torch.ones(2, 1, 5)),
]
GRAD = True
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
