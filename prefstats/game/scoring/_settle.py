"""Totals of entry rows and the settlement of RULES.md §8."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from prefstats.errors import RecordError
from prefstats.game.scoring._entries import MOUNTAIN, POOL, WHIST
from prefstats.game.variants import (
    Variant,
)


def entry_totals(entries: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pool, mountain (length ``n``) and whists (``n`` x ``n``) of entry rows, in halves."""
    pool = np.zeros(n, dtype=np.int64)
    mountain = np.zeros(n, dtype=np.int64)
    whists = np.zeros((n, n), dtype=np.int64)
    e = np.asarray(entries, dtype=np.int64).reshape(-1, 4)
    col, player, on, amount = e.T
    np.add.at(pool, player[col == POOL], amount[col == POOL])
    np.add.at(mountain, player[col == MOUNTAIN], amount[col == MOUNTAIN])
    is_whist = col == WHIST
    np.add.at(whists, (player[is_whist], on[is_whist]), amount[is_whist])
    return pool, mountain, whists


def _scaled_scores(pool, mountain, whists, pool_value, mountain_value) -> np.ndarray:
    """``N`` times the scores; exact whenever the inputs are integers."""
    n = pool.shape[-1]
    if mountain.shape[-1] != n or whists.shape[-2:] != (n, n):
        raise RecordError(
            f"settle: pool {pool.shape}, mountain {mountain.shape} and whists {whists.shape} "
            "do not describe the same players"
        )
    net = whists.sum(axis=-1) - whists.sum(axis=-2)
    return (
        pool_value * (n * pool - pool.sum(axis=-1, keepdims=True))
        - mountain_value * (n * mountain - mountain.sum(axis=-1, keepdims=True))
        + n * net
    )


def settle(pool: ArrayLike, mountain: ArrayLike, whists: ArrayLike, *, pool_value: float = 10,
           mountain_value: float = 10) -> np.ndarray:
    """Settle a score sheet (RULES.md §8): each player's score in whists.

    ``score_i = P·(p_i − mean p) − M·(m_i − mean m) + Σ_j (W[i][j] − W[j][i])``; the
    scores sum to zero. Works on batches too (leading axes). Only the final division by
    the number of players rounds.

    >>> settle([4, 0, 0], [0, 0, 0], np.zeros((3, 3)), pool_value=20).round(3).tolist()
    [53.333, -26.667, -26.667]

    :param pool: each player's pool.
    :param mountain: each player's mountain.
    :param whists: ``whists[i][j]`` is what ``i`` wrote on ``j``.
    :param pool_value: whists a point of pool is worth (``P``).
    :param mountain_value: whists a point of mountain is worth (``M``).
    :returns: the scores.
    """
    pool = np.asarray(pool, dtype=np.float64)
    scaled = _scaled_scores(
        pool,
        np.asarray(mountain, dtype=np.float64),
        np.asarray(whists, dtype=np.float64),
        pool_value,
        mountain_value,
    )
    return scaled / pool.shape[-1]


def deal_value(variant: Variant, entries: np.ndarray, *, exact: bool = False
               ) -> np.ndarray | list[Fraction]:
    """The value of one deal to each player: the settlement of its entries alone.

    Floats by default; ``exact=True`` gives a list of ``Fraction``.

    >>> from prefstats.game.scoring import game_entries
    >>> from prefstats.game.variants import get_variant
    >>> v = get_variant("leningrad")
    >>> [str(x) for x in deal_value(v, game_entries(v, 0, "6♠", None,
    ...                                 {1: "pass", 2: "pass"}), exact=True)]
    ['80/3', '-40/3', '-40/3']
    """
    n = variant.players
    scaled = _scaled_scores(*entry_totals(entries, n), variant.pool_value, variant.mountain_value)
    if exact:
        return [Fraction(int(x), 2 * n) for x in scaled]
    return scaled / (2 * n)
