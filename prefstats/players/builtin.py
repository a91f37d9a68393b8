"""Built-in players, compiled: one decision function that the batch driver calls inside
numba and the Python wrappers call through the player protocol, so both paths decide
alike on the same observation.

A built-in player is a ``policy`` code plus a float64 parameter array. Its decisions
may depend only on the observation, the rules, the parameters and a per-decision
``key``: a reproducible random number fixed by the deal, the seat and *which* decision
it is (:func:`decision_number`: the call's place in the auction, the whist call's,
the card's place in the play), never by a running count. So both drivers make the same
draws, and two branches of one deal that differ at one decision (a rollout) share
every draw they both reach. The heuristic draws on the key only for classic's calls
made before looking (a blind pass, "dark"; see :mod:`prefstats.players.params`).

``pimc`` is the heuristic with a search for the cards of closed deals, declarer and
defence alike (:mod:`prefstats.players.pimc`): ``samples`` deals (a parameter) drawn from the
decision's key and solved double dummy. It needs the solver's table, so the drivers
call :func:`decide_with_solver`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.cards import GOLDEN_GAMMA, nth_bit64, popcount64, splitmix64
from prefstats.players.base import BasePlayer, Observation
from prefstats.players.bidding import (
    bid_decision,
    contract_decision,
    discard_decision,
    heuristic_tables,
    lay_decision,
    switch_decision,
    whist_decision,
)
from prefstats.players.cardplay import play_decision
from prefstats.players.misere import MISERE_CATCHERS
from prefstats.players.params import SAMPLES, check_params, parameters, policy_params
from prefstats.players.pimc import pimc_play, searches
from prefstats.solver import _single_table

RANDOM, HEURISTIC, PIMC = 0, 1, 2
POLICIES = ("random", "heuristic", "pimc")
#: Whether each policy plays open deals double dummy (then one solver call settles them).
DOUBLE_DUMMY_OPEN = np.array([False, True, True])


def player_key(seed: int) -> np.uint64:
    """The key of the players' random choices in a run with ``seed``."""
    return np.random.SeedSequence([seed, 1]).generate_state(1, dtype=np.uint64)[0]


@njit(cache=True, inline="always")
def decision_key(deal_key, number):
    """A 64-bit random number for decision ``number`` of a deal (SplitMix64 finaliser)."""
    return splitmix64(deal_key + np.uint64(number + 1) * GOLDEN_GAMMA)


@njit(cache=True)
def seat_key(base_key, deal_index, seat):
    """The key of one seat's decisions in one deal: its decision at observation ``obs``
    uses ``decision_key(seat_key(...), decision_number(obs))``."""
    return decision_key(base_key ^ np.uint64(seat), deal_index)


#: Where each phase's decisions start in :func:`decision_number`'s numbering.
_AT_DISCARD = engine.MAX_CALLS
_AT_WHIST = _AT_DISCARD + 2
_AT_PLAY = _AT_WHIST + 3
_AT_SWITCH = _AT_PLAY + 4 * 10


@njit(cache=True)
def decision_number(obs):
    """Which decision of the deal ``obs`` asks for, the same in every branch of the deal
    that reaches it: the call's index in the auction, the discard, the contract, the
    whist call's index, the card's place in the play (4 a trick: a led talon card
    counts), the dark declarer's switch (numbered last, so the others keep theirs)."""
    phase = obs.phase
    if phase == engine.AUCTION:
        return np.int64(obs.n_calls)
    if phase == engine.DISCARD:
        return np.int64(_AT_DISCARD)
    if phase == engine.CONTRACT:
        return np.int64(_AT_DISCARD + 1)
    if phase == engine.WHIST:
        return np.int64(_AT_WHIST + obs.n_whist)
    if phase == engine.SWITCH:
        return np.int64(_AT_SWITCH)
    return np.int64(_AT_PLAY + 4 * obs.trick + obs.n_in_trick)


@njit(cache=True)
def random_decision(obs, key):
    """Uniform among the legal decisions (a discard: two distinct cards). Classic's
    blind pass and dark call are legal calls like any other, so this player passes
    blind or bids dark at random too (never looking at its cards anyway)."""
    legal = np.int64(obs.legal)
    count = popcount64(legal)
    first = nth_bit64(legal, np.int64(key % np.uint64(count)))
    if obs.phase != engine.DISCARD:
        return first
    rest = legal & ~(np.int64(1) << first)
    second = nth_bit64(rest, np.int64((key >> np.uint64(32)) % np.uint64(count - 1)))
    return (1 << first) | (1 << second)


@njit(cache=True)
def decide(policy, obs, rules, params, tables, key):
    """The decision of built-in ``policy`` for observation ``obs``."""
    if policy == RANDOM:
        return random_decision(obs, key)
    phase = obs.phase
    if phase == engine.AUCTION:
        return bid_decision(obs, rules, params, tables, key)
    if phase == engine.DISCARD:
        return discard_decision(obs, rules, params, tables)
    if phase == engine.CONTRACT:
        return contract_decision(obs, rules, params, tables)
    if phase == engine.WHIST:
        return whist_decision(obs, rules, params, tables)
    if phase == engine.LAY:
        return lay_decision(obs, rules, params, tables)
    if phase == engine.SWITCH:
        return switch_decision(obs, rules, params, tables)
    return play_decision(obs, rules, params, tables)


