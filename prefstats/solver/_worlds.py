"""Choosing a card over the worlds of one decision (private; the compiled layer behind
:mod:`prefstats.solver`): the best total value, PIMC's choice, and the misère
catchers' choice, the most worlds where the declarer takes a trick first. Each value is
bounded by zero-window searches only as far as the choice needs."""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.cards import popcount
from prefstats.game.tricks import trick_winner
from prefstats.solver._order import _first_card, _playout
from prefstats.solver._records import decision_of
from prefstats.solver._search import (
    _MAX_PLIES,
    _card_search,
    _first_copy,
    _play_card,
    _run_reps,
)


@njit(cache=True, inline="always", error_model="numpy")
def _narrow(worlds, j, c, target, bounds, decision, table, seq):
    """One search of card ``c`` in world ``j`` at ``target`` (inside its ``bounds``,
    ``lo`` and ``hi``): the bound it proves replaces ``lo[j, c]`` or ``hi[j, c]``;
    returns whether it held."""
    lo, hi = bounds
    res, val = _card_search(worlds[j], decision, c, target, table, seq)
    if res:
        lo[j, c] = val
    else:
        hi[j, c] = val
    return res


@njit(cache=True, error_model="numpy")
def _leader_and_rival(cards, reps, weight, lo, hi, maximise, visited):
    """The leading card of ``cards`` (the legal ones, ascending) and a card that may
    still beat or tie it, from the bounds on each world's values (``weight``: copies of
    a world, 0 for a repeat).

    Totals are of the mover's score (the value, negated when he minimises). The leader
    is the lowest card of the highest total of lower bounds over the first ``visited``
    worlds, or (``visited`` < 0) of bound midpoints over all. The rival (-1 if none) is
    the card whose total may exceed the leader's by the most, counting 0 in the worlds
    where the two are one run, and reaches it at least (a lower card by a tie too: ties
    go to the lowest card)."""
    sign = 1 if maximise else -1
    best = -1
    best_key = 0
    for c in cards:
        key = 0
        for j in range(reps.shape[0] if visited < 0 else visited):
            r = reps[j, c]
            if visited < 0:
                key += weight[j] * sign * (lo[j, r] + hi[j, r])
            else:
                key += weight[j] * min(sign * lo[j, r], sign * hi[j, r])
        if best < 0 or key > best_key:
            best = c
            best_key = key
    rival = -1
    gap = 0
    for c in cards:
        if c == best:
            continue
        d = 0  # the most the rival's total may exceed the leader's
        for j in range(reps.shape[0]):
            r = reps[j, c]
            b = reps[j, best]
            if r != b:
                d += weight[j] * (hi[j, r] - lo[j, b] if maximise else hi[j, b] - lo[j, r])
        if (d > 0 or (d == 0 and c < best)) and (rival < 0 or d > gap):
            rival = c
            gap = d
    return best, rival


@njit(cache=True, error_model="numpy")
def best_card_kernel(worlds, decision, table):
    """:func:`best_card_among` every legal card."""
    return best_card_among(worlds, decision, np.int64(0xFFFFFFFF), table)


@njit(cache=True, error_model="numpy")
def best_card_among(worlds, decision, allowed, table):
    """The card of the seat to move in ``decision`` (a
    :class:`~prefstats.solver.Decision`) among ``allowed`` (a mask holding legal cards)
    with the best total value over ``worlds`` ((K, 3)
    int64, one decision's sampled worlds, as in :func:`card_values_batch_kernel`): the
    declarer's side the most tricks, on misère the fewest, the defence the other way;
    ties go to the lowest card. The same card as the totals of
    :func:`card_values_batch_kernel` give, from fewer searches: it bounds each value
    only as far as the choice needs (:func:`_choose`). A world drawn twice counts
    twice and is searched once.
    """
    trick, tlen, leader, played = decision
    table[1][:] = 0  # one history for the worlds of a decision
    k = worlds.shape[0]
    weight = np.zeros(k, np.int64)
    for j in range(k):
        same = _first_copy(worlds, j)
        weight[j if same < 0 else same] += 1
    reps, lo, hi, floor, ceil = _open_bounds(worlds, weight, trick, tlen, leader,
                                             played.declarer, played.trump)
    return _choose((worlds, weight), reps, (lo, hi), (floor, ceil),
                   _allowed_cards(reps[0], allowed), decision, table, False)


