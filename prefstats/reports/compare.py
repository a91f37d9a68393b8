"""Section 5, variant comparison: the same metrics side by side for several datasets,
and deal-by-deal paired differences between datasets made with the same seed (they
hold the same deals), with how much pairing shrinks the confidence interval against
an unpaired comparison of the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl
from scipy import stats

from prefstats.engine import GAME, MISERE_GAME, RASPASY
from prefstats.reports.frames import n_players, seat_rows
from prefstats.reports.stats import (
    MIN_SAMPLES,
    finish_means,
    mean_aggs,
    ratio_estimate,
    with_proportion,
)

_Z = stats.norm.ppf(0.975)


def _abs_value(lf: pl.LazyFrame) -> pl.Expr:
    """A deal's spread: the mean over seats of |value| (whists)."""
    return pl.mean_horizontal(pl.col(f"value_{s}").abs() for s in range(n_players(lf)))


def deal_metrics(lf: pl.LazyFrame) -> dict[str, tuple[pl.Expr, str]]:
    """Per-deal quantities whose means are compared, with their units."""
    return {
        "spread (mean |deal value| per seat)": (_abs_value(lf).cast(pl.Float64), "whists"),
        "raspasy frequency": ((pl.col("kind") == RASPASY).cast(pl.Float64), "share of deals"),
        "misère frequency": ((pl.col("kind") == MISERE_GAME).cast(pl.Float64), "share of deals"),
    }


def variant_metrics(datasets: Mapping[str, pl.LazyFrame]) -> pl.DataFrame:
    """For each named dataset: ``metric``, ``unit``, ``n``, ``value`` with ``value_se``
    and its 95% interval ``value_lo``/``value_hi``. Besides :func:`deal_metrics`: the
    share of all value (Σ|value|) decided on raspasy (delta-method SE), the declarer's
    value of a made six, and a whister's value when the defence fell short of its
    obligation."""
    parts = []
    for name, lf in datasets.items():
        metrics = deal_metrics(lf)
        df = lf.select(agg for m, (e, _) in metrics.items() for agg in mean_aggs(e, m)).collect()
        rows = [{"metric": m, "unit": u, "n": df[f"{m}_n"][0], "value": df[m][0],
                 "value_sd": df[f"{m}_sd"][0]} for m, (_, u) in metrics.items()]
        seats = seat_rows(lf)
        six = seats.filter((pl.col("role") == "declarer") & (pl.col("kind") == GAME)
                           & (pl.col("level") == 6) & pl.col("made"))
        failed = seats.filter((pl.col("call") == 1) & pl.col("played")
                              & (10 - pl.col("declarer_tricks") < pl.col("obligation")))
        for metric, frame in (("value of a made six (declarer)", six),
                              ("value of a failed whist (whister)", failed)):
            d = frame.select(mean_aggs(pl.col("value").cast(pl.Float64), "v")).collect()
            rows.append({"metric": metric, "unit": "whists", "n": d["v_n"][0],
                         "value": d["v"][0], "value_sd": d["v_sd"][0]})
        table = finish_means(pl.DataFrame(rows).rename({"n": "value_n"}), ["value"])
        absv = lf.select(spread=_abs_value(lf), rasp=pl.col("kind") == RASPASY).collect()
        num = np.where(absv["rasp"].to_numpy(), absv["spread"].to_numpy(), 0.0)
        r, se = ratio_estimate(num, absv["spread"].to_numpy()) if len(absv) else (np.nan,) * 2
        share = pl.DataFrame({"metric": ["share of value decided on raspasy"],
                              "unit": ["share of Σ|value|"], "value_n": [len(absv)],
                              "value": [r], "value_se": [se], "value_lo": [r - _Z * se],
                              "value_hi": [r + _Z * se]})
        parts.append(pl.concat([table, share], how="diagonal_relaxed")
                     .with_columns(variant=pl.lit(name)))
    out = pl.concat(parts).rename({"value_n": "n"})
    # frequencies get Wilson intervals (a t interval can leave [0, 1] for rare events)
    freq = out["unit"] == "share of deals"
    wilson = with_proportion(out.filter(freq).with_columns(
        hits=(pl.col("value") * pl.col("n")).round()), "hits", "n", "w")
    out = pl.concat([out.filter(~freq), wilson.with_columns(value_lo=pl.col("w_lo"),
                                                             value_hi=pl.col("w_hi"))],
                    how="diagonal_relaxed")
    order = {name: i for i, name in enumerate(datasets)}
    return (out.select("variant", "metric", "unit", "n", "value", "value_se", "value_lo",
                       "value_hi")
            .sort(pl.col("variant").replace_strict(order), "metric")
            .with_columns(enough=pl.col("n") >= MIN_SAMPLES))


