"""DETR's COCO evaluator, preparing detections for pycocotools: per image the boxes are
converted to xywh and read with `.tolist()`, as are the scores and labels, into a list of
result dicts; an image without predictions is skipped. Python values read from tensors
(`.tolist()` of float tensors, which Dynamo does not trace) inside the loop over images:
Dynamo gives up on the frame. Not fixable: the lists are the result."""

import torch

ORIGIN = "facebookresearch/detr: datasets/coco_eval.py: CocoEvaluator.prepare_for_coco_detection"
CATEGORY = "out_of_scope"


def convert_to_xywh(boxes):
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return torch.stack((xmin, ymin, xmax - xmin, ymax - ymin), dim=1)


class CocoEvaluator:
    def prepare_for_coco_detection(self, predictions):
        coco_results = []
        for original_id, prediction in predictions.items():
            if len(prediction) == 0:
                continue

            boxes = prediction["boxes"]
            boxes = convert_to_xywh(boxes).tolist()
            scores = prediction["scores"].tolist()
            labels = prediction["labels"].tolist()

            coco_results.extend(
                [
                    {
                        "image_id": original_id,
                        "category_id": labels[k],
                        "bbox": box,
                        "score": scores[k],
                    }
                    for k, box in enumerate(boxes)
                ]
            )
        return coco_results


EVALUATOR = CocoEvaluator()


def prepare(boxes, scores, labels):
    predictions = {7: {"boxes": boxes, "scores": scores, "labels": labels}, 9: {}}
    return EVALUATOR.prepare_for_coco_detection(predictions)


torch.manual_seed(0)
ENTRY = prepare
INPUTS = [
    (torch.tensor([[1.0, 2.0, 5.0, 6.0], [0.0, 0.0, 3.0, 4.0]]), torch.rand(2), torch.tensor([3, 1])),
    (torch.zeros((0, 4)), torch.zeros((0,)), torch.zeros((0,), dtype=torch.int64)),
]