@njit(cache=True)
def decide_with_solver(players, obs, key, table):
    """:func:`decide` of the built-in ``players`` (a :class:`Players` record), with the
    solver's ``table`` for the policies that search (PIMC's cards in closed deals); what
    the drivers call."""
    params = players.params
    if players.policy == PIMC and searches(obs):
        return pimc_play(obs, np.int64(params[SAMPLES]), key, table)
    return decide(players.policy, obs, players.rules, params, players.tables, key)


def default_params(policy: str) -> np.ndarray:
    """The parameter array a policy runs with when none is given."""
    return policy_params(policy) if parameters(policy) else np.zeros(0)


def resolve_params(policy: str, params: np.ndarray | None = None) -> np.ndarray:
    """The parameter array built-in ``policy`` runs with: its defaults when ``params`` is
    None, else ``params`` checked (``OptionError`` for an unknown policy, or values that
    are not this policy's or out of range; the random player reads none)."""
    if policy not in POLICIES:
        raise OptionError(f"unknown built-in policy {policy!r}; choose from {', '.join(POLICIES)}")
    if params is None:
        return default_params(policy)
    prm = np.asarray(params, dtype=np.float64)
    want = len(parameters(policy))
    if want and prm.shape != (want,):
        raise OptionError(f"policy {policy!r} takes {want} player parameters, got shape "
                          f"{prm.shape}")
    return check_params(prm) if want else prm


def default_tables(policy: str, variant=None, offsets=None) -> np.ndarray:
    """The evaluation tables a policy reads (an empty array when it reads none); the
    heuristic's (and PIMC's, which bids by them) hold the deal values of ``variant``
    (default Sochi) and ``offsets`` of its calls (default its shipped fit), cached."""
    return heuristic_tables(variant, offsets) if policy != "random" else np.zeros((0, 0))


class Players(NamedTuple):
    """The built-in players as every compiled driver takes them: one record, made once
    by :func:`players_record`. ``rules``: the variant's
    (:func:`~prefstats.game.engine.rules_array`); ``policy``: its code in
    :data:`POLICIES`; ``params``: the policy's parameter array; ``tables``: its evaluation
    tables (:func:`default_tables`); ``double_dummy``: open deals are settled by one
    solver call; ``catchers``: the misère catchers' model
    (:data:`~prefstats.players.misere.MISERE_CATCHERS`); ``key``: the key of their
    random choices (seat ``s`` of deal ``i`` uses ``seat_key(key, i, s)``)."""

    rules: np.ndarray
    policy: int
    params: np.ndarray
    tables: np.ndarray
    double_dummy: bool
    catchers: int
    key: np.uint64


def players_record(variant, policy: str, params: np.ndarray, *, key: int | np.integer = 0,
                   offsets: np.ndarray | None = None, double_dummy: bool | None = None,
                   catchers: str = "hidden") -> Players:
    """The :class:`Players` record of ``policy`` with checked ``params``
    (:func:`resolve_params`) and a known ``catchers`` model, each field of the one type
    the compiled drivers are compiled for. ``double_dummy`` defaults to the policy's
    (:data:`DOUBLE_DUMMY_OPEN`)."""
    code = POLICIES.index(policy)
    return Players(engine.rules_array(variant), code,
                   np.ascontiguousarray(params, dtype=np.float64),
                   default_tables(policy, variant, offsets),
                   bool(DOUBLE_DUMMY_OPEN[code] if double_dummy is None else double_dummy),
                   MISERE_CATCHERS.index(catchers), np.uint64(key))


class BuiltinPlayer(BasePlayer):
    """A compiled built-in player used through the Python protocol (for mixing with
    custom players, and to prove both paths decide alike).

    Call :meth:`start_deal` with the deal's key before each deal (the batch driver
    uses ``seat_key(base_key, deal_index, seat)``); each decision's random key follows
    from it and :func:`decision_number`. ``offsets`` of the calls default to the
    variant's shipped fit (:func:`default_tables`).

    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.play import play_hand
    >>> players = [BuiltinPlayer("heuristic") for _ in range(3)]
    >>> for seat, p in enumerate(players):
    ...     p.start_deal(seat_key(0, 0, seat))
    >>> d = deal(1, seed=3)
    >>> st = play_hand(d.hands[0], d.talon[0], players, get_variant("sochi"))
    >>> int(st["tricks"][:3].sum())
    10
    """

    def __init__(self, policy: str = "heuristic", params: np.ndarray | None = None,
                 offsets: np.ndarray | None = None) -> None:
        self.params = resolve_params(policy, params)
        self.offsets = offsets
        self.name = policy
        self.policy = POLICIES.index(policy)
        self.double_dummy_open = bool(DOUBLE_DUMMY_OPEN[self.policy])
        self.deal_key = np.uint64(0)

    def start_deal(self, deal_key: int) -> None:
        self.deal_key = np.uint64(deal_key)

    def act(self, obs: Observation) -> int:
        key = np.uint64(decision_key(self.deal_key, decision_number(obs.record)))
        players = players_record(obs.variant, self.name, self.params, offsets=self.offsets)
        return int(decide_with_solver(players, obs.record, key, _single_table()))
