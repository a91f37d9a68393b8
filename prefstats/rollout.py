"""Counterfactual decisions: the same deals played once per option of one decision.

A figure that tells a player what to do must be a paired difference: the same deal
played with the decision one way and the other, everything else by the same policy.
:func:`rollout` plays each deal up to ``seat``'s ``decision`` once, then copies that
state for every option, forces the option and plays each copy on with the built-in
policy (compiled). The players' random choices are keyed by the deal, the seat and
which decision it is (:func:`~prefstats.players.builtin.decision_number`), so the
branches of a deal share every random draw that both reach (common random numbers):
their differences are the decision's effect, not noise of the players' dice.

Decisions and options (API.md, "Counterfactual decisions"):

- ``first_call``: ``pass``, ``bid`` (the lowest legal bid of a trick game with the
  talon), ``misere``; ``dark`` and ``blind_pass`` where the variant has them. Only the
  seat's first call of the auction is forced.
- ``whist``: ``pass``, ``whist``, ``half`` (where the variant has half-whists): the
  seat's first whist call as a defender of a trick game. A whist the rules impose
  (Stalingrad's 6♠) is no decision.

An option that is illegal where the decision is reached, or a decision never reached
(the seat is the declarer, nobody bid ...), gives ``legal = False`` and a null value.
:func:`play_forced_hands` plays the same forcing through the Python
:class:`~prefstats.players.base.Player` protocol, to show the drivers agree.

>>> from prefstats.deal import deal
>>> from prefstats.variants import get_variant
>>> frame = rollout(get_variant("sochi"), deal(4, seed=1), seat=0, decision="first_call",
...                 options=["pass", "bid"])
>>> frame.columns[:4], frame.height
(['deal', 'option', 'legal', 'value'], 8)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from numba import njit

from prefstats import engine
from prefstats.auction import BLIND_PASS, DARK, PASS, W_HALF, W_PASS, W_WHIST, dummy_seat
from prefstats.cards import FULL_DECK, card_counts, format_cards
from prefstats.contracts import MISERE
from prefstats.deal import Deals
from prefstats.play import (
    FIRST_CALL,
    ILLEGAL,
    LOWEST_BID,
    REACHED,
    WHIST_CALL,
    at_decision,
    default_talon_first,
    forced_action,
    play_on,
    seat_keys,
    solver_table,
)
from prefstats.players.builtin import (
    DOUBLE_DUMMY_OPEN,
    POLICIES,
    BuiltinPlayer,
    default_tables,
    resolve_params,
    seat_key,
)
from prefstats.scoring import deal_values, score_states
from prefstats.simulate import player_key

#: Decisions :func:`rollout` can force: the driver's code of each.
DECISIONS = {"first_call": FIRST_CALL, "whist": WHIST_CALL}
#: Each decision's options: the forced call, and the variant option it needs (or None).
OPTIONS = {
    "first_call": {"pass": (PASS, None), "bid": (LOWEST_BID, None), "misere": (MISERE, None),
                   "dark": (DARK, "dark_bids"), "blind_pass": (BLIND_PASS, "blind_pass")},
    "whist": {"pass": (W_PASS, None), "whist": (W_WHIST, None), "half": (W_HALF, "half_whist")},
}
#: Deals per compiled call (and per task with several workers): bounds the states held.
CHUNK = 20_000


def option_codes(variant, decision: str, options: Sequence[str]) -> np.ndarray:
    """The forced calls of ``options`` of ``decision`` under ``variant`` (checked)."""
    if decision not in DECISIONS:
        raise ValueError(f"unknown decision {decision!r}; choose from {', '.join(DECISIONS)}")
    known = OPTIONS[decision]
    options = list(options)
    if not options:
        raise ValueError(f"options: name at least one option of {decision!r}")
    codes = []
    for option in options:
        if option not in known:
            raise ValueError(f"unknown option {option!r} of {decision!r}; choose from "
                             f"{', '.join(known)}")
        code, needs = known[option]
        if needs is not None and not getattr(variant, needs):
            raise ValueError(f"option {option!r} of {decision!r}: the variant has no {needs}")
        codes.append(code)
    if len(set(options)) != len(options):
        raise ValueError(f"options: each option once, got {options}")
    return np.array(codes, dtype=np.int64)


def _check_seat(variant, seat: int) -> int:
    dummy = dummy_seat(variant)
    bidders = [s for s in range(3) if s != dummy]
    if not isinstance(seat, int | np.integer) or int(seat) not in bidders:
        raise ValueError(f"seat {seat!r} is not a player's seat at this table; choose from "
                         f"{bidders}")
    return int(seat)


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")


@njit(cache=True)
def _rollout_kernel(hands, talon, talon_first, rules, policy, params, tables, double_dummy,
                    base_key, index, seat, decision, options, states, legal, obs_buf, table,
                    stats):
    """Deal ``i``'s branches are ``states[i * k + o]`` for the ``k`` ``options``: the
    shared part is played once in the first slot and copied. Returns the first deal
    where the policy made an illegal decision, or -1."""
    obs = obs_buf[0]
    k = len(options)
    actions = np.empty(k, dtype=np.int64)
    for i in range(hands.shape[0]):
        root = states[i * k]
        engine.reset(root, hands[i], talon[i], talon_first[i], 6, 0)
        keys = seat_keys(base_key, index[i])
        status = play_on(root, rules, policy, params, tables, double_dummy, keys, obs,
                         table, stats, seat, decision)
        if status == ILLEGAL:
            return i
        for o in range(k):
            actions[o] = forced_action(options[o], obs.legal, rules) if status == REACHED else -1
        for o in range(1, k):
            states[i * k + o] = root
        for o in range(k):
            if actions[o] < 0:
                continue
            st = states[i * k + o]
            legal[i, o] = True
            engine.apply(st, rules, actions[o])
            if play_on(st, rules, policy, params, tables, double_dummy, keys, obs, table,
                       stats, -1, -1) == ILLEGAL:
                return i
    return -1


def _arrays(deals):
    first = getattr(deals, "talon_first", None)
    if first is None:
        first = np.array([default_talon_first(t) for t in deals.talon], dtype=np.int64)
    return (np.ascontiguousarray(deals.hands, dtype=np.uint32),
            np.ascontiguousarray(deals.talon, dtype=np.uint32),
            np.asarray(first, dtype=np.int64), np.asarray(deals.index, dtype=np.int64))


def rollout_states(variant, deals, *, seat: int, decision: str | None,
                   options: Sequence[str], key: int = 0, policy: str = "heuristic",
                   params: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The branches' final :data:`engine.STATE` records ``(n, k)`` and ``legal`` ``(n, k)``
    (compiled, one process); ``key`` seeds the players as in
    :func:`~prefstats.play.play_batch`. A branch whose option is not legal holds the
    state at the decision (or, never reached, the unforced play). ``decision=None``
    forces nothing: one branch a deal, played as ``play_batch`` plays it (a check of
    the driver)."""
    if decision is None:
        codes, forced = np.full(1, -1, dtype=np.int64), -1
    else:
        codes, forced = option_codes(variant, decision, options), DECISIONS[decision]
    seat = _check_seat(variant, seat)
    _check_policy(policy)
    n, k = len(deals), len(codes)
    hands, talon, first, index = _arrays(deals)
    states = np.zeros(n * k, dtype=engine.STATE)
    legal = np.zeros((n, k), dtype=np.bool_)
    prm = resolve_params(policy, params)
    code = POLICIES.index(policy)
    bad = _rollout_kernel(
        hands, talon, first, engine.rules_array(variant), code, prm,
        default_tables(policy, variant), bool(DOUBLE_DUMMY_OPEN[code]), np.uint64(key), index,
        seat, forced, codes, states, legal, np.zeros(1, dtype=engine.OBSERVATION),
        solver_table(), np.zeros(1, dtype=np.int64))
    if bad >= 0:
        raise RuntimeError(f"built-in policy {policy!r} made an illegal decision in deal {bad}")
    return states.reshape(n, k), legal


