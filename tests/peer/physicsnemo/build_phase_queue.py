"""PhysicsNeMo's active-learning driver: the queue of phase functions of one
active-learning step (training, metrology, query, labeling, each unless the config skips
it); resuming from a checkpoint starts at the saved phase (`self.logger.info(f"Resuming AL
step ...")`) and logs every phase it passes over (`self.logger.debug(f"Skipping {phase}
(already completed in this AL step)")`). The phases are small tensor updates here, run in
order as `active_learning_step` runs them.
Plain torch.compile (torch 2.13) breaks on the logger call ("logging.Logger methods are not
supported"), inside a loop, so it gives up on the whole frame."""

import logging
from dataclasses import dataclass
from enum import Enum

import torch

ORIGIN = "NVIDIA/physicsnemo: physicsnemo/active_learning/driver.py: Driver._build_phase_queue"
CATEGORY = "defer"


class ActiveLearningPhase(str, Enum):
    TRAINING = "training"
    METROLOGY = "metrology"
    QUERY = "query"
    LABELING = "labeling"


@dataclass
class DriverConfig:
    skip_training: bool = False
    skip_metrology: bool = False
    skip_labeling: bool = False


class Driver:
    _PHASE_ORDER = [
        ActiveLearningPhase.TRAINING,
        ActiveLearningPhase.METROLOGY,
        ActiveLearningPhase.QUERY,
        ActiveLearningPhase.LABELING,
    ]

    def __init__(self, config, current_phase=None, active_learning_step_idx=0):
        self.config = config
        self.current_phase = current_phase
        self.active_learning_step_idx = active_learning_step_idx
        self.logger = logging.getLogger("physicsnemo.active_learning.driver")
        self.state = {}

    def _training_phase(self, train_step_fn, validate_step_fn, x):
        self.state["trained"] = train_step_fn(x)

    def _metrology_phase(self, x):
        self.state["metric"] = x.abs().mean()

    def _query_phase(self, x):
        self.state["query"] = x.argsort(descending=True)[:2]

    def _labeling_phase(self, x):
        self.state["labels"] = x.sign()

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

    def _build_phase_queue(self, train_step_fn, validate_step_fn, args, kwargs):
        # Define all possible phases with their execution conditions
        all_phases = [
            (
                ActiveLearningPhase.TRAINING,
                lambda: self._training_phase(
                    train_step_fn, validate_step_fn, *args, **kwargs
                ),
                not self.config.skip_training,
            ),
            (
                ActiveLearningPhase.METROLOGY,
                lambda: self._metrology_phase(*args, **kwargs),
                not self.config.skip_metrology,
            ),
            (
                ActiveLearningPhase.QUERY,
                lambda: self._query_phase(*args, **kwargs),
                True,  # Query phase always runs
            ),
            (
                ActiveLearningPhase.LABELING,
                lambda: self._labeling_phase(*args, **kwargs),
                not self.config.skip_labeling,
            ),
        ]

        # Find starting index based on current_phase (resume point)
        start_idx = self._get_phase_index(self.current_phase)

        if start_idx > 0:
            self.logger.info(
                f"Resuming AL step {self.active_learning_step_idx} from "
                f"{self.current_phase}"
            )

        # Build queue: only phases from start_idx onwards that should run
        phase_queue = []
        for idx, (phase, phase_fn, should_run) in enumerate(all_phases):
            # Skip phases before current_phase
            if idx < start_idx:
                self.logger.debug(
                    f"Skipping {phase} (already completed in this AL step)"
                )
                continue

            # Add phase to queue if not skipped by config
            if should_run:
                phase_queue.append(phase_fn)
            else:
                self.logger.debug(f"Skipping {phase} (disabled in config)")

        return phase_queue


def train_step(x):
    return (x * x).sum()


def run_step(x, current_phase, skip_metrology, skip_labeling):
    driver = Driver(DriverConfig(skip_metrology=skip_metrology, skip_labeling=skip_labeling),
                    current_phase=current_phase, active_learning_step_idx=2)
    phase_queue = driver._build_phase_queue(train_step, None, (x,), {})
    for phase_fn in phase_queue:
        phase_fn()
    return driver.state


torch.manual_seed(0)
ENTRY = run_step
INPUTS = [
    (torch.randn(5), ActiveLearningPhase.QUERY, False, False),
    (torch.randn(5), None, True, False),
    (torch.randn(5), ActiveLearningPhase.METROLOGY, False, True),
    (torch.randn(5), "unknown", False, False),
]
