"""Section 2, whisting (observational, not advice): for each contract level and the defender's high
cards (aces and kings), the mean value in whists of whisting, passing and
half-whisting, under the dataset's variant (its obligations, quotas and split rule are
already in the deal values), and from how many high cards whisting stops paying.

As in :mod:`prefstats.reports.bidding_section`, the calls compared are those the simulated
defenders made.
"""

from __future__ import annotations

import polars as pl

from prefstats.game.engine import GAME
from prefstats.reports.frames import CALL_NAMES, class_sums, seat_rows
from prefstats.reports.stats import MIN_SAMPLES, difference, finish_means, pooled_means

#: High cards above this are pooled ("5+").
MAX_HIGH = 5


def whist_table(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per contract level and defender high cards (capped at :data:`MAX_HIGH`): for each
    call ``c`` in pass, whist, half-whist, ``ev_c`` with ``ev_c_n``, SE and 95% CI, and
    ``gain = ev_whist − ev_pass`` with its CI; ``enough`` when both have
    :data:`~prefstats.reports.stats.MIN_SAMPLES`."""
    def defenders(deals: pl.LazyFrame) -> pl.LazyFrame:
        return (seat_rows(deals).filter((pl.col("kind") == GAME) & pl.col("call").is_not_null())
                .select("level", "call", "hand", "value"))

    keys = ["level", "high_cards"]
    sums = class_sums(lf, defenders, ("whist",), [("level", "call", "high_cards")])
    rows = next(iter(sums.values())).with_columns(pl.col("high_cards").clip(0, MAX_HIGH))
    table = rows.select(keys).unique()
    for call, name in CALL_NAMES.items():
        ev = f"ev_{name.replace('-', '_')}"
        agg = rows.filter(pl.col("call") == call).group_by(keys).agg(pooled_means(ev))
        table = table.join(agg, on=keys, how="left").with_columns(pl.col(f"{ev}_n").fill_null(0))
        table = finish_means(table, [ev])
    table = difference(table.sort(keys), "ev_whist", "ev_pass", "gain")
    return table.with_columns(
        enough=(pl.col("ev_whist_n") >= MIN_SAMPLES) & (pl.col("ev_pass_n") >= MIN_SAMPLES))
