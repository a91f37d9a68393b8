"""Section 1, bidding (observational, not advice): by hand class, how often each contract
level is made after the talon, what declaring it is worth in whists against passing,
and from which class on it pays; the same for misère by the holes in the hand.

"Passing" is every deal in which a seat of the same class did not declare (it
defended, or the deal was a raspasy): the comparison is between the choices the
simulated players made, not a counterfactual replay of each hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from prefstats.game.engine import GAME, MISERE_GAME
from prefstats.reports.frames import class_sums, seat_rows
from prefstats.reports.stats import (
    MIN_SAMPLES,
    difference,
    finish_means,
    pooled_means,
    with_proportion,
)

#: Class columns of the full bidding table.
HAND_CLASS = ("trumps", "top", "side_aces")
#: Class columns of the misère table.
HOLES = ("holes", "short_holes")
_KEYS = ("kind", "level", "role")
Sums = dict[tuple[str, ...], pl.DataFrame]


def hand_sums(lf: pl.LazyFrame, by: Sequence[Sequence[str]] = (
        ("points",), ("est_tricks",), HAND_CLASS, HOLES)) -> Sums:
    """What :func:`bidding_table` and :func:`misere_table` group, for each class
    grouping in ``by`` (columns of :func:`prefstats.reports.classes.bidding_class`,
    ``est_tricks``, :data:`HOLES`): per deal kind, level, the seat's role and class, the
    seats' count ``n``, contracts ``made`` and value sums. The hands are classified a
    batch at a time (:func:`~prefstats.reports.frames.class_sums`): memory does not
    grow with the deals. Pass the result to the tables as ``rows`` to classify once."""
    return class_sums(lf, lambda deals: seat_rows(deals).select(
        *_KEYS, "seat", "hand", "value", "made"), ("bidding", "evaluator", "misere"),
        [(*_KEYS, *g) for g in by])


def _sums(lf: pl.LazyFrame, by: Sequence[str], rows: Sums | None) -> pl.DataFrame:
    key = (*_KEYS, *by)
    if rows is None or key not in rows:
        rows = hand_sums(lf, (tuple(by),))
    return rows[key]


def _declare_vs_pass(rows: pl.DataFrame, declared: pl.Expr, by: Sequence[str],
                     hits: pl.Expr, outcome_name: str) -> pl.DataFrame:
    """Per ``by`` (plus ``level`` for the declarers): declarers' ``n``, the rate of
    ``outcome`` with a Wilson CI, their mean value (``ev_bid``) against the mean value
    of the same class when not declaring (``ev_pass``), ``gain = ev_bid − ev_pass``, and
    ``bid_share``, the share of all hands of the class that declared (with its CI): the
    players' selection behind the figures."""
    bid = rows.filter(declared).group_by("level", *by).agg(
        hits.alias("hits"), *pooled_means("ev_bid"))
    passed = rows.filter(pl.col("role") != "declarer").group_by(*by).agg(
        pooled_means("ev_pass"))
    hands = rows.group_by(*by).agg(pl.col("n").sum().alias("class_n"))
    table = (bid.join(passed, on=list(by), how="left").join(hands, on=list(by), how="left")
             .sort("level", *by))
    table = finish_means(table, ["ev_bid", "ev_pass"]).rename({"ev_bid_n": "n"})
    table = with_proportion(table, "hits", "n", outcome_name).drop("hits")
    table = with_proportion(table, "n", "class_n", "bid_share")
    return difference(table, "ev_bid", "ev_pass", "gain").with_columns(
        enough=(pl.col("n") >= MIN_SAMPLES) & (pl.col("ev_pass_n") >= MIN_SAMPLES))


def bidding_table(lf: pl.LazyFrame, by: Sequence[str] = ("points",),
                  rows: Sums | None = None) -> pl.DataFrame:
    """Trick contracts by level and hand class ``by`` (columns of
    :func:`prefstats.reports.classes.bidding_class`): ``n`` declared, ``p_make`` with
    its 95% CI, ``ev_bid`` and ``ev_pass`` in whists, ``gain`` between them.
    ``rows``: :func:`hand_sums` of ``lf`` when already computed."""
    return _declare_vs_pass(_sums(lf, by, rows),
                            (pl.col("role") == "declarer") & (pl.col("kind") == GAME),
                            by, pl.col("made").sum(), "p_make")


def misere_table(lf: pl.LazyFrame, rows: Sums | None = None) -> pl.DataFrame:
    """Misères by the holes of the dealt hand (all holes, and how many are short):
    ``n``, ``p_caught`` (the declarer took a trick) with its CI, ``ev_bid`` against
    ``ev_pass`` in whists, ``gain``. ``rows`` as for :func:`bidding_table`."""
    declared = (pl.col("role") == "declarer") & (pl.col("kind") == MISERE_GAME)
    caught = pl.col("n").sum() - pl.col("made").sum()  # the declarer took a trick
    return _declare_vs_pass(_sums(lf, HOLES, rows), declared, HOLES, caught,
                            "p_caught").drop("level")


def thresholds(table: pl.DataFrame, by: str = "points", group: str = "level") -> pl.DataFrame:
    """Per ``group``, the lowest ``by`` from which bidding pays: every row at or above it
    with enough samples has ``gain > 0``, and the row itself gains with 95% confidence
    (``gain_lo > 0``). The row at the threshold is returned (none when there is no such
    class or no row has enough samples)."""
    shown = table.filter("enough").sort(group, by)
    bad = shown.filter(pl.col("gain") <= 0).group_by(group).agg(pl.col(by).max().alias("_bad"))
    return (shown.join(bad, on=group, how="left")
            .filter((pl.col("_bad").is_null() | (pl.col(by) > pl.col("_bad")))
                    & (pl.col("gain_lo") > 0))
            .group_by(group, maintain_order=True).first().drop("_bad"))
