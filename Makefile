# Two commands do everything on a fresh machine:
#   make demo   set up, ingest the sample corpus on the embedded engines, run searches of every kind
#   make test   set up, lint (ruff check, ruff format --check) and run the tests: both tiers, the fast one and the
#               integration one (real engines), on two workers
# and one for the edit-test loop:
#   make test-fast   only the fast tier (no engines, seconds): pytest -m "not integration"
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export LANGSMITH_TEST_TRACKING := false
export LANGGRAPH_CLI_NO_ANALYTICS := 1

.PHONY: setup demo lint test test-fast bench

setup: $(VENV)/.installed

# torch is installed first and pinned: 2.13.0 is the CPU build this machine has on disk; an unpinned torch
# would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test,local-llm,int8]'
	touch $@

demo: setup
	$(BIN)/ragent demo

# Two workers, each a test file at a time (its module fixtures built once): most tests wait on Postgres, an engine or a
# subprocess on one core, so two cores finish in about 0.6 of the time of one worker (docs/benchmarks.md).
test: lint
	$(BIN)/python -m pytest -n 2 --dist loadfile

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test-fast: setup
	$(BIN)/python -m pytest -m "not integration"

bench: setup
	$(BIN)/pip install --quiet -e '.[test,bench]'
	$(BIN)/ragent bench
