"""The transformers survey's machinery (bench/models/hf_survey.py) on a few classes, eval and
train, through `hf_survey.py run` as `make hf-survey` runs it: the records have their fields,
the breaks are counted by the backend and by Dynamo's counters, the mended runs are compared
with the original, a second run resumes, and the report reads the records. The survey itself:
`make hf-survey-sample`, `make hf-survey`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("transformers")

from conftest import REPO_ROOT  # noqa: E402

SURVEY = REPO_ROOT / "bench" / "models" / "hf_survey.py"
sys.path.insert(0, str(SURVEY.parent))
import hf_arm  # noqa: E402
import hf_survey  # noqa: E402  (light: torch and transformers are imported inside their functions)

# A text model, and an audio model whose training-mode forward breaks graphs drawing its
# SpecAugment masks with numpy.
CLASSES = ("BertModel", "Wav2Vec2Model")


def _environment() -> dict:
    """The venv's own transformers: drop another version's folder from PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and "/tf-" not in p)
    return env


def _run(out) -> subprocess.CompletedProcess:
    command = [sys.executable, str(SURVEY), "run", "--classes", ",".join(CLASSES), "--out", str(out), "--timeout", "240"]
    done = subprocess.run(command, env=_environment(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    out = tmp_path_factory.mktemp("hf-survey") / "survey.jsonl"
    _run(out)
    return out


def _records(path) -> list[dict]:
    return [item for item in hf_survey.read_lines(str(path)) if "class" in item]


def test_every_class_runs_in_both_modes(survey):
    records = _records(survey)
    assert sorted((r["class"], r["mode"]) for r in records) == sorted((c, m) for c in CLASSES for m in hf_survey.MODES)
    for record in records:
        assert record["status"] == "ok", (record["class"], record["mode"], record.get("reason"))
        assert record["plain"]["variant"] == record["mended"]["variant"]
        assert record["plain"]["inputs"] == record["mended"]["inputs"]


def test_breaks_are_counted_by_the_backend_and_by_dynamo(survey):
    for record in _records(survey):
        for arm in ("plain", "mended"):
            counted = record[arm]["breaks"]
            assert counted["graphs"] >= 1
            assert counted["dynamo_breaks"] == sum(counted["dynamo_counter"].values())
            assert counted["logged"] == sum(g["count"] for g in counted["groups"])
            # Every graph after the first follows a break Dynamo counted.
            assert counted["dynamo_breaks"] >= (counted["graphs"] - 1 if counted["logged"] else 0)
            for group in hf_survey.groups(record, arm):
                assert group["family"] in hf_arm.FAMILY_ORDER
                assert group["graphmend"]["state"] in ("fixed", "declined", "untagged")


def test_outputs_and_gradients_are_compared(survey):
    for record in _records(survey):
        agreement = hf_survey.agreement(record)
        assert agreement["outputs"] is not None and agreement["events"] is not None
        mended = record["mended"]
        assert mended["eager_vs_plain"]["outputs"]["tensors"] == record["plain"]["eager"]["tensors"] > 0
        if record["mode"] == "train":
            assert record["plain"]["eager"]["grads"] > 0, record["class"]
            assert agreement["grads"] is not None
        else:
            assert record["plain"]["eager"]["grads"] == 0 and agreement["grads"] is None
        # The mended model computes what the original computes, eagerly and compiled.
        assert agreement == {"outputs": True, "grads": agreement["grads"], "events": True, "exceptions": True}
        assert agreement["grads"] in (True, None)


def test_a_second_run_resumes_and_the_report_reads_it(survey):
    lines = len(hf_survey.read_lines(str(survey)))
    done = _run(survey)
    assert "0 (class, mode) pairs to run" in done.stderr
    assert len(hf_survey.read_lines(str(survey))) == lines + 1  # only the run's own line
    records, runs = hf_survey.latest([str(survey)])
    text = hf_survey.section(records, runs, enumerated=len(CLASSES), sources=[str(survey)])
    assert f"Coverage: {len(CLASSES)} of the {len(CLASSES)} classes" in text
    assert all(f"| {mode} | {len(CLASSES)} of {len(CLASSES)} |" in text for mode in hf_survey.MODES)


def test_sample_and_shards_follow_their_rules():
    rows = [{"class": f"C{i:03}", "modality": kind} for i, kind in enumerate(["text"] * 40 + ["vision"] * 8 + ["audio"] * 3)]
    chosen = hf_survey.sample(rows)
    assert [r["class"] for r in chosen] == sorted(r["class"] for r in chosen)
    by_kind = {kind: [r for r in chosen if r["modality"] == kind] for kind in ("text", "vision", "audio")}
    assert [len(v) for v in by_kind.values()] == [hf_survey.SAMPLE_PER_MODALITY, hf_survey.SAMPLE_PER_MODALITY, 3]
    texts = [int(r["class"][1:]) for r in by_kind["text"]]
    assert len({b - a for a, b in zip(texts, texts[1:])}) == 1  # evenly spaced
    shards = [hf_survey.shard(rows, f"{i}/4") for i in range(1, 5)]
    assert sorted(r["class"] for s in shards for r in s) == [r["class"] for r in rows]
    with pytest.raises(SystemExit):
        hf_survey.shard(rows, "0/4")
