"""What the Preferans books say, checked: each published figure beside the project's.

Every figure of the books' list (``BOOKS.md``: Lesnoi's tables, the talon's outs, misère
folklore, whist obligations, the "preferans" hand, two anecdotes) becomes one or more
records (:class:`Row`): the book's figure, the project's with its 95% CI and n, and a
verdict. The project's figures come from exact enumeration (the deals' combinatorics,
one suit played double dummy over every layout: :mod:`.suit_play`), the variant's rules
and scoring, or play by the project's players (:mod:`.books_play`); nothing is tuned
toward a book.

**Verdict.** ``confirmed`` when the book's figure lies within the tolerance of the
project's (an exact figure) or of its 95% CI (a simulated one); ``refuted`` otherwise;
``not comparable`` when the book measures something else (a definition). The tolerance
of a figure the book prints to d decimals is one unit of the d-th decimal (the books
round some figures and cut others: .4805 is printed .480); a
simulated probability gets :data:`SIM_TOL`, folklore's round percentages
:data:`FOLK_TOL`, an expected value in whists :data:`EV_TOL`. Every row that is not
confirmed says why.

>>> round(split_probability(3, 3), 4), round(talon_out_probability(7), 4)
(0.2105, 0.5455)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction
from functools import cache
from math import comb

import numpy as np

from prefstats.game.cards import card_counts
from prefstats.game.exact import Z95, wilson_interval

#: Tolerance of a simulated probability beyond its 95% CI.
SIM_TOL = 0.02
#: Tolerance of folklore's percentages, said in fives and tens.
FOLK_TOL = 0.05
#: Tolerance of an expected value in whists beyond its 95% CI.
EV_TOL = 5.0
#: Tolerance of a figure computed from a scoring that may differ from the book's in detail.
RULES_TOL = 0.01
#: Cards the two defenders hold between them after the talon, and the talon's size.
UNSEEN, DEFENDER, TALON = 20, 10, 2
VERDICTS = ("confirmed", "refuted", "not comparable")


@dataclass
class Row:
    """One figure of a book beside the project's."""

    section: str
    source: str
    claim: str
    book: float | None
    project: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    verdict: str
    reason: str
    method: str  # exact, rules or simulated
    defence: str  # the catchers' or defenders' model the figure holds for
    seed: int | None = None
    tolerance: float | None = None
    unit: str = "probability"
    extra: dict = field(default_factory=dict)

    def record(self) -> dict:
        """The row as a JSON record."""
        return asdict(self)


def decimals_tolerance(printed: str) -> float:
    """One unit of the last decimal of a figure as printed (``".2105"`` → 1e-4)."""
    digits = len(printed.split(".")[1]) if "." in printed else 0
    return 10.0 ** -digits


def judge(book: float, low: float, high: float, tol: float) -> str:
    """``confirmed`` if ``book`` lies in [low − tol, high + tol], else ``refuted``."""
    return "confirmed" if low - tol <= book <= high + tol else "refuted"


def exact_row(section: str, source: str, claim: str, printed: str, value: float, *,
              n: int | None, why: str, method: str = "exact", defence: str = "none",
              unit: str = "probability", tol: float | None = None, **extra) -> Row:
    """A row of an exact figure: the book's ``printed`` figure against ``value``."""
    book = float(printed)
    tol = decimals_tolerance(printed) if tol is None else tol
    verdict = judge(book, value, value, tol)
    return Row(section, source, claim, book, value, value, value, n, verdict,
               "" if verdict == "confirmed" else why, method, defence, None, tol, unit,
               extra)


def proportion_row(section: str, source: str, claim: str, book: float, hits: int, n: int,
                   *, defence: str, seed: int, tol: float, why: str, **extra) -> Row:
    """A row of a simulated proportion ``hits / n`` with its Wilson 95% CI."""
    if n == 0:
        return Row(section, source, claim, book, None, None, None, 0, "not comparable",
                   why or "no case was played", "simulated", defence, seed, tol, extra=extra)
    low, high = (float(x[0]) for x in wilson_interval(np.array([hits]), n))
    verdict = judge(book, low, high, tol)
    return Row(section, source, claim, book, hits / n, low, high, n, verdict,
               "" if verdict == "confirmed" else why, "simulated", defence, seed, tol,
               extra=extra)