@njit(cache=True, error_model="numpy")
def _open_bounds(worlds, weight, trick, tlen, leader, declarer, trump):
    """The run of each legal card in each world of ``weight`` > 0 (as
    :func:`_run_reps`; the first copy's for a repeat) and the bounds on the values
    before any search, the same in every world: (reps, lo, hi, floor, ceil)."""
    k = worlds.shape[0]
    player = (leader + tlen) % 3
    reps = np.empty((k, 32), np.int64)
    lo = np.zeros((k, 32), np.int64)
    hi = np.zeros((k, 32), np.int64)
    floor = np.zeros(32, np.int64)
    ceil = np.zeros(32, np.int64)
    h = worlds[0]
    left = (popcount(h[0] | h[1] | h[2]) + tlen) // 3  # tricks from the current one on
    for c in range(32):
        if tlen == 2:
            floor[c] = (leader + trick_winner(trick[0], trick[1], c, trump)) % 3 == declarer
        ceil[c] = floor[c] + left - (tlen == 2)
    for j in range(k):
        if weight[j] == 0:
            reps[j, :] = reps[_first_copy(worlds, j), :]
            continue
        h = worlds[j]
        _run_reps(h[player], h[(player + 1) % 3] | h[(player + 2) % 3], trick, tlen, trump,
                  reps[j])
        lo[j, :] = floor
        hi[j, :] = ceil
    return reps, lo, hi, floor, ceil


@njit(cache=True, error_model="numpy")
def _allowed_cards(reps, allowed):
    """The legal cards (``reps`` >= 0) of mask ``allowed``, ascending."""
    n_cards = 0
    for c in range(32):
        if reps[c] >= 0 and (allowed >> c) & 1:
            n_cards += 1
    cards = np.empty(n_cards, np.int64)
    n_cards = 0
    for c in range(32):
        if reps[c] >= 0 and (allowed >> c) & 1:
            cards[n_cards] = c
            n_cards += 1
    return cards


@njit(cache=True, error_model="numpy")
def _one_run(reps, weight, cards):
    """Whether ``cards`` are one run in every world (no card in play between them):
    of the same value in each, so the lowest is the choice."""
    for j in range(reps.shape[0]):
        if weight[j] > 0:
            for c in cards:
                if reps[j, c] != reps[j, cards[0]]:
                    return False
    return True


