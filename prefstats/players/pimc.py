"""PIMC card play (perfect-information Monte Carlo, the method of GIB in bridge): the
seat to play samples ``k`` deals consistent with what it knows
(:mod:`prefstats.players.knowledge`), values every legal card in each of them double dummy
(:func:`prefstats.solver.best_card_kernel`, one table shared by the worlds, each value
bounded only as far as the choice needs) and plays the card of the best average for its
side: the declarer's most tricks on a trick game, his fewest on misère; the defence the
other way.

Compiled, for callers in numba code (the engine's drivers): :func:`pimc_play` decides
from an engine observation (the built-in ``policy = "pimc"``), :func:`pimc_kernel` from
a knowledge record; :func:`pimc_card` is the same decision from Python on a
:class:`~prefstats.players.knowledge.Knowledge`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from prefstats.errors import IllegalActionError, OptionError
from prefstats.game import engine
from prefstats.game.cards import lowest_card
from prefstats.game.contracts import TRUMP
from prefstats.game.deal import seed_keys
from prefstats.game.tricks import legal_cards
from prefstats.players.knowledge import (
    Knowledge,
    draws_of,
    known_of,
    observation_knowledge,
    prepare_kernel,
    sample_kernel,
)
from prefstats.solver import (
    _single_table,
    best_card_kernel,
    card_values_batch_kernel,
    decision_of,
)

#: Worlds a decision samples by default: the issue's measurements level off from 32.
DEFAULT_WORLDS = 32


@njit(cache=True, error_model="numpy")
def sampled(known, decision, draws, worlds):
    """Fill ``worlds`` with samples from ``draws`` for the decision of
    :func:`pimc_kernel`; returns the card to play without them when every legal card
    is the same one (see :func:`_one_run`), else -1."""
    seat, held, counts, played, out, voids, talon, talon_holder = known
    trick, tlen, _, game = decision
    on_table = 0
    for t in range(tlen):
        on_table |= np.int64(1) << trick[t]
    only = _one_run(held[seat], (played | out) & ~on_table, -1 if tlen == 0 else trick[0] >> 3,
                    game.trump)
    if only < 0:
        prepared = prepare_kernel(seat, held, counts, played, out, voids, talon, talon_holder)
        sample_kernel(draws, prepared, held, (seat + 1) % 3, (seat + 2) % 3, worlds)
    return only


@njit(cache=True, error_model="numpy")
def pimc_kernel(known, decision, draws, table, worlds, values):
    """The PIMC card of the seat of ``known`` (a
    :class:`~prefstats.players.knowledge.Known`, to play in ``decision``, a
    :class:`~prefstats.solver.Decision`): worlds ``start ..`` of ``draws``, as many as
    ``worlds`` has rows ((k, 3) int64 scratch), with every legal card's value in each of
    them left in ``values`` ((k, 32) int8; untouched when the card needs no search).
    Ties go to the lowest card. :func:`pimc_choice_kernel` finds the same card faster
    when the values are not wanted."""
    only = sampled(known, decision, draws, worlds)
    if only >= 0:
        return only
    card_values_batch_kernel(worlds, decision, table, values)
    game = decision.game
    maximise = (known.seat == game.declarer) != game.misere
    best = -1
    best_sum = 0
    for c in range(32):
        if values[0, c] < 0:
            continue
        total = 0
        for j in range(values.shape[0]):
            total += values[j, c]
        if best < 0 or (total > best_sum if maximise else total < best_sum):
            best = c
            best_sum = total
    return best


@njit(cache=True, error_model="numpy")
def pimc_choice_kernel(known, decision, draws, table, worlds):
    """:func:`pimc_kernel`'s card, from only the searches that settle it
    (:func:`prefstats.solver.best_card_kernel`): the one the players use."""
    only = sampled(known, decision, draws, worlds)
    if only >= 0:
        return only
    return best_card_kernel(worlds, decision, table)


@njit(cache=True, error_model="numpy")
def _one_run(hand, gone, led, trump):
    """The lowest legal card of ``hand`` when its legal cards form one run, every card
    between them gone (played to an earlier trick or known out of play, so in no world;
    a card on the table still counts): they are then the same card in every world,
    their values equal, and the tie goes to the lowest, with no world to sample or
    solve. Else -1."""
    legal = legal_cards(hand, led, trump)
    low = lowest_card(legal)
    high = low
    rest = legal
    while rest:
        high = lowest_card(rest)
        rest &= rest - 1
    if high >> 3 != low >> 3:
        return -1
    between = ((2 << high) - (1 << low)) & ~legal
    return low if between & ~gone == 0 else -1


@njit(cache=True)
def searches(obs):
    """Whether the PIMC player searches for this decision: a card of a closed trick game
    or misère (open deals are settled double dummy, raspasy is played by the heuristic:
    a plain PIMC seat gained nothing measurable there)."""
    return (obs.phase == engine.PLAY and not obs.open
            and (obs.kind == engine.GAME or obs.kind == engine.MISERE_GAME))


KEY_SPLIT = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True)
def pimc_play(obs, samples, key, table):
    """The PIMC card for observation ``obs`` (see :func:`searches`), ``samples`` worlds
    drawn from the stream of the decision's random ``key`` (so reproducible however the
    deals are split among workers), solved with ``table``."""
    held = np.zeros(3, np.int64)
    counts = np.zeros(3, np.int64)
    voids = np.zeros(3, np.int64)
    played, out, talon, holder = observation_knowledge(obs, held, counts, voids)
    trick = np.zeros(3, np.int64)
    for t in range(obs.n_in_trick):
        trick[t] = obs.trick_cards[t]
    misere = obs.kind == engine.MISERE_GAME
    trump = np.int64(-1) if misere else np.int64(TRUMP[obs.contract])
    return pimc_choice_kernel(
        known_of(obs.playing_for, held, counts, played, out, voids, talon, holder),
        decision_of(trick, obs.n_in_trick, obs.leader, obs.declarer, trump, misere),
        draws_of(key, key ^ KEY_SPLIT, 0), table, np.zeros((samples, 3), np.int64))


def pimc_card(k: Knowledge, *, trick: Sequence[int], leader: int, declarer: int,
              trump: int | None, misere: bool = False, worlds: int = DEFAULT_WORLDS,
              seed: int | None = 0, start: int = 0) -> int:
    """The card PIMC plays for ``k.seat``, whose turn it is in the current trick
    (``trick``: the cards on the table, led by ``leader``).

    >>> from prefstats.game.cards import FULL_DECK, card_name, parse_cards as p
    >>> gone = FULL_DECK & ~p("♠AK7 ♥AK8 ♦AK8")  # 3 cards a hand left
    >>> k = Knowledge(seat=1, held=(0, p("♠AK7"), 0), counts=(3, 3, 3), played=gone)
    >>> card_name(pimc_card(k, trick=[], leader=1, declarer=1, trump=0, worlds=8))
    '7♠'

    (Only trumps left with him: every card takes all three tricks; ties go low.)
    """
    k.check()
    if k.seat != (leader + len(trick)) % 3:
        raise IllegalActionError(f"seat {k.seat} is not the seat to play")
    if not 1 <= worlds <= 4096:
        raise OptionError(f"worlds must lie in 1..4096, got {worlds}")
    held, counts, voids = (np.array(x, dtype=np.int64) for x in (k.held, k.counts, k.voids))
    padded = np.zeros(3, dtype=np.int64)
    padded[: len(trick)] = trick
    _, key0, key1 = seed_keys(seed)
    tr = -1 if misere or trump is None else int(trump)
    return int(pimc_choice_kernel(
        known_of(k.seat, held, counts, k.played, k.out, voids, k.talon, k.talon_holder),
        decision_of(padded, len(trick), leader, declarer, tr, misere),
        draws_of(key0, key1, start), _single_table(), np.zeros((worlds, 3), np.int64)))
