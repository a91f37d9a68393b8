"""Counterfactual tables: what an option of a decision gains against passing on the same
deals (:func:`prefstats.rollout.rollout`, every other decision by the built-in policy).

A class's gain is the mean paired difference ``option − base`` in whists a deal over the
(seat, deal) pairs of that class where both options were legal, with its standard error
and 95% CI; every seat's deals are pooled. These are the only figures the guide turns
into advice: a class average of the players' own choices says nothing about what a hand
of that class should do (issue 14).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import polars as pl

from prefstats.auction import dummy_seat
from prefstats.reports.classes import bidding_class, high_cards, misere_holes
from prefstats.reports.stats import MIN_SAMPLES
from prefstats.reports.whist import MAX_HIGH
from prefstats.rollout import rollout

#: z of a two-sided 95% CI.
Z95 = 1.96
#: Standard errors from zero a gain must be for the guide to advise on it.
DECISIVE_SE = 3.0


def by_points(hands: np.ndarray) -> np.ndarray:
    """Hand points of each hand (:func:`~prefstats.reports.classes.bidding_class`)."""
    return bidding_class(hands)["points"]


def by_honours(hands: np.ndarray) -> np.ndarray:
    """Aces and kings of each hand, pooled above ``MAX_HIGH`` as the whist table pools."""
    return np.minimum(high_cards(hands), MAX_HIGH)


def by_holes(hands: np.ndarray) -> np.ndarray:
    """Misère holes of each hand (:func:`~prefstats.reports.classes.misere_holes`)."""
    return misere_holes(hands)["holes"]


def seats_of(variant) -> list[int]:
    """The seats that play (every seat but a 4-player table's dummy)."""
    return [s for s in range(3) if s != dummy_seat(variant)]


def seat_rollouts(variant, deals, decision: str, options: Sequence[str],
                  classify: Callable[[np.ndarray], np.ndarray], *, seed: int,
                  workers: int = 1) -> pl.DataFrame:
    """:func:`~prefstats.rollout.rollout` for every playing seat, with ``seat`` and the
    class ``cls`` of the seat's dealt hand (``classify`` maps a seat's hands, an array of
    ``deals.hands[:, seat]``, to one integer class per deal)."""
    frames = []
    for seat in seats_of(variant):
        cls = np.asarray(classify(deals.hands[:, seat]), dtype=np.int64)
        f = rollout(variant, deals, seat=seat, decision=decision, options=options,
                    seed=seed, workers=workers)
        frames.append(f.with_columns(seat=pl.lit(seat, pl.Int64),
                                     cls=pl.Series(cls)[f["deal"]]))
    return pl.concat(frames)


def gains(frame: pl.DataFrame, base: str, option: str) -> pl.DataFrame:
    """Per class ``cls``: ``mean`` of ``option − base`` over the (seat, deal) pairs where
    both were legal, its ``se``, 95% CI (``lo``, ``hi``) and ``n``; classes with fewer
    than two pairs have no spread and are left out."""
    wide = frame.filter(pl.col("option").is_in([base, option])).pivot(
        on="option", index=["seat", "deal", "cls"], values="value")
    if option not in wide.columns or base not in wide.columns:
        wide = pl.DataFrame(schema={"cls": pl.Int64, base: pl.Float64, option: pl.Float64})
    diff = wide.select("cls", gain=pl.col(option) - pl.col(base)).drop_nulls()
    out = diff.group_by("cls").agg(mean=pl.col("gain").mean(),
                                   se=pl.col("gain").std() / pl.len().sqrt(),
                                   n=pl.len()).filter(pl.col("n") >= 2)
    return out.with_columns(lo=pl.col("mean") - Z95 * pl.col("se"),
                            hi=pl.col("mean") + Z95 * pl.col("se")).sort("cls")


def threshold(table: pl.DataFrame, min_n: int = MIN_SAMPLES, upward: bool = True
              ) -> dict | None:
    """The row of the lowest class from which the gain is positive with 95% confidence
    (``lo > 0``) in that class and every class above it with at least ``min_n`` pairs
    (with ``upward`` False: the highest class from which it is so in every class below);
    None when no class qualifies."""
    rows = table.filter(pl.col("n") >= min_n).sort("cls", descending=not upward).rows(
        named=True)
    start = None
    for row in reversed(rows):
        if row["lo"] <= 0:
            break
        start = row
    return start


def decisive(row: dict) -> bool:
    """Whether the gain is at least :data:`DECISIVE_SE` standard errors from zero."""
    return row["se"] > 0 and abs(row["mean"]) >= DECISIVE_SE * row["se"]


def cell(row: dict | None) -> str:
    """``+mean [lo, hi]`` of a gain row, ``–`` without one."""
    if row is None:
        return "–"
    return f"{row['mean']:+.1f} [{row['lo']:+.1f}, {row['hi']:+.1f}]"


def table(title: str, frame: pl.DataFrame, levels: Sequence[int], base: str,
          options: Sequence[str], label: str) -> str:
    """A markdown table: one row per class in ``levels``, per option its gain against
    ``base`` with the 95% CI and n."""
    parts = {o: {r["cls"]: r for r in gains(frame, base, o).iter_rows(named=True)}
             for o in options}
    head = f"| {label} | " + " | ".join(f"{o} − {base} (n)" for o in options) + " |"
    lines = [f"**{title}**", "", head, "|---" * (len(options) + 1) + "|"]
    for lv in levels:
        cells = []
        for o in options:
            row = parts[o].get(lv)
            cells.append(f"{cell(row)} ({row['n'] if row else 0:,})")
        lines.append(f"| {lv} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
