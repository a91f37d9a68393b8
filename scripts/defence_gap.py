"""Closed rule-based card play against double dummy on the same closed deals
(:mod:`prefstats.analysis.cardplay_gap`): the defence's and the declarer's tricks given
away against double-dummy play, and the open deals against the solver.

    .venv/bin/python scripts/defence_gap.py --deals 2000 --seed 1
"""

from __future__ import annotations

import argparse

from prefstats.analysis.cardplay_gap import gap_report
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--source", choices=("auto", "auction", "constructed"), default="auto")
    args = ap.parse_args(argv)
    print(f"{args.variant}, seed {args.seed}")
    print(gap_report(deal(args.deals, seed=args.seed), get_variant(args.variant), args.source))


if __name__ == "__main__":
    main()