def _chunk_values(variant, deals, seat, decision, options, key, policy, params):
    """``legal``, ``value`` and ``kind`` ``(n, k)`` of one chunk of deals."""
    states, legal = rollout_states(variant, deals, seat=seat, decision=decision,
                                   options=options, key=key, policy=policy, params=params)
    flat = states.reshape(-1)
    value = deal_values(variant, *score_states(variant, flat))[:, seat].reshape(legal.shape)
    return legal, np.where(legal, value, np.nan), flat["kind"].reshape(legal.shape)


def rollout(variant, deals, *, seat: int, decision: str, options: Sequence[str],
            seed: int = 0, policy: str = "heuristic", params: np.ndarray | None = None,
            workers: int = 1) -> pl.DataFrame:
    """Play each of ``deals`` once per option with ``seat``'s ``decision`` forced to it
    and every other decision by ``policy`` (see the module text); one row per (deal,
    option): ``deal`` (row in ``deals``), ``option``, ``legal``, ``value`` (the deal's
    value in whists to ``seat``, as the reports use it; null where not legal) and
    ``kind`` (``game``, ``misere``, ``raspasy``). The players' random choices are keyed
    by ``seed`` as :func:`~prefstats.simulate.simulate` keys them, so unforced branches
    play as the dataset of that seed; the rows are the same for any ``workers``.
    """
    option_codes(variant, decision, options)
    _check_seat(variant, seat)
    _check_policy(policy)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    options = list(options)
    key = int(player_key(seed))
    starts = range(0, len(deals), CHUNK)
    tasks = [(variant, deals[a:a + CHUNK], seat, decision, options, key, policy, params)
             for a in starts]
    if workers == 1 or len(tasks) == 1:
        parts = [_chunk_values(*t) for t in tasks]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=workers)(delayed(_chunk_values)(*t) for t in tasks)
    n, k = len(deals), len(options)
    if parts:
        legal, value, kind = (np.concatenate([p[j] for p in parts]) for j in range(3))
    else:
        legal, value, kind = np.zeros((0, k), bool), np.zeros((0, k)), np.zeros((0, k), np.int8)
    frame = pl.DataFrame({
        "deal": np.repeat(np.arange(n, dtype=np.int64), k),
        "option": pl.Series(options * n, dtype=pl.Utf8),
        "legal": legal.reshape(-1),
        "value": pl.Series(value.reshape(-1), dtype=pl.Float64, nan_to_null=True),
        "kind": pl.Series(np.asarray(engine.KINDS)[kind.reshape(-1)],
                          dtype=pl.Enum(engine.KINDS)),
    })
    return frame.with_columns(kind=pl.when("legal").then("kind"))


