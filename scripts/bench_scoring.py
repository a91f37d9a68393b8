"""Benchmark of the compiled scoring (``scripts/bench.py scoring`` runs this too).

Random valid deal outcomes (``prefstats.game.scoring.random_outcomes``: games with random
whist calls, misères and raspasy in equal parts) scored by ``score_batch`` and valued by
``deal_values``, against the baseline of the same outcomes scored one by one through
``game_entries`` / ``misere_entries`` / ``raspasy_entries`` (``outcome_entries``).

    .venv/bin/python scripts/bench_scoring.py --deals 1000000 --variant leningrad
"""

from __future__ import annotations

import argparse

from benchtools import best_time

from prefstats.game.scoring import (
    OUTCOME_FIELDS,
    deal_values,
    outcome_entries,
    random_outcomes,
    score_batch,
)
from prefstats.game.variants import PRESETS, get_variant


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench_scoring", description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1_000_000, help="deals per batch call")
    parser.add_argument("--baseline-deals", type=int, default=20_000)
    parser.add_argument("--variant", choices=PRESETS, default="sochi")
    parser.add_argument("--players", type=int, choices=(3, 4), default=3)
    args = parser.parse_args(argv)

    variant = get_variant(args.variant, players=args.players)
    outcomes = random_outcomes(variant, args.deals, seed=1)
    score_batch(variant, **random_outcomes(variant, 10))  # compile or load the kernels
    batch = best_time(lambda: score_batch(variant, **outcomes), repeat=5)
    totals = score_batch(variant, **outcomes)
    values = best_time(lambda: deal_values(variant, *totals), repeat=5)

    few = random_outcomes(variant, args.baseline_deals, seed=2)
    rows = [[few[f][i] for f in OUTCOME_FIELDS] for i in range(args.baseline_deals)]
    baseline = best_time(lambda: [outcome_entries(variant, *r) for r in rows], repeat=1)

    fast = args.deals / batch
    slow = args.baseline_deals / baseline
    print(f"scoring: {args.variant}, {args.players} players, one core")
    print(f"  score_batch          {fast / 1e6:8.2f} M deals/s ({args.deals:,} deals a call, "
          "best of 5)")  # fmt: skip
    print(f"  + deal_values        {args.deals / (batch + values) / 1e6:8.2f} M deals/s")
    print(f"  per-deal baseline    {slow / 1e3:8.2f} k deals/s (game_entries / misere_entries "
          f"/ raspasy_entries, {args.baseline_deals:,} deals)")  # fmt: skip
    print(f"  ratio                {fast / slow:8.0f}x")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
