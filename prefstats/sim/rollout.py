"""Counterfactual decisions: the same deals played once per option of one decision.

One concept: a decision's paired branches, from the deal to their settled results.

A figure that tells a player what to do must be a paired difference: the same deal
played with the decision one way and the other, everything else by the same policy.
:func:`rollout` plays each deal up to ``seat``'s ``decision`` once, then copies that
state for every option, forces the option and plays each copy on with the built-in
policy (compiled). The players' random choices are keyed by the deal, the seat and
which decision it is (:func:`~prefstats.players.builtin.decision_number`), so the
branches of a deal share every random draw that both reach (common random numbers):
their differences are the decision's effect, not noise of the players' dice.

The decisions and their options are listed in the docs ("Counterfactual advice and the
solver", decisions and options).

An option that is illegal where the decision is reached, or a decision never reached
(the seat is the declarer, nobody bid ...), gives ``legal = False`` and a null value.
:func:`play_forced_hands` plays the same forcing through the Python
:class:`~prefstats.players.base.Player` protocol, to show the drivers agree.

>>> from prefstats.game.deal import deal
>>> from prefstats.game.variants import get_variant
>>> frame = rollout(get_variant("sochi"), deal(4, seed=1), seat=0, decision="first_call",
...                 options=["pass", "bid"])
>>> frame.columns[:4], frame.height
(['deal', 'option', 'legal', 'value'], 8)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, TypeVar

import numpy as np
import polars as pl
from numba import njit

from prefstats.errors import CardError, OptionError
from prefstats.game import engine
from prefstats.game.auction import BLIND_PASS, DARK, PASS, W_HALF, W_PASS, W_WHIST, dummy_seat
from prefstats.game.cards import FULL_DECK, card_counts, format_cards
from prefstats.game.contracts import LEVEL, MISERE, N_CONTRACTS, NO_TRUMP, parse_contract
from prefstats.game.deal import Deals
from prefstats.game.engine import lowest_bid_up_to
from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import Variant
from prefstats.players.base import Observation
from prefstats.players.builtin import (
    POLICIES,
    BuiltinPlayer,
    Players,
    decide,
    decision_key,
    decision_number,
    player_key,
    players_record,
    resolve_params,
    seat_key,
)
from prefstats.players.evaluate import declarer_tricks, load_tables
from prefstats.players.misere import catchers_code
from prefstats.sim.play import (
    CONTRACT_CALL,
    FIRST_CALL,
    ILLEGAL,
    LOWEST_BID,
    MAX_BID,
    REACHED,
    WHIST_CALL,
    at_decision,
    deal_arrays,
    forced_action,
    play_on,
    seat_keys,
)
from prefstats.solver import new_table

__all__ = ["rollout"]

#: Decisions :func:`rollout` can force: the driver's code of each.
DECISIONS = {"first_call": FIRST_CALL, "whist": WHIST_CALL, "max_bid": MAX_BID,
             "contract": CONTRACT_CALL}
#: The named options of first_call and whist: the forced call, and the variant option it
#: needs (or None). max_bid and contract take levels and contracts (:func:`option_codes`).
OPTIONS = {
    "first_call": {"pass": (PASS, None), "bid": (LOWEST_BID, None), "misere": (MISERE, None),
                   "dark": (DARK, "dark_bids"), "blind_pass": (BLIND_PASS, "blind_pass")},
    "whist": {"pass": (W_PASS, None), "whist": (W_WHIST, None), "half": (W_HALF, "half_whist")},
}
#: The ladder's levels: the options of max_bid, and of contract beside the named ones.
LEVELS = tuple(range(6, 11))
#: Forced contract options the policy resolves: its own choice; ``AT_LEVEL - L`` its best
#: contract of level ``L``.
POLICY_CHOICE = -3
AT_LEVEL = -10
#: Deals per compiled call (and per task with several workers): bounds the states held.
CHUNK = 20_000
#: Deals a task holds at least when a batch is split among workers (a misère with hidden
#: catchers takes milliseconds a deal, so even a small batch is worth sharing).
MIN_PIECE = 32

T = TypeVar("T")

_local = threading.local()
_pools: dict[int, ThreadPoolExecutor] = {}


def _thread_solver():
    """This thread's solver table. The compiled rollout releases the GIL, so
    :func:`rollout`'s worker threads run at once, each with its own table; a thread
    keeps its table from call to call (entries stay valid from deal to deal)."""
    if not hasattr(_local, "table"):
        _local.table = new_table(1).thread(0)
    return _local.table


def _pool(workers: int) -> ThreadPoolExecutor:
    """The process's pool of ``workers`` rollout threads (kept, so are their tables)."""
    if workers not in _pools:
        _pools[workers] = ThreadPoolExecutor(workers, thread_name_prefix="rollout")
    return _pools[workers]


