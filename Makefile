# GraphMend developer entry points. `make test` and `make demo` set up everything they need
# on a fresh Debian 12 machine (Python 3.11, root or sudo, PyPI and Debian's apt reachable).
#
#   make deps    .venv with the pinned Python packages (requirements-dev.txt)
#   make build   C++ core + GoogleTest suite in build/ (CMake + Ninja)
#   make install the graphmend package (extension built by scikit-build-core in build-py/)
#   make test    ctest (C++ unit tests) + pytest (tests/python)
#   make test-inductor  only the tests that compile with Inductor (part of make test)
#   make asan    sanitizer build in build-asan/ + ctest
#   make fuzz    libFuzzer: fuzz_parse for FUZZ_SECONDS, fuzz_mend for FUZZ_MEND_SECONDS (clang-14)
#   make corpus  the differential corpus run alone (CORPUS_ARGS="--limit 500")
#   make bench   parse speed (stdlib) and whole-mend speed (transformers) vs ast.parse
#   make bench-moe  routed MoE loop vs its static-shape form, transformers 4.52.4's blocks
#   make bench-dense  masked stores, in-place updates and conditional expressions, dense vs original
#   make ddp-cost  graphs and steady step time under DDP (2 gloo ranks, CPU), unmended vs mended
#   make tf4524  transformers 4.52.4 in .venv/tf-4.52.4 (use with PYTHONPATH=.venv/tf-4.52.4)
#   make survey  graph breaks of bench/models/zoo.py under both transformers versions
#   make models  the model suite (breaks, outputs, cold start, latency) on both versions -> docs/RESULTS.md
#   make models-steady  the suite's steady-state rounds alone, into the existing results
#   make models-cost  both arms again without steady-state rounds: GraphMend's cost as it is now
#   make models-gpu  the same with --device cuda (bench/models/results/results-*-cuda.json)
#   make peer    the peer corpus (tests/peer) measured -> docs/PEER.md
#   make lm-survey  every causal/seq2seq LM architecture of transformers, tiny: breaks and
#                outputs, plain vs graphmend.compile -> its section of docs/RESULTS.md
#   make hf-survey  every base/causal-LM/conditional-generation class of transformers, tiny, eval
#                and train: breaks before and after the import hook, outputs and gradients
#                (HF_SURVEY_ARGS="--shard 3/8" for one shard) -> its section of docs/RESULTS.md
#   make hf-survey-sample  the same over the fixed sample of 20 classes
#   make export-models  torch.export before and after mending of the survey's classes (eval)
#   make demo    examples/model.py through the front end and the mender, then a transformers
#                model's breaks and latency before and after mending (bench/models/demo.py)
#   make lint    ruff (lint; the package's format), mypy against tools/mypy-baseline.txt (new
#                errors fail, and so do fixed ones until `make lint-baseline` records them),
#                clang-format --dry-run -Werror over the C++ sources
#   make format  clang-format -i over the C++ sources, ruff format over the package
#   make clean   remove build trees (keeps .venv); `make distclean` removes .venv too
SHELL := /bin/bash
.DEFAULT_GOAL := test

PYTHON_BOOT ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
CMAKE := $(VENV)/bin/cmake
CTEST := $(VENV)/bin/ctest
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 120
FUZZ_MEND_SECONDS ?= 60
FUZZ_SEEDS ?= 300
PYTEST_ARGS ?=
# Python test workers (pytest-xdist; each takes whole test files): every core by default.
PYTEST_WORKERS ?= auto
CORPUS_ARGS ?=
CLANG_VERSION := 14

export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export CMAKE_BUILD_PARALLEL_LEVEL := $(JOBS)
export PIP_DISABLE_PIP_VERSION_CHECK := 1

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Installs the Debian packages in $(1) that are not installed yet (apt-get update first).
define apt_ensure
	@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "apt-get install:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

