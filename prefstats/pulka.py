"""Whole pulkas (пулька): deals in turn until the pulka ends, on one score sheet.

The players sit at fixed places ``0 .. N-1``; the deal rotates clockwise, the first
dealer being place ``N-1`` (place 0's right neighbour), and with 4 players the dealer
sits each deal out. Every deal is played by the built-in players, scored by the
compiled scoring (:func:`~prefstats.scoring.deal_totals`), helped past a closed pool
(:func:`~prefstats.scoring.apply_help`) and added to the sheet. The raspasy
progression and the higher minimum bid after a raspasy (``raspasy_exit``) carry from
deal to deal; a played game or misère resets both. The pulka ends by the variant's
``pulka_end`` rule.

Deal ``k`` of pulka ``j`` is deal ``j · STRIDE + k`` of the seed's stream, so a pulka
is the same whatever chunk or worker plays it.

>>> from prefstats.variants import get_variant
>>> r = play_pulkas(get_variant("sochi"), [0, 1], seed=3, pool_target=5)
>>> r["finished"].tolist(), bool(abs(r["result"].sum(axis=1)).max() < 1e-9)
([True, True], True)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats import engine
from prefstats.deal import deal_kernel, free_slots, seed_keys
from prefstats.play import play_state, solver_table
from prefstats.players.builtin import DOUBLE_DUMMY_OPEN, POLICIES, default_params, default_tables
from prefstats.scoring import apply_help, deal_values, state_totals

#: Deal numbers reserved for one pulka in the seed's stream.
STRIDE = 1 << 16
_BATCH = 64  # deals dealt at a time for a pulka


@njit(cache=True)
def _pulka_kernel(key0, key1, free, sizes, fixed, pulka_ids, max_deals, target, total_end,
                  exit_level, rules, table, policy, params, tables, double_dummy, player_key,
                  state_buf, obs_buf, solver_table, stats, pool, mountain, whists, counts,
                  record, deal_states, deal_places):
    """Play pulkas ``pulka_ids``; sheets in half points, ``counts`` rows are (deals,
    raspasy, games, misères, finished). With ``record`` every deal's final state goes
    to ``deal_states`` (in order) and its (pulka row, deal number, dealer's place) to
    ``deal_places``. Returns the index of a pulka where a decision was illegal, or -1."""
    n = pool.shape[1]
    hands = np.empty((_BATCH, 3), dtype=np.uint32)
    talon = np.empty(_BATCH, dtype=np.uint32)
    turned = np.empty(_BATCH, dtype=np.int8)
    totals = np.empty(2 * n + n * n, dtype=np.int64)
    placed = np.empty(2 * n + n * n, dtype=np.int64)
    helped = np.empty(2 * n + n * n, dtype=np.int64)
    tricks = np.zeros(n, dtype=np.int64)
    place = np.empty(n, dtype=np.int64)
    no_help = np.zeros(n, dtype=np.bool_)
    obs = obs_buf[0]
    played = 0
    for p in range(len(pulka_ids)):
        first_deal = pulka_ids[p] * STRIDE
        step = 0
        min_level = 6
        k = 0
        while k < max_deals:
            b = k % _BATCH
            if b == 0:
                deal_kernel(key0, key1, first_deal + k, _BATCH, free, sizes, fixed, hands,
                            talon, turned)
            dealer = (n - 1 + k) % n
            st = deal_states[played] if record else state_buf[0]
            if record:
                deal_places[played, 0] = p
                deal_places[played, 1] = k
                deal_places[played, 2] = dealer
                played += 1
            engine.reset(st, hands[b], talon[b], turned[b], min_level, step)
            if not play_state(st, rules, policy, params, tables, double_dummy, player_key,
                              first_deal + k, obs, solver_table, stats):
                return p
            raspasy = st.kind == engine.RASPASY
            state_totals(table, st, tricks, totals)
            # From seats (0..2 from the dealer's left, 3 the dealer) to places.
            for s in range(3):
                place[s] = (dealer + 1 + s) % n
            if n == 4:
                place[3] = dealer
            for s in range(n):
                placed[place[s]] = totals[s]
                placed[n + place[s]] = totals[n + s]
                for t in range(n):
                    placed[2 * n + place[s] * n + place[t]] = totals[2 * n + s * n + t]
            if target > 0 and not total_end:
                for s in range(n):
                    no_help[place[s]] = n == 4 and s == 3  # the dealer sits out
                    if not raspasy and s < 3 and s != st.declarer:
                        no_help[place[s]] = True  # the deal's defenders
                apply_help(table, target, pool[p], mountain[p], placed, no_help, helped)
            else:
                helped[:] = placed
            for i in range(n):
                pool[p, i] += helped[i]
                mountain[p, i] += helped[n + i]
                for j in range(n):
                    whists[p, i, j] += helped[2 * n + i * n + j]
            k += 1
            counts[p, 1] += raspasy
            counts[p, 2] += st.kind == engine.GAME
            counts[p, 3] += st.kind == engine.MISERE_GAME
            step = step + 1 if raspasy else 0
            min_level = exit_level if raspasy else 6
            if target > 0 and _ended(pool[p], target, total_end):
                counts[p, 4] = 1
                break
        counts[p, 0] = k
    return -1


@njit(cache=True)
def _ended(pool, target, total_end):
    if total_end:
        return pool.sum() >= target * pool.shape[0]
    return pool.min() >= target


def play_pulkas(
    variant,
    pulka_ids,
    *,
    seed: int,
    pool_target: int,
    policy: str = "heuristic",
    params: np.ndarray | None = None,
    player_key: int = 0,
    max_deals: int = 5000,
    with_deals: bool = False,
) -> dict[str, np.ndarray]:
    """Play the pulkas numbered ``pulka_ids`` to their end.

    Returns arrays by pulka: ``pool``, ``mountain`` (points, per place), ``whists``
    (``[i, j]`` written by place i on j), ``result`` (the settlement in whists),
    ``deals``, ``raspasy``, ``games``, ``miseres`` and ``finished`` (false when
    ``max_deals`` ran out first). ``with_deals`` adds every deal: ``deal_states``
    (final :data:`engine.STATE` records, in order) and ``deal_places`` (n, 3): the
    pulka's row, the deal's number in it and the dealer's place. The pulkas are played
    twice then (to size the arrays), with the same result.
    """
    if pool_target < 1:
        raise ValueError(f"pool_target must be a positive number of points, got {pool_target}")
    if not 1 <= max_deals <= STRIDE:
        raise ValueError(f"max_deals must lie in 1..{STRIDE}, got {max_deals}")
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose from {POLICIES}")
    ids = np.asarray(pulka_ids, dtype=np.int64)
    n = variant.players
    count = len(ids)
    pool = np.zeros((count, n), dtype=np.int64)
    mountain = np.zeros((count, n), dtype=np.int64)
    whists = np.zeros((count, n, n), dtype=np.int64)
    counts = np.zeros((count, 5), dtype=np.int64)
    _, key0, key1 = seed_keys(seed)
    free, sizes, fixed = free_slots()
    index = POLICIES.index(policy)
    def play(record: bool, deal_states: np.ndarray, deal_places: np.ndarray) -> int:
        for array in (pool, mountain, whists, counts):
            array[:] = 0
        return _pulka_kernel(
            key0, key1, free, sizes, fixed, ids, max_deals, 2 * pool_target,
            variant.pulka_end == "total", variant.raspasy_exit, engine.rules_array(variant),
            variant.scoring_table(), index,
            default_params(policy) if params is None else np.asarray(params, dtype=np.float64),
            default_tables(policy, variant), bool(DOUBLE_DUMMY_OPEN[index]),
            np.uint64(player_key), np.zeros(1, dtype=engine.STATE),
            np.zeros(1, dtype=engine.OBSERVATION), solver_table(), np.zeros(1, dtype=np.int64),
            pool, mountain, whists, counts, record, deal_states, deal_places,
        )

    bad = play(False, np.zeros(1, dtype=engine.STATE), np.zeros((1, 3), dtype=np.int64))
    deal_states = deal_places = None
    if with_deals and bad < 0:
        total = int(counts[:, 0].sum())
        deal_states = np.zeros(total, dtype=engine.STATE)
        deal_places = np.zeros((total, 3), dtype=np.int64)
        bad = play(True, deal_states, deal_places)
    if bad >= 0:
        raise RuntimeError(f"policy {policy!r} made an illegal decision in pulka {ids[bad]}")
    return {
        "pool": pool / 2,
        "mountain": mountain / 2,
        "whists": whists / 2,
        "result": deal_values(variant, pool, mountain, whists),
        "deals": counts[:, 0],
        "raspasy": counts[:, 1],
        "games": counts[:, 2],
        "miseres": counts[:, 3],
        "finished": counts[:, 4].astype(bool),
        **({"deal_states": deal_states, "deal_places": deal_places} if with_deals else {}),
    }