def in_pieces(task: Callable[[Any], T], deals, workers: int) -> list[T]:
    """``task`` of each piece of ``deals`` in order, on ``workers`` threads: at least one
    piece a worker (of :data:`MIN_PIECE` deals or more), at most :data:`CHUNK` deals a
    piece. The players are keyed by each deal's ``index``, so the results do not depend
    on how the deals are split."""
    size = min(CHUNK, max(MIN_PIECE, -(-len(deals) // workers)))
    pieces = [deals[a:a + size] for a in range(0, len(deals), size)]
    if workers == 1 or len(pieces) < 2:
        return [task(p) for p in pieces]
    return list(_pool(workers).map(task, pieces))


def default_options(variant, decision: str) -> list[str]:
    """Every option of ``decision`` that ``variant`` has: the named ones, the levels of
    max_bid, and for contract the policy's choice and the levels."""
    if decision == "max_bid":
        return [str(level) for level in LEVELS]
    if decision == "contract":
        return ["policy", *(str(level) for level in LEVELS)]
    _check_decision(decision)
    return [o for o, (_, needs) in OPTIONS[decision].items()
            if needs is None or getattr(variant, needs)]


def _check_decision(decision: str) -> None:
    if decision not in DECISIONS:
        raise OptionError(f"unknown decision {decision!r}; choose from {', '.join(DECISIONS)}")


def _level(option) -> int | None:
    text = str(option).strip()
    return int(text) if text in {str(level) for level in LEVELS} else None


def _option_code(variant, decision: str, option) -> int:
    """The driver's code of one option (max_bid: its level; see :func:`deal_codes`)."""
    level = _level(option)
    if decision == "max_bid":
        if level is None:
            raise OptionError(f"unknown option {option!r} of 'max_bid'; choose a level "
                              f"{LEVELS[0]}..{LEVELS[-1]}")
        return level
    if decision == "contract":
        if option == "policy":
            return POLICY_CHOICE
        if level is not None:
            return AT_LEVEL - level
        try:
            contract = parse_contract(option)
        except ValueError:
            contract = None
        if contract is None or contract.is_misere:
            raise OptionError(f"unknown option {option!r} of 'contract'; choose 'policy', a "
                              f"level {LEVELS[0]}..{LEVELS[-1]} or a contract like '7♥', '8NT'")
        return contract.code
    known = OPTIONS[decision]
    if option not in known:
        raise OptionError(f"unknown option {option!r} of {decision!r}; choose from "
                          f"{', '.join(known)}")
    code, needs = known[option]
    if needs is not None and not getattr(variant, needs):
        raise OptionError(f"option {option!r} of {decision!r}: the variant has no {needs}")
    return code


def option_codes(variant, decision: str, options: Sequence) -> np.ndarray:
    """The driver's codes of ``options`` of ``decision`` under ``variant`` (checked): the
    forced calls, ``LOWEST_BID``, a contract code, ``POLICY_CHOICE``, ``AT_LEVEL - L``,
    or max_bid's level."""
    _check_decision(decision)
    options = list(options)
    if not options:
        raise OptionError(f"options: name at least one option of {decision!r}")
    codes = [_option_code(variant, decision, o) for o in options]
    if len(set(codes)) != len(codes):
        raise OptionError(f"options: each option once, got {options}")
    return np.array(codes, dtype=np.int64)


@njit(cache=True)
def _best_strains(tables, hands, leads):
    out = np.empty(len(hands), dtype=np.int64)
    for i in range(len(hands)):
        best = -1.0
        for strain in range(NO_TRUMP + 1):
            tricks = declarer_tricks(tables, np.int64(hands[i]), strain, leads, True)
            if tricks > best:
                best, out[i] = tricks, strain
    return out


def best_strains(hands: np.ndarray, seat: int) -> np.ndarray:
    """The strain in which the evaluator expects each dealt hand of ``seat`` to take the
    most tricks (before the talon; the first of equals): where max_bid competes."""
    return _best_strains(load_tables(), np.asarray(hands, dtype=np.int64),
                         1.0 if seat == 0 else 0.0)


def deal_codes(deals, seat: int, decision: str | None, codes: np.ndarray) -> np.ndarray:
    """``(n, k)``: each deal's forced option codes; max_bid's level becomes the contract
    of that level in the seat's :func:`best_strains`, the highest bid it may make."""
    codes = np.asarray(codes, dtype=np.int64)
    if decision != "max_bid":
        return np.ascontiguousarray(np.broadcast_to(codes, (len(deals), len(codes))))
    return max_bid_top(codes[None, :], best_strains(deals.hands[:, seat], seat)[:, None])


def max_bid_top(level, strain):
    """The contract of ``level`` in ``strain`` (ints or arrays): the highest bid max_bid
    may make."""
    top = 5 * (level - 6) + strain
    return top + (top >= MISERE)


@njit(cache=True)
def max_bid_call(legal, rules, top):
    """max_bid's call among the ``legal`` calls: the lowest legal trick bid up to
    contract ``top``, else a pass."""
    bid = lowest_bid_up_to(np.int64(legal), rules, top, 0)
    return PASS if bid < 0 else bid


@njit(cache=True)
def _force(code, obs, decision, players, key):
    """The forced decision ``code`` means at observation ``obs`` (-1: not legal there):
    max_bid's lowest legal bid up to contract ``code`` else a pass; the policy's own
    choice (``POLICY_CHOICE``) or its choice among one level's legal contracts
    (``AT_LEVEL - L``), drawn with ``key``; else :func:`~prefstats.sim.play.forced_action`."""
    rules = players.rules
    if decision == MAX_BID:
        return max_bid_call(obs.legal, rules, code)
    if code != POLICY_CHOICE and code > AT_LEVEL:
        return forced_action(code, obs.legal, rules)
    legal = obs.legal
    if code <= AT_LEVEL:
        mask = 0
        for c in range(N_CONTRACTS):
            if c != MISERE and LEVEL[c] == AT_LEVEL - code and (legal >> c) & 1:
                mask |= 1 << c
        if mask == 0:
            return -1
        obs.legal = mask
    action = decide(players.policy, obs, rules, players.params, players.tables, key)
    obs.legal = legal
    return action


def _check_seat(variant, seat: int) -> int:
    dummy = dummy_seat(variant)
    bidders = [s for s in range(3) if s != dummy]
    if not isinstance(seat, int | np.integer) or int(seat) not in bidders:
        raise OptionError(f"seat {seat!r} is not a player's seat at this table; choose from "
                          f"{bidders}")
    return int(seat)


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise OptionError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")


class Forcing(NamedTuple):
    """What a rollout forces: ``seat``'s ``decision`` (a driver code, -1 for none), to
    each deal's option ``codes`` ((n, k) int64, :func:`deal_codes`)."""

    seat: int
    decision: int
    codes: np.ndarray


@njit(cache=True, nogil=True)
def _rollout_kernel(deals, players, forcing, states, legal, reached, obs_buf, table):
    """Deal ``i``'s branches are ``states[i * k + o]`` for its ``k`` option codes
    ``forcing.codes[i]``: the shared part is played once in the first slot and copied; a
    branch is forced each time the decision comes (max_bid: every call of the seat).
    Returns the first deal where a decision was illegal, or -1."""
    seat, decision, codes = forcing
    rules = players.rules
    obs = obs_buf[0]
    k = codes.shape[1]
    actions = np.empty(k, dtype=np.int64)
    for i in range(deals.hands.shape[0]):
        root = states[i * k]
        engine.reset(root, deals.hands[i], deals.talon[i], deals.talon_first[i], 6, 0)
        keys = seat_keys(players.key, deals.numbers[i])
        status = play_on(root, players, keys, obs, table, seat, decision)
        if status == ILLEGAL:
            return i
        reached[i] = status == REACHED
        key = decision_key(keys[seat], decision_number(obs))
        for o in range(k):
            actions[o] = -1
            if status == REACHED:
                actions[o] = _force(codes[i, o], obs, decision, players, key)
        for o in range(1, k):
            states[i * k + o] = root
        for o in range(k):
            if actions[o] < 0:
                continue
            st = states[i * k + o]
            legal[i, o] = True
            action = actions[o]
            while action >= 0:
                if engine.apply(st, rules, action) != 0:
                    return i
                status = play_on(st, players, keys, obs, table, seat, decision)
                if status == ILLEGAL:
                    return i
                action = -1
                if status == REACHED:  # the decision again (max_bid's next call)
                    action = _force(codes[i, o], obs, decision, players,
                                    decision_key(keys[seat], decision_number(obs)))
                    if action < 0:
                        return i
    return -1


def rollout_states(variant, deals, *, seat: int, decision: str | None,
                   options: Sequence, key: int = 0, policy: str = "heuristic",
                   params: np.ndarray | None = None,
                   offsets: np.ndarray | None = None,
                   misere_catchers: str = "hidden") -> tuple[np.ndarray, np.ndarray]:
    """The branches' final :data:`engine.STATE` records ``(n, k)`` and ``legal`` ``(n, k)``
    (compiled, one process); ``key`` seeds the players as in
    :func:`~prefstats.sim.play.play_batch`. A branch whose option is not legal holds the
    state at the decision (or, never reached, the unforced play). ``decision=None``
    forces nothing: one branch a deal, played as ``play_batch`` plays it (a check of
    the driver). ``offsets`` of the players' calls default to the variant's shipped fit
    (:func:`~prefstats.players.builtin.default_tables`); ``misere_catchers`` as in
    :func:`~prefstats.sim.play.play_batch`."""
    players, forcing = _checked(variant, seat, decision, options, key, policy, params,
                                offsets, misere_catchers)
    return _branches(deals, players, forcing)[:2]


def _checked(variant, seat, decision, options, key, policy, params, offsets=None,
             misere_catchers="hidden") -> tuple[Players, Forcing]:
    """The players and the forcing of a rollout, its arguments checked (once a rollout);
    the forcing's codes are the options', one row for all deals."""
    if decision is None:
        codes, forced = np.full(1, -1, dtype=np.int64), -1
    else:
        codes, forced = option_codes(variant, decision, options), DECISIONS[decision]
    seat = _check_seat(variant, seat)
    _check_policy(policy)
    catchers_code(misere_catchers)
    players = players_record(variant, policy, resolve_params(policy, params), key=key,
                             offsets=offsets, catchers=misere_catchers)
    return players, Forcing(seat, forced, codes[None, :])


def _branches(deals, players: Players, forcing: Forcing):
    """:func:`rollout_states` of checked players and forcing, and ``reached`` ``(n,)``:
    whether the decision came."""
    seat, forced, codes = forcing
    n, k = len(deals), codes.shape[1]
    states = np.zeros(n * k, dtype=engine.STATE)
    legal = np.zeros((n, k), dtype=np.bool_)
    reached = np.zeros(n, dtype=np.bool_)
    bad = _rollout_kernel(deal_arrays(deals), players,
                          forcing._replace(codes=deal_codes(
                              deals, seat, "max_bid" if forced == MAX_BID else None, codes[0])),
                          states, legal, reached, np.zeros(1, dtype=engine.OBSERVATION),
                          _thread_solver())
    if bad >= 0:
        policy = POLICIES[players.policy]
        raise RuntimeError(f"built-in policy {policy!r} made an illegal decision in deal {bad}")
    return states.reshape(n, k), legal, reached


def branch_values(variant, deals, seat, decision, options, key, policy, params,
                  offsets=None, misere_catchers="hidden"):
    """``legal``, ``value``, ``kind``, ``contract`` ``(n, k)`` and ``reached`` ``(n,)`` of
    one chunk."""
    players, forcing = _checked(variant, seat, decision, options, key, policy, params,
                                offsets, misere_catchers)
    return _values(variant, deals, players, forcing)


def _values(variant, deals, players: Players, forcing: Forcing):
    """:func:`branch_values` of checked players and forcing. The columns are copies: a
    field of the states is a view that would keep the chunk's states (296 bytes a
    branch) alive until the whole run ends."""
    states, legal, reached = _branches(deals, players, forcing)
    flat = states.reshape(-1)
    value = deal_values(variant, *score_states(variant, flat))[:, forcing.seat]
    return (legal, np.where(legal, value.reshape(legal.shape), np.nan),
            states["kind"].copy(), states["contract"].copy(), reached)


def rollout(variant: Variant, deals: Deals, *, seat: int, decision: str, options: Sequence,
            seed: int = 0, policy: str = "heuristic", params: np.ndarray | None = None,
            workers: int = 1, offsets: np.ndarray | None = None,
            misere_catchers: str = "hidden") -> pl.DataFrame:
    """Play each of ``deals`` once per option of ``seat``'s ``decision``, forced to it.

    Every other decision is played by ``policy`` (see the module text). The players'
    random choices are keyed by ``seed`` as :func:`~prefstats.sim.simulate.simulate` keys
    them, so unforced branches play as the dataset of that seed; the rows are the same for
    any ``workers``.

    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> frame = rollout(get_variant("sochi"), deal(2, seed=1), seat=0, decision="first_call",
    ...                 options=["pass", "bid"])
    >>> frame.select("deal", "option").rows()
    [(0, 'pass'), (0, 'bid'), (1, 'pass'), (1, 'bid')]

    :param variant: the rules.
    :param deals: the deals (a :class:`~prefstats.game.deal.Deals`).
    :param seat: the seat whose decision is forced.
    :param decision: ``first_call``, ``whist``, ``max_bid`` or ``contract`` (the module
        text lists each one's options).
    :param options: the options to force, one branch each.
    :param seed: keys the players' random choices.
    :param policy: the built-in players of every other decision.
    :param params: their parameters (default: the policy's).
    :param workers: threads sharing the deals (the compiled driver releases the GIL; each
        thread has its own solver table).
    :param offsets: the offsets of the players' calls (default: the variant's shipped fit;
        a fit passes its candidates).
    :param misere_catchers: ``"hidden"`` (the default): the misère catchers play against
        every discard they cannot see; ``"double_dummy"``: as if they saw it, an upper bound
        on the catch rate (:mod:`prefstats.players.misere`).
    :returns: one row per (deal, option): ``deal`` (row in ``deals``), ``option`` (as
        text), ``legal``, ``value`` (the deal's value in whists to ``seat``; null where not
        legal), ``kind`` (``game``, ``misere``, ``raspasy``), ``reached`` (the decision
        came, whether or not the option was legal there) and ``contract`` (the contract
        code played; null on a raspasy or where not legal).
    :raises OptionError: for an unknown decision or option, a bad seat or ``workers``.
    """
    if workers < 1:
        raise OptionError(f"workers must be at least 1, got {workers}")
    players, forcing = _checked(variant, seat, decision, options, int(player_key(seed)),
                                policy, params, offsets, misere_catchers)
    options = [str(o) for o in options]
    parts = in_pieces(lambda part: _values(variant, part, players, forcing), deals, workers)
    n, k = len(deals), len(options)
    if parts:
        legal, value, kind, contract, reached = (np.concatenate([p[j] for p in parts])
                                                 for j in range(5))
    else:
        legal, value = np.zeros((0, k), bool), np.zeros((0, k))
        kind, contract = np.zeros((0, k), np.int8), np.zeros((0, k), np.int8)
        reached = np.zeros(0, bool)
    frame = pl.DataFrame({
        "deal": np.repeat(np.arange(n, dtype=np.int64), k),
        "option": pl.Series(options * n, dtype=pl.Utf8),
        "legal": legal.reshape(-1),
        "value": pl.Series(value.reshape(-1), dtype=pl.Float64, nan_to_null=True),
        "kind": pl.Series(engine.KINDS, dtype=pl.Enum(engine.KINDS))
        .gather(kind.reshape(-1).astype(np.uint32)),
        "reached": np.repeat(reached, k),
        "contract": pl.Series(contract.reshape(-1), dtype=pl.Int8),
    })
    return frame.with_columns(kind=pl.when("legal").then("kind"),
                              contract=pl.when(pl.col("legal") & (pl.col("contract") >= 0))
                              .then("contract"))


class _Illegal(Exception):
    """The forced option is not legal where the decision came."""


class ForcedPlayer:
    """A :class:`~prefstats.players.base.Player` that makes ``seat``'s ``decision`` with
    the forced option ``code`` (one deal's, :func:`deal_codes`) each time it comes, and
    leaves every other decision to the built-in ``player``."""

    def __init__(self, player: BuiltinPlayer, variant, seat: int, decision: str,
                 code: int) -> None:
        self.player = player
        self.double_dummy_open = player.double_dummy_open
        self.rules = engine.rules_array(variant)
        self.seat = seat
        self.decision = DECISIONS[decision]
        self.code = int(code)
        self.reached = False

    def act(self, obs) -> int:
        record = obs.record
        if not at_decision(record, self.decision, self.seat):
            return self.player.act(obs)
        self.reached = True
        code, legal = self.code, int(record["legal"])
        if self.decision == MAX_BID:
            return int(max_bid_call(legal, self.rules, code))
        if code == POLICY_CHOICE:
            return self.player.act(obs)
        if code <= AT_LEVEL:  # the player decides among the level's contracts
            level = [c for c in range(N_CONTRACTS) if c != MISERE and legal >> c & 1
                     and LEVEL[c] == AT_LEVEL - code]
            if not level:
                raise _Illegal
            narrowed = record.copy()
            narrowed["legal"] = sum(1 << c for c in level)
            return self.player.act(Observation(narrowed, obs.variant, obs.sheet))
        action = forced_action(code, legal, self.rules)
        if action < 0:
            raise _Illegal
        return int(action)


def play_forced_hands(variant, deals, *, seat: int, decision: str, options: Sequence,
                      key: int = 0, policy: str = "heuristic",
                      misere_catchers: str = "hidden") -> tuple[np.ndarray, np.ndarray]:
    """:func:`rollout_states` through the Python driver: three
    :class:`~prefstats.players.builtin.BuiltinPlayer` objects keyed as the batch driver
    keys them, ``seat``'s wrapped in a :class:`ForcedPlayer`; every deal replayed from
    the start for each option. Returns the final states (zero where the option was not
    legal) and ``legal``."""
    from prefstats.sim.play import play_hand

    seat = _check_seat(variant, seat)
    codes = deal_codes(deals, seat, decision, option_codes(variant, decision, options))
    n, k = codes.shape
    states = np.zeros((n, k), dtype=engine.STATE)
    legal = np.zeros((n, k), dtype=np.bool_)
    for i in range(n):
        for o in range(k):
            players = [BuiltinPlayer(policy) for _ in range(3)]
            for s, p in enumerate(players):
                p.start_deal(seat_key(np.uint64(key), deals.index[i], s))
            forced = ForcedPlayer(players[seat], variant, seat, decision, codes[i, o])
            players[seat] = forced  # type: ignore[call-overload]  # plays as one
            try:
                states[i, o] = play_hand(deals.hands[i], deals.talon[i], players, variant,
                                         talon_first=deals.talon_first[i],
                                         misere_catchers=misere_catchers)
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
        raise CardError(f"a hand holds 10 cards, got {int(card_counts(hand))}: "
                        f"{format_cards(hand)}")
    unseen = FULL_DECK & ~hand
    if talon is not None:
        talon = int(talon)
        if int(card_counts(talon)) != 2 or talon & hand:
            raise CardError(f"the talon is two cards not in the hand, got {format_cards(talon)}")
        pairs = np.array([talon], dtype=np.uint32)
    else:
        unseen_cards = [c for c in range(32) if unseen >> c & 1]
        pairs = np.array([(1 << a) | (1 << b) for i, a in enumerate(unseen_cards)
                          for b in unseen_cards[i + 1:]],
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
