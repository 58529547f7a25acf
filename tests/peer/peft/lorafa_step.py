"""PEFT's LoraFAOptimizer.step (LoRA-FA, AdamW with the LoRA B gradient projected through
(A A^T)^-1): a param group with the deprecated `scaling_factor` is warned about once per
optimizer (`warnings.warn(..., FutureWarning)`), one with neither key raises KeyError; each
`lora_A`/`lora_B` pair updates B with the projected gradient under bfloat16 autocast, every
other parameter with a gradient takes the AdamW update, with bias correction and decoupled
weight decay when set. A training step runs a small LoRA-adapted linear model, back-propagates
a squared error and takes two optimizer steps. Shrunk: accelerate's `is_bf16_available` and
PEFT's `infer_device` give their CPU answers (True, "cpu")."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable

import torch
from torch import autocast, nn
from torch.optim import Optimizer

ORIGIN = "huggingface/peft: src/peft/optimizers/lorafa.py: LoraFAOptimizer.step"
CATEGORY = "defer"


def is_bf16_available():
    return True


def infer_device():
    return "cpu"


class LoraFAOptimizer(Optimizer):
    def __init__(
        self,
        params: Iterable[nn.parameter.Parameter],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        correct_bias: bool = True,
    ):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr} - should be >= 0.0")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter: {betas[0]} - should be in [0.0, 1.0)")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter: {betas[1]} - should be in [0.0, 1.0)")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps} - should be >= 0.0")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "correct_bias": correct_bias,
        }
        super().__init__(params, defaults)
        # Warn once per optimizer instance so the deprecation path does not spam every training step
        self._legacy_scaling_factor_warned = False

    @torch.no_grad()
    def step(self, closure: Callable | None = None):
        """
        Performs a single optimization step.
        """
        loss = None
        if closure is not None:
            loss = closure()

        for group in self.param_groups:
            param_list = []
            name_list = []

            # TODO remove after 2026-11-01 and default to `group["scaling_factors"]
            if "scaling_factors" in group:
                scaling_factors = group["scaling_factors"]
            elif "scaling_factor" in group:
                if not self._legacy_scaling_factor_warned:
                    warnings.warn(
                        "`scaling_factor` is deprecated and will be removed after 2026-11-01. "
                        "Please use `scaling_factors` instead.",
                        FutureWarning,
                    )
                    self._legacy_scaling_factor_warned = True
                scaling_factors = [group["scaling_factor"]] * len(group["params"])
            else:
                raise KeyError("Expected optimizer param group to define `scaling_factors`.")

            for p, n, scaling_factor in zip(group["params"], group["names"], scaling_factors):
                # Skip non-lora no-grad module, since we need lora_A which is no-grad.
                if "lora" not in n and p.grad is None:
                    continue
                grad = p.grad

                if "lora" in n:
                    param_list.append(p)
                    name_list.append(n)
                    if len(param_list) == 2:
                        name = n[: n.find("lora")] + "lora"
                    elif len(param_list) == 1:
                        continue
                else:
                    name = n
                # param_list contains a pair of A and B adapters
                # i.e., param_list -> [A,B]

                state = self.state[name]
                # State initialization
                if len(state) == 0:
                    if len(param_list) == 2:
                        state["step"] = 0
                        # Exponential moving average of gradient values
                        state["exp_avg_B"] = torch.zeros_like(param_list[1])
                        # Exponential moving average of squared gradient values
                        state["exp_avg_sq_B"] = torch.zeros_like(param_list[1])
                    else:
                        state["step"] = 0
                        # Exponential moving average of gradient values
                        state["exp_avg"] = torch.zeros_like(p)
                        # Exponential moving average of squared gradient values
                        state["exp_avg_sq"] = torch.zeros_like(p)

                if len(param_list) == 2:
                    A = param_list[0]
                    B = param_list[1]
                    grad_B_orin = B.grad

                    # projection
                    delta = 1e-8

                    # computing the inverse matrix
                    AA_T = A @ A.T
                    AA_T_inv = torch.linalg.pinv(AA_T + delta * torch.eye(A.shape[0]).to(A.device))

                    device_type = infer_device()

                    if is_bf16_available():
                        with autocast(device_type=device_type, dtype=torch.bfloat16):
                            grad_B = (1 / scaling_factor**2) * (grad_B_orin @ AA_T_inv)
                    else:
                        grad_B = (1 / scaling_factor**2) * (grad_B_orin @ AA_T_inv)

                    if grad_B.dtype != B.grad.dtype:
                        grad_B = grad_B.to(B.grad.dtype)

                    exp_avg_B, exp_avg_sq_B = state["exp_avg_B"], state["exp_avg_sq_B"]
                    beta1, beta2 = group["betas"]
                    state["step"] += 1
                    exp_avg_B.mul_(beta1).add_(grad_B, alpha=(1.0 - beta1))
                    exp_avg_sq_B.mul_(beta2).addcmul_(grad_B, grad_B, value=1.0 - beta2)

                    denom_B = exp_avg_sq_B.sqrt().add_(group["eps"])
                    step_size = group["lr"]
                    if group["correct_bias"]:  # No bias correction for Bert
                        bias_correction1 = 1.0 - beta1 ** state["step"]
                        bias_correction2 = 1.0 - beta2 ** state["step"]
                        step_size = step_size * math.sqrt(bias_correction2) / bias_correction1
                    B.addcdiv_(exp_avg_B, denom_B, value=-step_size)
                    if group["weight_decay"] > 0.0:
                        B.add_(B, alpha=(-group["lr"] * group["weight_decay"]))
                    param_list = []
                    name_list = []

                # Below is the original AdamW
                else:
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    beta1, beta2 = group["betas"]

                    state["step"] += 1

                    # Decay the first and second moment running average coefficient
                    # In-place operations to update the averages at the same time
                    exp_avg.mul_(beta1).add_(grad, alpha=(1.0 - beta1))
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
                    denom = exp_avg_sq.sqrt().add_(group["eps"])

                    step_size = group["lr"]
                    if group["correct_bias"]:  # No bias correction for Bert
                        bias_correction1 = 1.0 - beta1 ** state["step"]
                        bias_correction2 = 1.0 - beta2 ** state["step"]
                        step_size = step_size * math.sqrt(bias_correction2) / bias_correction1

                    p.addcdiv_(exp_avg, denom, value=-step_size)

                    if group["weight_decay"] > 0.0:
                        p.add_(p, alpha=(-group["lr"] * group["weight_decay"]))

        return loss


class TinyLoraLinear(nn.Module):
    def __init__(self, dim, r):
        super().__init__()
        self.base_layer = nn.Linear(dim, dim)
        self.base_layer.weight.requires_grad_(False)
        self.lora_A = nn.Linear(dim, r, bias=False)
        self.lora_A.weight.requires_grad_(False)
        self.lora_B = nn.Linear(r, dim, bias=False)
        nn.init.normal_(self.lora_B.weight, std=0.1)

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(x)) * 2.0


def train_step(x, y, scaling_key, weight_decay=0.0, correct_bias=True):
    model = TinyLoraLinear(4, 2)
    names = ["base_layer.bias", "lora_A.weight", "lora_B.weight"]
    params = [model.base_layer.bias, model.lora_A.weight, model.lora_B.weight]
    group = {"params": params, "names": names}
    if scaling_key is not None:
        group[scaling_key] = [2.0] * 3 if scaling_key == "scaling_factors" else 2.0
    optimizer = LoraFAOptimizer([group], lr=0.1, weight_decay=weight_decay,
                                correct_bias=correct_bias)

    def closure():
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
        return loss

    losses = [optimizer.step(closure).detach() for _ in range(2)]
    return losses, [p.detach().clone() for p in params]


ENTRY = train_step


def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 4), torch.randn(3, 4), "scaling_factor"),
    (torch.randn(3, 4), torch.randn(3, 4), "scaling_factors", 0.1, False),
    (torch.randn(3, 4), torch.randn(3, 4), None),
]
