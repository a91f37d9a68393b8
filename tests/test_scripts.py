"""Every script in ``scripts/`` (benchmarks and maintenance jobs) starts: each runs with
``--help`` in one fresh process, so a script broken by a change in the package fails
here rather than on the day it is needed. And each uses the package as any user does:
it imports only public names and leaves ``sys.path`` alone."""

from __future__ import annotations

import ast
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
#: Shared by the scripts, not run by itself.
HELPERS = {"benchtools.py"}

_RUN = """
import contextlib, io, runpy, sys
failed = []
for path in sys.argv[1:]:
    sys.argv = [path, "--help"]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
        code = 0
    except SystemExit as exit:
        code = exit.code or 0
    if code != 0 or "usage" not in out.getvalue().lower():
        failed.append(f"{path}: exit {code}: {out.getvalue()[:200]!r}")
print("\\n".join(failed))
"""


def scripts() -> list[Path]:
    return sorted(p for p in SCRIPTS.glob("*.py") if p.name not in HELPERS)


def test_every_script_shows_its_help():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(SCRIPTS)])}
    result = subprocess.run([sys.executable, "-c", _RUN, *map(str, scripts())],
                            capture_output=True, text=True, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == ""


#: Scripts that measure a private part of the package, with the reason: each goes once
#: that part has a public name.
PRIVATE_ALLOWED = {
    "bench_compile.py": "times the warm-up steps of the private compile module",
    "order_accuracy.py": "measures the solver's private move ordering",
}


def imported_modules(tree: ast.AST) -> list[tuple[str, list[str]]]:
    """(module, names) of every import in ``tree``, and in any string of code it runs."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            found.append(("." * node.level + (node.module or ""),
                          [alias.name for alias in node.names]))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and "import " in node.value):
            with contextlib.suppress(SyntaxError):
                found += imported_modules(ast.parse(node.value))
    return found


def private_imports(tree: ast.AST) -> list[str]:
    """The imports of an underscore module or name (``__version__`` and the like apart)."""
    bad = []
    for module, names in imported_modules(tree):
        if any(part.startswith("_") for part in module.split(".")):
            bad.append(module)
        bad += [f"{module}.{n}" for n in names if n.startswith("_") and not n.endswith("__")]
    return bad


def path_changes(tree: ast.AST) -> list[int]:
    """Lines that change ``sys.path``: a call of one of its methods, or an assignment."""
    def is_path(node) -> bool:
        while isinstance(node, ast.Subscript):
            node = node.value
        return (isinstance(node, ast.Attribute) and node.attr == "path"
                and isinstance(node.value, ast.Name) and node.value.id == "sys")

    lines = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and is_path(node.func.value)):
            lines.append(node.lineno)
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            lines += [node.lineno for t in targets if is_path(t)]
    return lines


def test_no_script_changes_sys_path():
    """Scripts run with the installed package (``.venv/bin/python scripts/x.py``)."""
    changed = {p.name: lines for p in SCRIPTS.glob("*.py")
               if (lines := path_changes(ast.parse(p.read_text("utf-8"))))}
    assert changed == {}


def test_scripts_import_only_public_names():
    found = {p.name: bad for p in SCRIPTS.glob("*.py")
             if (bad := private_imports(ast.parse(p.read_text("utf-8"))))}
    assert sorted(set(found) - set(PRIVATE_ALLOWED)) == [], found
    assert sorted(set(PRIVATE_ALLOWED) - set(found)) == [], "allowed but public now"


@pytest.mark.parametrize(("code", "bad"), [
    ("import sys\nsys.path.insert(0, 'x')", "path"),
    ("import sys\nsys.path[:0] = ['x']", "path"),
    ("from prefstats.solver._order import order", "private"),
    ("from prefstats.analysis.strength import _play_out", "private"),
    ("CHILD = 'from prefstats import _compile'", "private"),
])
def test_the_checks_find_what_they_look_for(code, bad):
    tree = ast.parse(code)
    assert bool(path_changes(tree)) == (bad == "path")
    assert bool(private_imports(tree)) == (bad == "private")
