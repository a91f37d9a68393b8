"""Kernels that solve many deals: rows spread over threads, each with its own table
(private; called by :func:`prefstats.solver.solve_batch` and its kin)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from prefstats.solver._search import card_values_kernel, solve_kernel


@njit(cache=True, error_model="numpy")
def _leads_one(h0, h1, h2, leader, declarer, trump, misere, table, stats, out):
    """Fill ``out[c]`` with the declarer's tricks after ``leader`` leads card ``c``."""
    trick = np.zeros(3, np.int64)
    card_values_kernel(np.array([h0, h1, h2], dtype=np.int64), trick, 0, leader, declarer,
                       trump, misere, table, stats, out)


@njit(cache=True, parallel=True, error_model="numpy")
def _batch_kernel(hands, leader, declarer, trump, misere, leads, tables, endgame, stats, out):
    """Solve rows of ``hands``; thread ``k`` takes rows k, k + T, ... with table ``k``
    (the first two arrays of :func:`~prefstats.solver.new_table`) and the shared misère
    ``endgame`` table."""
    n_threads = tables[0].shape[0]
    n = hands.shape[0]
    for k in prange(n_threads):
        table = (tables[0][k], tables[1][k], endgame)
        for i in range(k, n, n_threads):
            h0 = np.int64(hands[i, 0])
            h1 = np.int64(hands[i, 1])
            h2 = np.int64(hands[i, 2])
            if leads:
                _leads_one(h0, h1, h2, leader[i], declarer[i], trump[i], misere[i],
                           table, stats[k], out[i])
            else:
                out[i, 0] = solve_kernel(h0, h1, h2, leader[i], declarer[i], trump[i],
                                       misere[i], table, stats[k])

