"""Counterfactual tables: what an option of a decision gains against passing on the same
deals (:func:`prefstats.sim.rollout.rollout`, every other decision by the built-in policy).

A class's gain is the mean paired difference ``option − base`` in whists a deal over the
(seat, deal) pairs of that class where both options were legal, with its standard error
and 95% CI; every seat's deals are pooled. These are the only figures the guide turns
into advice: a class average of the players' own choices says nothing about what a hand
of that class should do (the players chose which hands made it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import polars as pl

from prefstats.analysis.game_stats import DECISIVE_SE
from prefstats.game.auction import dummy_seat
from prefstats.game.contracts import LEVEL
from prefstats.game.exact import Z95
from prefstats.reports.classes import bidding_class, estimated_tricks, high_cards, misere_holes
from prefstats.reports.stats import MIN_SAMPLES
from prefstats.reports.whist import MAX_HIGH
from prefstats.sim.rollout import rollout


def by_points(hands: np.ndarray) -> np.ndarray:
    """Hand points of each hand (:func:`~prefstats.reports.classes.bidding_class`)."""
    return bidding_class(hands)["points"]


def by_honours(hands: np.ndarray) -> np.ndarray:
    """Aces and kings of each hand, pooled above ``MAX_HIGH`` as the whist table pools."""
    return np.minimum(high_cards(hands), MAX_HIGH)


def by_holes(hands: np.ndarray) -> np.ndarray:
    """Misère holes of each hand (:func:`~prefstats.reports.classes.misere_holes`)."""
    return misere_holes(hands)["holes"]


def by_tricks(hands: np.ndarray, seat: int) -> np.ndarray:
    """The evaluator's expected tricks of each dealt hand of ``seat`` in its best strain,
    as the bidder sees it before the talon
    (:func:`~prefstats.reports.classes.estimated_tricks`), rounded to whole tricks."""
    leads = np.full(len(hands), 1.0 if seat == 0 else 0.0)
    return np.rint(estimated_tricks(hands, leads)).astype(np.int64)


def seats_of(variant) -> list[int]:
    """The seats that play (every seat but a 4-player table's dummy)."""
    return [s for s in range(3) if s != dummy_seat(variant)]


def seat_rollouts(variant, deals, decision: str, options: Sequence[str],
                  classify: Callable[[np.ndarray], np.ndarray], *, seed: int,
                  workers: int = 1, policy: str = "heuristic") -> pl.DataFrame:
    """:func:`~prefstats.sim.rollout.rollout` for every playing seat under ``policy``, with
    ``seat``, the seat's dealt ``hand`` and its class ``cls`` (``classify`` maps a
    seat's hands, an array of ``deals.hands[:, seat]``, to one integer class per deal;
    :func:`regroup` classes them again)."""
    frames = []
    for seat in seats_of(variant):
        hands = deals.hands[:, seat]
        cls = np.asarray(classify(hands), dtype=np.int64)
        f = rollout(variant, deals, seat=seat, decision=decision, options=options,
                    seed=seed, workers=workers, policy=policy)
        frames.append(f.with_columns(seat=pl.lit(seat, pl.Int64),
                                     hand=pl.Series(hands)[f["deal"]],
                                     cls=pl.Series(cls)[f["deal"]]))
    return pl.concat(frames)


def regroup(frame: pl.DataFrame,
            classify: Callable[[np.ndarray, int], np.ndarray]) -> pl.DataFrame:
    """``frame`` of :func:`seat_rollouts` with ``cls`` from ``classify(hands, seat)``."""
    parts = []
    for seat in frame["seat"].unique(maintain_order=True).to_list():
        part = frame.filter(pl.col("seat") == seat)
        parts.append(part.with_columns(cls=pl.Series(np.asarray(
            classify(part["hand"].to_numpy(), seat), dtype=np.int64))))
    return pl.concat(parts)


def by_level(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (a whist rollout) with ``cls`` the level of the contract defended (the
    same in every branch of a deal); rows whose branch was not played are dropped."""
    played = frame.filter(pl.col("contract").is_not_null())
    level = np.asarray(LEVEL, dtype=np.int64)[played["contract"].to_numpy()]
    return played.with_columns(cls=pl.Series(level))


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


def _grid(title: str, columns: dict[str, pl.DataFrame], levels: Sequence[int], label: str,
          last: str | None = None) -> str:
    """A markdown table: one row per class in ``levels``, one column per :func:`gains`
    table of ``columns`` (by header), each cell the gain with its 95% CI and n; ``last``
    an extra last row."""
    parts = {h: {r["cls"]: r for r in g.iter_rows(named=True)} for h, g in columns.items()}
    lines = [f"**{title}**", "", f"| {label} | " + " | ".join(columns) + " |",
             "|---" * (len(columns) + 1) + "|"]
    for lv in levels:
        cells = [f"{cell(p.get(lv))} ({p[lv]['n'] if lv in p else 0:,})" for p in parts.values()]
        lines.append(f"| {lv} | " + " | ".join(cells) + " |")
    return "\n".join(lines + ([last] if last else []))


def table(title: str, frame: pl.DataFrame, levels: Sequence[int], base: str,
          options: Sequence[str], label: str) -> str:
    """A markdown table: one row per class in ``levels``, per option its gain against
    ``base`` with the 95% CI and n."""
    return _grid(title, {f"{o} − {base} (n)": gains(frame, base, o) for o in options},
                 levels, label)


def seat_table(title: str, frame: pl.DataFrame, levels: Sequence[int], base: str,
               option: str, label: str) -> str:
    """A markdown table: one row per class in ``levels``, one column per seat, each cell
    the gain of ``option`` against ``base`` on that seat's deals with its 95% CI and n."""
    seats = sorted(frame["seat"].unique().to_list())
    return _grid(title, {f"seat {s}: {option} − {base} (n)": gains(
        frame.filter(pl.col("seat") == s), base, option) for s in seats}, levels, label)


def policy_table(title: str, frames: dict[str, pl.DataFrame], levels: Sequence[int],
                 base: str, option: str, label: str) -> str:
    """A markdown table of one gain under several continuation policies (``frames``: a
    :func:`seat_rollouts` frame per policy name, on the same deal stream): one row per
    class, one column per policy, and a last row with each policy's :func:`threshold`."""
    columns = {f"{p}: {option} − {base} (n)": gains(f, base, option) for p, f in frames.items()}
    marks = []
    for g in columns.values():
        row = threshold(g)
        marks.append("none" if row is None else f"from {row['cls']}: {cell(row)}")
    return _grid(title, columns, levels, label, "| threshold | " + " | ".join(marks) + " |")
