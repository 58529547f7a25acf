"""PyG's GRBCD adversarial attack (greedy randomized block coordinate descent): a step flips
the `step_size` edges of the sampled block with the largest gradient, makes the flips
undirected, merges them into the graph (`coalesce` with `reduce='sum'`), keeps the edges
whose weight is one (`edge_index[:, is_one_mask]`, a data-dependent shape), resamples the
block, and returns its statistics read as Python numbers (`(gradient > 0).sum().item()`):
out of scope. A step prepares the attack for a budget (the block sampling raises when the
block is smaller than a step) and runs one update with the gradient the scores give the
block. Shrunk: PyG's `coalesce` and `to_undirected` written for one edge-weight vector,
the attack's loop (model, loss, gradient) replaced by the one step."""

from typing import Any, Dict, List, Optional

import torch
from torch import Tensor

ORIGIN = "pyg-team/pytorch_geometric: torch_geometric/contrib/nn/models/rbcd_attack.py: GRBCDAttack._update"
CATEGORY = "out_of_scope"


def coalesce(edge_index, edge_attr, num_nodes, reduce='sum'):
    """Sorts the edges by (row, col) and merges duplicates with `reduce`."""
    idx = edge_index[0] * num_nodes + edge_index[1]
    idx, perm = idx.sort()
    edge_attr = edge_attr[perm]
    unique, inverse = torch.unique_consecutive(idx, return_inverse=True)
    out = edge_attr.new_zeros(unique.numel()).scatter_reduce_(
        0, inverse, edge_attr, reduce=reduce, include_self=False)
    return torch.stack([unique // num_nodes, unique % num_nodes]), out


def to_undirected(edge_index, edge_attr, num_nodes, reduce='add'):
    row, col = edge_index[0], edge_index[1]
    row, col = torch.cat([row, col], dim=0), torch.cat([col, row], dim=0)
    edge_index = torch.stack([row, col], dim=0)
    edge_attr = torch.cat([edge_attr, edge_attr], dim=0)
    return coalesce(edge_index, edge_attr, num_nodes, reduce)


class PRBCDAttack(torch.nn.Module):
    coeffs = {'max_trials_sampling': 20, 'eps': 1e-7}

    def __init__(self, model: torch.nn.Module, block_size: int, epochs: int = 125,
                 is_undirected: bool = True, log: bool = True, **kwargs):
        super().__init__()

        self.model = model
        self.block_size = block_size
        self.epochs = epochs
        self.is_undirected = is_undirected
        self.log = log

    def _filter_self_loops_in_block(self, with_weight: bool):
        is_not_sl = self.block_edge_index[0] != self.block_edge_index[1]
        self.current_block = self.current_block[is_not_sl]
        self.block_edge_index = self.block_edge_index[:, is_not_sl]
        if with_weight:
            self.block_edge_weight = self.block_edge_weight[is_not_sl]

    def _sample_random_block(self, budget: int = 0):
        for _ in range(self.coeffs['max_trials_sampling']):
            num_possible_edges = self._num_possible_edges(
                self.num_nodes, self.is_undirected)
            self.current_block = torch.randint(num_possible_edges,
                                               (self.block_size, ),
                                               device=self.device)
            self.current_block = torch.unique(self.current_block, sorted=True)
            if self.is_undirected:
                self.block_edge_index = self._linear_to_triu_idx(
                    self.num_nodes, self.current_block)
            else:
                self.block_edge_index = self._linear_to_full_idx(
                    self.num_nodes, self.current_block)
                self._filter_self_loops_in_block(with_weight=False)

            self.block_edge_weight = torch.full(self.current_block.shape,
                                                self.coeffs['eps'],
                                                device=self.device)
            if self.current_block.size(0) >= budget:
                return
        raise RuntimeError('Sampling random block was not successful. '
                           'Please decrease `budget`.')

    @staticmethod
    def _num_possible_edges(n: int, is_undirected: bool) -> int:
        """Determine number of possible edges for graph."""
        if is_undirected:
            return n * (n - 1) // 2
        else:
            return int(n**2)  # We filter self-loops later

    @staticmethod
    def _linear_to_triu_idx(n: int, lin_idx: Tensor) -> Tensor:
        """Linear index to upper triangular matrix without diagonal."""
        nn = n * (n - 1)
        row_idx = n - 2 - torch.floor(
            torch.sqrt(-8 * lin_idx.double() + 4 * nn - 7) / 2.0 - 0.5).long()
        col_idx = 1 + lin_idx + row_idx - nn // 2 + torch.div(
            (n - row_idx) * (n - row_idx - 1), 2, rounding_mode='floor')
        return torch.stack((row_idx, col_idx))

    @staticmethod
    def _linear_to_full_idx(n: int, lin_idx: Tensor) -> Tensor:
        """Linear index to dense matrix including diagonal."""
        row_idx = torch.div(lin_idx, n, rounding_mode='floor')
        col_idx = lin_idx % n
        return torch.stack((row_idx, col_idx))


class GRBCDAttack(PRBCDAttack):
    coeffs = {'max_trials_sampling': 20, 'eps': 1e-7}

    def __init__(self, model: torch.nn.Module, block_size: int, epochs: int = 125,
                 is_undirected: bool = True, log: bool = True, **kwargs):
        super().__init__(model, block_size, epochs, is_undirected=is_undirected,
                         log=log, **kwargs)

    @torch.no_grad()
    def _prepare(self, budget: int) -> List[int]:
        """Prepare attack."""
        self.flipped_edges = self.edge_index.new_empty(2, 0).to(self.device)

        # Determine the number of edges to be flipped in each attach step/epoch
        step_size = budget // self.epochs
        if step_size > 0:
            steps = self.epochs * [step_size]
            for i in range(budget % self.epochs):
                steps[i] += 1
        else:
            steps = [1] * budget

        # Sample initial search space (Algorithm 2, line 3-4)
        self._sample_random_block(step_size)

        return steps

    @torch.no_grad()
    def _update(self, step_size: int, gradient: Tensor, *args,
                **kwargs) -> Dict[str, Any]:
        """Update edge weights given gradient."""
        _, topk_edge_index = torch.topk(gradient, step_size)

        flip_edge_index = self.block_edge_index[:, topk_edge_index]
        flip_edge_weight = torch.ones_like(flip_edge_index[0],
                                           dtype=torch.float32)

        self.flipped_edges = torch.cat((self.flipped_edges, flip_edge_index),
                                       axis=-1)

        if self.is_undirected:
            flip_edge_index, flip_edge_weight = to_undirected(
                flip_edge_index, flip_edge_weight, num_nodes=self.num_nodes,
                reduce='mean')
        edge_index = torch.cat(
            (self.edge_index.to(self.device), flip_edge_index.to(self.device)),
            dim=-1)
        edge_weight = torch.cat((self.edge_weight.to(self.device),
                                 flip_edge_weight.to(self.device)))
        edge_index, edge_weight = coalesce(edge_index, edge_weight,
                                           num_nodes=self.num_nodes,
                                           reduce='sum')

        is_one_mask = torch.isclose(edge_weight, torch.tensor(1.))
        self.edge_index = edge_index[:, is_one_mask]
        self.edge_weight = edge_weight[is_one_mask]
        # self.edge_weight = torch.ones_like(self.edge_weight)
        assert self.edge_index.size(1) == self.edge_weight.size(0)

        # Sample initial search space (Algorithm 2, line 3-4)
        self._sample_random_block(step_size)

        # Return debug information
        scalars = {
            'number_positive_entries_in_gradient': (gradient > 0).sum().item()
        }
        return scalars


def greedy_step(edge_index, num_nodes, scores, budget, block_size, is_undirected=True):
    attack = GRBCDAttack(torch.nn.Identity(), block_size, epochs=2,
                         is_undirected=is_undirected, log=False)
    attack.device = edge_index.device
    attack.edge_index = edge_index.cpu().clone()
    attack.edge_weight = torch.ones(edge_index.size(1))
    attack.num_nodes = num_nodes
    steps = attack._prepare(budget)
    scalars = attack._update(steps[0], scores[attack.current_block])
    return steps, scalars, attack.edge_index, attack.edge_weight, attack.flipped_edges


ENTRY = greedy_step


def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
_ring = torch.tensor([[0, 1, 1, 2, 2, 3, 3, 4, 4, 0], [1, 0, 2, 1, 3, 2, 4, 3, 0, 4]])
INPUTS = [
    (_ring, 5, torch.randn(10), 5, 6),
    (_ring, 5, torch.randn(25), 1, 8, False),
    (_ring, 5, torch.randn(10), 6, 1),
]