def mean_row(section: str, source: str, claim: str, book: float, mean: float, se: float,
             n: int, *, defence: str, seed: int, tol: float, why: str, unit: str,
             **extra) -> Row:
    """A row of a simulated mean with its normal 95% CI (not comparable without one)."""
    if not np.isfinite(se):
        return Row(section, source, claim, book, mean, None, None, n, "not comparable",
                   "too few cases for an interval", "simulated", defence, seed, tol, unit,
                   extra)
    low, high = mean - Z95 * se, mean + Z95 * se
    verdict = judge(book, low, high, tol)
    return Row(section, source, claim, book, mean, low, high, n, verdict,
               "" if verdict == "confirmed" else why, "simulated", defence, seed, tol, unit,
               extra)


@cache
def _layouts_by_count(missing: int) -> np.ndarray:
    """Over every way to deal the twenty unseen cards ten and ten (enumerated), how many
    give the left defender a = 0..missing of the ``missing`` cards of one suit."""
    masks = np.arange(1 << UNSEEN, dtype=np.int64)
    ones = np.zeros(len(masks), dtype=np.int64)
    low = np.zeros(len(masks), dtype=np.int64)
    for bit in range(UNSEEN):
        b = (masks >> bit) & 1
        ones += b
        if bit < missing:
            low += b
    return np.bincount(low[ones == DEFENDER], minlength=missing + 1)


def split_probability(missing: int, larger: int) -> float:
    """P(the ``missing`` cards of a suit split ``larger`` : rest between the defenders),
    by enumerating every deal of the twenty unseen cards."""
    counts = _layouts_by_count(missing)
    total = counts.sum()
    hits = counts[larger] + (counts[missing - larger] if 2 * larger != missing else 0)
    return float(Fraction(int(hits), int(total)))


def talon_out_probability(outs: int, unseen: int = UNSEEN + TALON) -> float:
    """P(at least one of ``outs`` given cards is in the talon), enumerating the talons."""
    hits = sum(1 for a in range(unseen) for b in range(a + 1, unseen) if a < outs or b < outs)
    return hits / comb(unseen, TALON)


def preferans_hand_probability() -> float:
    """P(one given player's ten cards and the talon are A K Q of every suit): deals where
    they are, counted, over all deals."""
    favourable = comb(12, 10) * comb(UNSEEN, DEFENDER)  # his ten of the twelve; the rest
    deals = comb(32, 10) * comb(22, 10) * comb(12, 10)
    return favourable / deals


def split_check(deals, missing: int, larger: int) -> tuple[int, int]:
    """(hits, n) of the split over the project's ``deals``: every suit of which the first
    hand's ten cards and the talon lack exactly ``missing`` cards, split between the
    other two hands."""
    own = deals.hands[:, 0] | deals.talon
    left = deals.hands[:, 1]
    hits = n = 0
    for s in range(4):
        held = card_counts((own >> np.uint32(8 * s)) & np.uint32(0xFF))
        lho = card_counts((left >> np.uint32(8 * s)) & np.uint32(0xFF))
        rows = held == 8 - missing
        n += int(rows.sum())
        hits += int(((lho[rows] == larger) | (lho[rows] == missing - larger)).sum())
    return hits, n


def talon_check(deals, outs: int) -> tuple[int, int]:
    """(hits, n): deals whose talon holds one of the first ``outs`` cards the first hand
    does not hold."""
    hits = 0
    for hand, talon in zip(deals.hands[:, 0], deals.talon, strict=True):
        unseen = [c for c in range(32) if not int(hand) >> c & 1][:outs]
        hits += any(int(talon) >> c & 1 for c in unseen)
    return hits, len(deals)
