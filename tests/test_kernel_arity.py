"""Compiled functions take few parameters: what travels together (the rules and the
players, the solver's table and its counters, a stream of deals, ...) travels as one typed
record (a named tuple), so a new setting is one field, not an edit of every signature."""

from __future__ import annotations

import ast
from pathlib import Path

import prefstats

PACKAGE = Path(prefstats.__file__).parent
#: Most parameters a compiled function takes.
MAX_PARAMETERS = 8
#: The decorators that compile a function.
COMPILERS = {"njit", "jit", "generated_jit"}


def _compiled(tree: ast.AST) -> list[ast.FunctionDef]:
    """The functions of ``tree`` decorated with a numba compiler, called or not
    (``@njit``, ``@numba.njit(cache=True)`` ...)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in COMPILERS:
                found.append(node)
                break
    return found


def _parameters(function: ast.FunctionDef) -> int:
    a = function.args
    return (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None)
            + (a.kwarg is not None))


def arities() -> dict[tuple[str, str], int]:
    """The parameters of every compiled function of the package, by module and name."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for function in _compiled(ast.parse(path.read_text(encoding="utf-8"))):
            out[path.relative_to(PACKAGE).as_posix(), function.name] = _parameters(function)
    return out


def test_the_count_sees_every_way_of_compiling():
    source = """
import numba
from numba import njit
@njit(cache=True)
def a(x, y, *rest, z=1, **more): pass
@numba.jit
def b(x): pass
def c(x, y, z): pass
"""
    counted = {f.name: _parameters(f) for f in _compiled(ast.parse(source))}
    assert counted == {"a": 5, "b": 1}


def test_no_compiled_function_takes_more_than_eight_parameters():
    found = arities()
    assert len(found) > 200  # the walk reaches the kernels
    over = {key: n for key, n in found.items() if n > MAX_PARAMETERS}
    # Over the limit: bundle what travels together into a record (the architecture page).
    assert over == {}
