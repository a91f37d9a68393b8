"""Scoring arrays of deals: outcomes as arrays, or finished engine states."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from prefstats.errors import RecordError
from prefstats.game.cards import card_counts
from prefstats.game.codes import (
    GAME,
    RASPASY,
    W_HALF,
)
from prefstats.game.contracts import N_CONTRACTS
from prefstats.game.scoring._kernels import Outcome, _score_loop, _states_loop
from prefstats.game.scoring._settle import _scaled_scores
from prefstats.game.variants import (
    Variant,
)

#: The arguments of :func:`deal_totals` that describe a deal, in its order.
OUTCOME_FIELDS = ("kind", "declarer", "defender", "contract", "tricks", "first", "second",
                  "dealer", "step", "multiplier", "talon")  # fmt: skip


def score_batch(
    variant: Variant,
    kind: ArrayLike,
    declarer: ArrayLike,
    contract: ArrayLike,
    tricks: ArrayLike,
    first: ArrayLike,
    second: ArrayLike,
    dealer: ArrayLike = -1,
    step: ArrayLike = 0,
    *,
    defender: ArrayLike = -1,
    multiplier: ArrayLike = 1,
    talon: ArrayLike = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score ``n`` deals with the compiled ``_kernels.deal_totals`` once their ranges are checked.

    Only the ranges of seats, codes and counts are checked (out-of-range values would write
    outside the arrays), that ``multiplier`` is at least 1 and that each ``talon`` is 0 or
    two cards; the rules are trusted, as the engine produces them. Every argument but
    ``variant`` and ``tricks`` is a length-``n`` array or one value for all deals.

    >>> from prefstats.game.codes import W_WHIST
    >>> from prefstats.game.variants import get_variant
    >>> pool, mountain, whists = score_batch(get_variant("sochi"), [GAME, RASPASY], 0, 3,
    ...     [[4, 4, 2], [0, 4, 6]], W_WHIST, W_WHIST, step=[0, 1])
    >>> (pool // 2).tolist(), (mountain // 2).tolist(), (whists[0, :, 0] // 2).tolist()
    ([[0, 0, 0], [2, 0, 0]], [[4, 0, 0], [0, 8, 12]], [0, 12, 8])

    :param variant: the rules.
    :param kind: the kind of each deal (game, misère, raspasy).
    :param declarer: the declarer's seat.
    :param contract: the contract's code.
    :param tricks: each seat's tricks, ``(n, N)``.
    :param first: the first defender's whist call.
    :param second: the second defender's whist call.
    :param dealer: the dealer's seat; with 4 players every deal names it.
    :param step: the raspasy progression's step.
    :param defender: the defending player where the variant has a dummy.
    :param multiplier: the deal's multiplier (a Classic bomb, a dark game).
    :param talon: the talon's cards where the rules score them.
    :returns: pool ``(n, N)``, mountain ``(n, N)`` and whists ``(n, N, N)`` in half
        points, three views of one array.
    :raises RecordError: naming the argument of a value out of its range or of a wrong shape.
    """
    n_players = variant.players
    tricks = np.asarray(tricks, dtype=np.int64)
    if tricks.ndim != 2 or tricks.shape[1] != n_players:
        raise RecordError(f"tricks: expected shape (n, {n_players}), got {tricks.shape}")
    n = len(tricks)
    big = np.iinfo(np.int64).max
    columns = {  # in the order of OUTCOME_FIELDS: values, lowest, highest
        "kind": (kind, GAME, RASPASY),
        "declarer": (declarer, 0, n_players - 1),
        "defender": (defender, -1, n_players - 1),
        "contract": (contract, 0, N_CONTRACTS - 1),
        "tricks": (tricks, 0, 10),
        "first": (first, -1, W_HALF),
        "second": (second, -1, W_HALF),
        "dealer": (dealer, 0 if variant.dealer_sits_out else -1, n_players - 1),
        "step": (step, 0, big),
        "multiplier": (multiplier, 1, big),
        "talon": (talon, 0, 0xFFFFFFFF),
    }
    arrays = []
    for name, (values, low, high) in columns.items():
        a = np.asarray(values, dtype=np.int64)
        if a.size and (a.min() < low or a.max() > high):
            raise RecordError(f"{name}: values outside {low}..{high}")
        if name == "talon" and ((a != 0) & (card_counts(a.astype(np.uint32)) != 2)).any():
            raise RecordError("talon: each value is 0 (no talon shown) or a mask of two cards")
        if name != "tricks":
            try:
                a = np.broadcast_to(a, (n,))
            except ValueError:
                raise RecordError(f"{name}: expected {n} values or one, got {a.shape}") from None
        arrays.append(a)
    out = np.empty((n, 2 * n_players + n_players**2), dtype=np.int64)
    _score_loop(variant.scoring_table(), Outcome(*arrays), out)
    pool = out[:, :n_players]
    mountain = out[:, n_players : 2 * n_players]
    return pool, mountain, out[:, 2 * n_players :].reshape(n, n_players, n_players)


def score_states(variant: Variant, states: np.ndarray) -> tuple[np.ndarray, ...]:
    """Pool, mountain and whists (as :func:`score_batch` returns them) of finished
    hand-engine states (records of :data:`prefstats.game.engine.STATE`), each scored by
    :func:`state_totals`."""
    n = variant.players
    states = np.ascontiguousarray(states)
    out = np.empty((len(states), 2 * n + n * n), dtype=np.int64)
    _states_loop(variant.scoring_table(), states, out)
    return out[:, :n], out[:, n : 2 * n], out[:, 2 * n :].reshape(-1, n, n)


def deal_values(variant: Variant, pool: ArrayLike, mountain: ArrayLike, whists: ArrayLike
                ) -> np.ndarray:
    """Value of each deal ``(n, N)`` (float) from its totals in half points, as
    :func:`score_batch` returns them: the settlement (RULES.md §8) of each deal alone.

    >>> from prefstats.game.codes import W_PASS
    >>> from prefstats.game.variants import get_variant
    >>> v = get_variant("leningrad")
    >>> deal_values(v, *score_batch(v, GAME, 0, 0, [[0, 0, 0]], W_PASS, W_PASS)).round(2)
    array([[ 26.67, -13.33, -13.33]])
    """
    scaled = _scaled_scores(pool, mountain, whists, variant.pool_value, variant.mountain_value)
    return scaled / (2 * variant.players)
