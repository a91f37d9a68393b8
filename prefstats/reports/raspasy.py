"""Section 3, raspasy costs: how many tricks each seat takes in an all-pass deal, what
that costs per player at each progression step, how often a seat escapes with no
trick, and the expected length and cost of a raspasy chain.

Costs are what a player writes: mountain points in the mountain variants
(``raspasy_rates``, one rate per step, the last repeating), whists written in Rostov
(``raspasy_whists``, no steps). A dataset records each deal at one step; the cost at
another step is the same deal scaled by the ratio of the rates, which assumes the
players do not change their play with the step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from prefstats.game.engine import GAME, RASPASY
from prefstats.game.exact import Z95
from prefstats.reports.frames import n_players, seat_name
from prefstats.reports.stats import (
    MIN_SAMPLES,
    finish_means,
    mean_aggs,
    ratio_estimate,
    with_proportion,
)
from prefstats.sim.storage import to_codes


def _rates(variant: Mapping[str, Any]) -> list[int]:
    return list(variant.get("raspasy_rates") or [])


def cost_unit(variant: Mapping[str, Any]) -> str:
    """What a raspasy cost is counted in for ``variant``."""
    return "mountain points" if _rates(variant) else "whists written"


def _seat_frame(lf: pl.LazyFrame, variant: Mapping[str, Any]) -> pl.LazyFrame:
    """One row per raspasy deal and seat: tricks, cost at the recorded step, step."""
    lf = to_codes(lf)
    n = n_players(lf)
    rasp = lf.filter(pl.col("kind") == RASPASY)
    rows = []
    for s in range(min(n, 4)):  # the 5-player next to deal (seat 4) plays no raspasy
        cost = (pl.col(f"mountain_{s}") if _rates(variant) else
                pl.sum_horizontal(pl.col(f"whist_{s}_{j}") for j in range(n) if j != s))
        rows.append(rasp.select(seat=pl.lit(s, pl.Int8), tricks=pl.col(f"tricks_{s}"),
                                cost=cost.cast(pl.Float64), step=pl.col("raspasy_step")))
    return pl.concat(rows)


def raspasy_tricks(lf: pl.LazyFrame) -> pl.DataFrame:
    """Share of raspasy deals in which each seat took each number of tricks (Wilson CI);
    ``n`` raspasy deals."""
    rows = _seat_frame(lf, {"raspasy_rates": [1]}).select("seat", "tricks")
    counts = rows.group_by("seat", "tricks").len("hits").collect()
    totals = counts.group_by("seat").agg(pl.col("hits").sum().alias("n"))
    grid = totals.join(pl.DataFrame({"tricks": np.arange(11, dtype=np.uint8)}), how="cross")
    table = grid.join(counts, on=["seat", "tricks"], how="left").with_columns(
        pl.col("hits").fill_null(0)).sort("seat", "tricks")
    return with_proportion(table, "hits", "n", "share").with_columns(
        name=seat_name(pl.col("seat")), enough=pl.col("n") >= MIN_SAMPLES)


def raspasy_costs(lf: pl.LazyFrame, variant: Mapping[str, Any]) -> pl.DataFrame:
    """Mean cost per player per raspasy by seat and progression step (1 = first
    raspasy; the last step stands for all later ones), with CI, and the zero-trick
    probability with its Wilson CI."""
    rates = _rates(variant) or [1]
    rate_of = pl.Series(np.array(rates, dtype=float))
    rows = _seat_frame(lf, variant).with_columns(
        recorded=pl.lit(rate_of).gather(pl.col("step").clip(0, len(rates) - 1)))
    parts = []
    for k, rate in enumerate(rates):
        scaled = rows.select("seat", "tricks", step=pl.lit(k + 1, pl.Int8),
                             cost=pl.col("cost") * rate / pl.col("recorded"))
        parts.append(scaled.group_by("seat", "step").agg(
            *mean_aggs(pl.col("cost"), "cost"), (pl.col("tricks") == 0).sum().alias("zero")))
    table = finish_means(pl.concat(parts).collect().sort("seat", "step"), ["cost"])
    table = table.rename({"cost_n": "n"})
    return with_proportion(table, "zero", "n", "p_zero").drop("zero").with_columns(
        name=seat_name(pl.col("seat")), enough=pl.col("n") >= MIN_SAMPLES)


def raspasy_chain(lf: pl.LazyFrame, variant: Mapping[str, Any],
                  pulkas: pl.LazyFrame | None = None) -> pl.DataFrame:
    """The chance ``p`` that a deal after a raspasy is a raspasy too (the next step of
    a chain), the expected number of raspasy in a chain once entered, ``1 / (1 − p)``,
    and the expected cost per player of the whole chain (Σ_k p^k · cost at step k+1,
    averaged over seats).

    The dataset's deals are independent and played with no exit rule, so ``p`` is the
    raspasy rate ``p₀``, and a second row bounds the effect of a minimum bid of 7 after
    a raspasy: at worst every game that was a six becomes a raspasy, ``p ≤ p₀ + P(six)``.
    ``pulkas`` (a ``simulate-pulkas`` dataset of the variant, played with its exit rule)
    adds a measured row: with the long-run raspasy share ``π`` of the pulkas' deals,
    a two-state chain gives ``p = 1 + p₀ − p₀ / π``. Intervals come from the interval of
    ``p₀`` (rows 1–2) or of ``π`` (row 3).
    """
    lf = to_codes(lf)
    counts = lf.select(
        n=pl.len(), raspasy=(pl.col("kind") == RASPASY).sum(),
        sixes=((pl.col("kind") == GAME) & (pl.col("contract").is_between(0, 4))).sum(),
    ).collect()
    costs = raspasy_costs(lf, variant).group_by("step").agg(pl.col("cost").mean()).sort("step")
    step_cost = costs["cost"].to_numpy()
    raspasy_deals = counts["raspasy"][0]
    table = pl.DataFrame({"rule": ["as played (min bid 6)", "min bid 7 after raspasy (bound)"],
                          "n": [counts["n"][0]] * 2,
                          "hits": [raspasy_deals, raspasy_deals + counts["sixes"][0]]})
    table = with_proportion(table, "hits", "n", "p_raspasy").drop("hits")
    if pulkas is not None:
        table = pl.concat([table, _pulka_row(pulkas, table.row(0, named=True),
                                             variant.get("raspasy_exit", 6))])

    def chain(p: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        length = 1 / (1 - p)
        if len(step_cost) == 0:
            return length, pl.lit(None, pl.Float64)
        # steps before the last are paid once each, the last repeats geometrically
        head = sum(p ** k * c for k, c in enumerate(step_cost[:-1]))
        last = p ** (len(step_cost) - 1) * float(step_cost[-1]) / (1 - p)
        return length, head + last

    out = {}
    for suffix in ("", "_lo", "_hi"):
        length, cost = chain(pl.col(f"p_raspasy{suffix}"))
        out[f"chain_deals{suffix}"] = length
        out[f"chain_cost{suffix}"] = cost
    return table.with_columns(**out).with_columns(enough=pl.col("n") >= MIN_SAMPLES)


def _pulka_row(pulkas: pl.LazyFrame, base: Mapping[str, Any], exit_level: int
               ) -> pl.DataFrame:
    """The continuation probability measured in whole pulkas (see :func:`raspasy_chain`)."""
    counts = pulkas.select("raspasy", "deals").collect()
    share, se = ratio_estimate(counts["raspasy"].to_numpy().astype(float),
                               counts["deals"].to_numpy().astype(float))
    p0 = base["p_raspasy"]

    def continuation(pi: float) -> float:
        return min(1.0, max(0.0, 1 + p0 - p0 / pi)) if pi > 0 else float("nan")

    z = Z95
    return pl.DataFrame({
        "rule": [f"in pulkas (min bid {exit_level} after raspasy)"],
        "n": [int(counts["deals"].sum())], "p_raspasy": [continuation(share)],
        "p_raspasy_lo": [continuation(share - z * se)],
        "p_raspasy_hi": [continuation(share + z * se)]}, schema_overrides={"n": pl.Int64})
