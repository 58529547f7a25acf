"""[Defer] prints and logs that format a `.item()` (pytorch/examples, mnist/main.py, `train`:
`print('Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'.format(..., loss.item()))`; the
f-string and plain-argument forms of the same): the tensor is recorded and `.item()` runs
when the call replays, so the region has no `.item()` break; the GM106 sites go with the
calls."""
import logging

import torch

logger = logging.getLogger("cases.defer.print_item")


def ENTRY(output, target, epoch: int = 1, batch_idx: int = 3):
    loss = (output - target).pow(2).mean()
    print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
        epoch, batch_idx * 4, 64, 100. * batch_idx / 16, loss.item()))
    print(f"loss {loss.item():.4f} at {epoch}")
    print("loss", loss.item(), sep="=")
    logger.info(f"l={loss.item()!r}")
    return loss * 2


def reset():
    logger.setLevel(logging.INFO)


INPUTS = [(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.25])), (torch.ones(3), torch.zeros(3), 2, 7)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [
    ("GM102", "defer"), ("GM102", "defer"), ("GM102", "defer"), ("GM103", "defer"),
    ("GM106", "defer"), ("GM106", "defer"), ("GM106", "defer"), ("GM106", "defer"),
]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
