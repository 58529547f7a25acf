"""PhysicsNeMo's active-learning driver, the query phase: inside the phase context (the
current phase recorded, a checkpoint saved first when the config asks, an exception logged
with `self.logger.error(...)` and re-raised, a distributed barrier at the end) every query
strategy is logged (`self.logger.info(f"Running query strategy: ...")`) and run over the
query queue; a phase that queued nothing warns (`self.logger.warning("Querying strategies
produced no samples this iteration.")`). The strategy here queues the pool samples whose
predicted uncertainty passes a threshold; checkpoints are off and there is no process
group (the barrier is a no-op)."""

import logging
import queue
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.distributed as dist

ORIGIN = "NVIDIA/physicsnemo: physicsnemo/active_learning/driver.py: Driver._query_phase"
CATEGORY = "defer"


@dataclass
class DriverConfig:
    checkpoint_interval: int = 0
    checkpoint_on_query: bool = False


class UncertaintyQuery:
    """Queue the pool samples whose predicted variance exceeds the threshold."""

    def __init__(self, threshold):
        self.threshold = threshold

    def __call__(self, query_queue, pool, variances):
        if variances.dim() != 1:
            raise ValueError(f"Expected one variance per sample, got shape {tuple(variances.shape)}")
        order = variances.argsort(descending=True)
        for index in order[:2]:
            query_queue.put(pool[index] * (variances[index] > self.threshold))


class Driver:
    def __init__(self, config, query_strategies):
        self.config = config
        self.query_strategies = query_strategies
        self.query_queue = queue.Queue()
        self.current_phase = None
        self.active_learning_step_idx = 0
        self.dist_manager = None
        self.logger = logging.getLogger("physicsnemo.active_learning.driver")

    def barrier(self):
        if dist.is_initialized():
            dist.barrier()

    def _should_checkpoint_at_step(self):
        if self.config.checkpoint_interval == 0:
            return False
        # Always checkpoint at step 0, then every checkpoint_interval steps
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

    def _query_phase(self, *args, **kwargs):
        """Execute the query phase of the active learning step."""
        with self._phase_context("query"):
            for strategy in self.query_strategies:
                self.logger.info(
                    f"Running query strategy: {strategy.__class__.__name__}"
                )
                strategy(self.query_queue, *args, **kwargs)

            if self.query_queue.empty():
                self.logger.warning(
                    "Querying strategies produced no samples this iteration."
                )


def query(pool, variances, n_strategies):
    driver = Driver(DriverConfig(), [UncertaintyQuery(0.5) for _ in range(n_strategies)])
    driver._query_phase(pool, variances)
    queued = []
    while not driver.query_queue.empty():
        queued.append(driver.query_queue.get())
    return queued


torch.manual_seed(0)
ENTRY = query
INPUTS = [
    (torch.randn(4, 3), torch.rand(4), 1),
    # no strategy: nothing queued
    (torch.randn(4, 3), torch.rand(4), 0),
    (torch.randn(4, 3), torch.rand(4), 2),
    # a strategy that fails: logged and re-raised
    (torch.randn(4, 3), torch.rand(4, 2), 1),
]
