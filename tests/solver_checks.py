"""A plain exhaustive minimax and random small positions: the yardstick of the solver tests."""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.tricks import legal_cards, trick_winner


@njit
def card_minimax(hands, trick, tlen, leader, declarer, trump, misere, only):
    """Declarer's remaining tricks (the current trick's included) by trying every legal
    card, or only card ``only`` for the seat to move if it is not -1; no pruning, no
    tables. One self-recursive function: numba types it by itself."""
    if hands[0] | hands[1] | hands[2] == 0:
        return 0
    player = (leader + tlen) % 3
    legal = legal_cards(hands[player], trick[0] >> 3 if tlen else -1, trump)
    if only >= 0:
        legal = 1 << only
    maximise = (player == declarer) != misere
    best = -1 if maximise else 99
    for c in range(32):
        if not legal >> c & 1:
            continue
        hands[player] ^= 1 << c
        saved = trick.copy()
        trick[tlen] = c
        if tlen == 2:
            winner = (leader + trick_winner(trick[0], trick[1], c, trump)) % 3
            v = (winner == declarer) + card_minimax(hands, trick, 0, winner, declarer, trump,
                                                    misere, -1)
        else:
            v = card_minimax(hands, trick, tlen + 1, leader, declarer, trump, misere, -1)
        trick[:] = saved
        hands[player] ^= 1 << c
        best = max(best, v) if maximise else min(best, v)
    return best


def minimax(hands, trick, tlen, leader, declarer, trump, misere) -> int:
    """Declarer's remaining tricks under best play by all."""
    return int(card_minimax(hands, trick, tlen, leader, declarer, trump, misere, -1))


def minimax_cards(hands, trick, tlen, leader, declarer, trump, misere) -> dict[int, int]:
    """``{card: declarer's remaining tricks after it}`` for each legal card of the seat to move."""
    h = np.array(hands, dtype=np.int64)
    t = np.zeros(3, dtype=np.int64)
    t[:tlen] = trick[:tlen]
    player = (leader + tlen) % 3
    legal = legal_cards(int(h[player]), int(t[0]) >> 3 if tlen else -1, trump)
    return {c: int(card_minimax(h, t, tlen, leader, declarer, trump, misere, c))
            for c in range(32) if legal >> c & 1}


def random_positions(n: int, seed: int):
    """Random positions of 1-5 cards a hand, often from few suits so suits are contested:
    (hands, trump, leader, declarer, misere) rows."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        size = int(rng.integers(1, 6))
        suits = rng.permutation(4)[: int(rng.integers(2, 5))]
        deck = np.concatenate([8 * s + np.arange(8) for s in suits])
        if len(deck) < 3 * size:
            deck = np.arange(32)
        cards = rng.permutation(deck)[: 3 * size]
        hands = [int(np.sum(1 << cards[i * size : (i + 1) * size].astype(np.int64)))
                 for i in range(3)]
        misere = bool(rng.random() < 0.3)
        trump = -1 if misere else int(rng.integers(-1, 4))
        rows.append((hands, trump, int(rng.integers(3)), int(rng.integers(3)), misere))
    return rows
