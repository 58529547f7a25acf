"""nnU-Net's sliding-window prediction, called by `predict_sliding_window_return_logits`: a
producer thread cuts the tiles into a queue of two, each tile is predicted (averaged over its
mirrorings), weighted by a Gaussian importance map (fp16, cached by `lru_cache`) and added into
fp16 logits and counts; the logits are divided by the counts, and an overflow to inf is checked
(`if torch.any(torch.isinf(predicted_logits)): raise RuntimeError('Encountered inf ...')`), the
exception re-raised after the arrays are freed. Verbose mode prints each stage (`print(f'move
image to device ...')`). The predictor is reduced to what the method reads (a tiny network, the
patch size, the number of heads, the mirroring axes); scipy's `gaussian_filter` is a numpy
stand-in for its constant mode, tqdm a stand-in that draws no bar. Plain torch.compile breaks
at the first print, in the `try` block (the thread, the queue, the other prints and the inf
guard after it run eagerly), and at `compute_gaussian`'s boolean-mask fill (a dynamic shape)."""

import itertools
from functools import lru_cache
from queue import Queue
from threading import Thread
from types import SimpleNamespace

import numpy as np
import torch
from torch import nn

ORIGIN = "MIC-DKFZ/nnUNet: nnunetv2/inference/predict_from_raw_data.py: nnUNetPredictor._internal_predict_sliding_window_return_logits"
CATEGORY = "mixed"


def gaussian_filter(input, sigma, order=0, mode='constant', cval=0, truncate=4.0):
    """scipy.ndimage.gaussian_filter, order 0 and mode 'constant' (cval 0) only."""
    output = np.asarray(input, dtype=np.float64)
    for axis, s in enumerate(sigma):
        radius, n = int(truncate * float(s) + 0.5), output.shape[axis]
        offsets = np.arange(n)[None, :] - np.arange(n)[:, None]
        k = np.where(np.abs(offsets) <= radius, np.exp(-0.5 * offsets ** 2 / float(s) ** 2), 0.)
        k /= np.exp(-0.5 * np.arange(-radius, radius + 1) ** 2 / float(s) ** 2).sum()
        output = np.moveaxis(np.tensordot(k, np.moveaxis(output, axis, 0), axes=1), 0, axis)
    return output


