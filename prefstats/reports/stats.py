"""Estimates with honest uncertainty: means with t intervals, proportions with Wilson
intervals, ratios by the delta method, and a joint test that several means are zero.

Every estimate column ``x`` comes with ``x_lo`` and ``x_hi`` (95%) and, for means,
``x_se``; ``n`` is the sample size. Rows with fewer than :data:`MIN_SAMPLES` samples
are kept in tables (and CSV files) but flagged ``enough = false``: reports hide their
numbers instead of showing noise.

>>> df = pl.DataFrame({"g": [0, 0, 1, 1], "x": [1.0, 3.0, 2.0, 2.0]})
>>> t = finish_means(df.group_by("g").agg(mean_aggs(pl.col("x"), "x")).sort("g"), ["x"])
>>> t["x"].to_list(), t["x_n"].to_list()
([2.0, 2.0], [2, 2])
>>> round(t["x_hi"][0], 3)  # 2 + t(0.975, 1) * sqrt(2) / sqrt(2)
14.706
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from scipy import stats

from prefstats.game.exact import wilson_interval

#: The decimals a table keeps in its files: the rest is summation-order noise, far
#: below any figure shown.
DECIMALS = 6
#: Fewest samples behind a number a report shows.
MIN_SAMPLES = 30
LEVEL = 0.95


def t_quantile(n: np.ndarray) -> np.ndarray:
    """The two-sided 95% Student quantile for samples of size ``n`` (nan below 2)."""
    n = np.asarray(n, dtype=float)
    out = np.full(n.shape, np.nan)
    ok = n >= 2
    out[ok] = stats.t.ppf(0.5 + LEVEL / 2, n[ok] - 1)
    return out


def mean_aggs(value: pl.Expr, name: str) -> list[pl.Expr]:
    """Aggregations feeding :func:`finish_means`: count, mean and SD of ``value``."""
    return [value.count().alias(f"{name}_n"), value.mean().alias(name),
            value.std().alias(f"{name}_sd")]


def moment_sums(value: pl.Expr) -> list[pl.Expr]:
    """Aggregations that summarise ``value`` by sums a later step can add up: ``n``, the
    ``value`` sum and the ``value_sq`` sum of squares (in float64)."""
    value = value.cast(pl.Float64)
    return [pl.len().alias("n"), value.sum().alias("value"),
            (value * value).sum().alias("value_sq")]


def pooled_means(name: str) -> list[pl.Expr]:
    """Aggregations over :func:`moment_sums` rows giving what :func:`mean_aggs` gives
    over the values themselves: ``name_n``, the mean ``name`` and its SD ``name_sd``."""
    n, total, squares = (pl.col(c).sum() for c in ("n", "value", "value_sq"))
    var = (squares - total * total / n) / (n - 1)
    return [n.alias(f"{name}_n"), (total / n).alias(name),
            pl.when(n > 1).then(var.clip(0).sqrt()).alias(f"{name}_sd")]


def finish_means(df: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
    """Turn :func:`mean_aggs` columns into ``name``, ``name_se``, ``name_lo``, ``name_hi``
    (t interval); ``name_n`` stays, ``name_sd`` goes."""
    for name in names:
        n = df[f"{name}_n"].to_numpy().astype(float)
        se = df[f"{name}_sd"].to_numpy().astype(float) / np.sqrt(np.maximum(n, 1))
        half = t_quantile(n) * se
        mean = df[name].to_numpy().astype(float)
        df = df.drop(f"{name}_sd").with_columns(
            pl.Series(f"{name}_se", se), pl.Series(f"{name}_lo", mean - half),
            pl.Series(f"{name}_hi", mean + half))
    return df


def with_proportion(df: pl.DataFrame, hits: str, n: str, name: str) -> pl.DataFrame:
    """Add ``name = hits / n`` with its 95% Wilson interval ``name_lo``, ``name_hi``."""
    h = df[hits].to_numpy().astype(float)
    counts = df[n].to_numpy().astype(int)
    # wilson_interval takes one sample size; aggregated tables are small, so go row by row
    bounds = np.array([wilson_interval(np.array([x]), int(m)) for x, m in zip(h, counts,
                                                                              strict=True)])
    bounds = bounds.reshape(len(h), 2)
    p = np.where(counts > 0, h / np.maximum(counts, 1), np.nan)
    # rounding puts a bound of 0 or 1 hits a hair past the estimate (1.7e-18 for 0 hits)
    low = np.clip(np.fmin(bounds[:, 0], p), 0.0, 1.0)
    high = np.clip(np.fmax(bounds[:, 1], p), 0.0, 1.0)
    return df.with_columns(pl.Series(name, p), pl.Series(f"{name}_lo", low),
                           pl.Series(f"{name}_hi", high))


def difference(df: pl.DataFrame, a: str, b: str, name: str) -> pl.DataFrame:
    """Add ``name = a − b`` for two independent means (columns from :func:`finish_means`),
    with SE and a normal 95% interval."""
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    se = (pl.col(f"{a}_se") ** 2 + pl.col(f"{b}_se") ** 2).sqrt()
    return df.with_columns((pl.col(a) - pl.col(b)).alias(name), se.alias(f"{name}_se")
                           ).with_columns(
        (pl.col(name) - z * pl.col(f"{name}_se")).alias(f"{name}_lo"),
        (pl.col(name) + z * pl.col(f"{name}_se")).alias(f"{name}_hi"))


def ratio_estimate(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    """``Σnum / Σden`` and its delta-method standard error (per-deal pairs).

    >>> r, se = ratio_estimate(np.array([1.0, 0, 1, 0]), np.ones(4))
    >>> r, round(se, 4)
    (0.5, 0.25)
    """
    total = den.sum()
    r = num.sum() / total
    return float(r), float(np.sqrt(((num - r * den) ** 2).sum()) / total)


def zero_means_test(values: np.ndarray) -> tuple[float, int, float]:
    """Wald test that the column means of ``values`` (samples × k) are all zero:
    ``(chi², degrees of freedom, p-value)``. Seat values sum to zero, so pass k − 1
    seats; the covariance is estimated from the sample.

    >>> rng = np.random.default_rng(0)
    >>> chi2, df, p = zero_means_test(rng.normal(size=(4000, 2)))
    >>> df, p > 0.01
    (2, True)
    """
    n = len(values)
    return wald_test(values.mean(axis=0), np.atleast_2d(np.cov(values, rowvar=False)) / n)


def wald_test(mean: np.ndarray, cov: np.ndarray) -> tuple[float, int, float]:
    """:func:`zero_means_test` from the sample means and their covariance."""
    k = len(mean)
    try:
        chi2 = float(mean @ np.linalg.solve(cov, mean))
    except np.linalg.LinAlgError:  # a seat whose value never varies: nothing to test
        return float("nan"), k, float("nan")
    return chi2, k, float(stats.chi2.sf(chi2, k))