@njit(cache=True, error_model="numpy")
def _choose(weighted, reps, bounds, limits, cards, decision, table, catching):
    """The card of ``cards`` (legal, ascending) with the best total value over
    ``worlds``, each counted ``weight[j]`` times (``weighted``: the two), from the
    ``bounds`` ``lo``, ``hi`` known on each world's values (narrowed in place;
    ``limits``, ``floor`` and ``ceil``: those before any search).

    In each world the leading card's value is found (from its last value) and every
    other card searched once against it, which mostly shows it no better there (else
    its value is found too); in the first world the move ordering's first card leads
    (measured: fewer nodes than every value exact there). For the misère
    ``catching`` (the catchers maximise) the lowest card leads there, as ties go to it,
    and each world is settled by :func:`_separate`, the leader's value bounded from
    below only. The sweep stops once no card can catch the leader whatever the worlds
    left hold. Then, while some rival may still beat or tie the leader, the widest
    open bound of the two is narrowed. Each search narrows a bound, so this ends, at
    the latest with every value exact.
    """
    worlds, weight = weighted
    if _one_run(reps, weight, cards):
        return cards[0]
    lo, hi = bounds
    floor, ceil = limits
    trick, tlen, leader, played = decision
    declarer, trump, misere = played
    k = worlds.shape[0]
    player = (leader + tlen) % 3
    maximise = (player == declarer) != misere
    seq = np.zeros(_MAX_PLIES + 3, np.int64)
    row = np.empty(32, np.int64)
    scores = np.empty(10, np.int64)
    cand = -1
    guess = 0
    for j in range(k):
        if weight[j] == 0:
            continue
        searched = 0  # the cards whose values this world needs: the allowed ones' runs
        for c in cards:
            searched |= np.int64(1) << reps[j, c]
        if cand < 0:  # the first world: the move ordering's first allowed card leads
            h = worlds[j].copy()
            a = reps[j, cards[0]]
            if not catching:
                first = reps[j, _first_card(h, trick, tlen, leader, played, table[1][leader],
                                            (row, scores))]
                a = first if (searched >> first) & 1 else a
            cand = a
            lead, won, root = _play_card(h, seq, trick, tlen, leader, a, declarer, trump)
            guess = won + (1 if misere else _playout(h, seq, root, lead, played))
        else:
            cand, rival = _leader_and_rival(cards, reps, weight, lo, hi, maximise, j)
            if rival < 0:
                return cand  # no card can catch it, whatever the worlds left hold
            a = reps[j, cand]
        if catching:
            guess = _separate(worlds, (j, a), searched, guess, bounds, decision, table, seq)
            continue
        # The leader's value, exact: the threshold the other cards are searched against.
        while lo[j, a] < hi[j, a]:
            t = min(max(guess, lo[j, a] + 1), hi[j, a])
            res = _narrow(worlds, j, a, t, bounds, decision, table, seq)
            guess = lo[j, a] + 1 if res else hi[j, a]
        guess = lo[j, a]
        # Every other card against it: mostly no better there; if better, made exact.
        for c in range(32):
            if reps[j, c] != c or c == a or not (searched >> c) & 1:
                continue
            if maximise and hi[j, c] > lo[j, a]:
                t = max(lo[j, a], lo[j, c]) + 1
                while lo[j, c] < hi[j, c] and _narrow(worlds, j, c, t, bounds, decision,
                                                      table, seq):
                    t = lo[j, c] + 1
            elif not maximise and lo[j, c] < hi[j, a]:
                t = min(hi[j, a], hi[j, c])
                while lo[j, c] < hi[j, c] and not _narrow(worlds, j, c, t, bounds, decision,
                                                          table, seq):
                    t = hi[j, c]
    while True:
        best, rival = _leader_and_rival(cards, reps, weight, lo, hi, maximise, -1)
        if rival < 0:
            return best
        # The widest open bound of the two, in a world where they differ.
        wj = -1
        wc = -1
        for j in range(k):
            if weight[j] == 0 or reps[j, best] == reps[j, rival]:
                continue
            for c in (reps[j, best], reps[j, rival]):
                if hi[j, c] > lo[j, c] and (wj < 0 or hi[j, c] - lo[j, c]
                                            > hi[wj, wc] - lo[wj, wc]):
                    wj = j
                    wc = c
        # Count up from a lower bound a search proved, else down from the upper one.
        down = lo[wj, wc] == floor[wc] and hi[wj, wc] < ceil[wc]
        t = hi[wj, wc] if down else lo[wj, wc] + 1
        _narrow(worlds, wj, wc, t, bounds, decision, table, seq)




@njit(cache=True, error_model="numpy")
def _separate(worlds, cell, searched, guess, bounds, decision, table, seq):
    """The catchers' sweep of :func:`_choose` in world ``j`` (``cell``: ``j`` and the
    leader ``a``): the leader's value
    proved at least ``guess`` (counting down while that fails), then each other card of
    ``searched`` searched just above a's bound, a lifted to any card proved above it,
    until the card is no better there or surely better. Returns the next world's guess.

    A refutation costs many times a proof in misère, however far above the value: a
    card no better than the leader costs one, the leader none, where making its value
    exact first costs one more a world (measured: fewer nodes)."""
    j, a = cell
    lo, hi = bounds
    moved = False
    while lo[j, a] < hi[j, a] and lo[j, a] < guess:
        moved = True
        if _narrow(worlds, j, a, min(guess, hi[j, a]), bounds, decision, table, seq):
            break
        guess = hi[j, a]
    for c in range(32):
        if c == a or not (searched >> c) & 1:
            continue
        while hi[j, c] > lo[j, a]:
            moved = True
            if lo[j, c] <= lo[j, a]:
                _narrow(worlds, j, c, lo[j, a] + 1, bounds, decision, table, seq)
            elif lo[j, a] == hi[j, a] or not _narrow(worlds, j, a, min(lo[j, c], hi[j, a]),
                                                      bounds, decision, table, seq):
                break  # better than the leader in this world
    return max(lo[j, a], 1) if moved else guess


