"""DETR's segmentation post-processing: the largest target size is read with
`max_target_sizes.max(0)[0].tolist()` and used as the size of an interpolation, and each
image's original size with `tt.tolist()`; the masks are cropped by tensor sizes. Python
values (shapes) read from tensor data: out of scope."""

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "facebookresearch/detr: models/segmentation.py: PostProcessSegm.forward"
CATEGORY = "out_of_scope"


class PostProcessSegm(nn.Module):
    def __init__(self, threshold=0.5):
        super().__init__()
        self.threshold = threshold

    @torch.no_grad()
    def forward(self, results, outputs, orig_target_sizes, max_target_sizes):
        assert len(orig_target_sizes) == len(max_target_sizes)
        max_h, max_w = max_target_sizes.max(0)[0].tolist()
        outputs_masks = outputs["pred_masks"].squeeze(2)
        outputs_masks = F.interpolate(outputs_masks, size=(max_h, max_w), mode="bilinear", align_corners=False)
        outputs_masks = (outputs_masks.sigmoid() > self.threshold).cpu()

        for i, (cur_mask, t, tt) in enumerate(zip(outputs_masks, max_target_sizes, orig_target_sizes)):
            img_h, img_w = t[0], t[1]
            results[i]["masks"] = cur_mask[:, :img_h, :img_w].unsqueeze(1)
            results[i]["masks"] = F.interpolate(
                results[i]["masks"].float(), size=tuple(tt.tolist()), mode="nearest"
            ).byte()

        return results


class Postprocess(nn.Module):
    def __init__(self):
        super().__init__()
        self.segm = PostProcessSegm()

    def forward(self, pred_masks, orig_target_sizes, max_target_sizes):
        results = [{"scores": torch.ones(2)} for _ in range(pred_masks.shape[0])]
        return self.segm(results, {"pred_masks": pred_masks}, orig_target_sizes, max_target_sizes)


torch.manual_seed(0)
ENTRY = Postprocess
INPUTS = [
    (torch.randn(2, 3, 1, 4, 4), torch.tensor([[12, 10], [9, 16]]), torch.tensor([[6, 5], [5, 8]])),
    # sizes of different lengths: the assert fails
    (torch.randn(2, 3, 1, 4, 4), torch.tensor([[12, 10]]), torch.tensor([[6, 5], [5, 8]])),
]
