"""Misère card play of open misère, by the two models of the catchers.

On an open misère the catchers lie open and the talon was shown, so each catcher knows
the declarer's twelve cards (his ten and the talon) but not which two he discarded:
66 discards fit at the first card, fewer as the declarer's cards and voids show.

- ``hidden`` (the default): the declarer plays double dummy (he sees every card), the
  catchers choose each card against every discard still possible
  (:func:`misere_worlds`): the card that catches the misère, the declarer taking a
  trick, in the most of those worlds, ties broken by the most tricks in total over
  them (a caught misère costs the declarer by the trick). What a table can do. Worlds
  that differ only in which of a run of unseen cards he kept are one position, solved
  once and counted as often (:func:`distinct_worlds`).
- ``double_dummy``: the whole misère settled by one solver call, as if the catchers saw
  the discard: an upper bound on the catch rate and on the catchers' tricks (the
  declarer plays his double-dummy card in both models, which holds him to his
  double-dummy tricks whatever the catchers play).

The drivers (:mod:`prefstats.sim.play`) play misère this way when the players play open
deals double dummy; :func:`catchers_code` names the model. :func:`open_misere_card`
plays either model a card at a time, for a table whose seats are different players
(the strength gauge).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.cards import lowest_card, popcount
from prefstats.solver import best_card_among, catching_card, decision_of

HIDDEN, DOUBLE_DUMMY = 0, 1
#: The models of the misère catchers, by name (the first is the default).
MISERE_CATCHERS = ("hidden", "double_dummy")
#: The cards of each suit (bit ``1 << suit`` of a void mask selects the suit's eight).
_SUIT_CARDS = np.int64(0xFF)


def catchers_code(name: str) -> int:
    """The code of misère catchers model ``name`` (``OptionError`` if unknown).

    >>> catchers_code("hidden"), catchers_code("double_dummy")
    (0, 1)
    """
    if name not in MISERE_CATCHERS:
        raise OptionError(f"unknown misère catchers {name!r}; choose from "
                          f"{', '.join(MISERE_CATCHERS)}")
    return MISERE_CATCHERS.index(name)


@njit(cache=True)
def misere_worlds(st):
    """The positions the catchers cannot tell apart on misère ``st``: (K, 3) int64
    hands, the catchers' own in each, the declarer's his twelve cards less the cards
    he played and one pair that may be out of play (discarded, or an unseen talon).
    A pair fits unless the declarer still held a card of a suit he has shown void in."""
    declarer = st.declarer
    left = (declarer + 1) % 3
    right = (declarer + 2) % 3
    a = np.int64(st.hands[left])
    b = np.int64(st.hands[right])
    # Every card the catchers do not see: the declarer's hand and the two out of play.
    unseen = ~(a | b | np.int64(st.gone)) & np.int64(0xFFFFFFFF)
    void_cards = np.int64(0)
    for suit in range(4):
        if (st.voids[declarer] >> suit) & 1:
            void_cards |= _SUIT_CARDS << (8 * suit)
    must = unseen & void_cards  # out of play for sure
    n = popcount(unseen)
    worlds = np.empty((n * (n - 1) // 2, 3), np.int64)
    k = 0
    rest = unseen
    while rest:
        x = lowest_card(rest)
        rest &= rest - 1
        more = rest
        while more:
            y = lowest_card(more)
            more &= more - 1
            out = (np.int64(1) << x) | (np.int64(1) << y)
            if must & ~out:
                continue
            worlds[k, declarer] = unseen & ~out
            worlds[k, left] = a
            worlds[k, right] = b
            k += 1
    return worlds[:k]


@njit(cache=True)
def _lowest(run, n):
    """The ``n`` lowest cards of mask ``run``."""
    out = np.int64(0)
    for _ in range(n):
        low = run & -run
        out |= low
        run &= ~low
    return out


@njit(cache=True)
def _runs_held_lowest(hand, unseen, seen):
    """Hand ``hand`` (cards of ``unseen``) with each run of unseen cards (no card of
    ``seen`` between them) held as its lowest cards: the same position to the catchers
    on ranks relative to the cards in play, so the same values."""
    out = np.int64(0)
    for suit in range(4):
        run = np.int64(0)
        held = 0
        for rank in range(8):
            bit = np.int64(1) << (8 * suit + rank)
            if seen & bit:
                out |= _lowest(run, held)
                run = np.int64(0)
                held = 0
            elif unseen & bit:
                run |= bit
                held += (hand & bit) != 0
        out |= _lowest(run, held)
    return out


@njit(cache=True)
def catch_worlds(st):
    """:func:`misere_worlds` of ``st`` up to the order of cards the catchers cannot tell
    apart in rank (:func:`distinct_worlds`)."""
    declarer = st.declarer
    seen = np.int64(st.hands[(declarer + 1) % 3]) | np.int64(st.hands[(declarer + 2) % 3])
    for t in range(st.n_in_trick):
        seen |= np.int64(1) << st.trick_cards[t]
    return distinct_worlds(misere_worlds(st), declarer, seen, np.int64(st.gone))


@njit(cache=True)
def distinct_worlds(worlds, declarer, seen, gone):
    """The distinct ``worlds`` ((K, 3) int64) of a misère decision up to the order of the
    declarer's cards within each run of cards unseen (none of ``seen``, the cards in the
    catchers' hands and on the table, between them; ``gone``: every card played), and
    how many worlds each stands for: (worlds, weights), the declarer's hand of each
    holding the lowest cards of its runs. Such worlds are one position on ranks
    relative to the cards in play, so every card has the same value in them."""
    unseen = ~(seen | gone) & np.int64(0xFFFFFFFF)
    out = worlds.copy()
    weight = np.zeros(len(worlds), np.int64)
    k = 0
    for j in range(len(worlds)):
        hand = _runs_held_lowest(worlds[j, declarer], unseen, seen)
        i = 0
        while i < k and out[i, declarer] != hand:
            i += 1
        if i == k:
            out[k, :] = worlds[j, :]
            out[k, declarer] = hand
            k += 1
        weight[i] += 1
    return out[:k], weight[:k]


@njit(cache=True)
def hidden_catcher_card(st, legal, table):
    """The catcher's card on misère ``st`` (``legal``: his legal cards) against every
    discard still possible (see the module docstring); ties go to the lowest card."""
    worlds, weight = catch_worlds(st)
    at = decision_of(_trick(st), st.n_in_trick, st.leader, st.declarer, -1, True)
    return catching_card(worlds, weight, at, st.tricks[st.declarer] > 0, np.int64(legal),
                         table)


@njit(cache=True)
def _trick(st):
    """The cards on the table of ``st``, as (3,) int64."""
    trick = np.zeros(3, np.int64)
    for t in range(st.n_in_trick):
        trick[t] = st.trick_cards[t]
    return trick


@njit(cache=True)
def _double_dummy_card(st, legal, table):
    """The double-dummy card of the seat to act on misère ``st``: the lowest of the
    declarer's fewest tricks, of a catcher's most."""
    world = np.empty((1, 3), np.int64)
    for s in range(3):
        world[0, s] = st.hands[s]
    at = decision_of(_trick(st), st.n_in_trick, st.leader, st.declarer, -1, True)
    return best_card_among(world, at, np.int64(legal), table)


@njit(cache=True)
def hidden_misere_card(st, legal, table):
    """The card of the seat to act on open misère ``st`` under the ``hidden`` catchers:
    the declarer's double-dummy card (the lowest of his fewest tricks), a catcher's
    :func:`hidden_catcher_card`."""
    if st.to_act == st.declarer:
        return _double_dummy_card(st, legal, table)
    return hidden_catcher_card(st, legal, table)


@njit(cache=True)
def open_misere_card(st, legal, catchers, table):
    """The card of the seat to act on open misère ``st`` by the model of the catchers
    ``catchers`` (:data:`MISERE_CATCHERS` code), one card at a time: a hidden catcher's
    :func:`hidden_catcher_card`, every other seat's the double-dummy card (together the
    ``double_dummy`` model's one solver call, card by card)."""
    if catchers == HIDDEN:
        return hidden_misere_card(st, legal, table)
    return _double_dummy_card(st, legal, table)


@njit(cache=True)
def plays_hidden_misere(st, catchers):
    """Whether the card of state ``st`` is an open misère's under the ``hidden``
    catchers (``catchers``: :data:`MISERE_CATCHERS` code)."""
    return (catchers == HIDDEN and st.phase == engine.PLAY and st.open
            and st.kind == engine.MISERE_GAME)
