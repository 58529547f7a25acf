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
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and "/tf-" not in p
    )
    return env


def _run(out) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        str(SURVEY),
        "run",
        "--classes",
        ",".join(CLASSES),
        "--out",
        str(out),
        "--timeout",
        "240",
    ]
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
    assert sorted((r["class"], r["mode"]) for r in records) == sorted(
        (c, m) for c in CLASSES for m in hf_survey.MODES
    )
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
        assert (
            mended["eager_vs_plain"]["outputs"]["tensors"]
            == record["plain"]["eager"]["tensors"]
            > 0
        )
        if record["mode"] == "train":
            assert record["plain"]["eager"]["grads"] > 0, record["class"]
            assert agreement["grads"] is not None
        else:
            assert record["plain"]["eager"]["grads"] == 0 and agreement["grads"] is None
        # The mended model computes what the original computes, eagerly and compiled.
        assert agreement == {
            "outputs": True,
            "grads": agreement["grads"],
            "events": True,
            "exceptions": True,
        }
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
    rows = [
        {"class": f"C{i:03}", "modality": kind}
        for i, kind in enumerate(["text"] * 40 + ["vision"] * 8 + ["audio"] * 3)
    ]
    chosen = hf_survey.sample(rows)
    assert [r["class"] for r in chosen] == sorted(r["class"] for r in chosen)
    by_kind = {
        kind: [r for r in chosen if r["modality"] == kind] for kind in ("text", "vision", "audio")
    }
    assert [len(v) for v in by_kind.values()] == [
        hf_survey.SAMPLE_PER_MODALITY,
        hf_survey.SAMPLE_PER_MODALITY,
        3,
    ]
    texts = [int(r["class"][1:]) for r in by_kind["text"]]
    assert len({b - a for a, b in zip(texts, texts[1:])}) == 1  # evenly spaced
    shards = [hf_survey.shard(rows, f"{i}/4") for i in range(1, 5)]
    assert sorted(r["class"] for s in shards for r in s) == [r["class"] for r in rows]
    with pytest.raises(SystemExit):
        hf_survey.shard(rows, "0/4")


# ---------------------------------------------------------------------------------------------
# The builder's config scaling and input synthesis (hf_build.py), on config dicts and tensors.

import hf_build  # noqa: E402


def test_widths_equal_to_a_scaled_width_are_scaled_with_it():
    default = {
        "hidden_size": 1024,
        "vision_config": {"hidden_size": 768, "out_hidden_size": 1024},
        "adapter_input_size": 1024,
        "image_size": 1024,
        "intermediate_size": 1024,
    }
    tiny = {
        "hidden_size": 64,
        "vision_config": {"hidden_size": 64, "out_hidden_size": 1024},
        "adapter_input_size": 1024,
        "image_size": 1024,
        "intermediate_size": 64,
    }
    hf_build._keep_width_equalities(tiny, hf_build._width_changes(default, tiny))
    assert tiny["vision_config"]["out_hidden_size"] == 64 and tiny["adapter_input_size"] == 64
    assert tiny["image_size"] == 1024  # a size that is not a model width keeps its value


def test_rotary_sections_sum_to_half_the_tiny_head():
    values = {
        "hidden_size": 64,
        "num_attention_heads": 4,
        "rope_parameters": {"mrope_section": [24, 20, 20]},
    }
    hf_build._rescale_mrope_sections(values)
    assert sum(values["rope_parameters"]["mrope_section"]) == 8
    assert len(values["rope_parameters"]["mrope_section"]) == 3


def test_a_hybrid_keeps_an_attention_layer():
    values = {
        "num_hidden_layers": 2,
        "attn_layer_indices": None,
        "text_config": {"num_layers": 2, "attn_layer_indices": [9, 18]},
    }
    hf_build._keep_one_attention_layer(values)
    assert values["attn_layer_indices"] == [1] and values["text_config"]["attn_layer_indices"] == [
        1
    ]
    kept = {"num_hidden_layers": 2, "attn_layer_indices": [0]}
    hf_build._keep_one_attention_layer(kept)
    assert kept["attn_layer_indices"] == [0]
    pattern = {"num_hidden_layers": 2, "block_types": ["recurrent", "recurrent", "attention"]}
    hf_build._every_kind_in_repeated_patterns(pattern)
    assert (
        pattern["block_types"][:2] == ["recurrent", "attention"]
        and len(pattern["block_types"]) == 3
    )


