"""Playing deals: the Python driver for any :class:`~prefstats.players.base.Player`,
and the compiled batch driver of the built-in players.

Both run the same state machine (:mod:`prefstats.game.engine`); a finished deal is its final
:data:`~prefstats.game.engine.STATE` record, which holds every decision the reports need.
Classic's bombs (each seat's next bomb multiplier) can be given per deal (``bombs``);
the pulka simulator sets them itself. An open deal settled by one solver call credits
the defence's tricks to the lone whister, the first misère catcher, or in Gusarik the
defending player (the dummy's tricks are his).

>>> from prefstats.game.deal import deal
>>> from prefstats.players.base import RandomLegalPlayer
>>> from prefstats.game.variants import get_variant
>>> d = deal(1, seed=3)
>>> players = [RandomLegalPlayer(seed=s) for s in range(3)]
>>> st = play_hand(d.hands[0], d.talon[0], players, get_variant("sochi"))
>>> int(st["phase"]) == engine.DONE
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit, typeof

from prefstats.errors import CardError, IllegalActionError, OptionError
from prefstats.game import engine
from prefstats.game.auction import DARK
from prefstats.game.cards import card_counts, format_cards, lowest_card
from prefstats.game.contracts import N_CONTRACTS, TRUMP
from prefstats.game.deal import Deals
from prefstats.game.scoring import ScoreSheet
from prefstats.game.variants import Variant
from prefstats.players.base import Observation, OracleObservation, Player
from prefstats.players.builtin import (
    POLICIES,
    BuiltinPlayer,
    Players,
    decide,
    decide_with_solver,
    decision_key,
    decision_number,
    players_record,
    resolve_params,
    seat_key,
)
from prefstats.players.misere import catchers_code, hidden_misere_card, plays_hidden_misere
from prefstats.solver import Table, compile_search, new_table, solve_kernel

__all__ = ["play_batch", "play_hand"]


def default_talon_first(talon: int) -> int:
    """The talon card turned first on a raspasy when the deal does not say: the lower."""
    return int(lowest_card(int(talon)))


def new_state(
    hands: Sequence[int],
    talon: int,
    *,
    talon_first: int | None = None,
    min_level: int = 6,
    raspasy_step: int = 0,
    bombs: Sequence[int] | None = None,
) -> np.ndarray:
    """A fresh deal as a one-element :data:`engine.STATE` array (checked); ``bombs`` is
    each seat's next bomb multiplier (classic; default 1, none)."""
    masks = np.asarray([int(h) for h in hands], dtype=np.uint32)
    talon = int(talon)
    if masks.shape != (3,):
        raise CardError(f"expected three hands, got {len(masks)}")
    if (card_counts(masks) != 10).any() or int(card_counts(talon)) != 2:
        raise CardError("impossible deal: each hand needs 10 cards and the talon 2")
    if (int(masks[0]) | int(masks[1]) | int(masks[2]) | talon) != 0xFFFFFFFF:
        raise CardError("impossible deal: the hands and talon must hold all 32 cards once")
    first = default_talon_first(talon) if talon_first is None else int(talon_first)
    if not (talon >> first) & 1:
        raise CardError(f"talon_first {first} is not a talon card ({format_cards(talon)})")
    if not 6 <= min_level <= 10 or raspasy_step < 0:
        raise OptionError(f"min_level must be 6..10 and raspasy_step ≥ 0, got "
                          f"{min_level}, {raspasy_step}")
    st = np.zeros(1, dtype=engine.STATE)
    engine.reset(st[0], masks, np.uint32(talon), first, min_level, raspasy_step)
    if bombs is not None:
        st[0]["bombs"] = _bomb_array(bombs, 1)[0]
    return st


def _bomb_array(bombs, n: int) -> np.ndarray:
    """``bombs`` (one value, three per seat, or ``(n, 3)``) as an ``(n, 3)`` uint8 array."""
    out = np.broadcast_to(np.asarray(bombs, dtype=np.int64), (n, 3))
    if (out < 1).any() or (out > 255).any():
        raise OptionError("bombs: multipliers must be 1 (no bomb) .. 255")
    return np.ascontiguousarray(out, dtype=np.uint8)


