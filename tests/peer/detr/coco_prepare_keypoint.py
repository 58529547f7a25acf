"""DETR's COCO evaluator, preparing keypoint results for pycocotools: per image the boxes,
scores, labels and flattened keypoints are read with `.tolist()` into a list of result
dicts; an image without predictions is skipped. Python values read from tensors
(`.tolist()` of float tensors, which Dynamo does not trace) inside the loop over images:
Dynamo gives up on the frame. Not fixable: the lists are the result."""

import torch

ORIGIN = "facebookresearch/detr: datasets/coco_eval.py: CocoEvaluator.prepare_for_coco_keypoint"
CATEGORY = "out_of_scope"


def convert_to_xywh(boxes):
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return torch.stack((xmin, ymin, xmax - xmin, ymax - ymin), dim=1)


class CocoEvaluator:
    def prepare_for_coco_keypoint(self, predictions):
        coco_results = []
        for original_id, prediction in predictions.items():
            if len(prediction) == 0:
                continue

            boxes = prediction["boxes"]
            boxes = convert_to_xywh(boxes).tolist()
            scores = prediction["scores"].tolist()
            labels = prediction["labels"].tolist()
            keypoints = prediction["keypoints"]
            keypoints = keypoints.flatten(start_dim=1).tolist()

            coco_results.extend(
                [
                    {
                        "image_id": original_id,
                        "category_id": labels[k],
                        'keypoints': keypoint,
                        "score": scores[k],
                    }
                    for k, keypoint in enumerate(keypoints)
                ]
            )
        return coco_results


EVALUATOR = CocoEvaluator()


def prepare(boxes, scores, labels, keypoints):
    predictions = {3: {}, 4: {"boxes": boxes, "scores": scores, "labels": labels, "keypoints": keypoints}}
    return EVALUATOR.prepare_for_coco_keypoint(predictions)


torch.manual_seed(0)
ENTRY = prepare
INPUTS = [
    (torch.tensor([[1.0, 2.0, 5.0, 6.0], [0.0, 0.0, 3.0, 4.0]]), torch.rand(2), torch.tensor([1, 1]),
     torch.rand(2, 3, 3)),
]
