"""prefstats keeps its compiled functions in its own cache, keyed on the code that is
compiled (not on every file), without moving anyone else's numba functions."""

from __future__ import annotations

import ast
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba

from prefstats import _cache, _reach
from prefstats.game.deal import _deal_kernel
from prefstats.players.bidding import _value

PACKAGE = Path(_cache.__file__).resolve().parent


def test_prefstats_functions_are_cached_under_the_key():
    assert _cache.folder().name == _cache.key()
    assert _deal_kernel._cache.cache_path == str(_cache.folder() / "game")
    assert _value._cache.cache_path == str(_cache.folder() / "players")


def test_the_key_covers_the_compiled_modules_and_what_they_import():
    modules = _cache.compiled_modules()
    assert {"prefstats.game.cards", "prefstats.solver._search", "prefstats.sim.play"} <= set(
        modules)
    assert "prefstats.game.codes" in modules  # no numba in it, but kernels read its codes
    assert not [m for m in modules if m.startswith("prefstats.cli")]
    assert "prefstats.reports.report" not in modules


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "prefstats",
                    ignore=shutil.ignore_patterns("__pycache__", "*.npz", "*.nbi", "*.nbc"))
    return root


def _run(root: Path, cache: Path, code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(root), "PREFSTATS_CACHE": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    # Run from the copy: ``python -c`` puts the working folder first on the path.
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=root)
    return out.stdout.strip()


KEY = "from prefstats import _cache; print(_cache.key(), _cache.PACKAGE)"


def _unedited(root: Path) -> str:
    """What ``KEY`` prints from the copy at ``root`` before any edit: the key does not
    depend on where the package lies, so this process computes it, no other started."""
    return f"{_cache.key()} {root / 'prefstats'}"


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text("utf-8") + text, "utf-8")


def test_comments_docstrings_annotations_and_uncompiled_modules_keep_the_key(tmp_path):
    root = _copy(tmp_path)
    before = _unedited(root)
    _append(root / "prefstats" / "cli" / "commands.py", "\n\ndef _added():\n    return 1\n")
    _append(root / "prefstats" / "reports" / "report.py", "\n# a note\n")
    cards = root / "prefstats" / "game" / "cards.py"
    _append(cards, "\n# a comment in a compiled module\n")
    text = cards.read_text("utf-8")
    edited = text.replace('"""Bits set in a 64-bit mask', '"""The bits set in a 64-bit mask')
    edited = edited.replace("def popcount64(mask: int) -> int:",
                            "def popcount64(mask: np.int64) -> np.int64:")
    edited += "\nif TYPE_CHECKING:\n    from prefstats.reports import report\n"
    assert edited.count("np.int64) -> np.int64") == 1
    cards.write_text(edited, "utf-8")
    assert _run(root, tmp_path / "cache", KEY) == before


def test_a_python_function_added_beside_the_kernels_keeps_the_key(tmp_path):
    root = _copy(tmp_path)
    before = _unedited(root)
    for module in ("sim/storage.py", "sim/play.py", "solver/_search.py"):
        _append(root / "prefstats" / module,
                "\n\ndef added_helper(rows):\n    return [r * 2 for r in rows]\n")
    assert _run(root, tmp_path / "cache", KEY) == before


