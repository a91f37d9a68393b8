# Two commands, each sets itself up: `make run` (main job) and `make test` (test suite).
PYTHON ?= python3
# The suite runs on two processes (pytest-xdist): the machine it is kept for has 2 cores.
TEST_WORKERS ?= 2
VENV := .venv
# `make run` installs only what running needs; the test suite, benchmarks and lint add
# the development extras (the runtime's stamp is then up to date too). No byte-compiling
# at install: Python compiles the modules it imports on first use, pip all of them.
RUN_STAMP := $(VENV)/.run-stamp
DEV_STAMP := $(VENV)/.dev-stamp

.PHONY: run serve test test-all bench lint docs notebooks screenshots reports guides clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(VENV)/bin/python
	@echo "installing prefstats and what it needs into $(VENV) (once: about half a minute)"
	$(VENV)/bin/python -m pip install --quiet --no-compile -e .
	touch $(RUN_STAMP)

$(DEV_STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install --quiet --no-compile -e '.[dev]'
	touch $(DEV_STAMP) $(RUN_STAMP)

run: $(RUN_STAMP)
	$(VENV)/bin/prefstats demo

# The explorer on http://127.0.0.1:8000/ (`make serve PORT=8080` for another port).
PORT ?= 8000
serve: $(RUN_STAMP)
	$(VENV)/bin/prefstats serve --port $(PORT)

# mkdocs runs without --quiet, which would hide the warnings --strict counts (a page
# outside the nav among them). The tests' Python processes (two workers and dozens they
# start) keep the bytecode of what they import, even where PYTHONDONTWRITEBYTECODE is
# set: each would otherwise compile the package, numba and polars again (~12 s CPU).
# mypy's cache sits beside the compile cache, so a fresh clone checks incrementally too.
# A worker that runs out of tests takes some of the other's (worksteal): the long ones do not
# leave one core idle at the end.
MYPY_CACHE ?= $(or $(PREFSTATS_CACHE),$(HOME)/.cache/prefstats)/mypy
test test-all: export PYTHONDONTWRITEBYTECODE =
test: $(DEV_STAMP)
	sh scripts/ensure_chromium.sh
	$(VENV)/bin/prefstats charts reports --quiet --workers $(TEST_WORKERS)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d site
	$(VENV)/bin/mypy --cache-dir $(MYPY_CACHE)
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal -m "not slow" --durations=15

# Everything, the slow checks kept out of CI included.
test-all: $(DEV_STAMP)
	sh scripts/ensure_chromium.sh
	$(VENV)/bin/prefstats charts reports --quiet --workers $(TEST_WORKERS)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d site
	$(VENV)/bin/mypy --cache-dir $(MYPY_CACHE)
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal

bench: $(DEV_STAMP)
	$(VENV)/bin/python scripts/bench.py --json reports/bench.json

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

# The reports' pictures (PNG, SVG, PDF) and the Parquet copies of their tables, which the
# repository does not keep, drawn from the committed tables in a few minutes (no
# simulation): `prefstats charts reports`.
reports: $(RUN_STAMP)
	$(VENV)/bin/prefstats charts reports --quiet

# The committed hand charts and guides remade by simulation, one preset after another
# (each is one command: `sh scripts/make_guide.sh VARIANT [PLAYERS]`); `make guides
# GUIDES="sochi classic:4"` remakes a few (a 4-player table as VARIANT:4, into
# reports/VARIANT-4p).
GUIDES ?= sochi leningrad rostov classic gusarik sochi:4 leningrad:4 rostov:4 classic:4
guides: $(RUN_STAMP)
	for g in $(GUIDES); do \
		PREFSTATS=$(VENV)/bin/prefstats sh scripts/make_guide.sh $${g%%:*} \
			$$(case $$g in *:*) echo $${g##*:};; esac) || exit 1; \
	done

# The documentation site in site/ (warnings are errors); `mkdocs serve` to browse it live.
docs: $(DEV_STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d site

# The example notebooks executed in place, committed with their outputs and figures.
notebooks: $(DEV_STAMP)
	$(VENV)/bin/python scripts/execute_notebooks.py

# The docs' screenshots of the article and a report page (headless Chromium).
screenshots: $(DEV_STAMP)
	sh scripts/ensure_chromium.sh
	$(VENV)/bin/python scripts/screenshots.py reports --out docs/screenshots \
		--page compare/index.html#how-much-do-the-cards-decide-and-how-much-skill \
		--page sochi/index.html --width 1280 --height 1400

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
