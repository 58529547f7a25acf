"""TRL's asynchronous GRPO epoch-driven stop: at each step's end a 0-d flag says whether the
trainer has trained on enough prompt groups; it is summed across ranks and read back with
`int(acc.reduce(reached, reduction="sum").item()) >= 1` to set the Trainer control's
`should_training_stop`: a Python branch and Python state from tensor data. Not fixable by
design. The accelerator is a one-process stand-in (accelerate's reduce returns the tensor
as it is when there is a single process)."""

import torch

ORIGIN = "huggingface/trl: trl/experimental/async_grpo/async_grpo_trainer.py: _EpochStopCallback.on_step_end"
CATEGORY = "out_of_scope"


class SingleProcessAccelerator:
    device = torch.device("cpu")
    num_processes = 1

    def reduce(self, tensor, reduction="sum"):
        return tensor


class TrainerControl:
    def __init__(self):
        self.should_training_stop = False


class Trainer:
    def __init__(self, trained_groups):
        self.accelerator = SingleProcessAccelerator()
        self._trained_groups = trained_groups


class _EpochStopCallback:
    def __init__(self, trainer, target_groups):
        self._trainer = trainer
        self._target = target_groups

    def on_step_end(self, _args, _state, control, **_kwargs):
        acc = self._trainer.accelerator
        reached = torch.tensor(int(len(self._trainer._trained_groups) >= self._target), device=acc.device)
        if int(acc.reduce(reached, reduction="sum").item()) >= 1:
            control.should_training_stop = True


def step_end(trained_groups, target_groups):
    control = TrainerControl()
    callback = _EpochStopCallback(Trainer(trained_groups), target_groups)
    callback.on_step_end(None, None, control)
    return control.should_training_stop


ENTRY = step_end
INPUTS = [
    ({0, 1, 2}, 2),
    ({0}, 2),
]
