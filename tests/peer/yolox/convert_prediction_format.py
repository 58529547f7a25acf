"""YOLOX's Weights & Biases logger: the evaluator's predictions per image are converted for
logging, skipping the entries that are None, by reading every box with `.numpy().tolist()`,
every score with `.numpy().item()` and every class with `int(...)` to index the dataset's
class ids: Python values read from tensors, out of scope. An image given as a dict unpacks to
its keys (the `except KeyError` never runs), and the original raises on the first key."""

from collections import defaultdict

import torch

ORIGIN = "Megvii-BaseDetection/YOLOX: yolox/utils/logger.py: WandbLogger._convert_prediction_format"
CATEGORY = "out_of_scope"


class VOCDataset:
    class_ids = [1, 2, 3, 5, 8]


class WandbLogger:
    def __init__(self):
        self.val_dataset = VOCDataset()

    def _convert_prediction_format(self, predictions):
        image_wise_data = defaultdict(int)

        for key, val in predictions.items():
            img_id = key

            try:
                bboxes, cls, scores = val
            except KeyError:
                bboxes, cls, scores = val["bboxes"], val["categories"], val["scores"]

            # These store information of actual bounding boxes i.e. the ones which are not None
            act_box = []
            act_scores = []
            act_cls = []

            if bboxes is not None:
                for box, classes, score in zip(bboxes, cls, scores):
                    if box is None or score is None or classes is None:
                        continue
                    act_box.append(box)
                    act_scores.append(score)
                    act_cls.append(classes)

            image_wise_data.update({
                int(img_id): {
                    "bboxes": [box.numpy().tolist() for box in act_box],
                    "scores": [score.numpy().item() for score in act_scores],
                    "categories": [
                        self.val_dataset.class_ids[int(act_cls[ind])]
                        for ind in range(len(act_box))
                    ],
                }
            })

        return image_wise_data


LOGGER = WandbLogger()


def convert(boxes0, classes0, scores0, boxes1, classes1, scores1, as_dict=False):
    second = (boxes1, classes1, scores1)
    if as_dict:
        second = {"bboxes": boxes1, "categories": classes1, "scores": scores1}
    predictions = {0: (boxes0, classes0, scores0), 1: second}
    return dict(LOGGER._convert_prediction_format(predictions))


torch.manual_seed(0)
ENTRY = convert
INPUTS = [
    (torch.rand(3, 4), torch.tensor([0.0, 2.0, 4.0]), torch.rand(3),
     torch.rand(2, 4), torch.tensor([1.0, 3.0]), torch.rand(2)),
    (torch.rand(1, 4), torch.tensor([2.0]), torch.rand(1), None, None, None),
    (torch.rand(1, 4), torch.tensor([2.0]), torch.rand(1),
     torch.rand(2, 4), torch.tensor([1.0, 3.0]), torch.rand(2), True),
]
