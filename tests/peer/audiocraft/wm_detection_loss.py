"""AudioCraft's WMDetectionLoss.forward: the watermark detector's NLL loss on positive and
negative outputs; when the watermark mask is not all ones (`if not torch.all(mask ==
1):`) the positive targets are masked and only the positive loss is returned, otherwise
the positive and negative losses are summed."""

import torch
import torch.nn as nn

ORIGIN = "facebookresearch/audiocraft: audiocraft/losses/wmloss.py: WMDetectionLoss.forward"
CATEGORY = "where"


class WMDetectionLoss(nn.Module):
    """Compute the detection loss"""
    def __init__(self, p_weight: float = 1.0, n_weight: float = 1.0) -> None:
        super().__init__()
        self.criterion = nn.NLLLoss()
        self.p_weight = p_weight
        self.n_weight = n_weight

    def forward(self, positive, negative, mask, message=None):

        positive = positive[:, :2, :]  # b 2+nbits t -> b 2 t
        negative = negative[:, :2, :]  # b 2+nbits t -> b 2 t

        # dimensionality of positive [bsz, classes=2, time_steps]
        # correct classes for pos = [bsz, time_steps] where all values = 1 for positive
        classes_shape = positive[
            :, 0, :
        ]  # same as positive or negative but dropping dim=1
        pos_correct_classes = torch.ones_like(classes_shape, dtype=int)
        neg_correct_classes = torch.zeros_like(classes_shape, dtype=int)

        # taking log because network outputs softmax
        # NLLLoss expects a logsoftmax input
        positive = torch.log(positive)
        negative = torch.log(negative)

        if not torch.all(mask == 1):
            # pos_correct_classes [bsz, timesteps] mask [bsz, 1, timesptes]
            # mask is applied to the watermark, this basically flips the tgt class from 1 (positive)
            # to 0 (negative) in the correct places
            pos_correct_classes = pos_correct_classes * mask[:, 0, :].to(int)
            loss_p = self.p_weight * self.criterion(positive, pos_correct_classes)
            # no need for negative class loss here since some of the watermark
            # is masked to negative
            return loss_p

        else:
            loss_p = self.p_weight * self.criterion(positive, pos_correct_classes)
            loss_n = self.n_weight * self.criterion(negative, neg_correct_classes)
            return loss_p + loss_n


ENTRY = WMDetectionLoss
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4, 5).softmax(1), torch.randn(2, 4, 5).softmax(1),
     torch.tensor([[[1., 1., 0., 0., 1.]], [[1., 1., 1., 1., 1.]]])),
    (torch.randn(2, 4, 5).softmax(1), torch.randn(2, 4, 5).softmax(1), torch.ones(2, 1, 5)),
]
