"""Exact probabilities of deal features, from combinatorics.

Simulated frequencies are checked against these (in tests and in the demo table).

>>> round(ace_count_probabilities()[0], 4)  # a ten-card hand without an ace
0.2034
>>> abs(sum(longest_suit_probabilities().values()) - 1) < 1e-12
True
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb
from statistics import NormalDist

import numpy as np
import polars as pl

from prefstats.game.cards import ACE, count_rank, suit_lengths

HAND = 10
DECK = 32
SUIT = 8


def ace_count_probabilities(cards: int = HAND) -> dict[int, float]:
    """P(a hand of ``cards`` cards holds k aces), k = 0..4 (hypergeometric)."""
    total = comb(DECK, cards)
    return {k: comb(4, k) * comb(DECK - 4, cards - k) / total for k in range(5)}


def suit_pattern_counts(cards: int = HAND) -> dict[tuple[int, ...], int]:
    """Number of hands with each suit-length pattern, lengths in suit order ♠ ♣ ♦ ♥."""
    counts = {}
    for lengths in product(range(SUIT + 1), repeat=4):
        if sum(lengths) == cards:
            n = 1
            for length in lengths:
                n *= comb(SUIT, length)
            counts[lengths] = n
    return counts


def longest_suit_probabilities(cards: int = HAND) -> dict[int, float]:
    """P(the longest suit of a hand has k cards)."""
    total = comb(DECK, cards)
    out: dict[int, Fraction] = {}
    for lengths, n in suit_pattern_counts(cards).items():
        k = max(lengths)
        out[k] = out.get(k, Fraction(0)) + Fraction(n, total)
    return {k: float(v) for k, v in sorted(out.items())}


def suit_split_probabilities() -> dict[tuple[int, int, int, int], float]:
    """P(seats 0, 1, 2 and the talon hold a, b, c, t cards of one given suit)."""
    total = comb(DECK, SUIT)
    probs = {}
    for a, b, t in product(range(SUIT + 1), range(SUIT + 1), range(3)):
        c = SUIT - a - b - t
        if 0 <= c <= SUIT:
            probs[a, b, c, t] = comb(HAND, a) * comb(HAND, b) * comb(HAND, c) * comb(2, t) / total
    return probs


def talon_probabilities() -> dict[str, float]:
    """P of a few talon features: an ace in it, a pair of one suit."""
    total = comb(DECK, 2)
    return {
        "talon holds an ace": 1 - comb(DECK - 4, 2) / total,
        "talon cards of one suit": 4 * comb(SUIT, 2) / total,
    }


def deal_feature_table(hands: np.ndarray, talon: np.ndarray) -> pl.DataFrame:
    """Observed frequencies of deal features with 95% Wilson intervals beside the exact
    probabilities; ``hands`` (n, 3) and ``talon`` (n,) as dealt. Hand features are
    read from the first hand.

    >>> from prefstats.game.deal import deal
    >>> d = deal(10_000, seed=1)
    >>> t = deal_feature_table(d.hands, d.talon)
    >>> bool(t["covered"].all())
    True
    """
    first = hands[:, 0]
    n = len(first)
    longest = suit_lengths(first).max(axis=1)
    aces = count_rank(first, ACE)
    talon_suits = suit_lengths(talon).max(axis=1)
    rows = []
    for k, p in longest_suit_probabilities().items():
        rows.append(("longest suit", str(k), int((longest == k).sum()), p))
    for k, p in ace_count_probabilities().items():
        rows.append(("aces in hand", str(k), int((aces == k).sum()), p))
    features = talon_probabilities()
    rows.append(
        (
            "talon",
            "holds an ace",
            int((count_rank(talon, ACE) > 0).sum()),
            features["talon holds an ace"],
        )
    )
    rows.append(
        (
            "talon",
            "cards of one suit",
            int((talon_suits == 2).sum()),
            features["talon cards of one suit"],
        )
    )
    feature, value, hits, exact = zip(*rows, strict=True)
    low, high = wilson_interval(np.array(hits), n)
    return pl.DataFrame(
        {
            "feature": feature,
            "value": value,
            "deals": [n] * len(rows),
            "observed": np.array(hits) / max(n, 1),
            "ci_low": low,
            "ci_high": high,
            "exact": exact,
        }
    ).with_columns(
        covered=(pl.col("ci_low") <= pl.col("exact")) & (pl.col("exact") <= pl.col("ci_high"))
    )


#: z of a two-sided 95% normal interval: every 95% interval of the package uses it.
Z95 = NormalDist().inv_cdf(0.975)


def wilson_interval(hits: np.ndarray, n: int, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions ``hits / n`` (95% by default)."""
    hits = np.asarray(hits, dtype=float)
    if n == 0:
        return np.zeros_like(hits), np.ones_like(hits)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half
