"""Benchmark of misère play by the two models of the catchers (``scripts/bench.py misere``
runs this too): misère deals a second on one core, played with the catchers who cannot
see the declarer's discard (``misere_catchers="hidden"``, the default) against the
double-dummy settlement (``"double_dummy"``, one solver call a deal) in the same run, on
the same deals, with each model's catch rate by hole pattern (the hand charts' misère
classes, :func:`prefstats.reports.hand_charts.hole_pattern`).

A deal is the misère branch of a first-call rollout (``options=["misere"]``) at seat
0, dealt conditioned on the hole pattern as the misère chart deals it; the rate is of
the whole branch (auction, discard and play), the misère taking nearly all of it.

    .venv/bin/python scripts/bench_misere.py --deals 40
    .venv/bin/python scripts/bench.py --json bench.json misere --deals 40
"""

from __future__ import annotations

import time

import numpy as np
from benchtools import deal_parser, machine_load, one_thread

from prefstats.game import engine
from prefstats.players.misere import MISERE_CATCHERS
from prefstats.reports.hand_charts import PATTERNS as HOLE_PATTERNS
from prefstats.reports.hand_charts import hole_pattern, sample_cells
from prefstats.sim.rollout import rollout_states

#: The patterns measured: no hole, a lone 9, a lone 10, a long hole, two holes, three.
PATTERNS = {"no hole": 0, "lone 9": 2, "lone 10": 3, "long hole": 9, "two holes": 10,
            "three+ holes": 11}


def main(argv: list[str] | None = None) -> dict[str, float]:
    args = deal_parser(__doc__, 40, "deals of each hole pattern").parse_args(argv)
    variant = one_thread(args.variant)
    targets = np.zeros(len(HOLE_PATTERNS), dtype=np.int64)
    targets[list(PATTERNS.values())] = args.deals
    deals, cls, _ = sample_cells(args.seed, lambda d: hole_pattern(d.hands[:, 0]), targets)
    run = dict(seat=0, decision="first_call", options=["misere"], key=args.seed)
    rollout_states(variant, deals[:2], **run)  # compile or load the cached kernels
    figures: dict[str, float] = {}
    print(f"misère: {args.variant}, seat 0, misère forced at the first call, "
          f"{args.deals} deals a hole pattern, one core")
    caught = {}
    for model in MISERE_CATCHERS[::-1]:  # the double-dummy baseline first
        started = time.perf_counter()
        states, legal = rollout_states(variant, deals, **run, misere_catchers=model)
        took = time.perf_counter() - started
        st = states[:, 0]
        misere = legal[:, 0] & (st["kind"] == engine.MISERE_GAME) & (st["declarer"] == 0)
        caught[model] = misere, st["tricks"][:, 0] > 0
        rate = misere.sum() / took
        figures[f"{model}_misere_deals_per_s"] = rate
        print(f"  {model:<13} {rate:9.2f} misère deals/s  ({misere.sum()} misères of "
              f"{len(deals)} deals in {took:.1f} s)")
    figures["slowdown"] = (figures["double_dummy_misere_deals_per_s"]
                           / figures["hidden_misere_deals_per_s"])
    print(f"  hidden catchers take {figures['slowdown']:.0f}x the double-dummy time")
    print("  catch rate (declarer takes a trick), hidden vs double dummy (an upper bound):")
    both = caught["hidden"][0] & caught["double_dummy"][0]
    for name, code in PATTERNS.items():
        rows = both & (cls == code)
        hidden = caught["hidden"][1][rows].mean() if rows.any() else np.nan
        dd = caught["double_dummy"][1][rows].mean() if rows.any() else np.nan
        figures[f"catch_hidden_{name}"] = float(hidden)
        figures[f"catch_double_dummy_{name}"] = float(dd)
        print(f"    {name:<13} {100 * hidden:5.1f}% vs {100 * dd:5.1f}%  ({rows.sum()} misères)")
    print(f"  {machine_load()}")
    return figures


if __name__ == "__main__":
    main()
