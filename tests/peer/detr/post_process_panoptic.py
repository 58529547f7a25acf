"""DETR's panoptic post-processing: per image, the queries above the threshold are kept
(boolean-mask indexing, a data-dependent shape), the stuff classes are grouped by
`label.item()`, each pixel takes the mask id of its largest mask, masks of one stuff class
are merged, the id map is resized to the target size (through an RGB image), and the areas
are read with `m_id.eq(i).sum().item()`; `while True: ... if filtered_small.any().item():`
drops the masks of at most 4 pixels and starts over. Python values and shapes from tensor
data: out of scope. Rebuilt without PIL: the RGB image is a numpy array resized to the
target size by PIL's NEAREST rule (source pixel floor((x + 0.5) * in / out)), and each
prediction carries that array in place of its PNG encoding (`png_string`), which only
serialises it."""

from collections import defaultdict

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "facebookresearch/detr: models/segmentation.py: PostProcessPanoptic.forward"
CATEGORY = "out_of_scope"


def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    b = [(x_c - 0.5 * w), (y_c - 0.5 * h),
         (x_c + 0.5 * w), (y_c + 0.5 * h)]
    return torch.stack(b, dim=-1)


def id2rgb(id_map):
    id_map_copy = id_map.copy()
    rgb_shape = tuple(list(id_map.shape) + [3])
    rgb_map = np.zeros(rgb_shape, dtype=np.uint8)
    for i in range(3):
        rgb_map[..., i] = id_map_copy % 256
        id_map_copy //= 256
    return rgb_map


def rgb2id(color):
    if color.dtype == np.uint8:
        color = color.astype(np.int32)
    return color[:, :, 0] + 256 * color[:, :, 1] + 256 * 256 * color[:, :, 2]


def resize_nearest(img, final_w, final_h):
    """PIL's Image.resize(resample=Image.NEAREST) for an H x W x 3 array."""
    rows = np.minimum(((np.arange(final_h) + 0.5) * img.shape[0] / final_h).astype(np.int64), img.shape[0] - 1)
    cols = np.minimum(((np.arange(final_w) + 0.5) * img.shape[1] / final_w).astype(np.int64), img.shape[1] - 1)
    return img[rows][:, cols]


class PostProcessPanoptic(nn.Module):
    """This class converts the output of the model to the final panoptic result, in the format expected by the
    coco panoptic API """

    def __init__(self, is_thing_map=None, threshold=0.85):
        super().__init__()
        self.threshold = threshold
        self.is_thing_map = is_thing_map or {0: True, 1: True, 2: False, 3: False, 4: False}

    def forward(self, outputs, processed_sizes, target_sizes=None):
        if target_sizes is None:
            target_sizes = processed_sizes
        assert len(processed_sizes) == len(target_sizes)
        out_logits, raw_masks, raw_boxes = outputs["pred_logits"], outputs["pred_masks"], outputs["pred_boxes"]
        assert len(out_logits) == len(raw_masks) == len(target_sizes)
        preds = []

        def to_tuple(tup):
            if isinstance(tup, tuple):
                return tup
            return tuple(tup.cpu().tolist())

        for cur_logits, cur_masks, cur_boxes, size, target_size in zip(
            out_logits, raw_masks, raw_boxes, processed_sizes, target_sizes
        ):
            # we filter empty queries and detection below threshold
            scores, labels = cur_logits.softmax(-1).max(-1)
            keep = labels.ne(outputs["pred_logits"].shape[-1] - 1) & (scores > self.threshold)
            cur_scores, cur_classes = cur_logits.softmax(-1).max(-1)
            cur_scores = cur_scores[keep]
            cur_classes = cur_classes[keep]
            cur_masks = cur_masks[keep]
            cur_masks = F.interpolate(cur_masks[:, None], to_tuple(size), mode="bilinear").squeeze(1)
            cur_boxes = box_cxcywh_to_xyxy(cur_boxes[keep])

            h, w = cur_masks.shape[-2:]
            assert len(cur_boxes) == len(cur_classes)

            # It may be that we have several predicted masks for the same stuff class.
            # In the following, we track the list of masks ids for each stuff class (they are merged later on)
            cur_masks = cur_masks.flatten(1)
            stuff_equiv_classes = defaultdict(lambda: [])
            for k, label in enumerate(cur_classes):
                if not self.is_thing_map[label.item()]:
                    stuff_equiv_classes[label.item()].append(k)

            def get_ids_area(masks, scores, dedup=False):
                # This helper function creates the final panoptic segmentation image
                # It also returns the area of the masks that appears on the image

                m_id = masks.transpose(0, 1).softmax(-1)

                if m_id.shape[-1] == 0:
                    # We didn't detect any mask :(
                    m_id = torch.zeros((h, w), dtype=torch.long, device=m_id.device)
                else:
                    m_id = m_id.argmax(-1).view(h, w)

                if dedup:
                    # Merge the masks corresponding to the same stuff class
                    for equiv in stuff_equiv_classes.values():
                        if len(equiv) > 1:
                            for eq_id in equiv:
                                m_id.masked_fill_(m_id.eq(eq_id), equiv[0])

                final_h, final_w = to_tuple(target_size)

                seg_img = resize_nearest(id2rgb(m_id.view(h, w).cpu().numpy()), final_w, final_h)

                np_seg_img = np.ascontiguousarray(seg_img)
                m_id = torch.from_numpy(rgb2id(np_seg_img))

                area = []
                for i in range(len(scores)):
                    area.append(m_id.eq(i).sum().item())
                return area, seg_img

            area, seg_img = get_ids_area(cur_masks, cur_scores, dedup=True)
            if cur_classes.numel() > 0:
                # We know filter empty masks as long as we find some
                while True:
                    filtered_small = torch.as_tensor(
                        [area[i] <= 4 for i, c in enumerate(cur_classes)], dtype=torch.bool, device=keep.device
                    )
                    if filtered_small.any().item():
                        cur_scores = cur_scores[~filtered_small]
                        cur_classes = cur_classes[~filtered_small]
                        cur_masks = cur_masks[~filtered_small]
                        area, seg_img = get_ids_area(cur_masks, cur_scores)
                    else:
                        break

            else:
                cur_classes = torch.ones(1, dtype=torch.long, device=cur_classes.device)

            segments_info = []
            for i, a in enumerate(area):
                cat = cur_classes[i].item()
                segments_info.append({"id": i, "isthing": self.is_thing_map[cat], "category_id": cat, "area": a})
            del cur_classes

            predictions = {"seg_img": torch.from_numpy(np.ascontiguousarray(seg_img)), "segments_info": segments_info}
            preds.append(predictions)
        return preds


ENTRY = PostProcessPanoptic


def _outputs(batch, queries, classes, scale):
    return {
        "pred_logits": torch.randn(batch, queries, classes + 1) * scale,
        "pred_masks": torch.randn(batch, queries, 4, 4) * 3,
        "pred_boxes": torch.rand(batch, queries, 4),
    }


torch.manual_seed(1)
INPUTS = [
    (_outputs(1, 8, 5, 4.0), [(8, 8)], torch.tensor([[10, 10]])),
    (_outputs(1, 4, 5, 0.1), [torch.tensor([5, 6])]),
    (_outputs(1, 2, 5, 4.0), [(5, 5)], [(5, 5), (5, 5)]),
]