@njit(cache=True)
def _open_play_by_solver(st, rules, table):
    """Settle an open deal (lone whister, misère) at its start by one solver call; the
    defence's tricks are credited to the whister (he plays both hands) or, on misère,
    to the first catcher; in Gusarik to the defending player, whose are the dummy's
    tricks too."""
    declarer = st.declarer
    misere = st.kind == engine.MISERE_GAME
    trump = -1 if misere else TRUMP[st.contract]
    h0 = np.int64(st.hands[0])
    h1 = np.int64(st.hands[1])
    h2 = np.int64(st.hands[2])
    taken = solve_kernel(h0, h1, h2, st.leader, declarer, trump, misere, table)
    st.tricks[declarer] = taken
    left = misere or st.first == engine.W_WHIST
    defender = (declarer + 1) % 3 if left else (declarer + 2) % 3
    if rules[engine.R_DUMMY] >= 0:
        defender = 3 - declarer - rules[engine.R_DUMMY]
    st.tricks[defender] = 10 - taken
    st.trick = 10
    st.double_dummy = True
    st.phase = engine.DONE
    st.to_act = -1
    st.controller = -1


_solver_table: Table | None = None


def solver_table() -> Table:
    """The solver's table for this process's compiled drivers (kept: its entries stay
    valid from deal to deal)."""
    global _solver_table
    if _solver_table is None:
        _solver_table = new_table(1).thread(0)
    return _solver_table


def play_hand(
    hands: Sequence[int],
    talon: int,
    players: Sequence[Player],
    variant: Variant,
    *,
    talon_first: int | None = None,
    min_level: int = 6,
    raspasy_step: int = 0,
    bombs: Sequence[int] | None = None,
    sheet: ScoreSheet | None = None,
    misere_catchers: str = "hidden",
) -> np.void:
    """Play one deal with ``players`` (one per active seat, from the dealer's left) and
    return its final :data:`engine.STATE` record.

    Each decision goes to the seat that makes it, as an :class:`Observation`; forced
    decisions are made by the engine. An illegal decision raises ``IllegalActionError``.
    When every player plays open deals double dummy, the driver settles them as
    :func:`play_batch` does (``misere_catchers`` too).

    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.players.base import RandomLegalPlayer
    >>> d = deal(1, seed=3)
    >>> st = play_hand(d.hands[0], d.talon[0], [RandomLegalPlayer(seed=s) for s in range(3)],
    ...                get_variant("sochi"))
    >>> int(st["phase"]) == engine.DONE
    True
    """
    if len(players) != 3:
        raise OptionError(f"expected three players, one per active seat, got {len(players)}")
    rules = engine.rules_array(variant)
    catchers = catchers_code(misere_catchers)
    double_dummy = all(p.double_dummy_open for p in players)
    st = new_state(hands, talon, talon_first=talon_first, min_level=min_level,
                   raspasy_step=raspasy_step, bombs=bombs)[0]
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    engine.advance_forced(st, rules)
    while st["phase"] != engine.DONE:
        hidden = double_dummy and plays_hidden_misere(st, catchers)
        if double_dummy and not hidden and _at_open_start(st):
            _open_play_by_solver(st, rules, solver_table())
            break
        engine.observe(st, rules, obs)
        seat = int(st["controller"])
        player = players[seat]
        if hidden:
            action = int(hidden_misere_card(st, obs["legal"], solver_table()))
        else:
            if getattr(player, "sees_all", False):  # an oracle, for comparisons
                seen: Observation = OracleObservation(obs.copy(), variant, sheet, st.copy())
            else:
                seen = Observation(obs.copy(), variant, sheet)
            action = int(player.act(seen))
        if engine.apply(st, rules, action) != 0:
            raise IllegalActionError(
                f"seat {seat}: illegal {engine.PHASES[int(st['phase'])]} decision {action}"
            )
        engine.advance_forced(st, rules)
    return st


