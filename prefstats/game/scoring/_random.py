"""Random valid deal outcomes: test and benchmark data, not a model of play."""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.auction import (
    game_played,
    whist_state,
)
from prefstats.game.codes import (
    DEALER_SITS_OUT,
    DEALER_TALON,
    GAME,
    MISERE_GAME,
    RASPASY,
    W_PASS,
    W_WHIST,
    WITH_DUMMY,
)
from prefstats.game.contracts import MISERE, N_CONTRACTS
from prefstats.game.scoring._batch import OUTCOME_FIELDS
from prefstats.game.scoring._kernels import Outcome, idle_seat
from prefstats.game.variants import (
    T_HALF_WHIST,
    T_PLAYERS,
    T_RASPASY_TALON,
    T_STALINGRAD,
    T_TABLE,
    T_TEN_CHECKED,
    Variant,
)


def random_outcomes(variant: Variant, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``n`` random valid deal outcomes for ``variant``, as :func:`score_batch` takes them
    (keys ``OUTCOME_FIELDS``): for tests and benchmarks, not a model of real play.

    Kinds, seats, contracts and the raspasy step are uniform; whist calls are a random
    walk over :func:`~prefstats.game.auction.whist_state`'s legal calls; tricks split 10
    uniformly over the compositions among the players who can take them. Games and
    misères get a multiplier of 1, 2, 4, 8 or 16; three trick games in four show a
    random talon.

    >>> from prefstats.game.variants import get_variant
    >>> o = random_outcomes(get_variant("rostov", players=4), 1000, seed=1)
    >>> bool((o["tricks"].sum(axis=1) <= 10).all()), sorted(set(o["kind"].tolist()))
    (True, [1, 2, 3])
    """
    table = variant.scoring_table()
    unused = {"declarer": 0, "contract": 0, "tricks": 0, "step": 0, "multiplier": 1,
              "talon": 0}  # else -1  # fmt: skip
    out = {}
    for name in OUTCOME_FIELDS:
        shape = (n, variant.players) if name == "tricks" else n
        out[name] = np.full(shape, unused.get(name, -1), dtype=np.int64)
    _random_loop(table, seed, Outcome(*(out[name] for name in OUTCOME_FIELDS)))
    return out


@njit(cache=True)
def _split_ten(seats, m, tricks):
    """Ten tricks over ``seats[:m]``: cut points drawn uniformly, then sorted."""
    cuts = np.sort(np.random.randint(0, 11, m - 1))
    low = 0
    for j in range(m - 1):
        tricks[seats[j]] = cuts[j] - low
        low = cuts[j]
    tricks[seats[m - 1]] = 10 - low


@njit(cache=True)
def _random_loop(t, seed, outcomes):
    """Fill the arrays of ``outcomes`` (an :class:`Outcome` of arrays) with random deals."""
    kind, declarer, defender, contract, tricks, first, second, dealer, step, multiplier, talon = (
        outcomes)
    np.random.seed(seed)
    n = t[T_PLAYERS]
    calls = np.empty(3, dtype=np.int64)
    seats = np.empty(5, dtype=np.int64)
    for i in range(len(kind)):
        k = np.random.randint(GAME, RASPASY + 1)
        kind[i] = k
        dealer[i] = np.random.randint(0, n) if t[T_TABLE] == DEALER_SITS_OUT else -1
        m = 0
        idle = idle_seat(n, dealer[i])  # with 5 players the next to deal sits out too
        for s in range(n):
            if s != dealer[i] and s != idle:
                seats[m] = s
                m += 1
        if k == RASPASY:
            if dealer[i] >= 0 and t[T_RASPASY_TALON] == DEALER_TALON:
                seats[m] = dealer[i]  # the talon's tricks are the dealer's
                m += 1
            _split_ten(seats, m, tricks[i])
            step[i] = np.random.randint(0, 5)
            continue
        d = seats[np.random.randint(0, m)]
        declarer[i] = d
        multiplier[i] = 1 << np.random.randint(0, 5)
        if k == MISERE_GAME:
            tricks[i, d] = np.random.randint(0, 11)
            continue
        code = np.random.randint(0, N_CONTRACTS - 1)
        code += code >= MISERE
        contract[i] = code
        if np.random.randint(0, 4):
            low = np.random.randint(0, 32)
            high = (low + np.random.randint(1, 32)) % 32
            talon[i] = (1 << low) | (1 << high)
        if t[T_TABLE] == WITH_DUMMY:  # the defender's one call, as if the first defender
            legal = whist_state(code, calls[:0], t[T_HALF_WHIST] != 0, t[T_TEN_CHECKED] != 0,
                                t[T_STALINGRAD] != 0, 1)[0]  # fmt: skip
            call = np.random.randint(0, 3)
            while not (legal >> call) & 1:
                call = np.random.randint(0, 3)
            first[i] = call
            second[i] = W_PASS
            if call == W_WHIST:
                _split_ten(seats, 2, tricks[i])
            continue
        others = seats[:3][seats[:3] != d]
        defender[i] = others[np.random.randint(0, 2)]
        ncalls = 0
        while True:
            legal, _, r0, r1, _ = whist_state(
                code, calls[:ncalls], t[T_HALF_WHIST] != 0, t[T_TEN_CHECKED] != 0,
                t[T_STALINGRAD] != 0, -1,
            )  # fmt: skip
            if legal == 0:
                break
            call = np.random.randint(0, 3)
            while not (legal >> call) & 1:
                call = np.random.randint(0, 3)
            calls[ncalls] = call
            ncalls += 1
        first[i] = r0
        second[i] = r1
        if game_played(r0, r1):
            _split_ten(seats, 3, tricks[i])
