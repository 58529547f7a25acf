"""DINOv2's depth estimation heads (mmseg-style depther), sliding-window inference: the
image is cut into overlapping crops (stride and crop size from the test config), each crop
is encoded and decoded into a depth map (clamped to the head's depth range and resized
back to the crop), padded into place and counted; `assert (count_mat == 0).sum() == 0`
checks every pixel was covered before the predictions are averaged. A stride larger than
the crop leaves pixels uncovered and fails the assert. Plain torch.compile does not break
on it: Dynamo puts the assert on tensor values into the graph (`torch._assert_async`). The
backbone and the decode head are shrunk to one convolution each."""

from collections import namedtuple

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "facebookresearch/dinov2: dinov2/eval/depth/models/depther/encoder_decoder.py: DepthEncoderDecoder.slide_inference"
CATEGORY = "no_break"


def resize(input, size=None, scale_factor=None, mode="nearest", align_corners=None, warning=False):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class DepthHead(nn.Module):
    def __init__(self, channels=4, min_depth=1e-3, max_depth=10):
        super().__init__()
        self.conv_depth = nn.Conv2d(channels, 1, 3, padding=1)
        self.relu = nn.ReLU()
        self.min_depth = min_depth
        self.max_depth = max_depth
        self.align_corners = False

    def forward_test(self, inputs, img_metas, test_cfg):
        return self.relu(self.conv_depth(inputs)) + self.min_depth


TestConfig = namedtuple("TestConfig", ["mode", "crop_size", "stride"])


class DepthEncoderDecoder(nn.Module):
    def __init__(self, test_cfg=None):
        super().__init__()
        self.backbone = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.decode_head = DepthHead()
        self.align_corners = self.decode_head.align_corners
        self.with_neck = False
        self.test_cfg = test_cfg

    def extract_feat(self, img):
        """Extract features from images."""
        x = self.backbone(img)
        if self.with_neck:
            x = self.neck(x)
        return x

    def encode_decode(self, img, img_metas, rescale=True, size=None):
        x = self.extract_feat(img)
        out = self._decode_head_forward_test(x, img_metas)
        # crop the pred depth to the certain range.
        out = torch.clamp(out, min=self.decode_head.min_depth, max=self.decode_head.max_depth)
        if rescale:
            if size is None:
                if img_metas is not None:
                    size = img_metas[0]["ori_shape"][:2]
                else:
                    size = img.shape[2:]
            out = resize(input=out, size=size, mode="bilinear", align_corners=self.align_corners)
        return out

    def _decode_head_forward_test(self, x, img_metas):
        depth_pred = self.decode_head.forward_test(x, img_metas, self.test_cfg)
        return depth_pred

    def slide_inference(self, img, img_meta, rescale):
        h_stride, w_stride = self.test_cfg.stride
        h_crop, w_crop = self.test_cfg.crop_size
        batch_size, _, h_img, w_img = img.size()
        h_grids = max(h_img - h_crop + h_stride - 1, 0) // h_stride + 1
        w_grids = max(w_img - w_crop + w_stride - 1, 0) // w_stride + 1
        preds = img.new_zeros((batch_size, 1, h_img, w_img))
        count_mat = img.new_zeros((batch_size, 1, h_img, w_img))
        for h_idx in range(h_grids):
            for w_idx in range(w_grids):
                y1 = h_idx * h_stride
                x1 = w_idx * w_stride
                y2 = min(y1 + h_crop, h_img)
                x2 = min(x1 + w_crop, w_img)
                y1 = max(y2 - h_crop, 0)
                x1 = max(x2 - w_crop, 0)
                crop_img = img[:, :, y1:y2, x1:x2]
                depth_pred = self.encode_decode(crop_img, img_meta, rescale)
                preds += F.pad(depth_pred, (int(x1), int(preds.shape[3] - x2), int(y1), int(preds.shape[2] - y2)))

                count_mat[:, :, y1:y2, x1:x2] += 1
        assert (count_mat == 0).sum() == 0
        if torch.onnx.is_in_onnx_export():
            # cast count_mat to constant while exporting to ONNX
            count_mat = torch.from_numpy(count_mat.cpu().detach().numpy()).to(device=img.device)
        preds = preds / count_mat
        return preds


torch.manual_seed(0)
DEPTHER = DepthEncoderDecoder()


def slide(img, crop_size, stride):
    DEPTHER.test_cfg = TestConfig("slide", crop_size, stride)
    return DEPTHER.slide_inference(img, None, True)


ENTRY = slide
INPUTS = [
    # two overlapping windows cover the image
    (torch.randn(1, 3, 4, 6), (4, 4), (2, 2)),
    # nine windows (the first and the last inputs keep to two: Inductor's code generation for
    # the sum of many padded crops takes minutes on CPU, plain torch.compile too)
    (torch.randn(1, 3, 8, 10), (4, 4), (3, 3)),
    # a crop larger than the image: one window
    (torch.randn(2, 3, 4, 4), (6, 6), (2, 2)),
    # a stride larger than the crop leaves pixels uncovered: the assert fails
    (torch.randn(1, 3, 2, 6), (2, 2), (4, 4)),
]
