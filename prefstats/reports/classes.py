"""Hand classes the report groups by, read from the ten dealt cards (what a player sees
when he bids or whists), vectorised over uint32 hand masks.

- bidding: the *best suit* (longest; ties: more of A K Q, then the higher suit), its
  length ``trumps``, its top honours ``top`` (A K Q held), the ``side_aces`` outside
  it, and ``points = trumps + top + side_aces``, a crude one-number strength;
- whist: ``high_cards``, the defender's aces and kings;
- bidding, by the heuristic player's evaluator: ``est_tricks``, the expected final
  tricks of the dealt hand in its best strain (``prefstats.players.evaluate``, fitted
  to the solver), rounded to half tricks;
- misère: ``holes``, suits a catcher can force a trick in. A holding is safe when its
  i-th lowest card (from 0) is at most 2·i ranks above the seven (7, 9, J, K …): the
  declarer can always play under. ``short_holes`` are unsafe suits of one or two cards.

>>> from prefstats.game.cards import parse_cards
>>> h = np.array([parse_cards("♠AKQ98 ♣A ♦A7 ♥87")], dtype=np.uint32)
>>> c = bidding_class(h)
>>> [int(c[k][0]) for k in ("suit", "trumps", "top", "side_aces", "points")]
[0, 5, 3, 2, 10]
>>> m = misere_holes(np.array([parse_cards("♠79J ♣8 ♦7K ♥79JQ")], dtype=np.uint32))
>>> int(m["holes"][0]), int(m["short_holes"][0])  # ♣8 alone, ♦7K (K is 2 ranks too high)
(2, 2)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.cards import ACE, count_rank, honours, suit_holdings
from prefstats.players.adjust import SAFE, best_tricks
from prefstats.players.evaluate import load_tables

_TOP = 0b1110_0000  # A K Q of an 8-bit suit holding


_HOLDINGS = np.arange(256, dtype=np.uint8)
#: Sort key of a suit holding for the best suit: length first, then top honours.
RANK_KEY = (np.bitwise_count(_HOLDINGS).astype(np.int16) << 4
             | np.bitwise_count(_HOLDINGS & _TOP).astype(np.int16) << 2)


def bidding_class(hands: np.ndarray) -> dict[str, np.ndarray]:
    """Best suit, its length and top honours, side aces and points of each hand."""
    held = suit_holdings(hands)  # (n, 4) uint8
    suit = np.argmax(RANK_KEY[held] + np.arange(4, dtype=np.int16), axis=1)
    best = np.take_along_axis(held, suit[:, None], axis=1)[:, 0]
    trumps = np.bitwise_count(best).astype(np.int8)
    top = np.bitwise_count(best & _TOP).astype(np.int8)
    side_aces = (count_rank(hands, ACE) - (best >> ACE)).astype(np.int8)
    return {"suit": suit.astype(np.int8), "trumps": trumps, "top": top,
            "side_aces": side_aces, "points": trumps + top + side_aces}


@njit(cache=True)
def _best_strain_tricks(tables, hands, leads):
    out = np.empty(len(hands), dtype=np.float64)
    for i in range(len(hands)):
        out[i] = best_tricks(tables, np.int64(hands[i]), leads[i])
    return out


def estimated_tricks(hands: np.ndarray, leads: np.ndarray) -> np.ndarray:
    """The evaluator's expected final tricks of each dealt hand in its best strain, as
    the bidder sees it before the talon; ``leads``: the hand leads to the first trick."""
    return _best_strain_tricks(load_tables(), np.asarray(hands, dtype=np.int64),
                               np.asarray(leads, dtype=np.float64))


def high_cards(hands: np.ndarray) -> np.ndarray:
    """Aces and kings held."""
    return honours(hands).astype(np.int8)


def misere_holes(hands: np.ndarray) -> dict[str, np.ndarray]:
    """Unsafe suits (``holes``) and those of them with one or two cards (``short_holes``)."""
    held = suit_holdings(hands)
    unsafe = ~SAFE[held]
    short = unsafe & (np.bitwise_count(held) <= 2)
    return {"holes": unsafe.sum(axis=1).astype(np.int8),
            "short_holes": short.sum(axis=1).astype(np.int8)}
