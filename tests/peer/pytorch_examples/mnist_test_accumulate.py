"""The MNIST example's evaluation: the summed loss and the number of correct predictions are
accumulated as Python numbers with `.item()` (`test_loss += ...item()`, `correct +=
pred.eq(...).sum().item()`), then printed. Python values computed from tensor data: not
fixable by design (a graph cannot return a Python float)."""

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "pytorch/examples: mnist/main.py: test"
CATEGORY = "out_of_scope"


class Evaluator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, data, target):
        test_loss = 0
        correct = 0
        output = F.log_softmax(self.fc(data), dim=1)
        test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
        pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
        correct += pred.eq(target.view_as(pred)).sum().item()

        test_loss /= len(data)

        print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
            test_loss, correct, len(data),
            100. * correct / len(data)))
        return test_loss, correct


ENTRY = Evaluator
torch.manual_seed(0)
INPUTS = [(torch.randn(5, 6), torch.tensor([0, 2, 1, 1, 0]))]
