"""Benchmark of the hand charts (``scripts/bench.py guide`` runs this too): each chart of
one preset under the default players at 1/``--scale`` of the committed size (``min_n``,
every budget and the whist and raspasy charts' batch divided alike), on one worker and
on ``--workers`` in the same run, with wall and CPU seconds, a check that both made the
same tables, and the totals scaled back up: an extrapolation to the committed size
(time is nearly proportional to the deals rolled out; the compiled kernels are warmed
first). ``--models`` times the other tables of players too, as
:func:`prefstats.reports.hand_guide.charts` makes them.

    .venv/bin/python scripts/bench_guide.py --scale 50
    .venv/bin/python scripts/bench.py guide --scale 100
"""

from __future__ import annotations

import argparse
import time

from benchtools import machine_load

from prefstats.game.variants import get_variant
from prefstats.reports import hand_charts as hc


def _makers(variant, scale: int, model: hc.Model, n: int, workers: int) -> dict:
    """Each chart of ``model`` with ``n`` pairs a cell, as ``charts()`` makes it, at
    1/``scale``: its whist and raspasy budgets shrink with ``n`` as there."""
    share = min(1.0, n * scale / hc.CELL_PAIRS)
    budget = hc.DEAL_BUDGET // scale
    batch = 50_000 // scale
    whist = max(1, round(hc.WHIST_BUDGET // scale * share))
    raspasy = max(1, round(hc.RASPASY_BUDGET // scale * share))
    run = dict(workers=workers, model=model)
    return {
        "first_call_points": lambda: hc.first_call_chart(variant, 1, n, "points",
                                                         budget=budget, **run),
        "first_call_expected_tricks": lambda: hc.first_call_chart(
            variant, 1, n, "expected_tricks", budget=budget, **run),
        "whist": lambda: hc.whist_chart(variant, 1, n, budget=whist, batch=batch, **run),
        "misere": lambda: hc.misere_chart(variant, 1, n, budget=budget, **run),
        "raspasy": lambda: hc.raspasy_chart(variant, 1, n, budget=raspasy, batch=batch,
                                            **run),
    }


def _timed(make) -> tuple[hc.Chart, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    chart = make()
    return chart, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=100, help="1/SCALE of the committed size")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--models", action="store_true", help="the other tables of players too")
    args = ap.parse_args(argv)
    variant = get_variant(args.variant)
    hc.first_call_chart(variant, 1, 2, budget=200)  # compile or load the cached kernels
    tables = [(hc.DEFAULT, max(2, round(hc.CELL_PAIRS / args.scale)))]
    if args.models:
        model_n = max(2, round(hc.MODEL_PAIRS / args.scale))
        tables += [(m, m.pairs(model_n)) for m in hc.MODELS]
    print(f"guide: {args.variant} at 1/{args.scale} of the committed size; "
          f"{machine_load()}")
    figures: dict[str, float] = {}
    for model, n in tables:
        for workers in sorted({1, args.workers}):
            wall = cpu = 0.0
            made = {}
            for name, make in _makers(variant, args.scale, model, n, workers).items():
                made[name], w, c = _timed(make)
                wall, cpu = wall + w, cpu + c
                print(f"  {model.name:<10} {name:<27} workers={workers}: {w:6.1f} s wall, "
                      f"{c:6.1f} s CPU ({len(made[name].wide):,} pairs)", flush=True)
            if workers == 1:
                alone = made
            elif any(not alone[k].table.equals(made[k].table) for k in made):
                raise SystemExit(f"{model.name}: {workers} workers made other tables")
            figures[f"{model.name}_w{workers}_wall_s"] = wall
            figures[f"{model.name}_w{workers}_cpu_s"] = cpu
            print(f"  {model.name} ({n} pairs a cell), workers={workers}: {wall:.1f} s wall, "
                  f"{cpu:.1f} s CPU; x{args.scale} (an extrapolation to the committed "
                  f"size): {wall * args.scale / 60:.0f} min wall", flush=True)
    return figures


if __name__ == "__main__":
    main()