def play_hands(deals, variant, *, policy: str = "heuristic", key: int = 0,
               raspasy_step: int | np.ndarray = 0, bombs=None) -> np.ndarray:
    """:func:`play_batch`'s deals played through the Python driver by
    :class:`~prefstats.players.builtin.BuiltinPlayer` objects keyed alike: the same
    final states, slower; it shows the two drivers agree."""
    n = len(deals)
    out = np.zeros(n, dtype=engine.STATE)
    steps = np.broadcast_to(np.asarray(raspasy_step, dtype=np.int64), (n,))
    seat_bombs = _bomb_array(1 if bombs is None else bombs, n)
    for i in range(n):
        players = [BuiltinPlayer(policy) for _ in range(3)]
        for s, p in enumerate(players):
            p.start_deal(seat_key(np.uint64(key), deals.index[i], s))
        out[i] = play_hand(deals.hands[i], deals.talon[i], players, variant,
                           talon_first=deals.talon_first[i], raspasy_step=int(steps[i]),
                           bombs=seat_bombs[i])
    return out


@njit(cache=True)
def _at_open_start(st):
    """Whether an open deal (lone whister, misère) is about to have its first card."""
    return st.phase == engine.PLAY and st.open and st.trick == 0 and st.n_in_trick == 0


#: What :func:`play_on` returns: the deal is over, a policy decision was illegal (a bug
#: in the policy), or the deal stopped at the decision to force.
PLAYED, ILLEGAL, REACHED = 0, 1, 2
#: Decisions a driver can force, as :func:`at_decision` knows them.
FIRST_CALL, WHIST_CALL = 0, 1
#: Every call of the seat in the auction; the declarer's contract after the talon.
MAX_BID, CONTRACT_CALL = 2, 3
#: The declarer's discard, the talon in his hand, whoever he is (the pulka's stop to look
#: for the "preference", B:199).
TALON_TAKEN = 4
#: A forced option meaning "the lowest legal bid of a trick game with the talon"; every
#: other forced option is the call itself (``PASS``, ``MISERE``, ``DARK``, ``W_HALF`` ...).
LOWEST_BID = -2


@njit(cache=True)
def at_decision(obs, decision, seat):
    """Whether observation ``obs`` asks ``seat`` for its first call of the auction
    (``FIRST_CALL``), its first whist call on a trick game (``WHIST_CALL``), any call of
    the auction (``MAX_BID``) or the contract (``CONTRACT_CALL``). Calls the engine makes
    itself (a whist that must be) are no decision. ``TALON_TAKEN``: the discard,
    ``seat`` not looked at."""
    if decision == TALON_TAKEN:
        return obs.phase == engine.DISCARD
    if obs.seat != seat:
        return False
    if decision == FIRST_CALL:
        if obs.phase != engine.AUCTION:
            return False
        # Round one goes 0, 1, 2 (nobody has passed yet); a "dark" is followed by the
        # same seat's bid.
        made = 0
        for i in range(obs.n_calls):
            if obs.calls[i] != DARK:
                made += 1
        return made == seat and (obs.n_calls == 0 or obs.calls[obs.n_calls - 1] != DARK)
    if decision == WHIST_CALL:
        # The declarer's left-hand defender speaks first and may speak again after a
        # half-whist; the other defender speaks once.
        return obs.phase == engine.WHIST and (
            obs.n_whist == 0 or seat != (obs.declarer + 1) % 3)
    if decision == MAX_BID:
        return obs.phase == engine.AUCTION
    if decision == CONTRACT_CALL:
        return obs.phase == engine.CONTRACT
    return False


@njit(cache=True)
def forced_action(option, legal, rules):
    """The decision that forced ``option`` means among the ``legal`` ones, -1 if it is
    not legal there."""
    if option == LOWEST_BID:
        return engine.lowest_bid_up_to(legal, rules, N_CONTRACTS - 1, 0)
    if option < 0 or not (legal >> option) & 1:
        return -1
    return option


@njit(cache=True)
def seat_keys(base_key, deal_index):
    """The three seats' keys of deal ``deal_index``."""
    keys = np.empty(3, dtype=np.uint64)
    for s in range(3):
        keys[s] = seat_key(base_key, deal_index, s)
    return keys


