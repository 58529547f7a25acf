"""PhysicsNeMo's active-learning driver: to resume an active-learning step from a
checkpoint, the phase it stopped in is looked up in the fixed phase order; no phase means
the start, and an unknown one is logged (`self.logger.warning(f"Unknown phase {phase},
defaulting to start from beginning")`) and starts from the beginning too. Here the index
picks how many of the step's remaining phase losses (tensors) are summed.
Plain torch.compile (torch 2.13) does not break on it: Dynamo handles the logger calls
without a break."""

import logging
from enum import Enum

import torch

ORIGIN = "NVIDIA/physicsnemo: physicsnemo/active_learning/driver.py: Driver._get_phase_index"
CATEGORY = "no_break"


class ActiveLearningPhase(str, Enum):
    TRAINING = "training"
    METROLOGY = "metrology"
    QUERY = "query"
    LABELING = "labeling"


class Driver:
    # Phase execution order for active learning step (immutable)
    _PHASE_ORDER = [
        ActiveLearningPhase.TRAINING,
        ActiveLearningPhase.METROLOGY,
        ActiveLearningPhase.QUERY,
        ActiveLearningPhase.LABELING,
    ]

    def __init__(self):
        self.logger = logging.getLogger("physicsnemo.active_learning.driver")

    def _get_phase_index(self, phase):
        if phase is None:
            return 0
        try:
            return self._PHASE_ORDER.index(phase)
        except ValueError:
            self.logger.warning(
                f"Unknown phase {phase}, defaulting to start from beginning"
            )
            return 0


DRIVER = Driver()


def remaining_cost(phase_costs, phase):
    start_idx = DRIVER._get_phase_index(phase)
    return phase_costs[start_idx:].sum() * (start_idx + 1)


torch.manual_seed(0)
ENTRY = remaining_cost
INPUTS = [
    (torch.rand(4), "calibration"),
    (torch.rand(4), None),
    (torch.rand(4), ActiveLearningPhase.QUERY),
    (torch.rand(4), "labeling"),
]
