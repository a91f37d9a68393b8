"""Kernels that solve many deals: rows spread over threads, each with its own table
(private; called by :func:`prefstats.solver.solve_batch` and its kin)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from prefstats.solver._records import decision_of
from prefstats.solver._search import card_values_kernel, solve_kernel
from prefstats.solver._table import Table


@njit(cache=True, error_model="numpy")
def _leads_one(hands, leader, declarer, trump, misere, table, out):
    """Fill ``out[c]`` with the declarer's tricks after ``leader`` leads card ``c`` of
    ``hands`` (three int64 masks)."""
    at = decision_of(np.zeros(3, np.int64), 0, leader, declarer, trump, misere)
    card_values_kernel(hands, at, table, out)


@njit(cache=True, parallel=True, error_model="numpy")
def _batch_kernel(hands, leader, declarer, trump, misere, leads, tables, out):
    """Solve rows of ``hands``; thread ``k`` takes rows k, k + T, ... with its row of
    ``tables`` (a :class:`~prefstats.solver.Table` by thread first, whose ``endgame``
    is the one shared row)."""
    n_threads = tables.words.shape[0]
    n = hands.shape[0]
    for k in prange(n_threads):
        table = Table(tables.words[k], tables.history[k], tables.endgame, tables.nodes[k])
        for i in range(k, n, n_threads):
            h0 = np.int64(hands[i, 0])
            h1 = np.int64(hands[i, 1])
            h2 = np.int64(hands[i, 2])
            if leads:
                _leads_one(np.array([h0, h1, h2]), leader[i], declarer[i], trump[i],
                           misere[i], table, out[i])
            else:
                out[i, 0] = solve_kernel(h0, h1, h2, leader[i], declarer[i], trump[i],
                                         misere[i], table)
