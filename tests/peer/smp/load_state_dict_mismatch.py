"""segmentation_models.pytorch's SegmentationModel.load_state_dict: for a timm-ported
encoder of a deprecated family (regnet, res2, resnest, mobilenetv3, gernet) the old keys are
renamed under `encoder.model.`; with `strict=False` the weights whose shapes differ from the
model's are dropped and listed in a warning (`warnings.warn(text, stacklevel=-1)`, "You
should TRAIN the model to use it"), then the module's own loading runs. A restore step
builds the model (a tiny encoder, decoder and head) and loads the weights it is given; a
strict load of mismatched weights raises in torch's `load_state_dict`."""

import warnings

import torch
from torch import nn

ORIGIN = "qubvel-org/segmentation_models.pytorch: segmentation_models_pytorch/base/model.py: SegmentationModel.load_state_dict"
CATEGORY = "defer"


class TimmUniversalEncoder(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.name = name
        self.model = nn.Module()
        self.model.stem = nn.Conv2d(3, 4, 3, padding=1)


class ResNetEncoder(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.name = name
        self.stem = nn.Conv2d(3, 4, 3, padding=1)


class SegmentationModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._is_encoder_frozen = False

    def load_state_dict(self, state_dict, **kwargs):
        # for compatibility of weights for
        # timm- ported encoders with TimmUniversalEncoder
        if isinstance(self.encoder, TimmUniversalEncoder):
            patterns = ["regnet", "res2", "resnest", "mobilenetv3", "gernet"]
            is_deprecated_encoder = any(
                self.encoder.name.startswith(pattern) for pattern in patterns
            )
            if is_deprecated_encoder:
                keys = list(state_dict.keys())
                for key in keys:
                    new_key = key
                    if key.startswith("encoder.") and not key.startswith(
                        "encoder.model."
                    ):
                        new_key = "encoder.model." + key.removeprefix("encoder.")
                    if "gernet" in self.encoder.name:
                        new_key = new_key.replace(".stages.", ".stages_")
                    state_dict[new_key] = state_dict.pop(key)

        # To be able to load weight with mismatched sizes
        # We are going to filter mismatched sizes as well if strict=False
        strict = kwargs.get("strict", True)
        if not strict:
            mismatched_keys = []
            model_state_dict = self.state_dict()
            common_keys = set(model_state_dict.keys()) & set(state_dict.keys())
            for key in common_keys:
                if model_state_dict[key].shape != state_dict[key].shape:
                    mismatched_keys.append(
                        (key, model_state_dict[key].shape, state_dict[key].shape)
                    )
                    state_dict.pop(key)

            if mismatched_keys:
                str_keys = "\n".join(
                    [
                        f" - {key}: {s} (weights) -> {m} (model)"
                        for key, m, s in mismatched_keys
                    ]
                )
                text = f"\n\n !!!!!! Mismatched keys !!!!!!\n\nYou should TRAIN the model to use it:\n{str_keys}\n"
                warnings.warn(text, stacklevel=-1)

        return super().load_state_dict(state_dict, **kwargs)


class TinySegmentationModel(SegmentationModel):
    def __init__(self, encoder_name, classes):
        super().__init__()
        if encoder_name.startswith("resnest"):
            self.encoder = TimmUniversalEncoder(encoder_name)
        else:
            self.encoder = ResNetEncoder(encoder_name)
        self.decoder = nn.Conv2d(4, 4, 1)
        self.segmentation_head = nn.Conv2d(4, classes, 1)
        self.classification_head = None


def restore(weights, encoder_name, classes, strict):
    model = TinySegmentationModel(encoder_name, classes)
    result = model.load_state_dict(dict(weights), strict=strict)
    return sorted(result.missing_keys), sorted(result.unexpected_keys), {
        k: v.clone() for k, v in model.state_dict().items()
    }


ENTRY = restore


def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
_plain = {k: torch.randn_like(v) for k, v in TinySegmentationModel("resnet18", 3).state_dict().items()}
_old_timm = {k.replace("encoder.model.", "encoder."): torch.randn_like(v)
             for k, v in TinySegmentationModel("resnest14d", 3).state_dict().items()}
INPUTS = [
    (_plain, "resnet18", 2, False),
    (_plain, "resnet18", 3, False),
    (_old_timm, "resnest14d", 3, True),
    (_old_timm, "resnest14d", 5, False),
    (_plain, "resnet18", 2, True),
]
