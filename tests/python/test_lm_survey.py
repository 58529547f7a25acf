"""The LM survey (bench/models/lm_survey.py, `make lm-survey`) on two tiny architectures, a
decoder and an encoder-decoder, each in its own process: the JSON has every field the
report reads, nothing breaks, every output is equal, and the report section lands between
its markers (and survives the model suite's report rewriting the file)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("transformers")

from conftest import REPO_ROOT  # noqa: E402
from test_models import _environment  # noqa: E402

SURVEY = REPO_ROOT / "bench" / "models" / "lm_survey.py"
sys.path.insert(0, str(SURVEY.parent))
import lm_survey  # noqa: E402  (light: transformers is imported only inside its functions)
import suite_report  # noqa: E402

ARCHITECTURES = ("gpt2:GPT2LMHeadModel", "bart:BartForConditionalGeneration")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("lm-survey") / "survey.json"
    command = [sys.executable, str(SURVEY), "run", "--models", ",".join(ARCHITECTURES), "--jobs", "2",
               "--timeout", "300", "--out", str(out)]  # fmt: skip
    done = subprocess.run(command, env=_environment(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out) as handle:
        return json.load(handle)


def test_records_have_counts_and_equal_outputs(result):
    assert [r["arch"] for r in result["models"]] == list(ARCHITECTURES)
    assert {"transformers", "torch", "cpu", "graphmend"} <= set(result["environment"])
    for record in result["models"]:
        assert record["status"] == "ok", record
        assert record["kind"] == ("seq2seq" if "Conditional" in record["arch"] else "causal")
        for arm in ("plain", "mended"):
            assert record[arm]["explain"]["graph_break_count"] == 0
            assert record[arm]["counting_backend"]["graphs"] == 1
            assert record[arm]["compiled_close"]["equal"]
        assert record["mended"]["eager_equal"]["equal"]
        assert lm_survey.outputs_equal(record) == (True, True)
    assert "decoder_input_ids" in result["models"][1]["inputs"]


def test_report_section_replaced_in_place_and_kept(result, tmp_path):
    target = tmp_path / "RESULTS.md"
    target.write_text("# Results\n\nbefore\n")
    section = lm_survey.section(result)
    suite_report.replace_section(str(target), lm_survey.SECTION, section)
    suite_report.replace_section(str(target), lm_survey.SECTION, section)  # replaced, not added
    text = target.read_text()
    assert text.startswith("# Results\n\nbefore\n\n<!-- lm-survey:begin")
    assert text.count("<!-- lm-survey:begin") == 1 and text.endswith("<!-- lm-survey:end -->\n")
    assert "2 architectures, 2 built, 0 break before mending" in text
    assert "| `gpt2:GPT2LMHeadModel` | 0 → 0 | 1 → 1 | yes / yes |" in text
    assert suite_report._section_in(text, lm_survey.SECTION) == section
