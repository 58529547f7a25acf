"""MONAI's RetinaNet detector: the head's output maps of every level are reshaped to
(B, HWA, C) and concatenated; a map with NaN or Inf (`if torch.isnan(m).any() or
torch.isinf(m).any()`) raises in training (`torch.is_grad_enabled()`) and warns in
inference. `forward` stands for the detector's two callers: with gradients (training) and
without (inference); the caller's grad mode is restored after each run."""

import warnings

import torch
from torch import nn

ORIGIN = "Project-MONAI/MONAI: monai/apps/detection/networks/retinanet_detector.py: RetinaNetDetector._reshape_maps"
CATEGORY = "mixed"


class RetinaNetDetector(nn.Module):
    def __init__(self, spatial_dims=2, num_anchors_per_loc=3):
        super().__init__()
        self.spatial_dims = spatial_dims
        self.num_anchors_per_loc = num_anchors_per_loc

    def _reshape_maps(self, result_maps):
        all_reshaped_result_map = []

        for result_map in result_maps:
            batch_size = result_map.shape[0]
            num_channel = result_map.shape[1] // self.num_anchors_per_loc
            spatial_size = result_map.shape[-self.spatial_dims :]

            # reshaped_result_map will become (B, A, num_channel, H, W) or (B, A, num_channel, H, W, D)
            # A = self.num_anchors_per_loc
            view_shape = (batch_size, -1, num_channel) + spatial_size
            reshaped_result_map = result_map.view(view_shape)

            # permute output to (B, H, W, A, num_channel) or (B, H, W, D, A, num_channel)
            if self.spatial_dims == 2:
                reshaped_result_map = reshaped_result_map.permute(0, 3, 4, 1, 2)
            elif self.spatial_dims == 3:
                reshaped_result_map = reshaped_result_map.permute(0, 3, 4, 5, 1, 2)
            else:
                ValueError("Images can only be 2D or 3D.")

            # reshaped_result_map will become (B, HWA, num_channel) or (B, HWDA, num_channel)
            reshaped_result_map = reshaped_result_map.reshape(batch_size, -1, num_channel)

            if torch.isnan(reshaped_result_map).any() or torch.isinf(reshaped_result_map).any():
                if torch.is_grad_enabled():
                    raise ValueError("Concatenated result is NaN or Inf.")
                else:
                    warnings.warn("Concatenated result is NaN or Inf.")

            all_reshaped_result_map.append(reshaped_result_map)

        return torch.cat(all_reshaped_result_map, dim=1)

    def forward(self, level0, level1, training):
        torch.set_grad_enabled(training)
        return self._reshape_maps([level0, level1])


torch.manual_seed(0)
_bad = torch.randn(2, 6, 2, 2)
_bad[1, 2, 0, 1] = float("nan")
ENTRY = RetinaNetDetector
INPUTS = [
    (torch.randn(2, 6, 4, 4), torch.randn(2, 6, 2, 2), True),
    (torch.randn(2, 6, 4, 4), _bad, True),
    (torch.randn(2, 6, 4, 4), _bad, False),
    (torch.randn(2, 6, 4, 4), torch.randn(2, 6, 2, 2), False),
]
