"""[Where] declined: a branch picks one of two existing tensors and the function then changes
the picked one in place. transformers' VITS spline (src/transformers/models/vits/
modeling_vits.py: _rational_quadratic_spline: `bin_locations = cumheights if reverse else
cumwidths`, then `bin_locations[..., -1] += 1e-6`, and both are read later) picks on a flag;
here the pick is on the inputs' range, a tensor value. The original's change reaches
`cumheights` or `cumwidths`, whichever was picked; a predicated value is a new tensor, which
the change would not reach, so the branch is left as it is."""
import torch


def ENTRY(inputs: torch.Tensor, widths: torch.Tensor, heights: torch.Tensor):
    cumwidths = torch.cumsum(widths, dim=-1)
    cumheights = torch.cumsum(heights, dim=-1)
    bin_locations = cumheights if inputs.max() > 1 else cumwidths
    bin_locations[..., -1] += 1e-6
    bin_idx = torch.sum(inputs[..., None] >= bin_locations, dim=-1) - 1
    return bin_idx, cumwidths, cumheights


torch.manual_seed(0)
INPUTS = [(torch.rand(2, 3) * 2, torch.rand(2, 3, 4), torch.rand(2, 3, 4)),
          (torch.rand(2, 3) * 0.5, torch.rand(2, 3, 4), torch.rand(2, 3, 4))]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "the function changes tensors in place")]
