"""PhysicsNeMo's active-learning driver, the labeling phase: the labeling requirements are
validated (ValueError without a label strategy or a training pool); an empty query queue is
logged and skips the phase (`self.logger.warning("No samples to label. Skipping labeling
phase.")`); otherwise, inside the phase context, the label strategy runs (an exception is
logged with `self.logger.error(...)` and the phase goes on) and the labeled samples are
moved into the training pool and counted (`self.logger.info(f"Appended {sample_counter}
samples to training pool.")`). The label strategy here is an oracle function of the
sample; there is no process group (the barrier is a no-op)."""

import logging
import queue
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.distributed as dist

ORIGIN = "NVIDIA/physicsnemo: physicsnemo/active_learning/driver.py: Driver._labeling_phase"
CATEGORY = "defer"


@dataclass
class DriverConfig:
    checkpoint_interval: int = 0
    checkpoint_on_labeling: bool = False


class OracleLabeler:
    def __call__(self, query_queue, label_queue):
        while not query_queue.empty():
            x = query_queue.get()
            if x.numel() != 3:
                raise RuntimeError(f"Oracle expects 3 coordinates, got {x.numel()}")
            label_queue.put((x, torch.sin(x).sum()))


class Driver:
    def __init__(self, config, label_strategy, training_config, train_datapool):
        self.config = config
        self.label_strategy = label_strategy
        self.training_config = training_config
        self.train_datapool = train_datapool
        self.query_queue = queue.Queue()
        self.label_queue = queue.Queue()
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

    def _labeling_phase(self, *args, **kwargs):
        """Execute the labeling phase of the active learning step."""
        self._validate_labeling_requirements()

        # Check if query queue is empty
        if self.query_queue.empty():
            self.logger.warning("No samples to label. Skipping labeling phase.")
            return

        with self._phase_context("labeling"):
            try:
                self.label_strategy(self.query_queue, self.label_queue, *args, **kwargs)
            except Exception as e:
                self.logger.error(f"Exception encountered during labeling: {e}")
            self.logger.info("Labeling completed. Now appending to training pool.")

            # TODO this is done serially, could be improved with batched writes
            sample_counter = 0
            while not self.label_queue.empty():
                self.train_datapool.append(self.label_queue.get())
                sample_counter += 1
            self.logger.info(f"Appended {sample_counter} samples to training pool.")

    def _validate_labeling_requirements(self):
        """Validate that all required components for labeling are available."""
        if self.label_strategy is None:
            raise ValueError(
                "`label_strategy` must be provided in strategies_config if "
                "`skip_labeling` is False."
            )
        if self.training_config is None or self.train_datapool is None:
            raise ValueError(
                "`train_datapool` must be provided in training_config for "
                "labeling, as data will be appended to it."
            )


def label(queried, with_strategy):
    pool = []
    driver = Driver(DriverConfig(), OracleLabeler() if with_strategy else None, {"epochs": 1}, pool)
    for x in queried:
        driver.query_queue.put(x)
    driver._labeling_phase()
    return pool


torch.manual_seed(0)
ENTRY = label
INPUTS = [
    ([torch.randn(3), torch.randn(3)], True),
    # nothing queried
    ([], True),
    # the oracle fails on the second sample: logged, the first is kept
    ([torch.randn(3), torch.randn(4)], True),
    # no label strategy
    ([torch.randn(3)], False),
]
