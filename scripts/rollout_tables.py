"""Counterfactual tables: what a first call and a whist call gain against passing, on the
same deals (:func:`prefstats.rollout.rollout`, the heuristic playing every other
decision).

- first call, by hand points (``prefstats.reports.classes.bidding_class``): the gain of
  ``bid`` (the lowest trick bid) and ``misere`` over ``pass`` at the seat's first call;
- whist, by the defender's aces and kings: the gain of ``whist`` and ``half`` over
  ``pass`` at his first whist call on a trick game.

Each cell is the mean paired difference in whists a deal with its 95% CI and the number
of deals where both options were legal; every seat's deals are pooled.

    .venv/bin/python scripts/rollout_tables.py --deals 100000 --variant sochi --workers 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prefstats.deal import deal
from prefstats.reports.classes import bidding_class, high_cards
from prefstats.rollout import rollout
from prefstats.variants import get_variant


def gains(frame: pl.DataFrame, classes: np.ndarray, base: str, option: str) -> pl.DataFrame:
    """Mean of ``option`` − ``base`` per class over the deals where both were legal."""
    wide = frame.pivot(on="option", index=["seat", "deal"], values="value")
    wide = wide.with_columns(cls=pl.Series(classes))
    diff = wide.select("cls", gain=pl.col(option) - pl.col(base)).drop_nulls()
    return diff.group_by("cls").agg(
        mean=pl.col("gain").mean(), se=pl.col("gain").std() / pl.len().sqrt(), n=pl.len(),
    ).sort("cls")


def _cell(row: dict | None) -> str:
    if row is None or row["n"] < 2:
        return "–"
    half = 1.96 * row["se"]
    return f"{row['mean']:+.1f} [{row['mean'] - half:+.1f}, {row['mean'] + half:+.1f}]"


def table(title: str, frame: pl.DataFrame, classes: np.ndarray, levels: list[int],
          base: str, options: list[str], label: str) -> str:
    parts = {o: {r["cls"]: r for r in gains(frame, classes, base, o).iter_rows(named=True)}
             for o in options}
    head = f"| {label} | " + " | ".join(f"{o} − {base} (n)" for o in options) + " |"
    lines = [f"**{title}**", "", head, "|---" * (len(options) + 1) + "|"]
    for lv in levels:
        cells = []
        for o in options:
            row = parts[o].get(lv)
            cells.append(f"{_cell(row)} ({row['n'] if row else 0:,})")
        lines.append(f"| {lv} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(variant, deals, decision: str, options: list[str], workers: int, seed: int):
    frames = []
    for seat in range(3):
        f = rollout(variant, deals, seat=seat, decision=decision, options=options, seed=seed,
                    workers=workers)
        frames.append(f.with_columns(seat=pl.lit(seat)))
    return pl.concat(frames)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    variant = get_variant(args.variant)
    deals = deal(args.deals, seed=args.seed)
    # one class per (seat, deal), in the pivot's order: seat-major
    points = np.concatenate([bidding_class(deals.hands[:, s])["points"] for s in range(3)])
    honours = np.concatenate([high_cards(deals.hands[:, s]) for s in range(3)])
    first = run(variant, deals, "first_call", ["pass", "bid", "misere"], args.workers, args.seed)
    print(table(f"{args.variant}: first call against pass, by hand points "
                f"(whists a deal, 95% CI; {args.deals:,} deals x 3 seats, seed {args.seed})",
                first.sort("seat", "deal"), points, list(range(4, 11)), "pass",
                ["bid", "misere"], "points"))
    print()
    whist = run(variant, deals, "whist", ["pass", "whist", "half"], args.workers, args.seed)
    print(table(f"{args.variant}: whist call against pass, by the defender's aces and kings "
                f"(whists a deal, 95% CI; first whist call on a trick game)",
                whist.sort("seat", "deal"), np.minimum(honours, 5), list(range(6)), "pass",
                ["whist", "half"], "aces+kings"))


if __name__ == "__main__":
    main()
