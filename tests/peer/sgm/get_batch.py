"""generative-models' get_batch, which builds the conditioning batch and its unconditional
twin for the inference API's samplers (do_sample and do_img2img call it): for each key the
conditioner embeds, the prompt and the negative prompt become nested lists of strings
(`np.repeat([prompt], repeats=math.prod(N)).reshape(N).tolist()`), the SDXL size, crop and
aesthetic-score entries become tensors repeated over N, and any other key is passed through;
every tensor entry without an unconditional value is cloned into the unconditional batch.
Out of scope: the `.tolist()` reads a numpy array of Python strings, and Dynamo, which traces
numpy arrays as tensors, cannot trace `np.repeat` over strings: it breaks there, inside the
loop over the keys, so the whole frame runs eagerly, on no tensor data; there is no branch,
print or guard to rewrite. Shrunk: nothing; N is a plain
list (the original also takes an omegaconf ListConfig) and the device is "cpu"."""

import math
from typing import List, Union

import numpy as np
import torch

ORIGIN = "Stability-AI/generative-models: sgm/inference/helpers.py: get_batch"
CATEGORY = "out_of_scope"


def get_batch(keys, value_dict, N: Union[List, tuple], device="cuda"):
    # Hardcoded demo setups; might undergo some changes in the future

    batch = {}
    batch_uc = {}

    for key in keys:
        if key == "txt":
            batch["txt"] = (
                np.repeat([value_dict["prompt"]], repeats=math.prod(N))
                .reshape(N)
                .tolist()
            )
            batch_uc["txt"] = (
                np.repeat([value_dict["negative_prompt"]], repeats=math.prod(N))
                .reshape(N)
                .tolist()
            )
        elif key == "original_size_as_tuple":
            batch["original_size_as_tuple"] = (
                torch.tensor([value_dict["orig_height"], value_dict["orig_width"]])
                .to(device)
                .repeat(*N, 1)
            )
        elif key == "crop_coords_top_left":
            batch["crop_coords_top_left"] = (
                torch.tensor([value_dict["crop_coords_top"], value_dict["crop_coords_left"]])
                .to(device)
                .repeat(*N, 1)
            )
        elif key == "aesthetic_score":
            batch["aesthetic_score"] = (
                torch.tensor([value_dict["aesthetic_score"]]).to(device).repeat(*N, 1)
            )
            batch_uc["aesthetic_score"] = (
                torch.tensor([value_dict["negative_aesthetic_score"]])
                .to(device)
                .repeat(*N, 1)
            )
        elif key == "target_size_as_tuple":
            batch["target_size_as_tuple"] = (
                torch.tensor([value_dict["target_height"], value_dict["target_width"]])
                .to(device)
                .repeat(*N, 1)
            )
        else:
            batch[key] = value_dict[key]

    for key in batch.keys():
        if key not in batch_uc and isinstance(batch[key], torch.Tensor):
            batch_uc[key] = torch.clone(batch[key])
    return batch, batch_uc


ENTRY = get_batch
torch.manual_seed(0)
SDXL = {"prompt": "a lighthouse", "negative_prompt": "blurry", "orig_height": 32, "orig_width": 48,
        "crop_coords_top": 0, "crop_coords_left": 4, "target_height": 32, "target_width": 32}
INPUTS = [
    (["txt", "original_size_as_tuple", "crop_coords_top_left", "target_size_as_tuple"], SDXL, [2], "cpu"),
    # the refiner's keys, over a [1, 2] grid of samples
    (["txt", "original_size_as_tuple", "crop_coords_top_left", "aesthetic_score"],
     {**SDXL, "aesthetic_score": 6.0, "negative_aesthetic_score": 2.5}, [1, 2], "cpu"),
    # passed through: a tensor (cloned for the unconditional batch) and a plain value (not)
    (["cls", "fps_id"], {"cls": torch.tensor([3, 1]), "fps_id": 6}, [2], "cpu"),
    # no negative prompt: KeyError
    (["txt"], {"prompt": "a lighthouse"}, [2], "cpu"),
]