def test_timm_backbones_and_unset_attention_sizes_are_replaced():
    values = {
        "backbone_config": {"model_type": "timm_backbone"},
        "use_timm_backbone": True,
        "encoder": {"use_pretrained_backbone": True},
    }
    hf_build._in_library_backbone(values, source="")
    assert values == {
        "backbone_config": None,
        "use_timm_backbone": False,
        "encoder": {"use_pretrained_backbone": False},
    }
    popped = {}
    hf_build._in_library_backbone(popped, source='kwargs.pop("use_timm_backbone", True)')
    assert popped == {"use_timm_backbone": False}
    unset = {
        "hidden_size": 64,
        "num_attention_heads": 4,
        "head_dim": None,
        "num_key_value_heads": None,
        "sliding_window": None,
        "layer_types": ["sliding_attention", "full_attention"],
    }
    hf_build._unset_attention_fields(unset)
    assert (unset["head_dim"], unset["num_key_value_heads"], unset["sliding_window"]) == (
        16,
        4,
        hf_build.SLIDING_WINDOW,
    )


def test_expert_configs_route_to_at_most_the_experts_they_have():
    ernie = {"moe_num_experts": 4, "moe_k": 6, "moe_num_shared_experts": 2}
    hf_build._expert_counts(ernie)
    assert ernie == {"moe_num_experts": 4, "moe_k": 4, "moe_num_shared_experts": 2}
    unset = {
        "intermediate_size": 64,
        "text_config": {
            "intermediate_size": 32,
            "num_experts": None,
            "top_k_experts": None,
            "moe_intermediate_size": None,
            "n_shared_experts": None,
        },
    }
    hf_build._expert_counts(unset)
    assert unset["text_config"] == {
        "intermediate_size": 32,
        "num_experts": 4,
        "top_k_experts": 2,
        "moe_intermediate_size": 32,
        "n_shared_experts": 1,
    }
    dense = {"intermediate_size": 64, "n_shared_experts": None}  # no routed experts: untouched
    hf_build._expert_counts(dense)
    assert dense == {"intermediate_size": 64, "n_shared_experts": None}


def test_image_feature_rows_and_boxes():
    import torch

    assert hf_build._feature_rows(torch.zeros(2, 9, 64)) == 18
    assert hf_build._feature_rows((torch.zeros(4, 64), torch.zeros(5, 64))) == 9
    boxes = hf_build.boxes(torch.Generator().manual_seed(0), (2, 8))
    assert boxes.shape == (2, 8, 4)
    assert bool((boxes[..., 0] <= boxes[..., 2]).all()) and bool(
        (boxes[..., 1] <= boxes[..., 3]).all()
    )


def test_patch_grid_models_get_patches_and_image_tokens():
    """A Qwen2-VL-style model: flattened patches with their grid, and as many image
    placeholder ids as its image features have rows (the model checks the count itself)."""
    done = subprocess.run(
        [sys.executable, "-c", _GRID_BUILD],
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(SURVEY.parent),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    variant, grid, placeholders, rows = done.stdout.split()[-4:]
    assert variant == "vision+text" and grid == "2x3"
    assert int(placeholders) == int(rows) > 0


_GRID_BUILD = """
import warnings; warnings.filterwarnings("ignore")
import torch, hf_arm, hf_build
model, kwargs, variant = hf_arm.build_model({"class": "Qwen2VLForConditionalGeneration"}, "eval")
token = model.config.image_token_id
with torch.no_grad():
    features = model.get_image_features(pixel_values=kwargs["pixel_values"], image_grid_thw=kwargs["image_grid_thw"])
rows = hf_build._feature_rows(features)
print("+".join(variant), "x".join(map(str, kwargs["image_grid_thw"].shape)), int((kwargs["input_ids"] == token).sum()), rows)
"""