@njit(cache=True)
def play_on(st, players, keys, obs, table, seat, decision):
    """Play deal ``st`` on with the built-in ``players`` (a
    :class:`~prefstats.players.builtin.Players` record; ``keys``: each seat's key,
    :func:`seat_keys`) to the end, or until ``seat`` is asked for ``decision``
    (:func:`at_decision`; none when ``decision`` < 0), whose observation is then in
    ``obs``. Open deals are settled by the solver (``table``) when the players play them
    double dummy, an open misère by the model of their catchers
    (:mod:`prefstats.players.misere`). Returns ``PLAYED``, ``REACHED`` or ``ILLEGAL``
    (compiled; shared by every batch loop)."""
    rules = players.rules
    double_dummy = players.double_dummy
    engine.advance_forced(st, rules)
    while st.phase != engine.DONE:
        hidden = double_dummy and plays_hidden_misere(st, players.catchers)
        if double_dummy and not hidden and _at_open_start(st):
            _open_play_by_solver(st, rules, table)
            break
        engine.observe(st, rules, obs)
        if decision >= 0 and at_decision(obs, decision, seat):
            return REACHED
        if hidden:
            action = hidden_misere_card(st, obs.legal, table)
        else:
            key = decision_key(keys[st.controller], decision_number(obs))
            action = decide_with_solver(players, obs, key, table)
        if engine.apply(st, rules, action) != 0:
            return ILLEGAL
        engine.advance_forced(st, rules)
    return PLAYED


@njit(cache=True)
def play_state(st, players, deal_index, obs, table):
    """Play the freshly reset deal ``st`` to the end with the built-in ``players`` at
    every seat (as :func:`play_on`). Returns false if a decision was illegal (a bug in
    the policy)."""
    keys = seat_keys(players.key, deal_index)
    return play_on(st, players, keys, obs, table, -1, -1) == PLAYED


class DealArrays(NamedTuple):
    """Deals as the compiled drivers take them (:func:`deal_arrays`): ``hands`` (n, 3)
    and ``talon`` (n,) uint32, ``talon_first`` and ``numbers`` (n,) int64, each deal's
    number in its seed's stream (:attr:`Deals.index <prefstats.game.deal.Deals.index>`)."""

    hands: np.ndarray
    talon: np.ndarray
    talon_first: np.ndarray
    numbers: np.ndarray


def deal_arrays(deals: Deals) -> DealArrays:
    """``deals`` as a :class:`DealArrays` record (the talon card turned first: the
    deals' own, else the lower)."""
    first = getattr(deals, "talon_first", None)
    if first is None:
        first = np.array([default_talon_first(t) for t in deals.talon], dtype=np.int64)
    return DealArrays(np.ascontiguousarray(deals.hands, dtype=np.uint32),
                      np.ascontiguousarray(deals.talon, dtype=np.uint32),
                      np.ascontiguousarray(first, dtype=np.int64),
                      np.ascontiguousarray(deals.index, dtype=np.int64))


@njit(cache=True)
def _batch_kernel(deals, min_level, raspasy_step, bombs, players, states, obs_buf, table):
    """Play ``deals`` with the built-in ``players`` at every seat; returns the number of
    the first deal where a decision was illegal, or -1."""
    obs = obs_buf[0]
    for i in range(deals.hands.shape[0]):
        st = states[i]
        engine.reset(st, deals.hands[i], deals.talon[i], deals.talon_first[i], min_level[i],
                     raspasy_step[i])
        for s in range(3):
            st.bombs[s] = bombs[i, s]
        if not play_state(st, players, deals.numbers[i], obs, table):
            return i
    return -1


def compile_parts(variant: Variant, part: str, policy: str = "heuristic") -> None:
    """Compile one ``part`` of what the drivers call, for the argument types the drivers
    give it (those of the objects :func:`play_batch` makes), without running it. The
    warm-up compiles the parts in two processes at once, the drivers then load them
    from the cache: ``"search"``, the solver's search, most of the compile time
    (:func:`~prefstats.solver._search.compile_search`); ``"engine"``, the state machine
    and the built-in players' decisions, which need no search; and, once the search is
    in the cache, ``"catchers"`` (the hidden misère catchers) and ``"players"`` (the
    players who search)."""
    if part == "search":
        compile_search()
        return
    st = np.zeros(1, dtype=engine.STATE)[0]
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    players = players_record(variant, policy, resolve_params(policy))
    rules, params, tables = players.rules, players.params, players.tables
    table, n, key = solver_table(), 0, np.uint64(0)
    calls: dict[str, list[tuple[Any, tuple]]] = {
        "engine": [(engine.reset, (st, np.zeros(3, dtype=np.uint32), np.uint32(0), n, n, n)),
                   (engine.advance_forced, (st, rules)),
                   (engine.observe, (st, rules, obs)),
                   (engine.apply, (st, rules, n)),
                   (plays_hidden_misere, (st, n)),
                   (decide, (n, obs, rules, params, tables, key))],
        "catchers": [(hidden_misere_card, (st, n, table))],
        "players": [(decide_with_solver, (players, obs, key, table))],
    }
    if part not in calls:
        raise OptionError(f"unknown part {part!r}; choose from search, {', '.join(calls)}")
    for function, args in calls[part]:
        function.compile(tuple(typeof(a) for a in args))


