"""The MNIST example's training step: forward, NLL loss, backward, and every
`log_interval` batches a progress line (`print('Train Epoch: ...'.format(..., loss.item()))`):
a print that reads a tensor with `.item()`. Runs with gradients."""

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "pytorch/examples: mnist/main.py: train"
CATEGORY = "defer"
GRAD = True


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 4)
        self.fc2 = nn.Linear(4, 3)
        self.log_interval = 2
        self.dataset_len = 40

    def forward(self, data, target, epoch, batch_idx):
        output = F.log_softmax(self.fc2(F.relu(self.fc1(data))), dim=1)
        loss = F.nll_loss(output, target)
        if batch_idx % self.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), self.dataset_len,
                100. * batch_idx / 10, loss.item()))
        return loss


ENTRY = Net
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 6), torch.tensor([0, 2, 1, 1]), 1, 2),
    (torch.randn(4, 6), torch.tensor([0, 2, 1, 1]), 1, 3),
]
