"""The public API in its tiers, made from the one list ``prefstats.PUBLIC``: tier 1 is
``prefstats.__all__`` (the facade) and the ``__all__`` of each module listed, small and
each name documented with an example that doctest runs (``--doctest-modules`` in
pyproject); tier 2 is ``prefstats.KERNELS``, the compiled functions for numba callers,
counted apart from tier 1.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import sys

import pytest

import prefstats

#: At most this many tier-1 names, the facade's counted again beside their modules'.
MAX_PUBLIC_NAMES = 150


def tier_one() -> list[tuple[str, str]]:
    """(module, name) of every tier-1 name: the facade's, then each public module's."""
    modules = ["prefstats", *prefstats.PUBLIC]
    return [(m, n) for m in modules for n in importlib.import_module(m).__all__]


def test_the_public_api_is_small():
    """prefstats.kernels is tier 2 and not counted here."""
    names = tier_one()
    assert len(names) <= MAX_PUBLIC_NAMES
    assert prefstats.KERNELS not in prefstats.PUBLIC


def test_the_facade_is_made_from_the_list():
    """Each facade name is in its module's ``__all__``, and is the module's object."""
    facade = {(m, n) for m, names in prefstats.PUBLIC.items() for n in names}
    assert sorted(n for _, n in facade) == prefstats.__all__
    for module_name, name in sorted(facade):
        module = importlib.import_module(module_name)
        assert name in module.__all__, f"{module_name}.{name}"
        assert getattr(prefstats, name) is getattr(module, name)
    assert tuple(prefstats.PUBLIC) == prefstats.PUBLIC_MODULES


def examples_of(module_name: str) -> set[str]:
    """Names of the objects of a module whose docstrings doctest finds examples in."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    return {test.name for test in finder.find(sys.modules[module_name])}


@pytest.mark.parametrize(("module", "name"), tier_one(), ids=lambda v: v)
def test_every_public_name_has_an_example_doctest_runs(module, name):
    obj = getattr(importlib.import_module(module), name)
    assert inspect.isclass(obj) or inspect.isfunction(obj), f"{module}.{name}: not documentable"
    assert ">>>" in (obj.__doc__ or ""), f"{module}.{name}: no example in its docstring"
    # pytest --doctest-modules runs the examples doctest finds in the defining module
    assert f"{obj.__module__}.{obj.__qualname__}" in examples_of(obj.__module__)


def test_the_kernels_namespace_is_compiled_and_documented():
    kernels = importlib.import_module(prefstats.KERNELS)
    assert kernels.__doc__ and "tier 2" in kernels.__doc__
    assert kernels.__all__ and all(hasattr(kernels, n) for n in kernels.__all__)
    assert not set(kernels.__all__) & {n for _, n in tier_one()}
    compiled = [n for n in kernels.__all__ if hasattr(getattr(kernels, n), "py_func")]
    assert {"apply", "reset", "legal_mask", "popcount", "solve_kernel"} <= set(compiled)


def test_names_dropped_from_the_api_still_import():
    """Leaving ``__all__`` makes a name private, not gone."""
    from prefstats.game.cards import splitmix64  # noqa: F401
    from prefstats.game.engine import R_PLAYERS, rules_array  # noqa: F401
    from prefstats.sim.storage import write_manifest  # noqa: F401
    from prefstats.solver import solve_kernel  # noqa: F401