@lru_cache(maxsize=2)
def compute_gaussian(tile_size, sigma_scale: float = 1. / 8, value_scaling_factor: float = 1,
                     dtype=torch.float16, device=torch.device('cuda', 0)) -> torch.Tensor:
    tmp = np.zeros(tile_size)
    center_coords = [i // 2 for i in tile_size]
    sigmas = [i * sigma_scale for i in tile_size]
    tmp[tuple(center_coords)] = 1
    gaussian_importance_map = gaussian_filter(tmp, sigmas, 0, mode='constant', cval=0)
    gaussian_importance_map /= (np.max(gaussian_importance_map) / value_scaling_factor)
    gaussian_importance_map = torch.from_numpy(gaussian_importance_map)
    gaussian_importance_map = gaussian_importance_map.to(device=device, dtype=dtype)
    # gaussian_importance_map cannot be 0, otherwise we may end up with nans!
    mask = gaussian_importance_map == 0
    gaussian_importance_map[mask] = torch.min(gaussian_importance_map[~mask])
    return gaussian_importance_map


def empty_cache(device: torch.device):
    if device.type == 'cuda':
        torch.cuda.empty_cache()


class tqdm(object):
    def __init__(self, desc=None, total=None, disable=False): self.n = 0
    def __enter__(self): return self
    def __exit__(self, *exc): return False
    def update(self): self.n += 1


class nnUNetPredictor(object):
    def __init__(self, use_gaussian, use_mirroring, allowed_mirroring_axes, verbose, allow_tqdm):
        torch.manual_seed(0)
        self.network, self.device = nn.Conv3d(1, 2, 1), torch.device('cpu')
        self.configuration_manager = SimpleNamespace(patch_size=[4, 4, 4])
        self.label_manager = SimpleNamespace(num_segmentation_heads=2)
        self.use_gaussian, self.use_mirroring, self.allowed_mirroring_axes = use_gaussian, use_mirroring, allowed_mirroring_axes
        self.verbose, self.allow_tqdm = verbose, allow_tqdm

    @torch.inference_mode()
    def _internal_maybe_mirror_and_predict(self, x: torch.Tensor) -> torch.Tensor:
        mirror_axes = self.allowed_mirroring_axes if self.use_mirroring else None
        prediction = self.network(x)
        if mirror_axes is not None:
            assert max(mirror_axes) <= x.ndim - 3, 'mirror_axes does not match the dimension of the input!'
            mirror_axes = [m + 2 for m in mirror_axes]
            axes_combinations = [c for i in range(len(mirror_axes)) for c in itertools.combinations(mirror_axes, i + 1)]
            for axes in axes_combinations:
                prediction += torch.flip(self.network(torch.flip(x, axes)), axes)
            prediction /= (len(axes_combinations) + 1)
        return prediction

    @torch.inference_mode()
    def _internal_predict_sliding_window_return_logits(self, data: torch.Tensor, slicers, do_on_device: bool = True):
        predicted_logits = n_predictions = prediction = gaussian = workon = None
        results_device = self.device if do_on_device else torch.device('cpu')

        def producer(d, slh, q):
            for s in slh:
                q.put((torch.clone(d[s][None], memory_format=torch.contiguous_format).to(self.device), s))
            q.put('end')

        try:
            empty_cache(self.device)

            # move data to device
            if self.verbose:
                print(f'move image to device {results_device}')
            data = data.to(results_device)
            queue = Queue(maxsize=2)
            t = Thread(target=producer, args=(data, slicers, queue), daemon=True)
            t.start()

            # preallocate arrays
            if self.verbose:
                print(f'preallocating results arrays on device {results_device}')
            predicted_logits = torch.zeros((self.label_manager.num_segmentation_heads, *data.shape[1:]),
                                           dtype=torch.half, device=results_device)
            n_predictions = torch.zeros(data.shape[1:], dtype=torch.half, device=results_device)

            if self.use_gaussian:
                gaussian = compute_gaussian(tuple(self.configuration_manager.patch_size), sigma_scale=1. / 8,
                                            value_scaling_factor=10, device=results_device)
            else:
                gaussian = 1

            if not self.allow_tqdm and self.verbose:
                print(f'running prediction: {len(slicers)} steps')

            with tqdm(desc=None, total=len(slicers), disable=not self.allow_tqdm) as pbar:
                while True:
                    item = queue.get()
                    if item == 'end':
                        queue.task_done()
                        break
                    workon, sl = item
                    prediction = self._internal_maybe_mirror_and_predict(workon)[0].to(results_device)

                    if self.use_gaussian:
                        prediction *= gaussian
                    predicted_logits[sl] += prediction
                    n_predictions[sl[1:]] += gaussian
                    queue.task_done()
                    pbar.update()
            queue.join()

            torch.div(predicted_logits, n_predictions, out=predicted_logits)
            # check for infs
            if torch.any(torch.isinf(predicted_logits)):
                raise RuntimeError('Encountered inf in predicted array. Aborting... If this problem persists, '
                                   'reduce value_scaling_factor in compute_gaussian or increase the dtype of '
                                   'predicted_logits to fp32')
            return predicted_logits
        except Exception as e:
            del predicted_logits, n_predictions, prediction, gaussian, workon
            empty_cache(self.device)
            empty_cache(results_device)
            raise e


PREDICTORS = {"verbose": nnUNetPredictor(True, True, (0, 1, 2), verbose=True, allow_tqdm=False),
              "quiet": nnUNetPredictor(False, False, None, verbose=False, allow_tqdm=True)}
# the tiles of a (6, 6, 6) image with a (4, 4, 4) patch, half a tile apart
SLICERS = [(slice(None), slice(x, x + 4), slice(y, y + 4), slice(z, z + 4))
           for x in (0, 2) for y in (0, 2) for z in (0, 2)]


def reset():
    compute_gaussian.cache_clear()


def predict_logits(data, predictor, do_on_device):
    return PREDICTORS[predictor]._internal_predict_sliding_window_return_logits(data, SLICERS, do_on_device)


ENTRY = predict_logits
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 6, 6, 6), "verbose", True),
    (torch.randn(1, 6, 6, 6), "quiet", False),
    # logits beyond fp16's range: the inf guard raises
    (torch.randn(1, 6, 6, 6) * 1e6, "verbose", True),
]
