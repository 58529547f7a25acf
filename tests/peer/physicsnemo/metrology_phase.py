"""PhysicsNeMo's active-learning driver, the metrology phase: inside the phase context (the
current phase recorded, a checkpoint saved first when the config asks, an exception logged
with `self.logger.error(...)` and re-raised, a distributed barrier at the end) every
metrology strategy is logged before and after it runs (`self.logger.info(f"Running
metrology strategy: ...")`, `self.logger.info(f"Completed metrics for strategy: ...")`) and
its records are serialized. The strategy here measures a model's error on a validation
set and keeps its records in memory (the original writes them to the run's folder);
checkpoints are off and there is no process group (the barrier is a no-op).
Plain torch.compile (torch 2.13) breaks on the logger call ("logging.Logger methods are not
supported"), inside an active context manager it cannot split."""

import logging
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import nn

ORIGIN = "NVIDIA/physicsnemo: physicsnemo/active_learning/driver.py: Driver._metrology_phase"
CATEGORY = "defer"


@dataclass
class DriverConfig:
    checkpoint_interval: int = 0
    checkpoint_on_metrology: bool = False


class ErrorMetrology:
    def __init__(self, model):
        self.model = model
        self.records = []
        self.serialized = []

    def __call__(self, x, y):
        if y.shape[-1] != self.model.out_features:
            raise ValueError(f"Targets have {y.shape[-1]} outputs, the model {self.model.out_features}")
        error = (self.model(x) - y).pow(2).mean(dim=0)
        self.records.append(error)

    def serialize_records(self, x, y):
        self.serialized.append(torch.stack(self.records))


class Driver:
    def __init__(self, config, metrology_strategies):
        self.config = config
        self.metrology_strategies = metrology_strategies
        self.current_phase = None
        self.active_learning_step_idx = 0
        self.logger = logging.getLogger("physicsnemo.active_learning.driver")

    def barrier(self):
        if dist.is_initialized():
            dist.barrier()

    def _should_checkpoint_at_step(self):
        if self.config.checkpoint_interval == 0:
            return False
        return self.active_learning_step_idx % self.config.checkpoint_interval == 0

    @contextmanager
    def _phase_context(self, phase_name, call_barrier=True):
        self.current_phase = phase_name

        if phase_name != "training":
            should_checkpoint = getattr(
                self.config, f"checkpoint_on_{phase_name}", False
            )
            if should_checkpoint and self._should_checkpoint_at_step():
                self.save_checkpoint()

        try:
            yield
        except Exception as e:
            self.logger.error(f"Exception encountered during {phase_name}: {e}")
            raise
        finally:
            if call_barrier:
                self.logger.debug("Entering barrier for synchronization.")
                self.barrier()

    def _metrology_phase(self, *args, **kwargs):
        """Execute the metrology phase of the active learning step."""
        with self._phase_context("metrology"):
            for strategy in self.metrology_strategies:
                self.logger.info(
                    f"Running metrology strategy: {strategy.__class__.__name__}"
                )
                strategy(*args, **kwargs)
                self.logger.info(
                    f"Completed metrics for strategy: {strategy.__class__.__name__}"
                )
                strategy.serialize_records(*args, **kwargs)


torch.manual_seed(0)
MODEL = nn.Linear(3, 2)


def metrology(x, y):
    strategy = ErrorMetrology(MODEL)
    driver = Driver(DriverConfig(), [strategy])
    driver._metrology_phase(x, y)
    return strategy.serialized, driver.current_phase


ENTRY = metrology
INPUTS = [
    (torch.randn(5, 3), torch.randn(5, 2)),
    # targets of the wrong width: the strategy fails, logged and re-raised
    (torch.randn(5, 3), torch.randn(5, 4)),
]
