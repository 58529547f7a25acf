"""OpenRLHF's `set_z3_leaf_modules`, which the Actor (and the reward/critic model factory) runs
on a freshly loaded model: it walks `model.modules()` and collects, as DeepSpeed ZeRO-3 leaf
classes, every MoE block (`"SparseMoeBlock"` in the class name) and, when `detect_hybrid` (or
the OPENRLHF_Z3_LEAF_HYBRID environment variable) asks for it, every class whose instances have
different child submodules (a hybrid decoder layer: `self_attn` in one, `linear_attn` in
another); the classes found are handed to `deepspeed.utils.set_z3_leaf_modules` and each is
announced with `print(f"Setting zero3 leaf: {cls.__name__}")`. The step marks a tiny model's
leaves and runs it. DeepSpeed's helper is a stand-in (it flags the instances `_z3_leaf` and
raises when none is found, as DeepSpeed's does); the environment variable is left unset, and
each input has a model of its own (freshly loaded: no leaf flags from an earlier run). The
`print` in the loop over the classes breaks plain torch.compile."""

import os
import types

import torch
import torch.nn as nn

ORIGIN = "OpenRLHF/OpenRLHF: openrlhf/models/utils.py: set_z3_leaf_modules"
CATEGORY = "defer"


def _ds_set_z3_leaf_modules(model, leaf_module_classes, raise_if_not_found=True):
    leaf_modules = []
    for module in model.modules():
        if module.__class__ in leaf_module_classes:
            module._z3_leaf = True
            leaf_modules.append(module)
    if len(leaf_modules) == 0 and raise_if_not_found:
        raise ValueError(f"No modules of type {leaf_module_classes} found in model {model}")
    return leaf_modules


deepspeed = types.SimpleNamespace(utils=types.SimpleNamespace(set_z3_leaf_modules=_ds_set_z3_leaf_modules))


def set_z3_leaf_modules(model: nn.Module, detect_hybrid: bool = True) -> None:
    if os.environ.get("OPENRLHF_Z3_LEAF_HYBRID", "").strip().lower() in ("1", "true", "yes", "on"):
        detect_hybrid = True

    z3_leaf_classes = set()
    child_sigs: dict[type, frozenset[str]] = {}

    for m in model.modules():
        # MoE: dynamic expert routing
        if "SparseMoeBlock" in m.__class__.__name__:
            z3_leaf_classes.add(m.__class__)
            continue

        # Hybrid: same class, different child submodules across instances
        if detect_hybrid:
            cls = m.__class__
            children = frozenset(name for name, _ in m.named_children())
            if not children:
                continue
            if cls in child_sigs:
                if child_sigs[cls] != children:
                    z3_leaf_classes.add(cls)
            else:
                child_sigs[cls] = children

    if z3_leaf_classes:
        deepspeed.utils.set_z3_leaf_modules(model, list(z3_leaf_classes))
        for cls in z3_leaf_classes:
            print(f"Setting zero3 leaf: {cls.__name__}")


class TinySparseMoeBlock(nn.Module):
    def __init__(self, dim=4, num_experts=2):
        super().__init__()
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_experts))

    def forward(self, x):
        weights = self.gate(x).softmax(-1)
        return sum(weights[..., i : i + 1] * expert(x) for i, expert in enumerate(self.experts))


class DecoderLayer(nn.Module):
    def __init__(self, dim=4, linear=False, moe=False):
        super().__init__()
        if linear:
            self.linear_attn = nn.Linear(dim, dim)
        else:
            self.self_attn = nn.Linear(dim, dim)
        self.mlp = TinySparseMoeBlock(dim) if moe else nn.Linear(dim, dim)

    def forward(self, x):
        attn = self.linear_attn if hasattr(self, "linear_attn") else self.self_attn
        return x + self.mlp(torch.tanh(attn(x)))


class TinyCausalLM(nn.Module):
    def __init__(self, kinds, moe=False):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(linear=kind == "linear", moe=moe) for kind in kinds)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


torch.manual_seed(0)
MODELS = {
    "dense": TinyCausalLM(["full", "full"]),
    "moe": TinyCausalLM(["full", "full"], moe=True),
    "hybrid": TinyCausalLM(["linear", "full"]),
    "hybrid_again": TinyCausalLM(["linear", "full"]),
}


def reset():
    for model in MODELS.values():
        for module in model.modules():
            module.__dict__.pop("_z3_leaf", None)


def prepare(x, name, detect_hybrid):
    model = MODELS[name]
    set_z3_leaf_modules(model, detect_hybrid=detect_hybrid)
    leaves = [n for n, m in model.named_modules() if getattr(m, "_z3_leaf", False)]
    return model(x), leaves


ENTRY = prepare
INPUTS = [
    (torch.randn(2, 4), "moe", False),
    (torch.randn(2, 4), "hybrid", True),
    (torch.randn(2, 4), "hybrid_again", False),
    (torch.randn(2, 4), "dense", True),
]