DEPS_STAMP := $(VENV)/.deps-stamp
INSTALL_STAMP := $(VENV)/.graphmend-stamp
APT_TEST_STAMP := $(VENV)/.apt-test-stamp
# Everything the installed package is built from.
PACKAGE_INPUTS := $(shell find src python tools -type f \( -name '*.cpp' -o -name '*.h' \
	-o -name '*.def' -o -name '*.inc' -o -name '*.py' -o -name '*.json' \) 2>/dev/null) CMakeLists.txt pyproject.toml
CXX_SOURCES = $(shell find src tests/cpp fuzz bench -type f \( -name '*.cpp' -o -name '*.h' \) 2>/dev/null)

.PHONY: deps build install test test-cpp test-python test-inductor asan fuzz fuzz-build corpus bench bench-moe bench-dense demo \
	lint lint-baseline format clean distclean tf4524 survey ddp-cost

# --------------------------------------------------------------------------------------------
# Set-up.

$(VENV)/bin/python:
	$(PYTHON_BOOT) -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.txt requirements-lock.txt | $(VENV)/bin/python
	$(PIP) install -q -r requirements-dev.txt -c requirements-lock.txt
	touch $@

deps: $(DEPS_STAMP)

$(APT_TEST_STAMP): | $(VENV)/bin/python
	$(call apt_ensure,libgtest-dev)
	touch $@

# A regular (non-editable) install: robust across rebuilds. The build tree build-py/ is
# kept, so reinstalling after an edit recompiles only what changed.
$(INSTALL_STAMP): $(DEPS_STAMP) $(PACKAGE_INPUTS)
	$(PIP) install -q --no-build-isolation --no-deps .
	touch $@

install: $(INSTALL_STAMP)

# --------------------------------------------------------------------------------------------
# C++ build and tests.

build/build.ninja: $(DEPS_STAMP) $(APT_TEST_STAMP)
	$(CMAKE) -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DPython_EXECUTABLE=$(CURDIR)/$(PY)

build: build/build.ninja
	$(CMAKE) --build build

test-cpp: build
	$(CTEST) --test-dir build --output-on-failure -j $(JOBS)

test-python: install
	@mkdir -p build
	$(PY) -m pytest tests/python -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# The tests that compile with Inductor, graphmend.compile's default backend (also in test-python).
test-inductor: install
	$(PY) -m pytest tests/python -m inductor $(PYTEST_ARGS)

# Runs both suites (each with its own build step) even when the first fails, then fails if
# either did.
test:
	@status=0; \
	$(MAKE) --no-print-directory test-cpp || status=1; \
	$(MAKE) --no-print-directory test-python || status=1; \
	exit $$status

build-asan/build.ninja: $(DEPS_STAMP) $(APT_TEST_STAMP)
	$(CMAKE) -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGRAPHMEND_SANITIZE=ON \
	  -DPython_EXECUTABLE=$(CURDIR)/$(PY)

asan: build-asan/build.ninja
	$(CMAKE) --build build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  $(CTEST) --test-dir build-asan --output-on-failure -j $(JOBS)

# --------------------------------------------------------------------------------------------
# Fuzzing: arbitrary bytes through lexer + parser + dumper (both version modes). The seed
# corpus is copied from the stdlib at run time, plus fuzz/regressions (inputs that once
# crashed or hung, replayed every run); fails on any crash, leak or timeout.

build-fuzz/build.ninja: $(DEPS_STAMP)
	$(call apt_ensure,clang-$(CLANG_VERSION) libclang-rt-$(CLANG_VERSION)-dev)
	$(CMAKE) -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-$(CLANG_VERSION) -DGRAPHMEND_FUZZ=ON \
	  -DGRAPHMEND_BUILD_TESTS=OFF -DPython_EXECUTABLE=$(CURDIR)/$(PY)

fuzz-build: build-fuzz/build.ninja
	$(CMAKE) --build build-fuzz --target fuzz_parse fuzz_mend

# One libFuzzer run: $(1) target, $(2) seconds, $(3) seed folder.
define run_fuzzer
	mkdir -p build-fuzz/corpus-$(1) fuzz/artifacts
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  build-fuzz/$(1) build-fuzz/corpus-$(1) $(3) fuzz/regressions -dict=fuzz/python.dict \
	  -max_total_time=$(2) -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	  -artifact_prefix=fuzz/artifacts/$(1)- -print_final_stats=1
