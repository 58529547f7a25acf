"""Routed mixture-of-experts loop against its static-shape form (graphmend.runtime.moe),
side by side in one run, on the sparse MoE blocks of transformers 4.52.4 (run it with
bench/models/tfenv.sh 4.52.4; `make bench-moe`).

Each block is built from its config class (seeded, random weights) and mended with
`graphmend.mend` ([Moe]: the loop calls `experts_hit`, `routed_where` and
`routed_index_add_` in place of `.tolist()` of the experts hit, `torch.where(mask)` and
`index_add_`). Reported per block and token count: breaks and graphs
(torch._dynamo.explain) before and after, the largest difference from the eager original (compiled with Inductor), and
the median time per call of the eager original, the compiled original (with its breaks)
and the compiled mended block, over interleaved repeats.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import time

import torch

import graphmend

# (module, block class, config class, config arguments)
BLOCKS = {
    "mixtral": ("mixtral", "MixtralSparseMoeBlock", "MixtralConfig", {}),
    "qwen2_moe": ("qwen2_moe", "Qwen2MoeSparseMoeBlock", "Qwen2MoeConfig", {}),
    "qwen3_moe": ("qwen3_moe", "Qwen3MoeSparseMoeBlock", "Qwen3MoeConfig", {}),
    "phimoe": ("phimoe", "PhimoeSparseMoeBlock", "PhimoeConfig", {}),
    "olmoe": ("olmoe", "OlmoeSparseMoeBlock", "OlmoeConfig", {}),
}
def config_for(module, config_class, hidden, inner, experts, top_k):
    config = getattr(importlib.import_module(f"transformers.models.{module}"), config_class)()
    for name, value in {
        "hidden_size": hidden,
        "intermediate_size": inner,
        "moe_intermediate_size": inner,
        "shared_expert_intermediate_size": inner,
        "num_local_experts": experts,
        "num_experts": experts,
        "num_experts_per_tok": top_k,
    }.items():
        if hasattr(config, name):
            setattr(config, name, value)
    return config


def breaks(module, x):
    """Break reasons and graphs: a break inside a loop drops the whole frame to eager, with
    no reason counted and 0 graphs."""
    torch._dynamo.reset()
    explained = torch._dynamo.explain(module)(x)
    return len(explained.break_reasons), explained.graph_count


def first(output):
    return output[0] if isinstance(output, tuple) else output


def median_us(fn, x, calls, repeats):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(x)
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return samples


def measure(name, args):
    module, block_name, config_name, _ = BLOCKS[name]
    block_class = getattr(
        importlib.import_module(f"transformers.models.{module}.modeling_{module}"), block_name
    )
    config = config_for(module, config_name, args.hidden, args.inner, args.experts, args.top_k)
    torch.manual_seed(0)
    original = block_class(config).eval()
    copy = block_class(config).eval()
    copy.load_state_dict(original.state_dict())
    mended, report = graphmend.mend(copy, report=True)
    if not any(d.rewrite == "moe" and d.fixed for d in report.diagnostics):
        raise SystemExit(f"{block_name}: the routed loop was not rewritten")
    rows = []
    for tokens in args.tokens:
        torch.manual_seed(1)
        x = torch.randn(1, tokens, args.hidden)
        with torch.no_grad():
            expected = first(original(x))
            row = {"block": name, "tokens": tokens}
            row["breaks_before"], row["graphs_before"] = breaks(original, x)
            row["breaks_after"], row["graphs_after"] = breaks(mended, x)
            torch._dynamo.reset()
            compiled_original = torch.compile(original)
            compiled_mended = torch.compile(mended)
            row["max_diff_inductor"] = (first(compiled_mended(x)) - expected).abs().max().item()
            row["max_diff_original_inductor"] = (
                (first(compiled_original(x)) - expected).abs().max().item()
            )
            arms = {
                "eager": original,
                "compiled_original": compiled_original,
                "compiled_mended": compiled_mended,
            }
            for fn in arms.values():
                fn(x)  # warm
            samples = {arm: [] for arm in arms}
            for _ in range(args.repeats):  # interleaved: each repeat times every arm
                for arm, fn in arms.items():
                    samples[arm] += median_us(fn, x, args.calls, 1)
            for arm in arms:
                row[f"{arm}_us"] = round(statistics.median(samples[arm]), 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", nargs="+", default=list(BLOCKS))
    parser.add_argument("--tokens", nargs="+", type=int, default=[16, 256])
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--inner", type=int, default=128)
    parser.add_argument("--experts", type=int, default=8)
    parser.add_argument("--top-k", type=int, default=2)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    torch.set_num_threads(1)
    import transformers

    rows = [row for name in args.blocks for row in measure(name, args)]
    result = {
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "args": vars(args),
        "rows": rows,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
