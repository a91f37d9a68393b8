# Two commands, each sets itself up: `make run` (main job) and `make test` (test suite).
PYTHON ?= python3
# The suite runs on two processes (pytest-xdist): the machine it is kept for has 2 cores.
TEST_WORKERS ?= 2
VENV := .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-all bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/prefstats demo

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) -m "not slow"

# Everything, the slow checks kept out of CI included.
test-all: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS)

bench: $(STAMP)
	$(VENV)/bin/python scripts/bench.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
