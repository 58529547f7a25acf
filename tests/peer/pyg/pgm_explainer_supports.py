"""PyG's PGMExplainer (an explainer algorithm, an nn.Module): `supports()` checks the
explainer's and the model's configuration and logs with `logging.error` why one is not
supported (a task level other than node or graph, an edge mask, regression) before
returning False. Logging in the compiled region."""

import logging
from enum import Enum

import torch

ORIGIN = "pyg-team/pytorch_geometric: torch_geometric/contrib/explain/pgm_explainer.py: PGMExplainer.supports"
CATEGORY = "defer"


class ModelTaskLevel(Enum):
    graph = 'graph'
    edge = 'edge'
    node = 'node'


class ModelMode(Enum):
    binary_classification = 'binary_classification'
    multiclass_classification = 'multiclass_classification'
    regression = 'regression'


class ModelConfig:
    def __init__(self, mode, task_level):
        self.mode = mode
        self.task_level = task_level


class ExplainerConfig:
    def __init__(self, edge_mask_type=None):
        self.edge_mask_type = edge_mask_type


class PGMExplainer(torch.nn.Module):
    def __init__(self, model_config, explainer_config):
        super().__init__()
        self.model_config = model_config
        self.explainer_config = explainer_config

    def supports(self) -> bool:
        task_level = self.model_config.task_level
        if task_level not in [ModelTaskLevel.node, ModelTaskLevel.graph]:
            logging.error(f"Task level '{task_level.value}' not supported")
            return False
        if self.explainer_config.edge_mask_type is not None:
            logging.error("Generation of edge masks is not supported")
            return False
        if self.model_config.mode == ModelMode.regression:
            logging.error("'PGMExplainer' only supports classification tasks")
            return False
        return True


def supports(mode, task_level, edge_mask_type, x):
    explainer = PGMExplainer(ModelConfig(ModelMode(mode), ModelTaskLevel(task_level)),
                             ExplainerConfig(edge_mask_type))
    return explainer.supports(), x * 2


ENTRY = supports
INPUTS = [
    ('regression', 'node', None, torch.ones(2)),
    ('multiclass_classification', 'edge', None, torch.ones(2)),
    ('multiclass_classification', 'graph', 'object', torch.ones(2)),
    ('binary_classification', 'node', None, torch.ones(2)),
]