endef

fuzz: fuzz-build
	rm -rf build-fuzz/seeds build-fuzz/seeds-mend
	$(PY) fuzz/make_seeds.py --count $(FUZZ_SEEDS) --output build-fuzz/seeds
	$(PY) fuzz/make_seeds.py --count 50 --output build-fuzz/seeds-mend \
	  --extra examples --extra tests/golden --extra tests/cases
	$(call run_fuzzer,fuzz_parse,$(FUZZ_SECONDS),build-fuzz/seeds)
	$(call run_fuzzer,fuzz_mend,$(FUZZ_MEND_SECONDS),build-fuzz/seeds-mend)

# --------------------------------------------------------------------------------------------
# Corpus, benchmark, demo.

corpus: install
	@mkdir -p build
	$(PY) tests/python/corpus.py $(CORPUS_ARGS)

bench: install
	$(PY) bench/parse_speed.py
	$(PY) bench/mend_speed.py

# The dense forms (masked stores, in-place updates, conditional expressions) against their
# originals, Inductor both ways (docs/BENCHMARKS.md).
bench-dense: install
	$(PY) bench/dense_forms.py

# Graphs and steady step time under DDP (2 gloo ranks on CPU), unmended and mended.
ddp-cost: install
	@mkdir -p build
	$(PY) bench/ddp_cost.py --out build/ddp_cost.json $(DDP_COST_ARGS)

# A second transformers beside the venv's: only the packages 4.52.4 needs in other versions;
# torch and the rest still come from .venv.
TF4524 := $(VENV)/tf-4.52.4
TF4524_STAMP := $(TF4524)/.stamp
SURVEY_DIR ?= build/survey

$(TF4524_STAMP): requirements-tf4524.txt $(DEPS_STAMP)
	rm -rf $(TF4524)
	$(PIP) install -q --no-deps --target $(TF4524) -r requirements-tf4524.txt
	PYTHONPATH=$(TF4524) $(PY) -c 'import transformers as t; assert t.__version__ == "4.52.4", t.__version__'
	touch $@

tf4524: $(TF4524_STAMP)

# The routed expert loops of transformers 4.52.4 against their static-shape form
# (graphmend.runtime.moe), side by side: breaks, outputs, steady-state time (docs/BENCHMARKS.md).
bench-moe: install $(TF4524_STAMP)
	PYTHONPATH=$(TF4524) $(PY) bench/moe_dispatch.py --out bench/moe-dispatch-4.52.4.json

survey: $(TF4524_STAMP)
	@mkdir -p $(SURVEY_DIR)
	$(PY) bench/models/survey.py --out $(SURVEY_DIR)/survey-5.23.0.json
	PYTHONPATH=$(TF4524) $(PY) bench/models/survey.py --out $(SURVEY_DIR)/survey-4.52.4.json
	$(PY) bench/models/survey_report.py $(SURVEY_DIR)/survey-5.23.0.json \
	  $(SURVEY_DIR)/survey-4.52.4.json --out $(SURVEY_DIR)/survey.md

# --------------------------------------------------------------------------------------------
# The model suite (bench/models/suite.py): original vs mended arms, both transformers versions.
# MODELS_ARGS passes options to `suite.py run` (e.g. --models bart,t5 --repeats 5). The result
# JSONs are kept in the repository (bench/models/results), so that docs/RESULTS.md can be
# regenerated and single rows measured again; each run's work folder (`*.d`: arm records and
# saved outputs) is not.

MODELS_DIR ?= bench/models/results
MODELS_ARGS ?=
TF_VENV_VERSION := 5.23.0
BENCH_STAMP := $(VENV)/.bench-stamp

.PHONY: models models-gpu models-report models-steady models-cost lm-survey hf-survey hf-survey-sample

$(BENCH_STAMP): requirements-bench.txt $(DEPS_STAMP)
	$(PIP) install -q -r requirements-bench.txt
	touch $@

