"""The model suite's fast subset: a few zoo models, each arm in its own process through
`bench/models/suite.py arm` with the eager backend (no Inductor), under the venv's
transformers (5.x). Asserts break counts before and after mending, the reason of the break
GraphMend leaves, equal outputs and identical weights. The full suite: `make models`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from conftest import REPO_ROOT  # noqa: E402

SUITE = REPO_ROOT / "bench" / "models" / "suite.py"
sys.path.insert(0, str(SUITE.parent))
import suite  # noqa: E402  (light: torch is imported only inside its functions)


def _environment() -> dict:
    """The venv's own transformers: drop another version's folder from PYTHONPATH."""
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and "/tf-" not in p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    return env


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


def run_arm(workdir, model: str, arm: str) -> dict:
    out = workdir / f"{model}-{arm}"
    command = [
        sys.executable, str(SUITE), "arm", "--model", model, "--arm", arm, "--backend", "eager",
        "--repeats", "2", "--steady-seconds", "0", "--graphmend-cache", str(workdir / "graphmend-cache"),
        "--out", str(out), "--json", str(out) + ".json",
    ]  # fmt: skip
    done = subprocess.run(command, env=_environment(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(str(out) + ".json") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def arms(workdir):
    cache: dict = {}

    def get(model: str):
        if model not in cache:
            cache[model] = {arm: run_arm(workdir, model, arm) for arm in suite.ARMS}
        return cache[model]

    return get


def explain_breaks(record: dict) -> int:
    return record["breaks"]["explain"]["graph_break_count"]


def counted_breaks(record: dict) -> int:
    return record["breaks"]["counting_backend"]["graphs"] - 1


def check_same_model(original: dict, mended: dict) -> None:
    assert original["weights_sha256"] == mended["weights_sha256"]
    assert original["inputs_sha256"] == mended["inputs_sha256"]
    outputs = suite.compare_outputs(original, mended)
    assert outputs["eager_exact"]["equal"], outputs
    assert outputs["equal"], outputs
    assert mended["graphmend"]["failed"] == 0


@pytest.mark.parametrize("model", ["bart", "plbart", "grounding_dino"])
def test_breaks_removed(arms, model):
    original, mended = arms(model)["original"], arms(model)["mended"]
    assert original["environment"]["transformers"].startswith("5."), original["environment"]
    assert explain_breaks(original) > 0 and counted_breaks(original) > 0
    assert explain_breaks(mended) == 0, mended["breaks"]["explain"]["breaks"]
    assert counted_breaks(mended) == 0, mended["breaks"]["counting_backend"]["grouped"]
    check_same_model(original, mended)


def test_clap_keeps_its_dynamic_shape_break(arms):
    """torch.where(mask)[0] has a data-dependent shape: no rewrite can keep it in one graph."""
    original, mended = arms("clap")["original"], arms("clap")["mended"]
    assert explain_breaks(original) == 1
    assert explain_breaks(mended) == 1
    for record in (original, mended):
        (reason,) = record["breaks"]["explain"]["breaks"]
        assert reason["reason"].startswith("Dynamic shape operator"), reason
        assert reason["where"].startswith("transformers/models/clap/modeling_clap.py:"), reason
        assert "torch.where(" in reason["code"], reason
    assert (
        mended["breaks"]["explain"]["breaks"][0]["where"]
        == original["breaks"]["explain"]["breaks"][0]["where"]
    )
    check_same_model(original, mended)


def test_longformer_without_global_attention_keeps_only_its_item(arms):
    """The padding warning is deferred; the `.item()` on "is there any global token" stays:
    its answer decides the shapes of the branches after it."""
    original, mended = arms("longformer_local")["original"], arms("longformer_local")["mended"]
    assert explain_breaks(original) == 4
    assert explain_breaks(mended) == 2
    left = mended["breaks"]["explain"]["breaks"]
    assert {(b["where"].rsplit(":", 1)[0], b["reason"].split(" with ")[0]) for b in left} == {
        ("transformers/models/longformer/modeling_longformer.py", "Unsupported Tensor.item() call")
    }
    assert any(
        b["reason"].startswith("logging.Logger") for b in original["breaks"]["explain"]["breaks"]
    )
    check_same_model(original, mended)


def test_runtime_aware_compile_leaves_longformer_one_break(workdir, arms):
    """Runtime-aware graphmend.compile over the mended transformers: the `.item()` break is
    in the encoder, below the compiled frame, so nested_graph_breaks keeps the model's own
    frame whole and one break is left (the paper: 5 -> 2 or 3)."""
    original, mended = arms("longformer_local")["original"], arms("longformer_local")["mended"]
    runtime = run_arm(workdir, "longformer_local", suite.RUNTIME_ARM)
    report = runtime[suite.RUNTIME_ARM]
    assert report["enabled"] == ["nested_graph_breaks"], report
    assert report["rejected"]["capture_scalar_outputs"].startswith("not needed"), report
    assert explain_breaks(runtime) == 1 < explain_breaks(mended) == 2
    (left,) = runtime["breaks"]["explain"]["breaks"]
    assert left["reason"].startswith("Unsupported Tensor.item() call"), left
    assert runtime["weights_sha256"] == original["weights_sha256"]
    outputs = suite.compare_outputs(original, runtime)
    assert outputs["eager_exact"]["equal"] and outputs["equal"], outputs


def test_arm_record_has_the_measurements(arms):
    mended = arms("bart")["mended"]
    assert 0 < mended["first_call_s"] < mended["cold_start_s"]
    assert mended["steady"]["repeats"] == 2 and mended["steady"]["median_ms"] > 0
    assert mended["graphmend"]["mended"] + mended["graphmend"]["cache_hits"] > 0
    # GraphMend's import is timed alone, after torch: a small part of all the imports.
    assert mended["graphmend"]["import_timed"] == "install"
    assert 0 < mended["graphmend"]["import_s"] < mended["marks"]["imports_s"] / 2
    assert mended["setup"]["dtype"] == "float16"


@pytest.fixture
def suite_environment(monkeypatch):
    """This process's environment as `_environment` makes it, for the suite's own launches."""
    for key, value in _environment().items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)


def test_paired_round_measures_both_arms_in_turns(workdir, suite_environment):
    """A paired steady round: both arms' processes start together and measure in turns on
    one CPU; each arm gets its own record."""
    args = suite.main_parser().parse_args(
        [
            "steady",
            "unused.json",
            "--backend",
            "eager",
            "--steady-rounds",
            "2",
            "--steady-seconds",
            "0.2",
        ]
    )
    out_dir = workdir / "paired"
    out_dir.mkdir()
    rounds = suite.steady_rounds(args, "pegasus", str(out_dir))
    for arm in suite.ARMS:
        assert len(rounds[arm]) == 2, rounds
        for record in rounds[arm]:
            assert record.get("paired") is True, record
            # 0.2 s in 0.05 s turns: four turns, at least one call in each
            assert record["repeats"] >= 4 and record["median_ms"] > 0


def test_run_into_a_used_folder_starts_the_cold_arm_from_an_empty_cache(tmp_path, monkeypatch):
    cache = Path(suite._graphmend_cache(str(tmp_path), "bart"))
    cache.mkdir(parents=True)
    (cache / "entry.gmc").write_text("from the run before")
    seen = {}

    def run_arm(args, model, arm_name, graphmend_cache, out_dir, label, quick=False, **kwargs):
        seen[label] = sorted(os.listdir(graphmend_cache)) if os.path.isdir(graphmend_cache) else []
        return {"weights_sha256": "w", "cold_start_s": 1.0}

    monkeypatch.setattr(suite, "run_arm", run_arm)
    monkeypatch.setattr(suite, "compare_outputs", lambda original, mended: {"equal": True})
    args = suite.main_parser().parse_args(["run", "--update", "--steady-rounds", "0"])
    suite.run_model(args, "bart", str(tmp_path))
    assert seen["mended-cold"] == []


def test_run_update_replaces_and_adds_models():
    args = suite.main_parser().parse_args(["run", "--update"])
    previous = {
        "transformers": "5.x",
        "command": "python suite.py run",
        "models": [{"model": "t5", "v": 1}, {"model": "bart", "v": 1}],
    }
    entries = [{"model": "bart", "v": 2}, {"model": "longformer_local", "v": 2}]
    result = suite._result(args, "5.x", entries, 0.0, ["suite.py", "run", "--update"], previous)
    assert [(e["model"], e["v"]) for e in result["models"]] == [
        ("t5", 1),
        ("bart", 2),
        ("longformer_local", 2),
    ]
    assert result["command"] == "python suite.py run"  # the first run's, kept
    (update,) = result["updates"]
    assert update["kind"] == "run" and update["command"].endswith("run --update")
    assert update["models"] == ["bart", "longformer_local"]


def test_report_lists_later_commands_in_the_order_they_ran():
    import suite_report

    updates = [
        {"kind": "run", "command": "suite.py run --update --models gdino", "models": ["gdino"], "seconds": 1680},
        {"kind": "steady", "command": "suite.py steady --models clap", "models": ["clap"], "seconds": 600},
        {"kind": "runtime", "command": "suite.py runtime", "models": ["clap"], "seconds": 120},
        {"command": "suite.py run --update --models t5", "models": ["t5"], "seconds": 60},  # before kinds
    ]  # fmt: skip
    lines = [
        line
        for line in suite_report._update_lines({"pythonpath": "tf", "updates": updates})
        if line
    ]
    assert lines == [
        "Added or run again in 28 min (gdino): `PYTHONPATH=tf suite.py run --update --models gdino`",
        "Steady-state rounds measured again in 10 min (clap): `PYTHONPATH=tf suite.py steady --models clap`",
        "Runtime-aware arm measured again in 2 min (clap): `PYTHONPATH=tf suite.py runtime`",
        "Added or run again in 1 min (t5): `PYTHONPATH=tf suite.py run --update --models t5`",
    ]


def test_calibrate_against_pairs_two_arms_in_alternating_turns(suite_environment, monkeypatch):
    turn_orders = []
    real = suite._paired_round

    def paired_round(args, model, cache, out_dir, sides):
        turn_orders.append([arm for arm, _, _ in sides])
        records = real(args, model, cache, out_dir, sides)
        for (arm, _, _), record in zip(sides, records):
            record["steady"]["ran"] = arm  # which arm's process measured it
        return records

    monkeypatch.setattr(suite, "_paired_round", paired_round)
    args = suite.main_parser().parse_args(
        ["calibrate", "--model", "pegasus", "--backend", "eager", "--arm", "hooked", "--against", "mend_only",
         "--steady-rounds", "2", "--steady-seconds", "0.2"]
    )  # fmt: skip
    result = suite.calibrate_main(args)
    assert result["arms"] == ["hooked", "mend_only"]
    assert turn_orders == [["hooked", "mend_only"], ["mend_only", "hooked"]]
    for one in result["rounds"]:  # second / first is mend_only / hooked in both orders
        assert (one["first"]["ran"], one["second"]["ran"]) == ("hooked", "mend_only")
        assert one["first"]["paired"] and one["second"]["paired"]
        assert one["ratio"] == one["second"]["median_ms"] / one["first"]["median_ms"]


def test_calibrate_pairs_one_arm_with_itself(suite_environment):
    args = suite.main_parser().parse_args(
        [
            "calibrate",
            "--model",
            "pegasus",
            "--backend",
            "eager",
            "--steady-rounds",
            "1",
            "--steady-seconds",
            "0.2",
        ]
    )
    result = suite.calibrate_main(args)
    (only,) = result["rounds"]
    assert only["first"]["paired"] and only["second"]["paired"]
    assert only["ratio"] == only["second"]["median_ms"] / only["first"]["median_ms"]
    assert result["median_ratio"] == only["ratio"]


def test_cost_runs_the_arms_again_from_an_emptied_graphmend_cache(tmp_path, monkeypatch):
    import zoo

    path = tmp_path / "results.json"
    cache = tmp_path / "results.d" / "graphmend-cache" / "bart"
    cache.mkdir(parents=True)
    (cache / "entry.gmc").write_text("from an earlier build")
    arm = {"weights_sha256": "w", "cold_start_s": 20.0}
    old = {
        "model": "bart", "original": {**arm, "old": True}, "mended": {**arm, "old": True},
        "mended_warm": {"old": True}, "steady_rounds": {"kept": True},
    }  # fmt: skip
    path.write_text(
        json.dumps({"transformers": zoo.TF_VERSION, "command": "suite.py run", "models": [old]})
    )
    calls = []

    def run_arm(args, model, arm_name, graphmend_cache, out_dir, label, quick=False, **kwargs):
        found = sorted(os.listdir(graphmend_cache)) if os.path.isdir(graphmend_cache) else []
        calls.append((model, arm_name, label, quick, found))
        os.makedirs(graphmend_cache, exist_ok=True)
        if arm_name == "mended" and not quick:
            (Path(graphmend_cache) / "filled.gmc").write_text("by the cold arm")
        return {**arm, "label": label}

    monkeypatch.setattr(suite, "run_arm", run_arm)
    monkeypatch.setattr(
        suite, "compare_outputs", lambda original, mended: {"equal": mended["label"]}
    )
    suite.cost_main(suite.main_parser().parse_args(["cost", str(path)]))

    # Side by side, the mended cold arm from an emptied cache, the warm one from what it filled
    # (the original arm has no hook: the cache is not its business).
    assert calls == [
        ("bart", "original", "original", False, ["entry.gmc"]),
        ("bart", "mended", "mended-cold", False, []),
        ("bart", "mended", "mended-warm", True, ["filled.gmc"]),
    ]
    result = json.loads(path.read_text())
    (entry,) = result["models"]
    assert [entry[arm]["label"] for arm in ("original", "mended", "mended_warm")] == [
        "original", "mended-cold", "mended-warm"
    ]  # fmt: skip
    assert entry["steady_rounds"] == {"kept": True}
    assert entry["outputs"] == {"equal": "mended-cold"} and entry["weights_equal"] is True
    assert result["command"] == "suite.py run"  # the first run's, kept
    (update,) = result["updates"]
    assert update["kind"] == "cost" and update["models"] == ["bart"]
