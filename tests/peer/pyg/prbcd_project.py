"""PyG's PRBCD adversarial attack: the relaxed edge-flip weights are projected so that their
clamped sum stays within the budget: `if torch.clamp(values, 0, 1).sum() > budget:` a
bisection search finds the shift, and the search itself branches on tensor values
(`if (shift(miu) == 0.0): break`, `if (shift(miu) * shift(a) < 0):`, `if ((b - a) <= eps):
break`) inside a loop of up to a thousand steps."""

import torch

ORIGIN = "pyg-team/pytorch_geometric: torch_geometric/contrib/nn/models/rbcd_attack.py: PRBCDAttack._project"
CATEGORY = "where"


class PRBCDAttack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.coeffs = {'eps': 1e-7}

    @staticmethod
    def _project(budget, values, eps=1e-7):
        r"""Project :obj:`values`:
        :math:`budget \ge \sum \Pi_{[0, 1]}(\text{values})`.
        """
        if torch.clamp(values, 0, 1).sum() > budget:
            left = (values - 1).min()
            right = values.max()
            miu = PRBCDAttack._bisection(values, left, right, budget)
            values = values - miu
        return torch.clamp(values, min=eps, max=1 - eps)

    @staticmethod
    def _bisection(edge_weights, a, b, n_pert, eps=1e-5, max_iter=1e3):
        """Bisection search for projection."""
        def shift(offset: float):
            return (torch.clamp(edge_weights - offset, 0, 1).sum() - n_pert)

        miu = a
        for _ in range(int(max_iter)):
            miu = (a + b) / 2
            # Check if middle point is root
            if (shift(miu) == 0.0):
                break
            # Decide the side to repeat the steps
            if (shift(miu) * shift(a) < 0):
                b = miu
            else:
                a = miu
            if ((b - a) <= eps):
                break
        return miu

    def forward(self, budget, block_edge_weight):
        return self._project(budget, block_edge_weight, self.coeffs['eps'])


ENTRY = PRBCDAttack
torch.manual_seed(0)
INPUTS = [
    (2, torch.rand(8) * 1.5),
    (4, torch.rand(6) * 0.5),
]