def play_batch(
    deals: Deals,
    variant: Variant,
    *,
    policy: str = "heuristic",
    params: np.ndarray | None = None,
    key: int | np.integer = 0,
    min_level: int | np.ndarray = 6,
    raspasy_step: int | np.ndarray = 0,
    bombs: int | npt.ArrayLike | None = None,
    double_dummy: bool | None = None,
    misere_catchers: str = "hidden",
    offsets: np.ndarray | None = None,
) -> np.ndarray:
    """Play ``deals`` with the compiled built-in ``policy`` at every seat.

    Deal ``i`` uses ``deals.index[i]`` for its random choices, so a chunk of a run plays
    exactly as in the whole run.

    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> states = play_batch(deal(3, seed=1), get_variant("sochi"))
    >>> len(states), bool((states["phase"] == engine.DONE).all())
    (3, True)

    :param deals: the deals (a :class:`~prefstats.game.deal.Deals`).
    :param variant: the rules.
    :param policy: the built-in players: ``heuristic``, ``random`` or ``pimc``.
    :param params: the players' parameters (default: the policy's,
        :mod:`prefstats.players.params`).
    :param key: seeds the players' random choices.
    :param min_level: the lowest bid level, per deal or for all.
    :param raspasy_step: the raspasy progression's step, per deal or for all.
    :param bombs: (Classic) each seat's next bomb multiplier: one value, one per seat, or
        ``(n, 3)``; default 1 (no bombs).
    :param double_dummy: whether open deals (a lone whister, misère) are settled by one
        solver call (default: when the policy plays them double dummy); ``False`` has
        them played card by card by the policy.
    :param misere_catchers: how an open misère played double dummy is caught
        (:mod:`prefstats.players.misere`): ``"hidden"``, catchers who cannot see the
        discard, or ``"double_dummy"``, one solver call (an upper bound on the catch rate).
    :param offsets: the offsets of the players' calls (default: the variant's shipped fit,
        :func:`~prefstats.players.builtin.default_tables`).
    :returns: the final :data:`engine.STATE` record of each deal.
    :raises OptionError: for an unknown policy or parameters out of range.
    """
    if policy not in POLICIES:
        raise OptionError(f"unknown built-in policy {policy!r}; choose from {POLICIES}")
    catchers_code(misere_catchers)
    players = players_record(variant, policy, resolve_params(policy, params), key=key,
                             offsets=offsets, double_dummy=double_dummy,
                             catchers=misere_catchers)
    return _play_deals(deals, players, min_level=min_level, raspasy_step=raspasy_step,
                       bombs=bombs)


def _play_deals(deals: Deals, players: Players, *, min_level: int | np.ndarray = 6,
                raspasy_step: int | np.ndarray = 0,
                bombs: int | npt.ArrayLike | None = None) -> np.ndarray:
    """:func:`play_batch` with its players as a record made already (checked, by
    :func:`play_batch` or a run spec): nothing checked again."""
    n = len(deals)
    states = np.zeros(n, dtype=engine.STATE)
    bad = _batch_kernel(
        deal_arrays(deals),
        np.broadcast_to(np.asarray(min_level, dtype=np.int64), (n,)),
        np.broadcast_to(np.asarray(raspasy_step, dtype=np.int64), (n,)),
        _bomb_array(1 if bombs is None else bombs, n), players, states,
        np.zeros(1, dtype=engine.OBSERVATION), solver_table(),
    )
    if bad >= 0:
        policy = POLICIES[players.policy]
        raise RuntimeError(f"built-in policy {policy!r} made an illegal decision in deal {bad}")
    return states
