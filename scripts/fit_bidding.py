"""Refit the built-in players' calls by counterfactual rollouts (prefstats.analysis.fit) and ship
the offsets as data: ``prefstats/players/data/fit-<preset>-<players>.npz``.

Each round gauges the players as they are on fresh deals (every option of first calls,
competing, the contract, whist calls and misère, forced at every seat, against the
players' own play), moves each significant class a step toward its best option, and
plays the next round with the moved players; it stops when no class gains 0.5 whists a
deal significantly over all classes at once (Holm) and the mean gain is below 0.1, or
after ``--rounds``.
The last round's gauge, on deals the fit never moved on, is the "after" figure.

    .venv/bin/python scripts/fit_bidding.py --variant sochi --deals 20000 --rounds 6

Refit after any change to the card play or the evaluator. Cost: about 50 branch plays
per deal and round (3 seats x first call 3, competing 5, contract 5, whist 2..3, plus
the players' own play); the run time of each fit is printed and stored in the file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prefstats import __version__  # noqa: E402
from prefstats.analysis.fit import fit, summary  # noqa: E402
from prefstats.game.variants import get_variant  # noqa: E402
from prefstats.players import adjust  # noqa: E402
from prefstats.reports.exploit import format_gauge, top_classes  # noqa: E402

DATA = ROOT / "prefstats" / "players" / "data"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--deals", type=int, default=20_000, help="fresh deals per round")
    ap.add_argument("--rounds", type=int, default=6, help="most rounds that move the offsets")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--step", type=float, default=0.5, help="first step, in tricks")
    ap.add_argument("--workers", type=int, default=1, help="threads sharing each rollout")
    ap.add_argument("--out", type=Path, default=DATA, help="folder of the fitted file")
    ap.add_argument("--warm", action="store_true",
                    help="start from the shipped offsets instead of zeros (a refit after a "
                         "card-play change; use a new --seed for deals the old fit never saw)")
    args = ap.parse_args(argv)
    variant = get_variant(args.variant, players=args.players)
    command = (f"python scripts/fit_bidding.py --variant {args.variant} --players "
               f"{variant.players} --deals {args.deals} --rounds {args.rounds} --seed "
               f"{args.seed} --step {args.step}" + (" --warm" if args.warm else ""))
    start = np.array(adjust.fitted(variant)) if args.warm else None
    result = fit(variant, deals_per_round=args.deals, rounds=args.rounds, seed=args.seed,
                 start=start, first_step=args.step, workers=args.workers,
                 log=lambda line: print(line, flush=True))
    meta = {"command": command, "warm": args.warm, "version": __version__,
            "seconds": round(result["seconds"]),
            "rounds": len(result["rounds"]), "history": result["rounds"],
            "before": summary(result["before"]), "after": summary(result["after"]),
            "before_top": top_classes(result["before"]), "after_top": top_classes(result["after"])}
    path = args.out / adjust.data_file(variant.base, variant.players)
    adjust.save(path, result["offsets"], meta)
    start_name = "the shipped offsets" if args.warm else "the unfitted heuristic"
    print(format_gauge(result["before"], f"before the fit ({start_name})"))
    print()
    print(format_gauge(result["after"], "after the fit (fresh deals)"))
    print(f"\nwrote {path} in {result['seconds']:,.0f} s")


if __name__ == "__main__":
    main()
