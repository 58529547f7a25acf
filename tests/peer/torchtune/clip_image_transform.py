"""torchtune's export-friendly CLIP image transform (`_CLIPImageTransform`): the target and
canvas sizes come as tensors and are read into Python numbers (`target_h, target_w =
target_size.tolist()`), bounded with `torch._check` for export, then the image is resized,
padded on the right and bottom to the canvas, normalized and cut into tiles
(`tile_crop` asserts the canvas divides into tiles); the aspect ratio is the canvas in
tiles. Python values from tensor data setting the shapes, but plain torch.compile (torch
2.13) does not break on it: Dynamo traces the `.tolist()` reads, bounded by the
`torch._check`s, into the graph. torchvision's tensor resize and normalize are written with
`F.interpolate` and plain arithmetic."""

import torch
import torch.nn.functional as F

ORIGIN = "pytorch/torchtune: torchtune/models/clip/inference/_transform.py: _CLIPImageTransform.forward"
CATEGORY = "no_break"


def tile_crop(image, tile_size):
    channel_size, height, width = image.shape

    # assert sizes are divisible
    assert (
        height % tile_size == 0 and width % tile_size == 0
    ), f"Image size {height}x{width} is not divisible by tile size {tile_size}"

    # Reshape to split height and width into tile_size blocks
    tiles_height = height // tile_size
    tiles_width = width // tile_size

    reshaped = image.view(channel_size, tiles_height, tile_size, tiles_width, tile_size)

    # Transpose to bring tiles together
    # We want [tiles_height, tiles_width, channel_size, tile_size, tile_size]
    transposed = reshaped.permute(1, 3, 0, 2, 4)

    # Reshape into the desired output shape [tiles_width * tiles_height, channel_size, tile_size, tile_size]
    tiles = transposed.contiguous().view(
        tiles_height * tiles_width, channel_size, tile_size, tile_size
    )

    return tiles


def resize(image, size, interpolation, antialias):
    """torchvision.transforms._functional_tensor.resize, for a float [C, H, W] image."""
    return F.interpolate(image[None], size=size, mode=interpolation, antialias=antialias,
                         align_corners=False)[0]


def normalize(tensor, mean, std):
    """torchvision.transforms.v2.functional.normalize"""
    mean = torch.as_tensor(mean, dtype=tensor.dtype).view(-1, 1, 1)
    std = torch.as_tensor(std, dtype=tensor.dtype).view(-1, 1, 1)
    return (tensor - mean) / std


class _CLIPImageTransform(torch.nn.Module):
    def __init__(
        self,
        resample="bilinear",
        image_mean=(0.48, 0.46, 0.41),
        image_std=(0.27, 0.26, 0.28),
        tile_size=4,
        max_num_tiles=4,
        antialias=True,
    ):
        super().__init__()
        self.resample = resample
        self.image_mean = image_mean
        self.image_std = image_std
        self.tile_size = tile_size
        self.max_num_tiles = max_num_tiles
        self.antialias = antialias
        self.tile_crop = tile_crop
        self.pad = torch.nn.functional.pad

    def check_variable_bounds_for_export(self, target_size, canvas_size, lower, upper):
        # Check lower <= canvas_size <= upper.
        for var in canvas_size:
            torch._check(var >= lower)
            torch._check(var <= upper)

        # Check lower <= target_size <= canvas_size.
        for i in range(len(target_size)):
            torch._check(target_size[i] >= lower)
            torch._check(target_size[i] <= canvas_size[i])

    def forward(self, image, target_size, canvas_size):
        target_h, target_w = target_size.tolist()
        canvas_h, canvas_w = canvas_size.tolist()

        # Checks to allow the model to export via torch.export.
        self.check_variable_bounds_for_export(
            target_size=[target_h, target_w],
            canvas_size=[canvas_h, canvas_w],
            lower=2,
            upper=self.tile_size * self.max_num_tiles,
        )

        # Resize.
        image = resize(
            image,
            size=[target_h, target_w],
            interpolation=self.resample,
            antialias=self.antialias,
        )

        # Pad, such that the image is on the top-left and padded on the right-bottom.
        # padding = [left, right, top, bottom]
        padding = [0, canvas_w - target_w, 0, canvas_h - target_h]
        output = self.pad(image, padding)

        # Normalize.
        if self.image_mean is not None and self.image_std is not None:
            output = normalize(output, self.image_mean, self.image_std)

        # Reshape.
        tiles = self.tile_crop(output, self.tile_size)

        # Calculate aspect ratio.
        aspect_ratio = canvas_size // self.tile_size

        return tiles, aspect_ratio


torch.manual_seed(0)
ENTRY = _CLIPImageTransform
INPUTS = [
    (torch.rand(3, 10, 7), torch.tensor([8, 6]), torch.tensor([8, 8])),
    (torch.rand(3, 5, 9), torch.tensor([4, 7]), torch.tensor([4, 8])),
    # a canvas that is not a whole number of tiles: tile_crop's assert fails
    (torch.rand(3, 6, 6), torch.tensor([6, 6]), torch.tensor([6, 8])),
]