models: install $(TF4524_STAMP) $(BENCH_STAMP)
	@mkdir -p $(MODELS_DIR)
	$(PY) bench/models/suite.py run $(MODELS_ARGS) --out $(MODELS_DIR)/results-$(TF_VENV_VERSION).json
	PYTHONPATH=$(TF4524) $(PY) bench/models/suite.py run $(MODELS_ARGS) \
	  --out $(MODELS_DIR)/results-4.52.4.json
	$(MAKE) models-report

models-gpu: install $(TF4524_STAMP) $(BENCH_STAMP)
	@mkdir -p $(MODELS_DIR)
	$(PY) bench/models/suite.py run --device cuda $(MODELS_ARGS) \
	  --out $(MODELS_DIR)/results-$(TF_VENV_VERSION)-cuda.json
	PYTHONPATH=$(TF4524) $(PY) bench/models/suite.py run --device cuda $(MODELS_ARGS) \
	  --out $(MODELS_DIR)/results-4.52.4-cuda.json
	$(MAKE) models-report

# Every causal and seq2seq LM architecture of the venv's transformers, tiny: plain torch.compile
# against graphmend.compile, breaks and outputs (bench/models/lm_survey.py), into its JSON and
# its section of docs/RESULTS.md (`models-report` keeps that section). LM_SURVEY_ARGS: e.g.
# --models gpt2,t5 (a run with --models writes the same JSON: use --out elsewhere to keep it).
LM_SURVEY_ARGS ?= --jobs $(JOBS) --timeout 180
LM_SURVEY_JSON := $(MODELS_DIR)/lm-survey-$(TF_VENV_VERSION).json

lm-survey: install
	$(PY) bench/models/lm_survey.py run $(LM_SURVEY_ARGS) --out $(LM_SURVEY_JSON)
	$(PY) bench/models/lm_survey.py report $(LM_SURVEY_JSON) --out docs/RESULTS.md

# Every base *Model, *ForCausalLM and *ForConditionalGeneration class of the venv's transformers,
# tiny, in eval and train mode: plain torch.compile against the import-hook-mended model
# (bench/models/hf_survey.py). Resumable: pairs already in the JSON lines are skipped, so a
# stopped run or one shard at a time (HF_SURVEY_ARGS="--shard 3/8") fills the same file; the
# report merges what is there. The sample is the fixed 20 classes of hf_survey.sample.
HF_SURVEY_DIR ?= $(MODELS_DIR)
HF_SURVEY_ARGS ?=
HF_SURVEY_JSONL := $(HF_SURVEY_DIR)/hf-survey-$(TF_VENV_VERSION).jsonl
HF_SAMPLE_JSONL := $(HF_SURVEY_DIR)/hf-sample-$(TF_VENV_VERSION).jsonl
HF_BUILDS_JSON := $(HF_SURVEY_DIR)/hf-builds-$(TF_VENV_VERSION).json

# Which classes build at all (each built and run eagerly once, in one process: minutes).
$(HF_BUILDS_JSON): | install
	nice -n 10 $(PY) bench/models/hf_survey.py builds --out $@

hf-survey: install $(HF_BUILDS_JSON)
	@mkdir -p $(HF_SURVEY_DIR)
	nice -n 10 $(PY) bench/models/hf_survey.py run $(HF_SURVEY_ARGS) --out $(HF_SURVEY_JSONL)
	$(PY) bench/models/hf_survey.py report $(HF_SURVEY_DIR)/hf-survey-$(TF_VENV_VERSION)*.jsonl \
	  --builds $(HF_BUILDS_JSON) \
	  $(HF_SAMPLE_JSONL) --out docs/RESULTS.md

hf-survey-sample: install
	@mkdir -p $(HF_SURVEY_DIR)
	nice -n 10 $(PY) bench/models/hf_survey.py run --sample $(HF_SURVEY_ARGS) --out $(HF_SAMPLE_JSONL)
	$(PY) bench/models/hf_survey.py report $(HF_SAMPLE_JSONL)

# Only the steady-state rounds again (several processes per arm), into the CPU result JSONs.
models-steady: install $(TF4524_STAMP) $(BENCH_STAMP)
	$(PY) bench/models/suite.py steady $(MODELS_ARGS) $(MODELS_DIR)/results-$(TF_VENV_VERSION).json
	PYTHONPATH=$(TF4524) $(PY) bench/models/suite.py steady $(MODELS_ARGS) $(MODELS_DIR)/results-4.52.4.json
	$(MAKE) models-report

