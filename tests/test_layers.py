"""Imports run one way: every module imports only modules of its own layer or of the
layers before it, in the order of README's module table ("How the pieces fit").

Each module's imports are read with ``ast`` (function-level and ``TYPE_CHECKING``
imports included: a lazy import is still a dependency). The package's ``__init__`` is
the facade whose lazy attributes re-export names from any layer, so it is not checked.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "prefstats"

#: The layers, first to last; a package name (``players``) covers its submodules.
#: Settlement (``scoring``) is a rule of the game like the ladder and the auction: the
#: players price their bids with it and the pulka driver writes the sheet with it, so
#: it comes before the engine, although a deal is scored after it is played.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("codes",),
    ("cards",),
    ("deal",),
    ("exact",),
    ("contracts", "tricks", "variants", "auction", "presets"),
    ("scoring",),
    ("engine",),
    ("solver", "knowledge"),
    ("players", "pimc"),
    ("play", "pulka"),
    ("storage", "simulate"),
    ("rollout", "strength", "analyze", "fit"),
    ("tables",),
    ("reports",),
    ("cli", "rollout_cli", "analyze_cli", "__main__"),
)


def layer_of(module: str) -> int:
    """The layer of ``prefstats.X[.Y]`` (by its first name below the package)."""
    top = module.split(".")[1]
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and README's table")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """The ``prefstats`` modules that ``path`` imports (``from prefstats import engine``
    is the module ``prefstats.engine``; ``from prefstats import __version__`` the
    package itself)."""
    here = module_name(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "prefstats")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                base = ".".join([*here[: len(here) - node.level + 1], *filter(None, [base])])
            if base.split(".")[0] != "prefstats":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                is_module = (ROOT / Path(*sub.split("."))).with_suffix(".py").exists() or (
                    ROOT / Path(*sub.split(".")) / "__init__.py").exists()
                found.add(sub if is_module else base)
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_imports_only_downward(path):
    me = layer_of(module_name(path))
    upward = sorted(m for m in imported_modules(path) - {"prefstats"} if layer_of(m) > me)
    assert not upward, (f"{module_name(path)} (layer {LAYERS[me]}) imports "
                        f"{upward}, which come after it")


def test_the_check_sees_every_import_form():
    """The parser finds plain, ``from``, submodule-as-name and function-level imports."""
    src = PACKAGE / "players" / "bidding.py"
    found = imported_modules(src)
    assert {"prefstats.engine", "prefstats.players.evaluate", "prefstats.scoring"} <= found


def readme_rows() -> list[tuple[str, ...]]:
    """The module names of each row of README's table in "How the pieces fit"
    (``presets/*.toml`` is the package ``presets``)."""
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("## How the pieces fit", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            rows.append(tuple(n.split("/")[0] for n in re.findall(r"`([^`]+)`", first)))
    return rows


def test_readme_table_states_the_layers():
    assert readme_rows() == [tuple(n for n in names if n != "__main__") for names in LAYERS]


def defines_public_names(path: Path) -> bool:
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            return True
    return False


PUBLIC = [
    p
    for p in MODULES
    if not any(part.startswith("_") for part in p.relative_to(PACKAGE).with_suffix("").parts)
    and defines_public_names(p)
]


@pytest.mark.parametrize("path", PUBLIC, ids=lambda p: module_name(p))
def test_every_public_module_says_what_it_exports(path):
    """A public module lists its public names in ``__all__``, each of which exists."""
    import importlib

    module = importlib.import_module(module_name(path))
    assert isinstance(getattr(module, "__all__", None), list), f"{module.__name__}: no __all__"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ names what it lacks: {missing}"


def test_the_package_re_exports_the_everyday_names():
    import prefstats
    from prefstats.scoring import ScoreSheet
    from prefstats.variants import get_variant

    assert {"get_variant", "load", "readable", "to_frame", "ScoreSheet", "Kind"} <= set(
        prefstats.__all__)
    assert prefstats.get_variant is get_variant and prefstats.ScoreSheet is ScoreSheet
    assert all(hasattr(prefstats, n) for n in prefstats.__all__)
    assert set(prefstats.__all__) <= set(dir(prefstats))
