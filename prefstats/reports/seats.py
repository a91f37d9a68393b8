"""Section 4, seat luck: the mean value of a deal to each seat (first, second, third
hand; with 4 players the dealer) with a joint test that seat does not matter, and,
from pulka datasets, the same for final pulka results plus how many pulkas it takes
for a given skill edge to show through the luck.

A pulka dataset (``prefstats simulate-pulkas``) has one row per pulka with columns
``pulka_id``, ``result_0 … result_{N-1}`` (each place's settlement in whists, summing
to zero; place N-1 deals first, so place 0 is the first hand of the first deal),
``deals`` and ``raspasy`` (deals played, how many were raspasy) and, optionally,
``finished`` (unfinished pulkas are left out).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import stats

from prefstats.game.exact import Z95
from prefstats.reports.frames import SEAT_NAMES, n_players
from prefstats.reports.stats import MIN_SAMPLES, finish_means, mean_aggs, wald_test

#: Skill edges (whists per pulka) for which :func:`pulkas_to_detect` is tabulated.
EDGES = (10.0, 25.0, 50.0, 100.0)
#: The seats of a deal as players name them, in the order they call.
SEATS = ("first hand", "second hand", "third hand", "dealer")
#: The seat each place of a pulka starts in, by table (place N-1 deals the first deal;
#: at Gusarik's table the dummy is the first hand).
_STARTING = {"three": ("first hand", "second hand", "dealer"), "dealer_out": SEATS,
             "dummy": ("second hand", "dealer")}


def starting_seats(variant) -> tuple[str, ...]:
    """Each place of a pulka (0 … N-1) named by the seat it starts in: with 5 players
    place 0, the next to deal, sits the first deal out too."""
    names = _STARTING[variant.table]
    return ("next to deal",) * (variant.players - len(names)) + names


def _seat_means(lf: pl.LazyFrame, prefix: str, seats: int, names: tuple[str, ...] = SEAT_NAMES
                ) -> pl.DataFrame:
    df = lf.select(agg for s in range(seats)
                   for agg in mean_aggs(pl.col(f"{prefix}{s}").cast(pl.Float64), f"s{s}")
                   ).collect()
    rows = [{"seat": s, "name": names[s], "n": df[f"s{s}_n"][0], "mean": df[f"s{s}"][0],
             "mean_sd": df[f"s{s}_sd"][0]} for s in range(seats)]
    table = finish_means(pl.DataFrame(rows).rename({"n": "mean_n"}), ["mean"])
    return table.rename({"mean_n": "n"}).with_columns(enough=pl.col("n") >= MIN_SAMPLES)


def _test(lf: pl.LazyFrame, prefix: str, seats: int) -> dict[str, float]:
    # sums and cross products, not the values: memory does not grow with the samples
    x = [pl.col(f"{prefix}{s}").cast(pl.Float64) for s in range(seats - 1)]
    sums = lf.select(pl.len().alias("n"), *(v.sum().alias(f"s{i}") for i, v in enumerate(x)),
                     *((x[i] * x[j]).sum().alias(f"p{i}_{j}") for i in range(len(x))
                       for j in range(len(x)))).collect().row(0, named=True)
    n = sums["n"]
    if n < MIN_SAMPLES:
        return {"chi2": float("nan"), "df": seats - 1, "p_value": float("nan"), "n": n}
    mean = np.array([sums[f"s{i}"] for i in range(len(x))]) / n
    cross = np.array([[sums[f"p{i}_{j}"] for j in range(len(x))] for i in range(len(x))])
    cov = (cross - n * np.outer(mean, mean)) / (n - 1)
    chi2, df, p = wald_test(mean, cov / n)
    return {"chi2": chi2, "df": df, "p_value": p, "n": n}


def seat_luck(lf: pl.LazyFrame) -> tuple[pl.DataFrame, dict[str, float]]:
    """Mean deal value in whists per seat (with CI) and the Wald test that all seat
    means are zero (``chi2``, ``df``, ``p_value``, ``n``)."""
    seats = n_players(lf)
    return _seat_means(lf, "value_", seats), _test(lf, "value_", seats)


def pulka_seats(lf: pl.LazyFrame) -> int:
    return sum(c.startswith("result_") for c in lf.collect_schema().names())


def pulka_seat_luck(lf: pl.LazyFrame) -> tuple[pl.DataFrame, dict[str, float]]:
    """Mean final pulka result per place (whists, with CI) and the test that the place
    does not matter; the test dict also holds ``sd`` (SD of one place's result),
    ``deals`` and ``raspasy`` (means per pulka)."""
    if "finished" in lf.collect_schema().names():
        lf = lf.filter("finished")
    seats = pulka_seats(lf)
    names = tuple(f"place {s}" for s in range(seats))
    table, test = _seat_means(lf, "result_", seats, names), _test(lf, "result_", seats)
    spread = lf.select(pl.concat_list(f"result_{s}" for s in range(seats)).explode().std(),
                       pl.col("deals").mean(), pl.col("raspasy").mean()).collect()
    return table, test | {"sd": spread.item(0, 0), "deals": spread.item(0, 1),
                          "raspasy": spread.item(0, 2)}


def pulkas_to_detect(sd: float, edges: tuple[float, ...] = EDGES, power: float = 0.8
                     ) -> pl.DataFrame:
    """Pulkas a player must play before an average edge of ``edge`` whists per pulka is
    told from luck (two-sided 5% test, ``power``), given the SD of one pulka result:
    ``n = ((z₀.₉₇₅ + z_power) · sd / edge)²``.

    >>> pulkas_to_detect(100.0, (28.0,))["pulkas"].to_list()
    [101]
    """
    z = Z95 + stats.norm.ppf(power)
    pulkas = np.ceil((z * sd / np.array(edges)) ** 2)
    return pl.DataFrame({"edge": list(edges), "pulkas": pulkas.astype(np.int64)})
