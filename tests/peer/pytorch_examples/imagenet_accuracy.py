"""The ImageNet example's top-k accuracy: `topk`, `eq`, and a loop over the Python tuple of
k's; no break."""

import torch

ORIGIN = "pytorch/examples: imagenet/main.py: accuracy"
CATEGORY = "no_break"


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k"""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)

        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))

        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


ENTRY = accuracy
torch.manual_seed(0)
INPUTS = [(torch.randn(4, 5), torch.tensor([1, 0, 4, 2]), (1, 3))]
