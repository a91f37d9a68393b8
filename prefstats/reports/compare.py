"""Section 5, variant comparison: the headline figures side by side for several datasets,
and deal-by-deal paired differences between datasets made with the same seed (they
hold the same deals: deal ``i`` of a seed is dealt the same whatever the variant), with
how much pairing shrinks the confidence interval against an unpaired comparison.

Every figure is a ratio of per-deal sums, ``Σ num / Σ den`` over the deals (a mean per
deal when ``den`` is 1 on every deal, a share when ``num`` counts cases among ``den``),
so one delta-method standard error serves all of them, paired or not: a deal's
influence on the ratio is ``(num − R·den) / mean(den)``, and the paired SE of a
difference is the SE of the difference of two datasets' influences on the same deals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from prefstats.game.auction import W_WHIST
from prefstats.game.engine import GAME, MISERE_GAME, RASPASY
from prefstats.game.exact import Z95
from prefstats.reports.frames import SEAT_NAMES, n_players, seat_rows
from prefstats.reports.stats import MIN_SAMPLES, ratio_estimate, t_quantile, with_proportion
from prefstats.sim.storage import to_codes


@dataclass(frozen=True)
class Metric:
    """A headline figure: ``Σ num / Σ den`` of two columns of :func:`metric_frame`
    (``den`` ``None``: a mean per deal); ``unit`` is ``"share"``, ``"whists"`` or
    ``"points"``."""

    name: str
    unit: str
    num: str
    den: str | None = None


#: The figures compared, in the order the report lists them.
METRICS = (
    Metric("raspasy (of deals)", "share", "raspasy"),
    Metric("misère (of deals)", "share", "misere"),
    Metric("trick games made (of trick games)", "share", "made", "games"),
    Metric("misères caught (of misères)", "share", "caught", "miseres"),
    Metric("defenders whisting (of defenders' calls)", "share", "whisting", "defences"),
    Metric("share of value decided on raspasy (of Σ|value|)", "share", "raspasy_value",
           "spread"),
    Metric("game value to the declarer (a trick game)", "whists", "game_value", "games"),
    Metric("value of a made six (declarer)", "whists", "six_value", "sixes"),
    Metric("value of a failed whist (whister)", "whists", "failed_value", "failed"),
    Metric("value of a caught misère (declarer)", "whists", "caught_value", "caught"),
    Metric("spread (mean |deal value| per seat)", "whists", "spread"),
    Metric("whists written per deal", "points", "whists"),
    *(Metric(f"seat luck: {SEAT_NAMES[s]}'s mean deal value", "whists", f"value_{s}")
      for s in range(3)),
)


def _total(condition: pl.Expr, value: pl.Expr | None = None) -> pl.Expr:
    """Per deal, the number of seat rows meeting ``condition`` (or the sum of ``value``
    over them)."""
    hit = condition.fill_null(False)
    return (hit.cast(pl.Float64) if value is None
            else pl.when(hit).then(value.cast(pl.Float64)).otherwise(0.0)).sum()


def metric_frame(lf: pl.LazyFrame) -> tuple[pl.DataFrame, list[Metric]]:
    """One row per deal: ``deal_id``, ``hand_0``, ``hand_1`` and the numerator and
    denominator columns of the :data:`METRICS` the dataset has (the seat-luck figures
    of its active seats, the whists written when it records them), which are returned."""
    lf = to_codes(lf)
    names = lf.collect_schema().names()
    players = n_players(lf)
    spread = pl.mean_horizontal(pl.col(f"value_{s}").abs() for s in range(players))
    whists = [c for c in names if c.startswith("whist_") and c.count("_") == 2]
    seats = seat_rows(lf)
    declarer, game = pl.col("role") == "declarer", pl.col("kind") == GAME
    defending = (pl.col("role") == "defender") & game
    misere = declarer & (pl.col("kind") == MISERE_GAME)
    failed = ((pl.col("call") == W_WHIST) & pl.col("played")
              & (10 - pl.col("declarer_tricks") < pl.col("obligation")))
    value = pl.col("value")
    by_seat = seats.group_by("deal_id").agg(
        games=_total(declarer & game), made=_total(declarer & game & pl.col("made")),
        miseres=_total(misere), caught=_total(misere & ~pl.col("made")),
        defences=_total(defending), whisting=_total(defending & (pl.col("call") == W_WHIST)),
        game_value=_total(declarer & game, value),
        sixes=_total(declarer & game & (pl.col("level") == 6) & pl.col("made")),
        six_value=_total(declarer & game & (pl.col("level") == 6) & pl.col("made"), value),
        failed=_total(failed), failed_value=_total(failed, value),
        caught_value=_total(misere & ~pl.col("made"), value))
    deal = lf.select(
        "deal_id", "hand_0", "hand_1",
        (pl.col("kind") == RASPASY).cast(pl.Float64).alias("raspasy"),
        (pl.col("kind") == MISERE_GAME).cast(pl.Float64).alias("misere"),
        spread.cast(pl.Float64).alias("spread"),
        pl.when(pl.col("kind") == RASPASY).then(spread).otherwise(0.0).cast(pl.Float64)
        .alias("raspasy_value"),
        *([pl.sum_horizontal(whists).cast(pl.Float64).alias("whists")] if whists else []),
        *(pl.col(f"value_{s}").cast(pl.Float64) for s in range(min(players, 3))))
    frame = deal.join(by_seat, on="deal_id", how="left").collect()
    return frame, [m for m in METRICS if m.num in frame.columns]


def _ratio(frame: pl.DataFrame, m: Metric) -> tuple[float, np.ndarray, int]:
    """The metric's ratio, each deal's influence on it and the deals it is measured on
    (those with ``den > 0``)."""
    num = frame[m.num].to_numpy()
    den = frame[m.den].to_numpy() if m.den else np.ones_like(num)
    total = den.sum()
    if total == 0:
        return np.nan, np.full_like(num, np.nan), 0
    r = num.sum() / total
    return float(r), (num - r * den) / den.mean(), int((den > 0).sum())


def _se(influence: np.ndarray) -> float:
    n = len(influence)
    return float(np.sqrt((influence ** 2).sum() / (n * (n - 1)))) if n > 1 else np.nan


def variant_metrics(datasets: Mapping[str, pl.LazyFrame]) -> pl.DataFrame:
    """For each named dataset and metric: ``variant``, ``metric``, ``unit``, ``n`` (the
    deals it is measured on: every deal, those with a trick game, a misère …), ``value``
    with ``value_se`` and its
    95% interval ``value_lo``/``value_hi`` (Wilson for a share of cases counted once a
    deal, else a t interval on the delta-method SE), ``enough``."""
    rows = []
    for name, lf in datasets.items():
        frame, metrics = metric_frame(lf)
        for m in metrics:
            r, influence, cases = _ratio(frame, m)
            se = _se(influence)
            half = float(t_quantile(np.array([cases]))[0]) * se
            row = {"variant": name, "metric": m.name, "unit": m.unit, "n": cases,
                   "value": r, "value_se": se, "value_lo": r - half, "value_hi": r + half}
            once = m.unit == "share" and (m.den is None or frame[m.den].max() <= 1)
            if once and cases:  # a count of deals among deals: Wilson
                w = with_proportion(pl.DataFrame({"h": [frame[m.num].sum()],
                                                  "n": [cases]}), "h", "n", "w")
                row |= {"value_lo": w["w_lo"][0], "value_hi": w["w_hi"][0]}
            elif m.unit == "share":
                row |= {"value_lo": max(row["value_lo"], 0.0),
                        "value_hi": min(row["value_hi"], 1.0)}
            rows.append(row)
    schema = {"variant": pl.String, "metric": pl.String, "unit": pl.String, "n": pl.Int64,
              "value": pl.Float64, "value_se": pl.Float64, "value_lo": pl.Float64,
              "value_hi": pl.Float64}
    return pl.DataFrame(rows, schema=schema).with_columns(enough=pl.col("n") >= MIN_SAMPLES)


def paired_differences(datasets: Mapping[str, pl.LazyFrame]) -> pl.DataFrame:
    """Each dataset against the first, for every metric both have: the difference
    (other − first) with its 95% CI (``diff_lo``, ``diff_hi``), its paired SE (deal by
    deal, on the deals both hold) and the unpaired SE of the same difference, and
    ``ci_shrink = 1 − paired SE / unpaired SE``. ``paired`` is false (the CI then
    unpaired from each whole dataset, the paired columns null) when the two datasets
    do not hold the same deals. ``n``: the deals compared; ``enough``: the metric is
    measured on :data:`MIN_SAMPLES` deals of each side.
    """
    names = list(datasets)
    base_frame, base_metrics = metric_frame(datasets[names[0]])
    rows = []
    for name in names[1:]:
        frame, metrics = metric_frame(datasets[name])
        joined = base_frame.join(frame, on="deal_id", suffix="_b")
        same = _same(joined)
        theirs = {m.name for m in metrics}
        for m in (m for m in base_metrics if m.name in theirs):
            row = {"baseline": names[0], "variant": name, "metric": m.name, "unit": m.unit,
                   "paired": same, "se_paired": None, "ci_shrink": None}
            if same:
                mb = Metric(m.name, m.unit, f"{m.num}_b", m.den and f"{m.den}_b")
                (ra, ua, ca), (rb, ub, cb) = _ratio(joined, m), _ratio(joined, mb)
                se, unpaired = _se(ub - ua), float(np.hypot(_se(ua), _se(ub)))
                row |= {"n": len(joined), "se_paired": se,
                        "ci_shrink": 1 - se / unpaired if unpaired > 0 else None}
            else:
                (ra, ua, ca), (rb, ub, cb) = _ratio(base_frame, m), _ratio(frame, m)
                se = unpaired = float(np.hypot(_se(ua), _se(ub)))
                row["n"] = min(len(base_frame), len(frame))
            diff = rb - ra
            rows.append(row | {"diff": diff, "se_unpaired": unpaired, "diff_lo": diff - Z95 * se,
                               "diff_hi": diff + Z95 * se,
                               "enough": min(ca, cb) >= MIN_SAMPLES})
    schema = {"baseline": pl.String, "variant": pl.String, "metric": pl.String,
              "unit": pl.String, "n": pl.Int64, "paired": pl.Boolean, "diff": pl.Float64,
              "se_unpaired": pl.Float64, "se_paired": pl.Float64, "diff_lo": pl.Float64,
              "diff_hi": pl.Float64, "ci_shrink": pl.Float64, "enough": pl.Boolean}
    return pl.DataFrame(rows, schema=schema)


def _same(joined: pl.DataFrame) -> bool:
    """Whether two datasets joined on ``deal_id`` (the second's columns ``_b``) dealt
    the same hands."""
    return bool(len(joined) > 0 and (joined["hand_0"] == joined["hand_0_b"]).all()
                and (joined["hand_1"] == joined["hand_1_b"]).all())


def same_deals(first: pl.LazyFrame, other: pl.LazyFrame) -> bool:
    """Whether two deal datasets hold the same deals (the same hands under each deal
    number they share): what a paired comparison needs."""
    cols = ["deal_id", "hand_0", "hand_1"]
    return _same(first.select(cols).collect().join(other.select(cols).collect(),
                                                   on="deal_id", suffix="_b"))


def closing(pulkas: pl.LazyFrame, cap: int) -> tuple[pl.DataFrame, dict[str, float]]:
    """How long pulkas last: for each number of deals ``deals``, the share of the pulkas
    closed within it (``closed`` with its Wilson interval; a pulka stopped unfinished
    never closes), and a summary: ``n`` pulkas, ``mean``/``mean_lo``/``mean_hi`` deals
    a finished pulka (t interval), ``median``, and ``within``/``within_lo``/
    ``within_hi``, the chance a pulka closes within ``cap`` deals."""
    df = pulkas.select("deals", pl.col("finished") if "finished" in
                       pulkas.collect_schema().names() else pl.lit(True).alias("finished")
                       ).collect()
    n = len(df)
    done = df.filter("finished")["deals"].to_numpy().astype(float)
    top = int(max(done.max() if len(done) else cap, cap))
    grid = pl.DataFrame({"deals": np.arange(1, top + 1)}).with_columns(
        n=pl.lit(n), hits=pl.col("deals").map_batches(
            lambda d: pl.Series(np.searchsorted(np.sort(done), d.to_numpy(), side="right"))))
    table = with_proportion(grid, "hits", "n", "closed").with_columns(
        enough=pl.col("n") >= MIN_SAMPLES)
    at_cap = table.row(cap - 1, named=True)
    mean = float(done.mean()) if len(done) else np.nan
    half = (float(t_quantile(np.array([len(done)]))[0] * done.std(ddof=1) / np.sqrt(len(done)))
            if len(done) > 1 else np.nan)
    return table, {"n": n, "mean": mean, "mean_lo": mean - half, "mean_hi": mean + half,
                   "median": float(np.median(done)) if len(done) else np.nan,
                   "within": at_cap["closed"], "within_lo": at_cap["closed_lo"],
                   "within_hi": at_cap["closed_hi"]}


def raspasy_chains(deals: pl.LazyFrame) -> dict[str, float]:
    """Raspasy in whole pulkas (the deals of a ``simulate-pulkas --with-deals``
    dataset, played with the exit rule and the progression): ``share`` of deals that
    are raspasy (delta-method interval over pulkas), and ``chain``, the mean length of
    a run of consecutive raspasy (t interval over runs), with ``n`` deals and ``runs``."""
    df = to_codes(deals).select("pulka_id", "deal_no", (pl.col("kind") == RASPASY)
                                .alias("r")).sort("pulka_id", "deal_no").collect()
    per = df.group_by("pulka_id").agg(pl.col("r").sum().cast(pl.Float64), pl.len())
    share, se = ratio_estimate(per["r"].to_numpy(), per["len"].to_numpy().astype(float))
    # a run starts at a raspasy that does not follow a raspasy of the same pulka
    start = df["r"] & ~(df["r"].shift(1, fill_value=False)
                        & (df["pulka_id"] == df["pulka_id"].shift(1)).fill_null(False))
    runs = df.with_columns(run=start.cum_sum()).filter("r").group_by("run").len()["len"]
    lengths = runs.to_numpy().astype(float)
    half = (float(t_quantile(np.array([len(lengths)]))[0] * lengths.std(ddof=1)
                  / np.sqrt(len(lengths))) if len(lengths) > 1 else np.nan)
    chain = float(lengths.mean()) if len(lengths) else np.nan
    return {"n": len(df), "runs": len(lengths), "share": share, "share_lo": share - Z95 * se,
            "share_hi": share + Z95 * se, "chain": chain, "chain_lo": chain - half,
            "chain_hi": chain + half}


def _quantile_ci(sorted_values: np.ndarray, q: float) -> tuple[float, float, float]:
    """The ``q`` quantile of a sorted sample with its distribution-free 95% interval
    (order statistics whose ranks bound it by the binomial)."""
    n = len(sorted_values)
    lo, hi = stats.binom.ppf([0.025, 0.975], n, q).astype(int)
    return (float(np.quantile(sorted_values, q)), float(sorted_values[max(lo - 1, 0)]),
            float(sorted_values[min(hi, n - 1)]))


def swings(pulkas: pl.LazyFrame) -> dict[str, float]:
    """The spread of one place's pulka result (whists): ``sd`` with its chi-square
    interval, the ``worst`` 1% (the 1st percentile) and ``best`` 1% (99th) with
    order-statistic intervals, and ``n`` results (finished pulkas × places)."""
    if "finished" in pulkas.collect_schema().names():
        pulkas = pulkas.filter("finished")
    places = [c for c in pulkas.collect_schema().names() if c.startswith("result_")]
    values = np.sort(pulkas.select(pl.concat_list(places).explode()).collect()
                     .to_series().to_numpy().astype(float))
    n = len(values)
    if n < 2:
        return {"n": n} | dict.fromkeys(("sd", "sd_lo", "sd_hi", "worst", "worst_lo",
                                         "worst_hi", "best", "best_lo", "best_hi"), np.nan)
    sd = float(values.std(ddof=1))
    chi = stats.chi2.ppf([0.975, 0.025], n - 1)
    worst, best = _quantile_ci(values, 0.01), _quantile_ci(values, 0.99)
    return {"n": n, "sd": sd, "sd_lo": sd * float(np.sqrt((n - 1) / chi[0])),
            "sd_hi": sd * float(np.sqrt((n - 1) / chi[1])),
            "worst": worst[0], "worst_lo": worst[1], "worst_hi": worst[2],
            "best": best[0], "best_lo": best[1], "best_hi": best[2]}


#: Bootstrap draws behind the luck-against-skill intervals.
DRAWS = 2000


def skill_against_luck(pulkas: pl.LazyFrame, edge: Mapping[str, float], *,
                       draws: int = DRAWS, seed: int = 0) -> dict[str, float]:
    """A model of the cards against skill over one pulka: ``edge`` (a
    :func:`~prefstats.analysis.skill.skill_edge`: whists a deal at a deciding seat, with
    ``se``, ``seats`` and ``places``) scaled to the pulka, ``pulka_edge = edge × deals ×
    seats / places``, against ``sd``, the spread of one place's result over finished
    pulkas played by one policy at every place (all of it the cards' and the seat's).
    Returns those with ``deals`` (mean a pulka), ``need``, the pulkas after which the
    better player is ahead with 95% confidence (``(1.96·sd / pulka_edge)²``), and
    ``cards``, the cards' share of the mean square of his pulka result (``sd² / (sd² +
    pulka_edge²)``); each with ``_lo``/``_hi``, a 95% percentile interval from ``draws``
    bootstrap resamples of the pulkas and normal draws of the edge (``need`` is infinite
    where a drawn edge is not positive). ``n``: finished pulkas."""
    if "finished" in pulkas.collect_schema().names():
        pulkas = pulkas.filter("finished")
    places = [c for c in pulkas.collect_schema().names() if c.startswith("result_")]
    df = pulkas.select(*places, "deals").collect()
    results = df.select(places).to_numpy().astype(float)
    length = df["deals"].to_numpy().astype(float)
    n, share = len(df), edge["seats"] / edge["places"]
    if n < 2:
        return {"n": n} | {f"{k}{s}": np.nan for k in ("deals", "sd", "edge", "pulka_edge",
                                                          "need", "cards")
                           for s in ("", "_lo", "_hi")}
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1 / n), size=draws).astype(float)
    cells = n * len(places)

    def model(w: np.ndarray, e: np.ndarray) -> dict[str, np.ndarray]:
        total, square = w @ results.sum(axis=1), w @ (results ** 2).sum(axis=1)
        sd = np.sqrt(np.maximum(square - total ** 2 / cells, 0) / (cells - 1))
        deals = w @ length / n
        pulka_edge = e * deals * share
        with np.errstate(divide="ignore"):
            need = np.where(pulka_edge > 0, (Z95 * sd / pulka_edge) ** 2, np.inf)
        return {"deals": deals, "sd": sd, "edge": e, "pulka_edge": pulka_edge, "need": need,
                "cards": sd ** 2 / (sd ** 2 + pulka_edge ** 2)}

    point = model(np.ones((1, n)), np.array([edge["edge"]]))
    boot = model(weights, rng.normal(edge["edge"], edge["se"], draws))
    out: dict[str, float] = {"n": n}
    for k, v in point.items():
        ordered = np.sort(boot[k])
        out |= {k: float(v[0]), f"{k}_lo": float(ordered[int(0.025 * draws)]),
                f"{k}_hi": float(ordered[int(np.ceil(0.975 * draws)) - 1])}
    return out
