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
from prefstats.reports.frames import seat_rows, with_classes
from prefstats.reports.stats import (
    MIN_SAMPLES,
    difference,
    finish_means,
    mean_aggs,
    with_proportion,
)

#: Class columns of the full bidding table.
HAND_CLASS = ("trumps", "top", "side_aces")


def hand_rows(lf: pl.LazyFrame) -> pl.DataFrame:
    """One row per deal and active seat with the seat's bidding and misère classes: what
    :func:`bidding_table` and :func:`misere_table` group (pass it to them as ``rows``
    to classify the hands once)."""
    rows = seat_rows(lf).select("kind", "level", "role", "seat", "hand", "value", "made"
                                ).collect()
    return with_classes(rows, ("bidding", "evaluator", "misere")).drop("hand", "seat")


def _declare_vs_pass(rows: pl.DataFrame, declared: pl.Expr, by: Sequence[str],
                     outcome: str, outcome_name: str) -> pl.DataFrame:
    """Per ``by`` (plus ``level`` for the declarers): declarers' ``n``, the rate of
    ``outcome`` with a Wilson CI, their mean value (``ev_bid``) against the mean value
    of the same class when not declaring (``ev_pass``), ``gain = ev_bid − ev_pass``, and
    ``bid_share``, the share of all hands of the class that declared (with its CI): the
    players' selection behind the figures."""
    bid = rows.filter(declared).group_by("level", *by).agg(
        pl.col(outcome).sum().alias("hits"), *mean_aggs(pl.col("value"), "ev_bid"))
    passed = rows.filter(pl.col("role") != "declarer").group_by(*by).agg(
        mean_aggs(pl.col("value"), "ev_pass"))
    hands = rows.group_by(*by).agg(pl.len().alias("class_n"))
    table = (bid.join(passed, on=list(by), how="left").join(hands, on=list(by), how="left")
             .sort("level", *by))
    table = finish_means(table, ["ev_bid", "ev_pass"]).rename({"ev_bid_n": "n"})
    table = with_proportion(table, "hits", "n", outcome_name).drop("hits")
    table = with_proportion(table, "n", "class_n", "bid_share")
    return difference(table, "ev_bid", "ev_pass", "gain").with_columns(
        enough=(pl.col("n") >= MIN_SAMPLES) & (pl.col("ev_pass_n") >= MIN_SAMPLES))


def bidding_table(lf: pl.LazyFrame, by: Sequence[str] = ("points",),
                  rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """Trick contracts by level and hand class ``by`` (columns of
    :func:`prefstats.reports.classes.bidding_class`): ``n`` declared, ``p_make`` with
    its 95% CI, ``ev_bid`` and ``ev_pass`` in whists, ``gain`` between them.
    ``rows``: :func:`hand_rows` of ``lf`` when already computed."""
    rows = hand_rows(lf) if rows is None else rows
    return _declare_vs_pass(rows, (pl.col("role") == "declarer") & (pl.col("kind") == GAME),
                            by, "made", "p_make")


def misere_table(lf: pl.LazyFrame, rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """Misères by the holes of the dealt hand (all holes, and how many are short):
    ``n``, ``p_caught`` (the declarer took a trick) with its CI, ``ev_bid`` against
    ``ev_pass`` in whists, ``gain``. ``rows`` as for :func:`bidding_table`."""
    rows = (hand_rows(lf) if rows is None else rows).with_columns(caught=~pl.col("made"))
    declared = (pl.col("role") == "declarer") & (pl.col("kind") == MISERE_GAME)
    return _declare_vs_pass(rows, declared, ("holes", "short_holes"), "caught",
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
