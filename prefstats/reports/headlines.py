"""Headline findings of the rule-comparison article: the tables highest and lowest on a
figure, a sentence saying so with the numbers, and how clearly the two stand apart."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from prefstats.reports.stats import MIN_SAMPLES

#: A table's figure: (estimate, 95% low, 95% high, samples); a bound may be None.
Estimate = tuple[float, float | None, float | None, int]
#: Words for a finding from (largest table, its figure, smallest table, its figure).
Say = Callable[[str, str, str, str], str]


def _magnitude(value: Estimate) -> tuple[float, float]:
    """The interval of ``|estimate|``: from 0 when the interval holds 0."""
    v, lo, hi = value[:3]
    if lo is None or hi is None:
        return abs(v), abs(v)
    if lo <= 0 <= hi:
        return 0.0, max(-lo, hi)
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


@dataclass(frozen=True)
class Finding:
    """One headline: ``sentence`` opens its section (figures with their intervals),
    ``short`` is the summary's (figures alone), ``title`` the article's title if it is the
    main finding, and ``strength`` how many times the larger table's nearest bound
    exceeds the smaller's farthest (above 1 only when their 95% intervals part)."""

    sentence: str
    short: str
    title: str
    strength: float


def _times(ratio: float) -> str:
    return f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.1f}"


def finding(values: Mapping[str, Estimate], say: Say, title: Callable[[str, str, str], str],
            fmt: Callable[[float], str]) -> Finding | None:
    """The finding on ``values`` (a figure per table): the tables of the largest and the
    smallest magnitude, put in words by ``say`` and, with how many times the one is the
    other, by ``title(largest, smallest, times)``; None with fewer than two tables of
    :data:`~prefstats.reports.stats.MIN_SAMPLES` samples."""
    shown = {k: v for k, v in values.items() if v[3] >= MIN_SAMPLES and np.isfinite(v[0])}
    if len(shown) < 2:
        return None
    big = max(shown, key=lambda k: abs(shown[k][0]))
    small = min(shown, key=lambda k: abs(shown[k][0]))
    farthest = _magnitude(shown[small])[1]
    strength = _magnitude(shown[big])[0] / farthest if farthest > 0 else 0.0

    def with_ci(v: Estimate) -> str:
        bounds = f" [{fmt(v[1])}, {fmt(v[2])}]" if v[1] is not None and v[2] is not None else ""
        return fmt(v[0]) + bounds

    sentence = say(big, with_ci(shown[big]), small, with_ci(shown[small]))
    if strength <= 1:
        sentence = sentence.rstrip(".") + "; at this size the two are not told apart."
    size = abs(shown[small][0])
    times = abs(shown[big][0]) / size if size > 0 else float("inf")
    return Finding(sentence, say(big, fmt(shown[big][0]), small, fmt(shown[small][0])),
                   title(big, small, _times(times)), strength)


def main_title(found: Sequence[Finding | None], fallback: str) -> str:
    """The title of the finding on which the tables part most, or ``fallback`` when no
    finding's tables are told apart."""
    apart = [f for f in found if f is not None and f.strength > 1]
    return max(apart, key=lambda f: f.strength).title if apart else fallback