class _Illegal(Exception):
    """The forced option is not legal where the decision came."""


class ForcedPlayer:
    """A :class:`~prefstats.players.base.Player` that makes ``seat``'s ``decision`` with
    the forced option and leaves every other decision to ``player``."""

    def __init__(self, player, variant, seat: int, decision: str, option: str) -> None:
        self.player = player
        self.double_dummy_open = player.double_dummy_open
        self.rules = engine.rules_array(variant)
        self.seat = seat
        self.decision = DECISIONS[decision]
        self.option = int(option_codes(variant, decision, [option])[0])
        self.reached = False

    def act(self, obs) -> int:
        record = obs.record
        if not self.reached and at_decision(record, self.decision, self.seat):
            self.reached = True
            action = forced_action(self.option, record["legal"], self.rules)
            if action < 0:
                raise _Illegal
            return int(action)
        return self.player.act(obs)


def play_forced_hands(variant, deals, *, seat: int, decision: str, options: Sequence[str],
                      key: int = 0, policy: str = "heuristic") -> tuple[np.ndarray, np.ndarray]:
    """:func:`rollout_states` through the Python driver: three
    :class:`~prefstats.players.builtin.BuiltinPlayer` objects keyed as the batch driver
    keys them, ``seat``'s wrapped in a :class:`ForcedPlayer`; every deal replayed from
    the start for each option. Returns the final states (zero where the option was not
    legal) and ``legal``."""
    from prefstats.play import play_hand

    option_codes(variant, decision, options)
    seat = _check_seat(variant, seat)
    n, k = len(deals), len(options)
    states = np.zeros((n, k), dtype=engine.STATE)
    legal = np.zeros((n, k), dtype=np.bool_)
    for i in range(n):
        for o, option in enumerate(options):
            players = [BuiltinPlayer(policy) for _ in range(3)]
            for s, p in enumerate(players):
                p.start_deal(seat_key(np.uint64(key), deals.index[i], s))
            forced = ForcedPlayer(players[seat], variant, seat, decision, option)
            players[seat] = forced
            try:
                states[i, o] = play_hand(deals.hands[i], deals.talon[i], players, variant,
                                         talon_first=deals.talon_first[i])
            except _Illegal:
                continue
            legal[i, o] = forced.reached
    return states, legal


