"""Counterfactual tables: what a first call and a whist call gain against passing, on the
same deals (:func:`prefstats.sim.rollout.rollout`, the heuristic playing every other
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.reports.counterfactual import by_honours, by_points, seat_rollouts, table


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    variant = get_variant(args.variant)
    deals = deal(args.deals, seed=args.seed)
    first = seat_rollouts(variant, deals, "first_call", ["pass", "bid", "misere"],
                          by_points, seed=args.seed,
                          workers=args.workers)
    print(table(f"{args.variant}: first call against pass, by hand points "
                f"(whists a deal, 95% CI; {args.deals:,} deals x every seat, seed {args.seed})",
                first, list(range(4, 11)), "pass", ["bid", "misere"], "points"))
    print()
    whist = seat_rollouts(variant, deals, "whist", ["pass", "whist", "half"],
                          by_honours, seed=args.seed,
                          workers=args.workers)
    print(table(f"{args.variant}: whist call against pass, by the defender's aces and kings "
                f"(whists a deal, 95% CI; first whist call on a trick game)",
                whist, list(range(6)), "pass", ["whist", "half"], "aces+kings"))


if __name__ == "__main__":
    main()
