"""Where prefstats keeps what it compiles, keyed on what is compiled.

numba caches each compiled function beside a stamp of its own source file, so a change
in a function it calls from another module would replay stale machine code. prefstats
keys its cache folder instead on the code that compiled functions can depend on, with
numba's, numpy's and Python's versions: of every module that uses numba and every
prefstats module those import, the syntax tree without docstrings and without the
plain-Python functions that neither compiled code nor module-level code reaches
(:func:`_compiled_code`). An edit to the CLI, the reports, any prose or a Python helper
beside the kernels recompiles nothing; an edit to a kernel or a constant it reads starts
a new folder.

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

PACKAGE = Path(__file__).resolve().parent
#: Caches of other keys unused for this long are removed when a new one is made.
PRUNE_DAYS = 14


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
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            kept = [s for i, s in enumerate(body)
                    if not (i == 0 and _is_docstring(s)) and not _is_type_checking(s)]
            node.body = kept or [ast.Pass()]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.returns = None
        elif isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return tree


def _numba_names(tree: ast.Module) -> set[str]:
    """The names a module binds to numba or to what it imports from numba."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names
                         if a.name.split(".")[0] == "numba")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba":
            names.update(a.asname or a.name for a in node.names)
    return names


def _references(nodes: list[ast.AST]) -> set[str]:
    """Every name and attribute the nodes mention."""
    found: set[str] = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                found.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                found.add(sub.attr)
    return found


def _compiled_code(trees: dict[str, ast.Module]) -> dict[str, ast.Module]:
    """The trees without the top-level Python functions compiled code cannot depend on.

    A function stays when it mentions numba (a kernel, or a factory of kernels) or when
    something that stays names it: compiled code calls only compiled functions, and
    module-level code may compute a constant a kernel reads. Matching by bare name across
    all modules keeps a function whenever in doubt."""
    kept: dict[str, list[ast.stmt]] = {}
    python: list[tuple[str, int, ast.stmt]] = []
    for name, tree in trees.items():
        numba_names = _numba_names(tree)
        kept[name] = []
        for i, node in enumerate(tree.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                    not _references([node]) & numba_names:
                python.append((name, i, node))
            else:
                kept[name].append(node)
    reached = _references([n for nodes in kept.values() for n in nodes])
    while True:
        newly = [item for item in python if item[2].name in reached]
        if not newly:
            break
        python = [item for item in python if item[2].name not in reached]
        reached |= _references([node for _, _, node in newly])
    dropped = {(name, i) for name, i, _ in python}
    return {name: ast.Module(body=[node for i, node in enumerate(tree.body)
                                   if (name, i) not in dropped], type_ignores=[])
            for name, tree in trees.items()}


def _without_docstrings(tree: ast.AST) -> str:
    """The tree as text, with only what compiled code can depend on (:func:`_semantic`)."""
    return ast.dump(_semantic(tree))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module, modules: dict[str, Path]) -> set[str]:
    """The prefstats modules a module imports (``from a import b``: ``a.b`` when that is a
    module, else ``a``), at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            subs = {f"{node.module}.{a.name}" for a in node.names}
            found.update(subs & modules.keys())
            if not subs <= modules.keys():  # names defined in the module itself
                found.add(node.module)
    return {m for m in found if m in modules}


def _uses_numba(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "numba"
                                                for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba":
            return True
    return False


@functools.cache
def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def compiled_modules() -> list[str]:
    """The modules whose code decides what is compiled: those that use numba and every
    prefstats module they import, directly or not (sorted). The package's own
    ``__init__`` and this module hold nothing a kernel reads, so they do not count."""
    modules = _sources()
    trees = {name: _tree(path) for name, path in modules.items()}
    todo = [name for name, tree in trees.items() if _uses_numba(tree)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_imports(trees[name], modules))
    return sorted(seen - {"prefstats", "prefstats._cache"})


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
    trees = _compiled_code({name: _tree(_sources()[name]) for name in compiled_modules()})
    for name, tree in trees.items():
        digest.update(name.encode() + b"\0")
        digest.update(ast.dump(tree).encode() + b"\0")
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
