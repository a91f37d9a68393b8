"""The hidden misère catchers' choice from first principles, the reference the compiled
player is checked against (``tests/test_misere_catchers.py``,
``tests/test_misere_reference.py``): one boolean search a card and discard for the
catching count, every card's value in every discard for the totals; and the discards
the catchers cannot tell apart, enumerated apart."""

import numpy as np
from numba import njit

from prefstats.game.cards import FULL_DECK, cards_of, lowest_card, popcount
from prefstats.game.tricks import trick_winner
from prefstats.solver import decision_of
from prefstats.solver._search import (
    _MAX_PLIES,
    _card_search,
    _run_reps,
    card_values_batch_kernel,
)


@njit(cache=True, error_model="numpy")
def most_reaching_cards(worlds, trick, tlen, leader, declarer, trump, misere, target, table):
    """The legal cards of the seat to move after which the declarer takes at least
    ``target`` (≥ 1) tricks from the current trick on in the most of ``worlds`` ((K, 3)
    int64 hands, the mover's the same in each), as a mask, and in how many.

    One boolean search a card and world, no exact values: what a defence counting the
    worlds where a contract fails needs. Cards with no card that any world holds in play
    between them are one run, searched once; a card's count stops once the worlds left
    cannot lift it to the best so far.
    """
    table[1][:] = 0  # one history for the worlds of a decision
    k = worlds.shape[0]
    player = (leader + tlen) % 3
    others = 0
    for j in range(k):
        others |= worlds[j, (player + 1) % 3] | worlds[j, (player + 2) % 3]
    reps = np.empty(32, np.int64)
    _run_reps(worlds[0, player], others, trick, tlen, trump, reps)
    seq = np.zeros(_MAX_PLIES + 3, np.int64)
    at = decision_of(trick, tlen, leader, declarer, trump, misere)
    h = worlds[0]
    left = (popcount(h[0] | h[1] | h[2]) + tlen) // 3  # tricks from the current one on
    best = 0
    most = -1
    for c in range(32):
        if reps[c] != c:
            continue
        won = 0  # the tricks the card surely gives the declarer, and may
        if tlen == 2:
            won = 1 if (leader + trick_winner(trick[0], trick[1], c, trump)) % 3 == declarer \
                else 0
        count = k if won >= target else 0
        for j in range(k if won < target <= won + left - (tlen == 2) else 0):
            if count + k - j < most:
                break
            res, _ = _card_search(worlds[j], at, c, target, table, seq)
            count += res
        if count > most:
            most = count
            best = 0
        if count == most:
            best |= np.int64(1) << c
    for c in range(32):  # the rest of each best run
        if reps[c] >= 0 and (best >> reps[c]) & 1:
            best |= np.int64(1) << c
    return best, most



@njit(cache=True, error_model="numpy")
def reference_catcher_card(worlds, trick, tlen, leader, declarer, caught, legal, table):
    """The catcher's card over every discard ``worlds`` (as :func:`misere_worlds` gives
    them): unless ``caught``, the cards catching in the most worlds, then the most
    tricks in total (every card valued in every world by the solver); ties to the
    lowest card."""
    cards = np.int64(legal)
    if not caught:
        cards &= most_reaching_cards(worlds, trick, tlen, leader, declarer, np.int64(-1),
                                     True, np.int64(1), table)[0]
        if popcount(cards) == 1:
            return lowest_card(cards)
    values = np.empty((worlds.shape[0], 32), np.int8)
    card_values_batch_kernel(worlds, decision_of(trick, tlen, leader, declarer, -1, True),
                             table, values)
    best = -1
    most = -1
    for c in range(32):
        if (cards >> c) & 1:
            total = 0
            for j in range(worlds.shape[0]):
                total += values[j, c]
            if total > most:
                best = c
                most = total
    return best


def discard_worlds(hands, gone, declarer, voids):
    """Every discard pair of the cards the catchers do not see that fits the declarer's
    voids, as the three hands of each world."""
    unseen = FULL_DECK & ~(hands[(declarer + 1) % 3] | hands[(declarer + 2) % 3] | gone)
    cards = cards_of(unseen)
    worlds = []
    for i, x in enumerate(cards):
        for y in cards[i + 1:]:
            hand = unseen & ~(1 << x) & ~(1 << y)
            if any(hand >> (8 * s) & 0xFF for s in voids):
                continue
            world = list(hands)
            world[declarer] = hand
            worlds.append(world)
    return worlds


def play_card(hands, trick, voids, seat, card, leader):
    """Play ``seat``'s ``card`` on an open misère's running state (``hands``, ``trick``
    and the declarer's (seat 0's) shown ``voids`` changed in place); return the leader of
    the next card (the trick's winner once it is complete, when ``trick`` is emptied)."""
    if seat == 0 and trick and card >> 3 != trick[0] >> 3:
        voids.add(trick[0] >> 3)
    hands[seat] &= ~(1 << card)
    trick.append(card)
    if len(trick) == 3:
        leader = (leader + trick_winner(*trick, -1)) % 3
        trick.clear()
    return leader