def hand_deals(hand: int, seat: int, blocks: int, *, seed: int = 0, start: int = 0,
               talon: int | None = None) -> Deals:
    """Deals in which ``seat`` holds ``hand``, the unseen cards dealt exactly uniformly
    and stratified over the talons: each block holds every possible talon once (all
    pairs of unseen cards; only ``talon`` when it is known), in a random order, and the
    other hands are a uniform split of the rest. Block ``b`` depends only on ``seed``
    and ``b``; ``start`` is the first block. ``Deals.index`` numbers the deals from the
    first block, so the players' keys differ from deal to deal."""
    hand = int(hand)
    if int(card_counts(hand)) != 10:
        raise ValueError(f"a hand holds 10 cards, got {int(card_counts(hand))}: "
                         f"{format_cards(hand)}")
    unseen = FULL_DECK & ~hand
    if talon is not None:
        talon = int(talon)
        if int(card_counts(talon)) != 2 or talon & hand:
            raise ValueError(f"the talon is two cards not in the hand, got {format_cards(talon)}")
        pairs = np.array([talon], dtype=np.uint32)
    else:
        cards = [c for c in range(32) if unseen >> c & 1]
        pairs = np.array([(1 << a) | (1 << b) for i, a in enumerate(cards) for b in cards[i + 1:]],
                         dtype=np.uint32)
    others = [s for s in range(3) if s != seat]
    m = len(pairs)
    hands = np.empty((blocks * m, 3), dtype=np.uint32)
    talons = np.empty(blocks * m, dtype=np.uint32)
    first = np.empty(blocks * m, dtype=np.int8)
    bit = np.uint32(1) << np.arange(32, dtype=np.uint32)
    for b in range(blocks):
        rng = np.random.default_rng([seed, start + b])
        order = pairs[rng.permutation(m)]
        rows = slice(b * m, (b + 1) * m)
        rest = (unseen & ~order.astype(np.int64)).astype(np.uint32)
        free = (rest[:, None] >> np.arange(32, dtype=np.uint32)) & 1  # (m, 32)
        cards = np.argsort(~free.astype(bool), axis=1, kind="stable")[:, :20]  # rest's cards
        shuffled = np.take_along_axis(cards, rng.random((m, 20)).argsort(axis=1), axis=1)
        hands[rows, seat] = hand
        hands[rows, others[0]] = bit[shuffled[:, :10]].sum(axis=1, dtype=np.uint32)
        hands[rows, others[1]] = bit[shuffled[:, 10:]].sum(axis=1, dtype=np.uint32)
        talons[rows] = order
        low = np.array([(int(t) & -int(t)).bit_length() - 1 for t in order], dtype=np.int8)
        high = np.array([int(t).bit_length() - 1 for t in order], dtype=np.int8)
        first[rows] = np.where(rng.random(m) < 0.5, low, high)
    index = np.arange(start * m, (start + blocks) * m, dtype=np.int64)
    return Deals(hands, talons, seed, index, first)
