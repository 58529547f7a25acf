"""PEFT's KappaTuneSelector._compute_kappas: once per selector, the condition number of every
`nn.Linear` weight no larger than `max_dim_size_to_analyze` is read as a Python number
(`(S[0] / (S[-1] + 1e-8)).item()` over `torch.linalg.svdvals`), and of every fused
mixture-of-experts weight (a 3-D parameter named `*.gate_up_proj`, `*.down_proj`, ...) the
mean over its experts; `get_best_targets` ranks the modules by them. Python values from
tensor data: out of scope. A step builds a selector over a small model and asks for its
best targets and target parameters by count, share or threshold. Shrunk: no bitsandbytes
weights (`bnb` is None) and no progress bars (`show_progress=False`)."""

from typing import Optional

import torch
from torch import nn

ORIGIN = "huggingface/peft: src/peft/helpers.py: KappaTuneSelector._compute_kappas"
CATEGORY = "out_of_scope"

bnb = None


class KappaTuneSelector:
    def __init__(
        self,
        model: nn.Module,
        max_dim_size_to_analyze: int = 16384,
        moe_param_suffixes: Optional[tuple[str, ...]] = None,
        show_progress: bool = True,
    ):
        self.model = model
        self.max_dim_size_to_analyze = max_dim_size_to_analyze
        self.show_progress = show_progress
        self.moe_param_suffixes = moe_param_suffixes or (
            ".gate_up_proj",
            ".down_proj",
            ".gate_proj",
            ".up_proj",
        )
        self._condition_numbers: Optional[dict[str, float]] = None
        self._parameter_condition_numbers: Optional[dict[str, float]] = None

    def _compute_kappas(self) -> None:
        if self._condition_numbers is not None:
            return

        # === 1. nn.Linear modules ===
        condition_numbers: dict[str, float] = {}
        linear_modules = [
            (module_name, module)
            for module_name, module in self.model.named_modules()
            if isinstance(module, nn.Linear)
        ]
        linear_iter = linear_modules
        for module_name, module in linear_iter:
            weight = module.weight
            if bnb is not None:
                if hasattr(weight, "quant_state"):  # 4-bit
                    w = bnb.functional.dequantize_4bit(weight.data, weight.quant_state).float()
                elif hasattr(weight, "state") and hasattr(weight.state, "CB"):  # int8
                    w = bnb.functional.int8_vectorwise_dequant(weight.state.CB, weight.state.SCB).float()
                else:
                    w = weight.data.detach().float()
            else:
                w = weight.data.detach().float()

            if any(dim > self.max_dim_size_to_analyze for dim in w.shape):
                continue

            S = torch.linalg.svdvals(w.view(w.size(0), -1))
            kappa = (S[0] / (S[-1] + 1e-8)).item()
            condition_numbers[module_name] = kappa

        self._condition_numbers = condition_numbers

        # === 2. fused MoE parameters (3D nn.Parameter) ===
        parameter_condition_numbers: dict[str, float] = {}
        moe_params = [
            (param_name, param)
            for param_name, param in self.model.named_parameters()
            if any(param_name.endswith(s) for s in self.moe_param_suffixes) and param.dim() == 3
        ]
        moe_iter = moe_params
        for param_name, param in moe_iter:
            w = param.data.detach().float()
            num_experts, *expert_shape = w.shape

            if any(dim > self.max_dim_size_to_analyze for dim in expert_shape):
                continue

            kappas = []
            for expert_idx in range(num_experts):
                expert_w = w[expert_idx]
                S = torch.linalg.svdvals(expert_w)
                kappa = (S[0] / (S[-1] + 1e-8)).item()
                kappas.append(kappa)
            kappa = sum(kappas) / len(kappas)
            parameter_condition_numbers[param_name] = kappa

        self._parameter_condition_numbers = parameter_condition_numbers

    def get_best_targets(
        self, top_p: Optional[float] = None, num_modules: Optional[int] = None, threshold: Optional[float] = None
    ) -> list[str]:
        self._compute_kappas()
        if not self._condition_numbers:
            return []

        sorted_modules = sorted(self._condition_numbers.items(), key=lambda x: x[1])

        if num_modules is not None:
            k = min(num_modules, len(sorted_modules))
            return [name for name, _ in sorted_modules[:k]]

        if top_p is not None:
            k = max(1, int(len(sorted_modules) * top_p))
            return [name for name, _ in sorted_modules[:k]]

        if threshold is not None:
            return [name for name, kappa in sorted_modules if kappa <= threshold]

        return [name for name, _ in sorted_modules]

    def get_best_target_parameters(
        self, top_p: Optional[float] = None, num_modules: Optional[int] = None, threshold: Optional[float] = None
    ) -> list[str]:
        self._compute_kappas()
        if not self._parameter_condition_numbers:
            return []

        sorted_params = sorted(self._parameter_condition_numbers.items(), key=lambda x: x[1])

        if num_modules is not None:
            k = min(num_modules, len(sorted_params))
            return [name for name, _ in sorted_params[:k]]

        if top_p is not None:
            k = max(1, int(len(sorted_params) * top_p))
            return [name for name, _ in sorted_params[:k]]

        if threshold is not None:
            return [name for name, kappa in sorted_params if kappa <= threshold]

        return [name for name, _ in sorted_params]


class Experts(nn.Module):
    def __init__(self, num_experts, dim):
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, dim, 2 * dim))
        self.down_proj = nn.Parameter(torch.randn(num_experts, dim, dim))


class TinyMoEModel(nn.Module):
    def __init__(self, dim, with_experts):
        super().__init__()
        self.q_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.wide = nn.Linear(dim, 4 * dim)
        if with_experts:
            self.experts = Experts(2, dim)


def select_targets(weights, dim, with_experts, max_dim, top_p=None, num_modules=None, threshold=None):
    model = TinyMoEModel(dim, with_experts)
    with torch.no_grad():
        for param, value in zip(model.parameters(), weights):
            param.copy_(value)
    selector = KappaTuneSelector(model, max_dim_size_to_analyze=max_dim, show_progress=False)
    return (
        selector.get_best_targets(top_p=top_p, num_modules=num_modules, threshold=threshold),
        selector.get_best_target_parameters(top_p=top_p, num_modules=num_modules, threshold=threshold),
    )


ENTRY = select_targets


def _weights(dim, with_experts):
    return [torch.randn_like(p) for p in TinyMoEModel(dim, with_experts).parameters()]


torch.manual_seed(0)
INPUTS = [
    (_weights(4, True), 4, True, 16, None, 2),
    (_weights(4, True), 4, True, 6, 0.5),
    (_weights(3, False), 3, False, 16, None, None, 20.0),
    (_weights(3, False), 3, False, 2),
]
