"""DINOv2's depth estimation heads (mmseg-style depther), the training step's loss parsing:
the raw losses of the network (tensors or lists of tensors) are averaged, every entry whose
name contains "loss" is summed into the loss to back-propagate, and each logged value is
(all-reduced when distributed, then) read into a Python float with
`log_vars[loss_name] = loss_value.item()`; a value that is neither raises TypeError. Python
values read from tensor data for the logs: not fixable by design. Not distributed here
(`dist.is_initialized()` is False in one process)."""

from collections import OrderedDict

import torch
import torch.distributed as dist
from torch import nn

ORIGIN = "facebookresearch/dinov2: dinov2/eval/depth/models/depther/base.py: BaseDepther._parse_losses"
CATEGORY = "out_of_scope"


class BaseDepther(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 2)

    def forward(self, img, depth_gt, extra):
        pred = self.head(img)
        losses = dict(loss_depth=(pred - depth_gt).abs(), loss_grad=[pred.pow(2), pred.abs()],
                      aux_scale=pred.detach().std())
        losses.update(extra)
        return self.train_step(losses)

    def train_step(self, losses):
        # split losses and images
        real_losses = {}
        log_imgs = {}
        for k, v in losses.items():
            if "img" in k:
                log_imgs[k] = v
            else:
                real_losses[k] = v

        loss, log_vars = self._parse_losses(real_losses)

        outputs = dict(loss=loss, log_vars=log_vars, log_imgs=log_imgs)

        return outputs

    @staticmethod
    def _parse_losses(losses):
        log_vars = OrderedDict()
        for loss_name, loss_value in losses.items():
            if isinstance(loss_value, torch.Tensor):
                log_vars[loss_name] = loss_value.mean()
            elif isinstance(loss_value, list):
                log_vars[loss_name] = sum(_loss.mean() for _loss in loss_value)
            else:
                raise TypeError(f"{loss_name} is not a tensor or list of tensors")

        loss = sum(_value for _key, _value in log_vars.items() if "loss" in _key)

        log_vars["loss"] = loss
        for loss_name, loss_value in log_vars.items():
            # reduce loss when distributed training
            if dist.is_available() and dist.is_initialized():
                loss_value = loss_value.data.clone()
                dist.all_reduce(loss_value.div_(dist.get_world_size()))
            log_vars[loss_name] = loss_value.item()

        return loss, log_vars


torch.manual_seed(0)
ENTRY = BaseDepther
INPUTS = [
    (torch.randn(3, 4), torch.randn(3, 2), {}),
    # an image to log is set aside, not parsed
    (torch.randn(2, 4), torch.randn(2, 2), {"depth_img": torch.rand(2, 1, 4, 4)}),
    # a value that is neither a tensor nor a list of tensors
    (torch.randn(2, 4), torch.randn(2, 2), {"loss_weight": 0.5}),
]