# Both arms again without the steady-state rounds, both versions: cold starts and GraphMend's
# own cost with the code as it is now (bench/models/results/cost-*.json, a section of the report).
models-cost: install $(TF4524_STAMP) $(BENCH_STAMP)
	@mkdir -p $(MODELS_DIR)
	$(PY) bench/models/suite.py run --steady-rounds 0 $(MODELS_ARGS) \
	  --out $(MODELS_DIR)/cost-$(TF_VENV_VERSION).json
	PYTHONPATH=$(TF4524) $(PY) bench/models/suite.py run --steady-rounds 0 $(MODELS_ARGS) \
	  --out $(MODELS_DIR)/cost-4.52.4.json
	$(MAKE) models-report

# Every result JSON in MODELS_DIR (CPU and GPU, and the cost runs) -> docs/RESULTS.md and
# docs/results.png.
models-report: $(BENCH_STAMP)
	$(PY) bench/models/suite.py report $$(ls -r $(MODELS_DIR)/results-*.json) \
	  --cost $$(ls -r $(MODELS_DIR)/cost-*.json 2>/dev/null) --out docs/RESULTS.md

# The example model's breaks, then the real job: a transformers model (BART, float16) compiled
# with Inductor as it is and with transformers mended at import, side by side.
DEMO_ARGS ?=
demo: install
	$(PY) -m graphmend.demo examples/model.py
	$(PY) bench/models/demo.py $(DEMO_ARGS)

# The package's Python style is `ruff format`'s (line length 100, pyproject.toml); tests,
# benchmarks and tools are linted but not reformatted.
PY_FORMATTED := python/graphmend

lint: $(DEPS_STAMP)
	$(call apt_ensure,clang-format)
	$(PY) -m ruff check
	$(PY) -m ruff format --check $(PY_FORMATTED)
	$(PY) tools/mypy_baseline.py
	@echo "clang-format --dry-run -Werror <the C++ sources>"
	@clang-format --dry-run -Werror $(CXX_SOURCES)

# Records mypy's errors after some were fixed (it refuses a new one).
lint-baseline: $(DEPS_STAMP)
	$(PY) tools/mypy_baseline.py --update

format: $(DEPS_STAMP)
	$(call apt_ensure,clang-format)
	clang-format -i $(CXX_SOURCES)
	$(PY) -m ruff format $(PY_FORMATTED)

clean:
	rm -rf build build-asan build-fuzz build-py $(INSTALL_STAMP)

distclean: clean
	rm -rf $(VENV) .pytest_cache .hypothesis

.PHONY: export-survey export-models
# torch.export before and after mending, strict and non-strict, over tests/cases and the
# peer corpus (docs/RESULTS.md, "torch.export").
export-survey: install
	$(PY) bench/export_survey.py

# torch.export before and after mending of the transformers survey's classes, eval mode
# (bench/models/hf_export.py): by default the classes the survey ran; resumable like it.
EXPORT_MODELS_ARGS ?= --surveyed $(wildcard $(HF_SURVEY_DIR)/hf-survey-$(TF_VENV_VERSION)*.jsonl) $(HF_SAMPLE_JSONL)
EXPORT_MODELS_JSONL := $(HF_SURVEY_DIR)/hf-export-$(TF_VENV_VERSION).jsonl
export-models: install
	nice -n 10 $(PY) bench/models/hf_export.py run $(EXPORT_MODELS_ARGS) --out $(EXPORT_MODELS_JSONL)
	$(PY) bench/models/hf_export.py report $(EXPORT_MODELS_JSONL) --out docs/RESULTS.md

# The peer corpus (tests/peer: programs re-written from real public code): breaks before and
# after mending and behaviour against the original -> bench/peer-results.json, docs/PEER.md.

.PHONY: peer
peer: install
	$(PY) bench/peer.py --json bench/peer-results.json --out docs/PEER.md
