"""[Where] an early return on a tensor value, then the rest of the function: BitNet-style
absmax activation quantization (public BitNet research code, `absmax_quantize_activations`:
`if scale == 0: return torch.zeros_like(activations), torch.tensor(1.0)`, then the
quantized activations are computed and returned). The statements after the `if` up to the
function's final return only assign, so they are the if's else: both sides are computed and
the returned pair is selected with torch.where. Here the 8-bit range is the literal the
original computes from its default (`2**(bits-1) - 1`)."""

import torch


def ENTRY(activations: torch.Tensor):
    # Calculate scaling factor (maximum absolute value)
    scale = torch.max(torch.abs(activations))

    # Handle edge case where all activations are zero
    if scale == 0:
        return torch.zeros_like(activations), torch.tensor(1.0)

    max_val = 127
    quantized = torch.round(activations / scale * max_val)
    quantized = torch.clamp(quantized, -max_val - 1, max_val)

    return quantized, scale


torch.manual_seed(0)
INPUTS = [(torch.randn(4, 8),), (torch.zeros(4, 8),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
