"""Whole pulkas (пулька): deals in turn until the pulka ends, on one score sheet.

The players sit at fixed places ``0 .. N-1`` and the deal rotates clockwise
(:func:`seat_places`); each deal is played by the built-in players, scored, helped past
a closed pool and added to the sheet, and the raspasy progression carries from deal to
deal. Classic's bombs and the preference end or multiply deals as RULES.md says; the
docs page "Whole pulkas" tells how. Deal ``k`` of pulka ``j`` is deal ``j · STRIDE + k``
of the seed's pulka stream (:func:`pulka_keys`), so a pulka is the same whatever chunk
or worker plays it.

>>> from prefstats.game.variants import get_variant
>>> r = play_pulkas(get_variant("sochi"), [0, 1], seed=3, pool_target=5)
>>> r["finished"].tolist(), bool(abs(r["result"].sum(axis=1)).max() < 1e-9)
([True, True], True)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.auction import BLIND_PASS, game_played
from prefstats.game.cards import ACE, KING, QUEEN, RANK_MASKS, popcount
from prefstats.game.codes import WITH_DUMMY
from prefstats.game.contracts import LEVEL
from prefstats.game.deal import Deals, Stream, _deal_kernel, free_slots
from prefstats.game.scoring import (
    apply_help,
    deal_values,
    help_barred,
    preference_totals,
    responsible_shortfall,
    state_totals,
)
from prefstats.game.variants import (
    END_HELP,
    END_TOTAL,
    PULKA_ENDS,
    T_PREFERENCE,
    T_TABLE,
    opening_bombs,
)
from prefstats.players.builtin import POLICIES, Players, players_record, resolve_params
from prefstats.players.misere import catchers_code
from prefstats.sim.play import (
    ILLEGAL,
    REACHED,
    TALON_TAKEN,
    DealArrays,
    deal_arrays,
    play_on,
    seat_keys,
    solver_table,
)

#: Deal numbers reserved for one pulka in the seed's pulka stream.
STRIDE = 1 << 16
#: The spawn key that sets the pulka stream apart from the seed's deal stream.
PULKA_STREAM = 1
#: Most unused bombs a place may hold.
MAX_BOMBS = 64
_BATCH = 64  # deals dealt at a time for a pulka
_LEVEL = np.asarray(LEVEL, dtype=np.int64)
#: The "preference" (B:189-197): A K Q of all four suits.
PREFERENCE = RANK_MASKS[ACE] | RANK_MASKS[KING] | RANK_MASKS[QUEEN]
#: Why a pulka stopped early (``status[0]`` of the kernel).
OK, ILLEGAL_DECISION, BOMB_OVERFLOW, BOMB_ROUND_REFUSED = range(4)
#: Columns of the kernel's ``counts``.
(C_DEALS, C_RASPASY, C_GAMES, C_MISERES, C_FINISHED, C_BOMBS_EARNED,
 C_BOMBS_SPENT, C_PREFERENCE) = range(8)  # fmt: skip


@njit(cache=True)
def seat_places(n, dealer, place):
    """Fill ``place`` (length ``n``): the place of each scoring seat of a deal dealt by
    ``dealer``. Seats 0..2 (at most ``n``) are the first, second and third hand; with 4
    players they sit from the dealer's left and scoring seat 3 is the dealer; with 5 the
    next to deal, on the dealer's left, sits out too (B:474): he is seat 4 and the hands
    sit from his left; with 2 the dummy (seat 2) has no place."""
    first = dealer + 2 if n == 5 else dealer + 1
    for s in range(min(n, 3)):
        place[s] = (first + s) % n
    if n >= 4:
        place[3] = dealer
    if n == 5:
        place[4] = (dealer + 1) % n


@njit(cache=True)
def set_bombs(st, n, place, queue, head, size):
    """Each seat's ``st.bombs``: its place's oldest bomb, 1 with none (the dummy: 1)."""
    for s in range(3):
        st.bombs[s] = 1
        if s < min(n, 3):
            p = place[s]
            if size[p] > 0:
                st.bombs[s] = queue[p, head[p]]


@njit(cache=True)
def game_made(st):
    """Whether the finished game or misère ``st`` was made: a trick game not played (the
    declarer credited) or with the declarer's tricks at least his level; a misère
    without a trick."""
    d = st.declarer
    if st.kind == engine.MISERE_GAME:
        return st.tricks[d] == 0
    if st.kind == engine.GAME:
        return not game_played(st.first, st.second) or st.tricks[d] >= _LEVEL[st.contract]
    return False


@njit(cache=True)
def update_bombs(st, n, place, queue, head, size, everyone=False):
    """Bombs after the finished deal ``st``: earned by blind passers of a raspasy, spent
    by the declarer of a made game. A bomb raspasy (``st.multiplier`` > 1, ``bomb_level
    = "round"``) earns bombs of its own multiplier, any other raspasy bombs of ``2^k``
    for ``k`` blind passers; with ``everyone`` (an opening circle's deal, B:406) every
    place earns one, the 4-player dealer too. Returns ``(earned, spent)``, or ``(-1,
    0)`` when a place would hold more than ``queue.shape[1]`` bombs (nothing is changed
    then)."""
    capacity = queue.shape[1]
    if st.kind == engine.RASPASY:
        blind = int(st.blind)
        if blind == 0:
            return 0, 0
        bomb = st.multiplier if st.multiplier > 1 else 1 << popcount(blind)
        earners = 0
        for s in range(n if everyone else min(n, 3)):
            if everyone or (blind >> s) & 1:
                earners |= 1 << place[s]
        for p in range(n):
            if (earners >> p) & 1 and size[p] >= capacity:
                return -1, 0
        for p in range(n):
            if (earners >> p) & 1:
                queue[p, (head[p] + size[p]) % capacity] = bomb
                size[p] += 1
        return popcount(earners), 0
    if st.declarer < 0 or not game_made(st):
        return 0, 0
    p = place[st.declarer]
    if size[p] == 0:
        return 0, 0
    head[p] = (head[p] + 1) % capacity
    size[p] -= 1
    return 0, 1


class Pulkas(NamedTuple):
    """The pulkas a kernel plays: their numbers ``ids``, at most ``max_deals`` deals
    each, to a pool ``target`` (half points) under the end rule ``end_rule``
    (``END_*``), the raspasy's ``exit_level``, the ``opening`` bomb deals
    (:func:`opening_deals`) and the variant's scoring ``table``."""

    ids: np.ndarray
    max_deals: int
    target: int
    end_rule: int
    exit_level: int
    opening: np.ndarray
    table: np.ndarray


class Sheets(NamedTuple):
    """What the kernel writes, by pulka: the sheets (half points), the ``counts`` (rows
    by the ``C_*`` columns) and the ``status``; with ``record`` each deal's final state
    in ``deal_states`` and its (pulka row, deal number, dealer's place) in
    ``deal_places`` (without, ``deal_states`` is one deal's scratch)."""

    pool: np.ndarray
    mountain: np.ndarray
    whists: np.ndarray
    counts: np.ndarray
    status: np.ndarray
    record: bool
    deal_states: np.ndarray
    deal_places: np.ndarray


@njit(cache=True)
def _pulka_kernel(stream, chosen, pulkas, players, obs_buf, solver_table, sheets):
    """Play ``pulkas`` (a :class:`Pulkas`) with the built-in ``players`` into ``sheets``
    (a :class:`Sheets`), the deals from ``stream`` (:func:`pulka_keys`). On an illegal
    decision, a refused bomb-round pass or too many bombs, ``status`` gets the reason
    (``ILLEGAL_DECISION`` ...) and the pulka's row, and the kernel stops. The
    ``chosen`` deals (a :class:`~prefstats.sim.play.DealArrays`), if any, are the first
    deals of every pulka in place of the stream's."""
    pulka_ids, max_deals, target, end_rule, exit_level, opening, table = pulkas
    pool, mountain, whists, counts, status, record, deal_states, deal_places = sheets
    chosen_hands, chosen_talon, chosen_turned = chosen.hands, chosen.talon, chosen.talon_first
    rules = players.rules
    n = pool.shape[1]
    bidders = 2 if table[T_TABLE] == WITH_DUMMY else 3
    hands = np.empty((_BATCH, 3), dtype=np.uint32)
    talon = np.empty(_BATCH, dtype=np.uint32)
    turned = np.empty(_BATCH, dtype=np.int8)
    totals = np.empty(2 * n + n * n, dtype=np.int64)
    placed = np.empty(2 * n + n * n, dtype=np.int64)
    helped = np.empty(2 * n + n * n, dtype=np.int64)
    tricks = np.zeros(n, dtype=np.int64)
    place = np.empty(n, dtype=np.int64)
    no_help = np.zeros(n, dtype=np.bool_)
    barred = np.zeros(n, dtype=np.bool_)  # by seats; no_help by places
    queue = np.ones((n, MAX_BOMBS), dtype=np.int64)  # each place's bombs, a ring buffer
    head = np.zeros(n, dtype=np.int64)
    size = np.zeros(n, dtype=np.int64)
    obs = obs_buf[0]
    played = 0
    stays = rules[engine.R_DEALER_STAYS]
    for p in range(len(pulka_ids)):
        first_deal = pulka_ids[p] * STRIDE
        step = 0
        min_level = 6
        dealer = n - 1
        running = 0  # deals the dealer has dealt in a row
        head[:] = 0
        size[:] = 0
        k = 0
        while k < max_deals:
            b = k % _BATCH
            if b == 0:
                _deal_kernel(stream, first_deal + k, _BATCH, hands, talon, turned)
            if k < len(chosen_talon):
                hands[b, :] = chosen_hands[k]
                talon[b] = chosen_talon[k]
                turned[b] = chosen_turned[k]
            bomb_round = k < len(opening)
            if bomb_round:
                dealer = opening[k, 0]
            running += 1
            seat_places(n, dealer, place)
            st = deal_states[played] if record else deal_states[0]
            if record:
                deal_places[played, 0] = p
                deal_places[played, 1] = k
                deal_places[played, 2] = dealer
                played += 1
            engine.reset(st, hands[b], talon[b], turned[b], min_level, step)
            set_bombs(st, n, place, queue, head, size)
            if bomb_round:  # every bidder passes blind before looking
                for _ in range(bidders):
                    if engine.apply(st, rules, BLIND_PASS) != 0:
                        status[0] = BOMB_ROUND_REFUSED
                        status[1] = p
                        return
                if opening[k, 1] > 1:  # an opening circle's bomb level (B:398)
                    st.multiplier = opening[k, 1]
            keys = seat_keys(players.key, first_deal + k)
            stop = TALON_TAKEN if table[T_PREFERENCE] else -1
            outcome = play_on(st, players, keys, obs, solver_table, -1, stop)
            if outcome == REACHED:
                if int(st.hands[st.declarer]) & PREFERENCE == PREFERENCE:
                    # "The game stops and is considered finished" (B:199).
                    preference_totals(table, target, pool[p], mountain[p],
                                      place[st.declarer], placed)
                    _add_to_sheet(pool[p], mountain[p], whists[p], placed)
                    k += 1
                    counts[p, C_PREFERENCE] = 1
                    counts[p, C_FINISHED] = 1
                    break
                outcome = play_on(st, players, keys, obs, solver_table, -1, -1)
            if outcome == ILLEGAL:
                status[0] = ILLEGAL_DECISION
                status[1] = p
                return
            raspasy = st.kind == engine.RASPASY
            state_totals(table, st, tricks, totals)
            # From scoring seats (0..2 the hands, 3 the sitting-out dealer, 4 the
            # 5-player next to deal) to places.
            for s in range(n):
                placed[place[s]] = totals[s]
                placed[n + place[s]] = totals[n + s]
                for t in range(n):
                    placed[2 * n + place[s] * n + place[t]] = totals[2 * n + s * n + t]
            if st.kind == engine.GAME:
                responsible_shortfall(table, target, pool[p], place[st.declarer], placed)
            if target > 0 and end_rule == END_HELP:
                help_barred(table, st.kind, st.declarer, st.first, st.second, barred)
                for s in range(n):
                    no_help[place[s]] = barred[s]
                apply_help(table, target, pool[p], mountain[p], placed, no_help, raspasy,
                           helped)
            else:
                helped[:] = placed
            _add_to_sheet(pool[p], mountain[p], whists[p], helped)
            earned, spent = update_bombs(st, n, place, queue, head, size,
                                         bomb_round and opening[k, 1] > 1)
            if earned < 0:
                status[0] = BOMB_OVERFLOW
                status[1] = p
                return
            counts[p, C_BOMBS_EARNED] += earned
            counts[p, C_BOMBS_SPENT] += spent
            k += 1
            counts[p, C_RASPASY] += raspasy
            counts[p, C_GAMES] += st.kind == engine.GAME
            counts[p, C_MISERES] += st.kind == engine.MISERE_GAME
            if not (raspasy and st.multiplier > 1):  # a bomb raspasy is no step (§10.1)
                step = step + 1 if raspasy else 0
                min_level = exit_level if raspasy else 6
            if bomb_round or not (raspasy and running < stays):  # he stays after a raspasy
                dealer = (dealer + 1) % n
                running = 0
            if target > 0 and k >= len(opening) and _ended(pool[p], target, end_rule):
                counts[p, C_FINISHED] = 1
                break
        counts[p, C_DEALS] = k


@njit(cache=True)
def _add_to_sheet(pool, mountain, whists, deal):
    """Add a deal's dense totals (as :func:`state_totals` writes them, by places)."""
    n = pool.shape[0]
    for i in range(n):
        pool[i] += deal[i]
        mountain[i] += deal[n + i]
        for j in range(n):
            whists[i, j] += deal[2 * n + i * n + j]


@njit(cache=True)
def _ended(pool, target, end_rule):
    """Whether a pulka with these pools is over under ``pulka_end`` (``END_*``)."""
    if end_rule == END_TOTAL:
        return pool.sum() >= target * pool.shape[0]
    return pool.min() >= target


def opening_deals(variant) -> np.ndarray:
    """:func:`~prefstats.game.variants.opening_bombs` as an int64 array ``(deals, 2)``: each
    opening bomb deal's dealer place and bomb multiplier.

    >>> from prefstats.game.variants import get_variant
    >>> opening_deals(get_variant("classic", bomb_rounds=3)).tolist()
    [[2, 2], [2, 4], [2, 8], [0, 2], [0, 4], [0, 8], [1, 2], [1, 4], [1, 8]]
    """
    return np.array(opening_bombs(variant), dtype=np.int64).reshape(-1, 2)


def pulka_keys(seed: int) -> tuple[np.uint64, np.uint64]:
    """The two keys of the seed's pulka stream, as :func:`seed_keys` gives them for the
    deal stream (a spawned ``SeedSequence``: its words never meet those of the deal
    stream of any seed below 2^128)."""
    seq = np.random.SeedSequence(seed, spawn_key=(PULKA_STREAM,))
    key0, key1 = seq.generate_state(2, dtype=np.uint64)
    return key0, key1


def pulka_stream(seed: int) -> Stream:
    """The seed's pulka stream of unconstrained deals (:func:`pulka_keys`)."""
    return Stream(*pulka_keys(seed), *free_slots())


def pulka_deals(n: int, *, seed: int, start: int = 0) -> Deals:
    """Deals ``start .. start + n - 1`` of the seed's pulka stream (deal ``k`` of pulka
    ``j`` is number ``j · STRIDE + k``), as :func:`~prefstats.game.deal.deal` deals its own."""
    hands = np.empty((n, 3), dtype=np.uint32)
    talon = np.empty(n, dtype=np.uint32)
    turned = np.empty(n, dtype=np.int8)
    _deal_kernel(pulka_stream(seed), start, n, hands, talon, turned)
    return Deals(hands, talon, seed, np.arange(start, start + n, dtype=np.int64), turned)


def play_pulkas(
    variant,
    pulka_ids,
    *,
    seed: int,
    pool_target: int,
    policy: str = "heuristic",
    params: np.ndarray | None = None,
    player_key: int | np.integer = 0,
    max_deals: int = 5000,
    with_deals: bool = False,
    misere_catchers: str = "hidden",
    deals: Deals | None = None,
) -> dict[str, np.ndarray]:
    """Play the pulkas numbered ``pulka_ids`` to their end.

    Returns arrays by pulka: ``pool``, ``mountain`` (points, per place), ``whists``
    (``[i, j]`` written by place i on j), ``result`` (the settlement in whists),
    ``deals``, ``raspasy``, ``games``, ``miseres``, ``finished`` (false when
    ``max_deals`` ran out first), ``bombs_earned``, ``bombs_spent`` and ``preference``
    (the pulka ended by the preference, its last deal stopped at the talon). ``with_deals``
    adds every deal: ``deal_states`` (final :data:`engine.STATE` records, in order; their
    ``bombs`` field holds each seat's bomb at the deal) and ``deal_places`` (n, 3): the
    pulka's row, the deal's number in it and the dealer's place. The pulkas are played
    twice then (to size the arrays), with the same result. ``misere_catchers``: the
    model of the misère catchers (:func:`~prefstats.sim.play.play_batch`). ``deals``: the
    first deals of every pulka, in place of the stream's (chosen deals, for tests).

    A place holding more than :data:`MAX_BOMBS` unused bombs raises ``RuntimeError``.
    """
    if pool_target < 1:
        raise OptionError(f"pool_target must be a positive number of points, got {pool_target}")
    if not 1 <= max_deals <= STRIDE:
        raise OptionError(f"max_deals must lie in 1..{STRIDE}, got {max_deals}")
    if policy not in POLICIES:
        raise OptionError(f"unknown policy {policy!r}; choose from {POLICIES}")
    catchers_code(misere_catchers)
    players = players_record(variant, policy, resolve_params(policy, params), key=player_key,
                             catchers=misere_catchers)
    return _play_pulkas(variant, pulka_ids, seed=seed, pool_target=pool_target, players=players,
                        max_deals=max_deals, with_deals=with_deals, deals=deals)


def _play_pulkas(variant, pulka_ids, *, seed: int, pool_target: int, players: Players,
                 max_deals: int = 5000, with_deals: bool = False,
                 deals: Deals | None = None) -> dict[str, np.ndarray]:
    """:func:`play_pulkas` with its players as a record made already (checked, by
    :func:`play_pulkas` or a run spec): nothing checked again."""
    ids = np.asarray(pulka_ids, dtype=np.int64)
    n = variant.players
    count = len(ids)
    pool = np.zeros((count, n), dtype=np.int64)
    mountain = np.zeros((count, n), dtype=np.int64)
    whists = np.zeros((count, n, n), dtype=np.int64)
    counts = np.zeros((count, C_PREFERENCE + 1), dtype=np.int64)
    status = np.zeros(2, dtype=np.int64)
    stream = pulka_stream(seed)
    chosen = deal_arrays(deals) if deals is not None else DealArrays(
        np.zeros((0, 3), dtype=np.uint32), np.zeros(0, dtype=np.uint32),
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    pulkas = Pulkas(ids, max_deals, 2 * pool_target, PULKA_ENDS.index(variant.pulka_end),
                    variant.raspasy_exit, opening_deals(variant), variant.scoring_table())

    def play(record: bool, deal_states: np.ndarray, deal_places: np.ndarray) -> None:
        for array in (pool, mountain, whists, counts, status):
            array[:] = 0
        _pulka_kernel(stream, chosen, pulkas, players, np.zeros(1, dtype=engine.OBSERVATION),
                      solver_table(), Sheets(pool, mountain, whists, counts, status, record,
                                             deal_states, deal_places))

    play(False, np.zeros(1, dtype=engine.STATE), np.zeros((1, 3), dtype=np.int64))
    deal_states = deal_places = None
    if with_deals and status[0] == OK:
        total = int(counts[:, C_DEALS].sum())
        deal_states = np.zeros(total, dtype=engine.STATE)
        deal_places = np.zeros((total, 3), dtype=np.int64)
        play(True, deal_states, deal_places)
    pulka = ids[status[1]] if status[0] != OK else None
    policy = POLICIES[players.policy]
    if status[0] == ILLEGAL_DECISION:
        raise RuntimeError(f"policy {policy!r} made an illegal decision in pulka {pulka}")
    if status[0] == BOMB_OVERFLOW:
        raise RuntimeError(f"pulka {pulka}: a place holds more than {MAX_BOMBS} unused bombs")
    if status[0] == BOMB_ROUND_REFUSED:
        raise RuntimeError(f"pulka {pulka}: the engine refused a bomb round's blind pass")
    return {
        "pool": pool / 2,
        "mountain": mountain / 2,
        "whists": whists / 2,
        "result": deal_values(variant, pool, mountain, whists),
        "deals": counts[:, C_DEALS],
        "raspasy": counts[:, C_RASPASY],
        "games": counts[:, C_GAMES],
        "miseres": counts[:, C_MISERES],
        "finished": counts[:, C_FINISHED].astype(bool),
        "bombs_earned": counts[:, C_BOMBS_EARNED],
        "bombs_spent": counts[:, C_BOMBS_SPENT],
        "preference": counts[:, C_PREFERENCE].astype(bool),
        **({"deal_states": deal_states, "deal_places": deal_places} if with_deals else {}),
    }
