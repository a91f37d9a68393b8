"""Benchmark of the PIMC player (``scripts/bench.py pimc`` runs this too): whole deals a
second with ``policy="pimc"`` on one core against the heuristic in the same run, the
milliseconds a searched card takes, and the strength gauge on a small sample.

    .venv/bin/python scripts/bench_pimc.py --deals 400 --gauge-deals 600 --samples 32
"""

from __future__ import annotations

import time

from benchtools import best_time, deal_parser, one_thread

from prefstats.analysis.strength import format_gauge, gauge
from prefstats.game.deal import deal
from prefstats.players.params import policy_params
from prefstats.sim.play import play_batch


def main(argv: list[str] | None = None) -> None:
    ap = deal_parser(__doc__, 400, "deals played by policy pimc")
    ap.add_argument("--gauge-deals", type=int, default=600, help="deals of the gauge")
    ap.add_argument("--samples", type=int, default=32, help="PIMC samples a card")
    args = ap.parse_args(argv)
    variant = one_thread(args.variant)
    deals = deal(args.deals, seed=args.seed)
    params = policy_params("pimc", samples=args.samples)
    play_batch(deals[:20], variant, policy="pimc", params=params)  # compile or load
    pimc = len(deals) / best_time(lambda: play_batch(deals, variant, policy="pimc",
                                                     params=params), 1)
    heuristic = len(deals) / best_time(lambda: play_batch(deals, variant), 3)
    print(f"pimc: {args.variant}, one core, K = {args.samples}")
    print(f"  play_batch policy pimc   {pimc:>9,.0f} deals/s  ({len(deals):,} deals)")
    print(f"  baseline: heuristic      {heuristic:>9,.0f} deals/s  (same deals, best of 3)")
    t0 = time.perf_counter()
    g = gauge("heuristic", "pimc", deals=args.gauge_deals, seed=args.seed,
              samples=args.samples, variant=variant)
    print(format_gauge(g))
    print(f"  gauge took {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
