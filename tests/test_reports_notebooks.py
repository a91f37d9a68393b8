"""The notebooks run top to bottom on a tiny dataset, so they never rot."""

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
           "PREFSTATS_NOTEBOOK_HANDS": "2000", "PREFSTATS_NOTEBOOK_POLICY": "random"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits the test process's environment
    yield env
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def test_there_are_three_notebooks():
    assert len(NOTEBOOKS) >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, notebook_env):
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
