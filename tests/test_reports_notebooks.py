"""The notebooks are committed executed, with their figures, and run top to bottom on a
tiny dataset here, so they never rot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def notebook_env(tmp_path_factory):
    env = {"PREFSTATS_NOTEBOOK_DIR": str(tmp_path_factory.mktemp("notebooks")),
           "PREFSTATS_NOTEBOOK_HANDS": "2000", "PREFSTATS_NOTEBOOK_POLICY": "random",
           "PREFSTATS_NOTEBOOK_BLOCKS": "1"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits the test process's environment
    yield env
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def test_the_notebooks_teach_each_question():
    """Reading a dataset readably, a plot per question, a variant comparison and a
    rollout of one hand: each notebook carries what it teaches."""
    text = {p.stem: p.read_text("utf-8") for p in NOTEBOOKS}
    assert len(text) >= 4
    explore = text["02_exploring_a_dataset"]
    for needed in ("prefstats.readable", "bidding_table", "whist_table", "raspasy_costs",
                   "seat_luck", "to_pandas"):
        assert needed in explore, needed
    assert explore.count("plt.show()") >= 4  # a plot per question
    assert "paired_differences" in text["03_variant_comparison"]
    assert "rollout(" in text["04_rollout_one_hand"]


def test_the_notebooks_are_committed_executed_with_their_figures():
    """Each notebook is committed as run top to bottom (``make notebooks``), so it reads
    on a repository page: every code cell run once and in order, no error, a figure
    for every plot shown."""
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert [c.get("execution_count") for c in code] == list(range(1, len(code) + 1)), \
            f"{path.stem}: not executed top to bottom (make notebooks)"
        outputs = [o for c in code for o in c.get("outputs", [])]
        assert not [o for o in outputs if o.get("output_type") == "error"], path.stem
        figures = sum("image/png" in o.get("data", {}) for o in outputs)
        assert figures >= sum(c.source.count("plt.show()") for c in code), path.stem


def test_jupyter_lab_comes_with_the_dev_install():
    import importlib.util

    assert importlib.util.find_spec("jupyterlab") is not None
    assert importlib.util.find_spec("ipykernel") is not None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, notebook_env):
    nb = nbformat.read(path, as_version=4)
    # per cell: the first run after an edit compiles the engine, minutes on a loaded machine
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