def _kept(sources: dict[str, str]) -> dict[str, set[str | None]]:
    """What of each module (``sources``, by name) the key covers: the names of its kept
    statements (the text of those that bind none)."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    return {name: {getattr(n, "name", None) or ast.unparse(n) for n in statements}
            for name, statements in _reach.reached(trees, {"pkg"}).items()}


def test_what_compiled_code_can_reach_stays_in_the_key():
    kernels = (
        "import numba as nb\nfrom numba import njit\nfrom pkg.rules import LIMIT, describe\n"
        "from pkg import rules\n"
        "def _leaf():\n    return 4\n"
        "def _build():\n    return _leaf() + 1\n"
        "TABLE = _build()\n"
        "UNREAD = 7\n"
        "@njit(cache=True)\ndef kernel(x):\n    UNREAD = 1\n"
        "    return x + TABLE + LIMIT + rules.STEP + UNREAD\n"
        "def factory(k):\n    @nb.njit\n    def inner(x):\n        return x + k\n"
        "    return inner\n"
        "MADE = factory(SIZE)\n"
        "def wrapper(x):\n    return describe(kernel(x) + UNREAD)\n"
    )
    rules = ("SIZE = 3\nLIMIT = SIZE * 2\nSTEP = 1\nOTHER = 5\n"
             "def describe(x):\n    return str(x)\n")
    charts = "from pkg.kernels import wrapper, kernel\nTITLE = 'hands'\n"
    kept = _kept({"pkg": "", "pkg.kernels": kernels.replace("(SIZE)", "(rules.SIZE)"),
                  "pkg.rules": rules, "pkg.charts": charts})
    assert {"_leaf", "_build", "TABLE = _build()", "kernel", "factory",
            "MADE = factory(rules.SIZE)"} <= kept["pkg.kernels"]
    assert not {"wrapper", "UNREAD = 7"} & kept["pkg.kernels"]
    assert {"SIZE = 3", "LIMIT = SIZE * 2", "STEP = 1"} <= kept["pkg.rules"]
    assert not {"OTHER = 5", "describe"} & kept["pkg.rules"]
    assert "pkg.charts" not in kept


def test_what_the_cache_keeps_beside_the_compiled_functions_is_built_by_keyed_code():
    """The endgame table lives in the key's folder: the Python that builds it is in the
    key (a renamed builder would silently leave it out)."""
    kept = {getattr(node, "name", None)
            for node in _cache.compiled_code()["prefstats.solver._endgame"]}
    assert {"load_or_build", "_build_table", "_pack"} <= kept


def test_every_global_a_compiled_function_reads_is_in_the_key():
    """The key's statements bind every global name each compiled function of the
    package reads (checked on the functions themselves, as Python compiled them)."""
    import importlib

    from prefstats.cli._compile import dispatchers

    code = _cache.compiled_code()
    for module in code:
        importlib.import_module(module)
    bound = {module: {name for node in statements for name in _reach._binds(node)}
             for module, statements in code.items()}
    missing = []
    for name, dispatcher in dispatchers().items():
        function = dispatcher.py_func
        names = set(function.__code__.co_names)
        for const in function.__code__.co_consts:  # the code of nested functions
            names |= set(getattr(const, "co_names", ()))
        for read in names & function.__globals__.keys():
            if read not in bound.get(function.__module__, set()):
                missing.append(f"{name} reads {read}")
    assert len(dispatchers()) > 100 and not missing


def test_a_changed_kernel_constant_is_compiled_anew(tmp_path):
    """A constant a kernel reads changes: a new key, a new folder, and the new result
    (never the stale machine code of the old cache)."""
    root = _copy(tmp_path)
    cache = tmp_path / "cache"
    call = ("from prefstats import _cache; from prefstats.game.cards import popcount64; "
            "print(_cache.key(), popcount64(1 << 20), _cache.PACKAGE)")
    key, bits, package = _run(root, cache, call).split()
    assert package == str(root / "prefstats") and bits == "1"
    assert (cache / "numba" / key / "game").is_dir()
    cards = root / "prefstats" / "game" / "cards.py"
    text = cards.read_text("utf-8")
    assert "_LOW32 = np.int64(0xFFFFFFFF)" in text
    cards.write_text(text.replace("_LOW32 = np.int64(0xFFFFFFFF)", "_LOW32 = np.int64(0xFFFF)"),
                     "utf-8")
    new_key, new_bits, _ = _run(root, cache, call).split()
    assert new_key != key and new_bits == "0"


def test_constants_no_kernel_reads_and_the_reports_keep_the_key(tmp_path):
    root = _copy(tmp_path)
    before = _unedited(root)
    package = root / "prefstats"
    edits = {"game/cards.py": ("N_CARDS = 32", "N_CARDS = 33"),
             "solver/_table.py": ("TT_BITS = 14", "TT_BITS = 15"),
             "sim/play.py": ("def play_batch(", "def _unused():\n    return 1\n\n\n"
                             "def play_batch("),
             "reports/classes.py": ("import numpy as np", "import numpy as np\nEXTRA = 1")}
    for module, (old, new) in edits.items():
        text = (package / module).read_text("utf-8")
        assert text.count(old) == 1, module
        (package / module).write_text(text.replace(old, new), "utf-8")
    for module in ("reports/report.py", "reports/charts.py", "sim/storage.py"):
        _append(package / module, "\n\nLABEL = 'edited'\n")
    assert _run(root, tmp_path / "cache", KEY) == before


def test_a_constant_a_kernel_reads_changes_the_key(tmp_path):
    """A constant read by compiled code of another module, through an import."""
    root = _copy(tmp_path)
    before = _unedited(root)
    codes = root / "prefstats" / "game" / "codes.py"
    text = codes.read_text("utf-8")
    assert text.count("NO_TRUMP_SUIT = -1") == 1
    codes.write_text(text.replace("NO_TRUMP_SUIT = -1", "NO_TRUMP_SUIT = -2"), "utf-8")
    assert _run(root, tmp_path / "cache", KEY) != before


def test_a_users_own_function_keeps_numbas_place(tmp_path):
    assert not numba.config.CACHE_DIR  # import prefstats set nothing process-wide
    source = tmp_path / "mine.py"
    source.write_text("from numba import njit\n\n\n@njit(cache=True)\n"
                      "def twice(x):\n    return 2 * x\n")
    spec = importlib.util.spec_from_file_location("mine_for_cache_test", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        assert module.twice(21) == 42
        assert module.twice._cache.cache_path == str(tmp_path / "__pycache__")
        assert list((tmp_path / "__pycache__").glob("mine.twice-*.nbi"))
        assert not list(_cache.folder().rglob("mine.twice-*"))
    finally:
        del sys.modules[spec.name]


#: A function inlining another twice, compiled and printed as LLVM IR, with numba's own
#: inliner when the argument says ``numba``.
_INLINING = """
import sys
import numpy as np
from numba import njit
from numba.core import inline_closurecall
import prefstats.game
if sys.argv[1] == "numba":
    worker = inline_closurecall.InlineWorker
    worker.inline_ir = worker.inline_ir.__wrapped__

@njit(inline="always")
def settle(a, n):
    total = 0
    for i in range(n):
        if a[i] > 0:
            total += a[i]
        else:
            total -= 1
    return total

@njit
def kernel(a, n):
    return settle(a, n) + settle(a, n - 1) * 2

kernel(np.ones(3, dtype=np.int64), 2)
print(kernel.inspect_llvm(kernel.signatures[0]))
"""


def test_inlined_code_copied_once_compiles_to_the_same_code():
    """prefstats copies an inlined function's code in one go (numba: block by block);
    the compiled code is the same as numba's, to the character."""
    from numba.core import inline_closurecall

    assert getattr(inline_closurecall.InlineWorker.inline_ir, "prefstats_copy_once", False)
    llvm = [subprocess.run([sys.executable, "-c", _INLINING, inliner], capture_output=True,
                           text=True, check=True).stdout for inliner in ("numba", "prefstats")]
    assert "define" in llvm[0] and llvm[0] == llvm[1]