def paired_differences(datasets: Mapping[str, pl.LazyFrame]) -> pl.DataFrame:
    """Each dataset against the first, deal by deal: for every per-deal metric, the mean
    difference (other − first) with the paired SE and 95% CI (``diff_lo``, ``diff_hi``),
    the unpaired SE of the same difference, and ``ci_shrink = 1 − paired SE / unpaired
    SE``. ``paired`` is false (the CI then unpaired, the paired columns null) when the
    two datasets do not hold the same deals.
    """
    names = list(datasets)
    base_name, base = names[0], datasets[names[0]]
    rows = []
    for name in names[1:]:
        other = datasets[name]
        metrics = deal_metrics(base)
        pick = [e.alias(m) for m, (e, _) in metrics.items()]
        a = base.select("deal_id", "hand_0", "hand_1", *pick)
        b = other.select("deal_id", "hand_0", "hand_1",
                         *(e.alias(m) for m, (e, _) in deal_metrics(other).items()))
        joined = a.join(b, on="deal_id", suffix="_b").collect()
        same = (len(joined) > 0 and (joined["hand_0"] == joined["hand_0_b"]).all()
                and (joined["hand_1"] == joined["hand_1_b"]).all())
        sizes = (base.select(pl.len()).collect().item(), other.select(pl.len()).collect().item())
        for m, (_, unit) in metrics.items():
            va = base.select(metrics[m][0]).collect().to_series().to_numpy()
            vb = other.select(deal_metrics(other)[m][0]).collect().to_series().to_numpy()
            diff = float(vb.mean() - va.mean())
            unpaired = float(np.sqrt(va.var(ddof=1) / sizes[0] + vb.var(ddof=1) / sizes[1]))
            row = {"baseline": base_name, "variant": name, "metric": m, "unit": unit,
                   "n": len(joined) if same else min(sizes), "paired": same, "diff": diff,
                   "se_unpaired": unpaired, "se_paired": None, "diff_lo": None,
                   "diff_hi": None,
                   "ci_shrink": None}
            if same:
                d = (joined[f"{m}_b"] - joined[m]).to_numpy()
                se = float(d.std(ddof=1) / np.sqrt(len(d)))
                row |= {"diff": float(d.mean()), "se_paired": se,
                        "diff_lo": d.mean() - _Z * se, "diff_hi": d.mean() + _Z * se,
                        "ci_shrink": 1 - se / unpaired if unpaired > 0 else None}
            else:
                row |= {"diff_lo": diff - _Z * unpaired, "diff_hi": diff + _Z * unpaired}
            rows.append(row)
    schema = {"baseline": pl.String, "variant": pl.String, "metric": pl.String,
              "unit": pl.String, "n": pl.Int64, "paired": pl.Boolean, "diff": pl.Float64,
              "se_unpaired": pl.Float64, "se_paired": pl.Float64, "diff_lo": pl.Float64,
              "diff_hi": pl.Float64, "ci_shrink": pl.Float64}
    return pl.DataFrame(rows, schema=schema).with_columns(enough=pl.col("n") >= MIN_SAMPLES)