@njit(cache=True, error_model="numpy")
def catching_card(worlds, weight, decision, caught, allowed, table):
    """The misère catcher's card in ``decision`` (its game a misère: only its declarer
    counts) among ``allowed`` (legal cards of the seat to move) over
    ``worlds`` ((K, 3) int64 hands, world ``j`` standing for ``weight[j]`` worlds): unless
    the declarer is ``caught`` already, the cards after which he takes a trick in the
    most worlds; of those (of all once caught) the one with the most tricks in total
    (a caught misère costs him by the trick); ties go to the lowest card.

    The boolean searches that count a card's catching worlds bound its values too, so
    the totals of the cards tied on the count (:func:`_choose`) search only the worlds
    where they catch.
    """
    trick, tlen, leader, played = decision
    declarer = played.declarer
    at = decision_of(trick, tlen, leader, declarer, -1, True)  # a misère, whatever given
    table[1][:] = 0  # one history for the worlds of a decision
    reps, lo, hi, floor, ceil = _open_bounds(worlds, weight, trick, tlen, leader, declarer,
                                             -1)
    cards = _allowed_cards(reps[0], allowed)
    if not caught and not _one_run(reps, weight, cards):
        cards = _most_catching(worlds, weight, reps, (lo, hi), cards, at, table)
        if len(cards) == 1:
            return cards[0]
    return _choose((worlds, weight), reps, (lo, hi), (floor, ceil), cards, at, table, True)


@njit(cache=True, error_model="numpy")
def _most_catching(worlds, weight, reps, bounds, cards, decision, table):
    """The cards of ``cards`` after which the declarer takes at least a trick (misère
    ``decision``) in the most ``weight`` of ``worlds``, ascending; each search's bound
    narrows ``lo`` or ``hi`` (``bounds``) of the card's run in its world.

    Cards with no card that any world holds in play between them are one run, counted
    once; a card's count stops once the worlds left cannot lift it to the best so far,
    the move ordering's first card in the first world counted first (measured: fewer
    nodes).
    """
    lo, hi = bounds
    trick, tlen, leader, played = decision
    declarer = played.declarer
    k = worlds.shape[0]
    player = (leader + tlen) % 3
    others = 0
    for j in range(k):
        others |= worlds[j, (player + 1) % 3] | worlds[j, (player + 2) % 3]
    runs = np.empty(32, np.int64)
    _run_reps(worlds[0, player], others, trick, tlen, -1, runs)
    total = weight.sum()
    h = worlds[0]
    left = (popcount(h[0] | h[1] | h[2]) + tlen) // 3  # tricks from the current one on
    seq = np.zeros(_MAX_PLIES + 3, np.int64)
    count = np.zeros(32, np.int64)
    most = -1
    first = runs[_first_card(worlds[0].copy(), trick, tlen, leader, played, table[1][leader],
                             (np.empty(32, np.int64), np.empty(10, np.int64)))]
    order = np.concatenate((cards[cards == first], cards[cards != first]))
    for c in order:
        if runs[c] != c:
            continue
        won = tlen == 2 and (leader + trick_winner(trick[0], trick[1], c, -1)) % 3 == declarer
        if won:
            count[c] = total
        elif left - (tlen == 2) >= 1:  # a trick to take after this one
            rest = total
            for j in range(k):
                if count[c] + rest < most:
                    break
                rest -= weight[j]
                res, val = _card_search(worlds[j], decision, c, 1, table, seq)
                r = reps[j, c]
                if res:
                    count[c] += weight[j]
                    lo[j, r] = max(lo[j, r], val)
                else:
                    hi[j, r] = min(hi[j, r], val)
        most = max(most, count[c])
    n = 0
    for c in cards:
        n += count[runs[c]] == most
    best = np.empty(n, np.int64)
    n = 0
    for c in cards:
        if count[runs[c]] == most:
            best[n] = c
            n += 1
    return best
