"""Imports run one way, down the layers that ``[tool.importlinter]`` in
``pyproject.toml`` states once (cli → reports → analysis → sim → players → solver →
game), with no import circle inside any package: import-linter checks the package, and
fails on a planted upward import or circle.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "prefstats"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """import-linter over the ``prefstats`` found in ``root``, with the project's contracts."""
    lint = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def test_the_layer_contract_is_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(("module", "line", "broken"), [
    ("game/cards.py", "from prefstats.sim import play", "Layers"),
    ("game/codes.py", "from prefstats.game import cards", "game's own layers"),
    ("reports/stats.py", "from prefstats.reports import whist", "circle"),
])
def test_a_planted_violation_breaks_the_contract(tmp_path, module, line, broken):
    copy = tmp_path / "prefstats"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.npz"))
    target = copy / module
    target.write_text(target.read_text("utf-8") + f"\n{line}  # noqa\n", "utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert broken in result.stdout.split("Broken contracts", 1)[1]


PUBLIC_MODULES = __import__("prefstats").PUBLIC_MODULES


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_module_says_what_it_exports(name):
    """A public module lists its public names in ``__all__``, each of which exists."""
    import importlib

    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), f"{name}: no __all__"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it lacks: {missing}"


def test_only_the_public_modules_export_names():
    """``prefstats.PUBLIC`` is the one list of the public modules: no other module has an
    ``__all__`` (the facade and the tier-2 ``prefstats.KERNELS`` apart)."""
    listed = {*PUBLIC_MODULES, "prefstats", __import__("prefstats").KERNELS}
    exporting = [
        module_name(path) for path in [PACKAGE / "__init__.py", *MODULES]
        if any(isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            for node in ast.parse(path.read_text("utf-8")).body)
    ]
    assert sorted(set(exporting) - listed) == []
    assert sorted(listed - set(exporting)) == []


def test_the_package_re_exports_the_everyday_names():
    import prefstats
    from prefstats.game.scoring import ScoreSheet
    from prefstats.game.variants import get_variant

    assert {"get_variant", "load", "readable", "to_frame", "ScoreSheet", "Kind"} <= set(
        prefstats.__all__)
    assert prefstats.get_variant is get_variant and prefstats.ScoreSheet is ScoreSheet
    assert all(hasattr(prefstats, n) for n in prefstats.__all__)
    assert set(prefstats.__all__) <= set(dir(prefstats))
