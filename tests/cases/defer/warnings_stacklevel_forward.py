"""[Defer] warnings.warn(stacklevel=2) in a module's forward names a frame of
`Module.__call__`, which Dynamo does not trace: the deferred call is made at once there, with
the frame Python names, as the original's. A stacklevel in a helper the forward calls is
found from the traced calls."""
import warnings

import torch


def check_scale(scale):
    if scale > 1:
        warnings.warn(f"scale {scale} is large", UserWarning, stacklevel=2)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 3

    def forward(self, x: torch.Tensor):
        check_scale(self.scale)
        warnings.warn("forward is slow", stacklevel=2)
        return x * self.scale


ENTRY = Model
INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM104", "defer"), ("GM104", "defer")]
