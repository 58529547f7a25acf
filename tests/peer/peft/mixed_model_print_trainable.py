"""PEFT's PeftMixedModel.print_trainable_parameters: counts the trainable and all parameters
of the wrapped model (`get_nb_trainable_parameters`: DeepSpeed's `ds_numel` for weights
initialised empty, twice the count for bitsandbytes' 4-bit weights) and prints them with
the trainable share (`print(f"trainable params: ... || trainable%: ...")`); a model
without parameters divides by zero. A step wraps a small LoRA-adapted model (frozen base
layer, trainable `lora_A`/`lora_B`), prints the report and runs the forward. Shrunk: the
mixed model's constructor keeps only the wrapped model (no adapter configs, no tuner)."""

from typing import Any

import torch
from torch import nn

ORIGIN = "huggingface/peft: src/peft/mixed_model.py: PeftMixedModel.print_trainable_parameters"
CATEGORY = "defer"


class PeftMixedModel(nn.Module):
    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.base_model = model

    def get_nb_trainable_parameters(self):
        r"""
        Returns the number of trainable parameters and number of all parameters in the model.
        """
        # note: same as PeftModel.get_nb_trainable_parameters
        trainable_params = 0
        all_param = 0
        for _, param in self.named_parameters():
            num_params = param.numel()
            # if using DS Zero 3 and the weights are initialized empty
            if num_params == 0 and hasattr(param, "ds_numel"):
                num_params = param.ds_numel

            # Due to the design of 4bit linear layers from bitsandbytes
            # one needs to multiply the number of parameters by 2 to get
            # the correct number of parameters
            if param.__class__.__name__ == "Params4bit":
                num_params = num_params * 2

            all_param += num_params
            if param.requires_grad:
                trainable_params += num_params

        return trainable_params, all_param

    def print_trainable_parameters(self):
        """
        Prints the number of trainable parameters in the model.
        """
        # note: same as PeftModel.print_trainable_parameters
        trainable_params, all_param = self.get_nb_trainable_parameters()

        print(
            f"trainable params: {trainable_params:,d} || "
            f"all params: {all_param:,d} || "
            f"trainable%: {100 * trainable_params / all_param:.4f}"
        )

    def forward(self, *args: Any, **kwargs: Any):
        """
        Forward pass of the model.
        """
        return self.base_model(*args, **kwargs)


class TinyLoraLinear(nn.Module):
    def __init__(self, dim, r):
        super().__init__()
        self.base_layer = nn.Linear(dim, dim)
        self.base_layer.requires_grad_(False)
        self.r = r
        if r > 0:
            self.lora_A = nn.Linear(dim, r, bias=False)
            self.lora_B = nn.Linear(r, dim, bias=False)

    def forward(self, x):
        result = self.base_layer(x)
        if self.r > 0:
            result = result + self.lora_B(self.lora_A(x)) * 2.0
        return result


def report_and_run(x, dim, r):
    model = PeftMixedModel(TinyLoraLinear(dim, r))
    model.print_trainable_parameters()
    return model(x)


ENTRY = report_and_run


def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 8), 8, 2),
    (torch.randn(2, 8), 8, 0),
    (torch.randn(2, 0), 0, 0),
]
