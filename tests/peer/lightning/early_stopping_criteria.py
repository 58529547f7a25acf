"""Lightning's EarlyStopping._evaluate_stopping_criteria: a monitored metric (a 0-d tensor)
decides a Python bool and a Python message (`should_stop`, `reason`), formatting the value
into an f-string (`{current:.3f}`). The result is Python data computed from tensor values.
Not fixable by design."""

import torch

ORIGIN = "Lightning-AI/pytorch-lightning: src/lightning/pytorch/callbacks/early_stopping.py: EarlyStopping._evaluate_stopping_criteria"
CATEGORY = "out_of_scope"


class EarlyStopping:
    def __init__(self):
        self.monitor = "val_loss"
        self.check_finite = True
        self.stopping_threshold = 0.1
        self.divergence_threshold = 10.0
        self.min_delta = torch.tensor(-0.0)
        self.best_score = torch.tensor(1.0)
        self.wait_count = 0
        self.patience = 3
        self.monitor_op = torch.lt

    def _evaluate_stopping_criteria(self, current):
        should_stop = False
        reason = None
        if self.check_finite and not torch.isfinite(current):
            should_stop = True
            reason = (
                f"Monitored metric {self.monitor} = {current} is not finite."
                f" Previous best value was {self.best_score:.3f}. Signaling Trainer to stop."
            )
        elif self.stopping_threshold is not None and self.monitor_op(current, self.stopping_threshold):
            should_stop = True
            reason = (
                "Stopping threshold reached:"
                f" {self.monitor} = {current} {'<'} {self.stopping_threshold}."
                " Signaling Trainer to stop."
            )
        elif self.divergence_threshold is not None and self.monitor_op(-current, -self.divergence_threshold):
            should_stop = True
            reason = (
                "Divergence threshold reached:"
                f" {self.monitor} = {current} {'>'} {self.divergence_threshold}."
                " Signaling Trainer to stop."
            )
        elif self.monitor_op(current - self.min_delta, self.best_score.to(current.device)):
            should_stop = False
            reason = f"Metric {self.monitor} improved. New best score: {current:.3f}"
            self.best_score = current
            self.wait_count = 0
        else:
            self.wait_count += 1
            if self.wait_count >= self.patience:
                should_stop = True
                reason = (
                    f"Monitored metric {self.monitor} did not improve in the last {self.wait_count} records."
                    f" Best score: {self.best_score:.3f}. Signaling Trainer to stop."
                )

        return should_stop, reason


def evaluate(loss):
    return EarlyStopping()._evaluate_stopping_criteria(loss * 1.0)


ENTRY = evaluate
INPUTS = [
    (torch.tensor(0.5),),
    (torch.tensor(float("nan")),),
    (torch.tensor(0.05),),
    (torch.tensor(20.0),),
    (torch.tensor(2.0),),
]
