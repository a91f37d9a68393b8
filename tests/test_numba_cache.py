"""prefstats keeps its compiled functions in its own cache, keyed on its whole source,
without moving the cache of anyone else's numba functions (issue 12)."""

from __future__ import annotations

import importlib.util
import sys

import numba

import prefstats
from prefstats.deal import _deal_kernel
from prefstats.players.bidding import _value


def test_prefstats_functions_are_cached_under_the_source_hash():
    assert prefstats.CACHE.name == prefstats._numba_cache_dir().name
    assert _deal_kernel._cache.cache_path == str(prefstats.CACHE)
    assert _value._cache.cache_path == str(prefstats.CACHE / "players")


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
        assert not list(prefstats.CACHE.rglob("mine.twice-*"))
    finally:
        del sys.modules[spec.name]
