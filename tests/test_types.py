"""mypy checks the public surface (``[tool.mypy]`` in ``pyproject.toml``, run by ``make
test``): a type error planted in a copy of a public module fails it, the clean copy
passes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLANTED = '\n\ndef _planted(kind: Kind) -> int:\n    return kind.name  # a str\n'


def mypy(root: Path, module: str, cache: Path) -> subprocess.CompletedProcess:
    """mypy with the project's configuration on one module of the package in ``root``."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(cache), module],
        cwd=root, capture_output=True, text=True)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """One mypy cache for both runs: numpy's stubs are read once."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.mark.parametrize("planted", [pytest.param(False, marks=pytest.mark.slow), True],
                         ids=["clean", "planted"])
def test_mypy_fails_on_a_planted_type_error(tmp_path, cache, planted):
    """The planted copy fails with the planted error's message; the clean copy passes
    (slow: ``make test`` runs mypy on the package itself with the same configuration)."""
    copy = tmp_path / "prefstats"
    shutil.copytree(ROOT / "prefstats", copy,
                    ignore=shutil.ignore_patterns("__pycache__", "*.npz", "*.toml"))
    target = copy / "game" / "codes.py"
    if planted:
        target.write_text(target.read_text("utf-8") + PLANTED, "utf-8")
    result = mypy(tmp_path, "prefstats/game/codes.py", cache)
    if planted:
        assert result.returncode == 1, result.stdout + result.stderr
        assert 'Incompatible return value type (got "str", expected "int")' in result.stdout
    else:
        assert result.returncode == 0, result.stdout + result.stderr
