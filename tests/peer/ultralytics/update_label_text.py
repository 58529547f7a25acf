"""Ultralytics' mixing augmentations (Mosaic, MixUp, CutMix) take other images' labels into
`labels["mix_labels"]` and, for text-labelled (open-vocabulary) datasets, unify the class texts
with `BaseMixTransform._update_label_text`: the texts of all the mixed images are deduplicated in
order and every image's class ids are remapped onto the merged list, one box at a time, by
reading the ids back with `label["cls"].squeeze(-1).tolist()` and indexing the Python text lists
with them; labels without texts are returned untouched. Python values (list indices) computed
from tensor data: not fixable by design. The step builds the labels of the mixed images (fresh
per call, as the dataset loads them) and returns the remapped class ids and merged texts."""

from typing import Any

import torch

ORIGIN = "ultralytics/ultralytics: ultralytics/data/augment.py: BaseMixTransform._update_label_text"
CATEGORY = "out_of_scope"


class BaseMixTransform:
    def get_params(self, labels: dict[str, Any], mix_labels: list) -> dict[str, Any]:
        labels["mix_labels"] = mix_labels

        # Update cls and texts
        self._update_label_text(labels)
        return {"mix_labels": mix_labels}

    @staticmethod
    def _update_label_text(labels: dict[str, Any]) -> dict[str, Any]:
        if "texts" not in labels:
            return labels

        mix_texts = [*labels["texts"], *(item for x in labels["mix_labels"] for item in x["texts"])]
        mix_texts = [list(x) for x in dict.fromkeys(tuple(x) for x in mix_texts)]
        text2id = {tuple(text): i for i, text in enumerate(mix_texts)}

        for label in [labels] + labels["mix_labels"]:
            for i, cls in enumerate(label["cls"].squeeze(-1).tolist()):
                text = label["texts"][int(cls)]
                label["cls"][i] = text2id[tuple(text)]
            label["texts"] = mix_texts
        return labels


TRANSFORM = BaseMixTransform()


def mix_labels(cls, texts, mix_cls, mix_texts):
    labels = {"cls": cls.clone()}
    if texts is not None:
        labels["texts"] = [list(t) for t in texts]
    mixed = [{"cls": c.clone(), "texts": [list(t) for t in tx]} for c, tx in zip(mix_cls, mix_texts)]
    params = TRANSFORM.get_params(labels, mixed)
    out = [labels["cls"]] + [m["cls"] for m in params["mix_labels"]]
    return out, labels.get("texts")


ENTRY = mix_labels
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([[0], [1], [1]]), [["cat"], ["dog"]],
     [torch.tensor([[1], [0]]), torch.tensor([[2], [0]])],
     [[["bird"], ["fish"]], [["cat"], ["dog"], ["bird"]]]),
    # one mixed image, with a class text the first one lacks
    (torch.randint(0, 3, (4, 1)), [["person"], ["car"], ["bus"]],
     [torch.randint(0, 2, (3, 1))], [[["bus"], ["truck"]]]),
    # no texts in the labels: returned untouched
    (torch.tensor([[0], [2]]), None, [torch.tensor([[1]])], [[["cat"], ["dog"]]]),
]
