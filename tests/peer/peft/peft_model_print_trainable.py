"""PEFT's PeftModel.print_trainable_parameters: counts the trainable and all parameters of
the model (`get_nb_trainable_parameters`: DeepSpeed's `ds_numel` for weights initialised
empty, bitsandbytes' 4-bit weights counted by their storage bytes) and prints them with the
trainable share (`print(f"trainable params: ... || trainable%: ...")`); a model without
parameters divides by zero. A step wraps a small prompt-tuned model (frozen base layer,
trainable virtual-token embedding prepended to the input), prints the report and runs the
forward. Shrunk: the model's constructor keeps only the wrapped model and the prompt
encoder (no adapter configs, no tuner)."""

from typing import Any

import torch
from torch import nn

ORIGIN = "huggingface/peft: src/peft/peft_model.py: PeftModel.print_trainable_parameters"
CATEGORY = "defer"


class PeftModel(nn.Module):
    def __init__(self, model: nn.Module, num_virtual_tokens: int) -> None:
        super().__init__()
        self.base_model = model
        self.prompt_encoder = nn.Embedding(num_virtual_tokens, model.in_features)

    def get_nb_trainable_parameters(self) -> tuple[int, int]:
        r"""
        Returns the number of trainable parameters and the number of all parameters in the model.
        """
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
                if hasattr(param, "element_size"):
                    num_bytes = param.element_size()
                elif not hasattr(param, "quant_storage"):
                    num_bytes = 1
                else:
                    num_bytes = param.quant_storage.itemsize
                num_params = num_params * 2 * num_bytes

            all_param += num_params
            if param.requires_grad:
                trainable_params += num_params

        return trainable_params, all_param

    def print_trainable_parameters(self) -> None:
        """
        Prints the number of trainable parameters in the model.
        """
        trainable_params, all_param = self.get_nb_trainable_parameters()

        print(
            f"trainable params: {trainable_params:,d} || all params: {all_param:,d} || trainable%: {100 * trainable_params / all_param:.4f}"
        )

    def forward(self, x: torch.Tensor, **kwargs: Any):
        prompts = self.prompt_encoder.weight.unsqueeze(0).expand(x.size(0), -1, -1)
        return self.base_model(torch.cat([prompts, x], dim=1), **kwargs)


def report_and_run(x, num_virtual_tokens, train_base=False, out_features=3):
    base = nn.Linear(x.size(-1), out_features)
    base.requires_grad_(train_base)
    model = PeftModel(base, num_virtual_tokens)
    model.print_trainable_parameters()
    return model(x)


ENTRY = report_and_run


def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 4), 2),
    (torch.randn(2, 3, 4), 0, True),
    (torch.randn(2, 3, 0), 0, False, 0),
]
