"""Where prefstats keeps what it compiles, keyed on what is compiled.

numba caches each compiled function beside a stamp of its own source file, so a change
in a function it calls from another module would replay stale machine code. prefstats
keys its cache folder instead on the code that compiled functions can depend on, with
numba's, numpy's and Python's versions: the compiled functions and, module by module
and import by import, every top-level statement that binds a global they read (a
constant, a table and the code computing it, another module's kernel), without
docstrings or annotations (:mod:`prefstats._reach`). An edit to the CLI, the reports,
any prose, a Python function or a constant no kernel reads recompiles nothing, even
beside the kernels; an edit to a kernel or to anything it reads starts a new folder.

:func:`register` is called once, by the first import of :mod:`prefstats.game` (which
every compiled module imports; ``import prefstats`` alone imports no numba): it only
puts the locator in numba's list. The key is computed when the first compiled function
is defined, and old folders are pruned when a new one is made.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
import shutil
import sys
import time
from pathlib import Path

from prefstats._reach import reached, statements

PACKAGE = Path(__file__).resolve().parent
#: Caches of other keys unused for this long are removed when a new one is made.
PRUNE_DAYS = 14
#: The Python code that builds what the cache keeps beside the compiled functions (the
#: endgame table), by module: it is keyed with them, so a new build never reads an old
#: table.
BUILDERS = {"prefstats.solver._endgame": ("load_or_build",)}


def _tree(path: Path) -> ast.Module:
    return _semantic(ast.parse(path.read_text("utf-8"), str(path)))


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


def _is_type_checking(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and \
        (getattr(test, "id", None) or getattr(test, "attr", None)) == "TYPE_CHECKING"


def _semantic(tree: ast.Module) -> ast.Module:
    """The tree without what compiled code cannot depend on: docstrings, annotations and
    ``if TYPE_CHECKING:`` imports (comments and positions are not in a tree at all)."""
    for node in (tree, *statements(tree.body)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body:
            kept = [s for i, s in enumerate(body)
                    if not (i == 0 and _is_docstring(s)) and not _is_type_checking(s)]
            node.body = kept or [ast.Pass()]  # type: ignore[attr-defined]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
            a = node.args
            for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                if arg is not None:
                    arg.annotation = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return tree


def _without_docstrings(tree: ast.Module) -> str:
    """The tree as text, with only what compiled code can depend on (:func:`_semantic`)."""
    return ast.dump(_semantic(tree))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def compiled_code() -> dict[str, list[ast.stmt]]:
    """The statements compiled code can depend on, by module (:mod:`prefstats._reach`).
    The package's own ``__init__`` and this module hold nothing a kernel reads: they only
    load the package and place its cache."""
    trees = {name: _tree(path) for name, path in _sources().items()}
    packages = {name for name, path in _sources().items() if path.name == "__init__.py"}
    return reached(trees, packages, skip={"prefstats._cache"}, also=BUILDERS)


def compiled_modules() -> list[str]:
    """The modules that hold code compiled code can depend on (sorted)."""
    return sorted(compiled_code())


def _versions() -> bytes:
    from importlib.metadata import version

    return "\0".join((version("numba"), version("numpy"), sys.version.split()[0])).encode()


@functools.cache
def key() -> str:
    """16 hex digits that change with the compiled code and nothing else.

    Reading the syntax of every module takes most of a second, so the key is kept on
    disk under a fingerprint of the files' sizes and times: a process whose files have
    not changed reads it back."""
    stamp = hashlib.sha256(_versions())
    for name, path in _sources().items():
        st = path.stat()
        stamp.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    memo = base() / "keys" / stamp.hexdigest()[:32]
    try:
        return memo.read_text("ascii").strip()
    except OSError:
        pass
    digest = hashlib.sha256(_versions())
    for name, kept in sorted(compiled_code().items()):
        digest.update(name.encode() + b"\0")
        digest.update(ast.dump(ast.Module(body=kept, type_ignores=[])).encode() + b"\0")
    value = digest.hexdigest()[:16]
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        partial = memo.with_name(f"{memo.name}.{os.getpid()}")
        partial.write_text(value, "ascii")
        partial.replace(memo)
    except OSError:  # a read-only home: compute it again next time
        pass
    return value


def base() -> Path:
    """The folder of every prefstats cache (``$PREFSTATS_CACHE``, else
    ``~/.cache/prefstats``)."""
    return Path(os.environ.get("PREFSTATS_CACHE") or Path.home() / ".cache" / "prefstats")


@functools.cache
def folder() -> Path:
    """The folder of prefstats' compiled functions and endgame tables for the current
    compiled code (older folders are pruned when it is first made)."""
    path = base() / "numba" / key()
    if not path.exists():
        prune(path)
    return path


def prune(current: Path, days: float = PRUNE_DAYS) -> None:
    """Remove caches of other keys unused for ``days`` (they only take disk)."""
    if not current.parent.is_dir():
        return
    for old in current.parent.iterdir():
        if old != current and time.time() - old.stat().st_mtime > days * 86400:
            shutil.rmtree(old, ignore_errors=True)


def is_compiled(*functions: str) -> bool:
    """Whether every compiled function named (``"game/deal._deal_kernel"``: its module's
    path below the package, then its name) is in the current cache: false on a first run
    after an install or an edit of compiled code."""
    return all(any((folder() / f).parent.glob(f"{Path(f).name}-*.nbi")) for f in functions)


@functools.cache
def _function_key(py_func) -> str:
    """Tells apart functions of one name in one module (numba uses the line number, which
    moves with every edit above the function)."""
    try:
        source = inspect.getsource(py_func)
    except (OSError, TypeError):
        return str(py_func.__code__.co_firstlineno)
    lines = source.splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = "\n".join(line[indent:] for line in lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return str(py_func.__code__.co_firstlineno)
    return hashlib.sha256(_without_docstrings(tree).encode()).hexdigest()[:8]


def register() -> None:
    """Cache prefstats' compiled functions, and only them, in :func:`folder`.

    A numba cache locator placed first in numba's list claims the functions whose source
    file lies in this package; any other ``cache=True`` function (a user's own) keeps
    numba's usual place. A user's ``NUMBA_CACHE_DIR`` wins for prefstats' functions too.
    A function called from compiled code is compiled once, not once per way of calling it
    (:func:`_by_type`), and the code of an inlined function is copied in one go
    (:func:`_copy_once`).
    """
    from numba.core import caching, config

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # numba < 0.61 name

    class PrefstatsCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file: str) -> None:
            self._py_func = py_func
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            relative = Path(py_file).resolve().parent.relative_to(PACKAGE)
            self._cache_path = str(folder() / relative)

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return key()

        def get_disambiguator(self) -> str:
            return _function_key(self._py_func)

        @classmethod
        def from_function(cls, py_func, py_file: str):
            if config.CACHE_DIR or not Path(py_file).resolve().is_relative_to(PACKAGE):
                return None
            return super().from_function(py_func, py_file)

    if not any(c.__name__ == PrefstatsCacheLocator.__name__ for c in impl._locator_classes):
        impl._locator_classes.insert(0, PrefstatsCacheLocator)
    _by_type()
    _copy_once()


def _by_type() -> None:
    """Compile a prefstats function called from compiled code once, not once per way of
    calling it.

    numba compiles a function again, with everything it calls, for each distinct set of
    argument types, and tells apart types that make no difference here: a constant
    argument (``1``, a module constant such as ``S_ALONE``) is a literal of its value, a
    seat read from a state record an ``int8`` where a loop counter is an ``int64``, a
    read-only table another type than a writable one, and much of the solver and the
    players was compiled two to twelve times over. So calls from compiled code
    are typed by value class: literals as their type, small integers (never ``uint32``
    or ``uint64`` card sets, whose ``~`` differs) as ``int64``, arrays as writable. The
    constants still fold once LLVM inlines the call; no prefstats kernel writes to a
    table it was handed read-only."""
    from numba.core import types
    from numba.core.dispatcher import Dispatcher

    original = Dispatcher.get_call_template
    if getattr(original, "prefstats_by_type", False):
        return
    small = {types.int8, types.int16, types.int32, types.uint8, types.uint16}

    def general(t):
        t = types.unliteral(t)
        if t in small:
            return types.int64
        if isinstance(t, types.Array) and not t.mutable:
            return t.copy(readonly=False)
        return t

    def get_call_template(self, args, kws):
        if self.py_func.__module__.startswith("prefstats."):
            args = tuple(general(a) for a in args)
            kws = {k: general(v) for k, v in kws.items()}
        return original(self, args, kws)

    get_call_template.prefstats_by_type = True  # type: ignore[attr-defined]
    Dispatcher.get_call_template = get_call_template


def _copy_once() -> None:
    """Copy the code of a function numba inlines in one go, not block by block.

    numba copies an ``inline="always"`` function's code at each call it inlines, one
    block at a time, and each block's copy takes a copy of every variable of the function
    with it: the solver's search, which inlines hundreds of calls, spent a third of its
    compile time copying. The copies of one inlining share their variables instead, as
    the blocks of the code copied do: the same machine code, sooner. Left as it is when
    numba's inliner is not the one this was written for."""
    import copy

    from numba.core import inline_closurecall

    worker = inline_closurecall.InlineWorker
    original = worker.inline_ir
    if getattr(original, "prefstats_copy_once", False) or inline_closurecall.copy is not copy:
        return

    class SharedCopy:
        """The inliner's ``copy`` module, whose deep copies share ``memo`` while set."""

        memo: dict | None = None

        def __getattr__(self, name: str):
            return getattr(copy, name)

        def deepcopy(self, value, memo=None):
            return copy.deepcopy(value, self.memo if memo is None else memo)

    shared = SharedCopy()

    @functools.wraps(original)
    def inline_ir(self, *args, **kwargs):
        shared.memo = {}
        inline_closurecall.copy = shared
        try:
            return original(self, *args, **kwargs)
        finally:
            inline_closurecall.copy = copy
            shared.memo = None

    inline_ir.prefstats_copy_once = True  # type: ignore[attr-defined]
    worker.inline_ir = inline_ir
