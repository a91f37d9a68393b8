"""Benchmark of the whole simulation: deal, play, score and write Parquet.

    python scripts/bench.py simulate [--hands 1000000] [--workers N] [--variant sochi]
                                     [--catchers]

Prints wall time, deals/second, peak memory (the run and its worker processes) and
bytes per deal on disk, against a baseline measured in the same run: one worker. With
``--catchers`` the same deals are simulated again with double-dummy misère catchers
(who see the declarer's discard), and the ratio of the two walls is what the default,
hidden catchers cost the whole simulation.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_RUN = """
import json, resource, sys, time
from prefstats.sim.simulate import simulate
from prefstats.game.variants import get_variant
hands, workers, out, variant, chunk, catchers = sys.argv[1:7]
started = time.perf_counter()
m = simulate(get_variant(variant), hands=int(hands), seed=1, out=out, chunk_size=int(chunk),
             workers=int(workers), misere_catchers=catchers, progress=False)
wall = time.perf_counter() - started
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
size = sum(c["bytes"] for c in m["chunks"])
print(json.dumps({"wall": wall, "peak_kib": max(own, kids), "bytes": size}))
"""


def _run(hands: int, workers: int, variant: str, chunk: int, catchers: str = "hidden") -> dict:
    out = Path(tempfile.mkdtemp(prefix="prefstats-bench-"))
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _RUN, str(hands), str(workers), str(out), variant,
             str(chunk), catchers], capture_output=True, text=True, check=True,
        )
        return json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.py simulate", description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=0, help="0: all cores")
    parser.add_argument("--variant", default="sochi")
    parser.add_argument("--chunk-size", type=int, default=50_000)
    parser.add_argument("--baseline-hands", type=int, default=100_000)
    parser.add_argument("--catchers", action="store_true",
                        help="also simulate the same deals with double-dummy catchers")
    args = parser.parse_args(argv)
    import os

    workers = args.workers or len(os.sched_getaffinity(0))
    _run(2000, 1, args.variant, 1000)  # warm the compile cache outside the timings
    base = _run(args.baseline_hands, 1, args.variant, args.chunk_size)
    full = _run(args.hands, workers, args.variant, args.chunk_size)
    rate = args.hands / full["wall"]
    base_rate = args.baseline_hands / base["wall"]
    print(f"simulate: {args.variant}, {args.hands:,} deals, {workers} worker(s)")
    print(f"  wall            {full['wall']:8.1f} s  ({rate:,.0f} deals/s)")
    print(f"  one worker      {base_rate:8,.0f} deals/s on {args.baseline_hands:,} deals "
          f"(ratio {rate / base_rate:.2f}x)")
    print(f"  peak memory     {full['peak_kib'] / 2**20:8.2f} GiB (largest process)")
    print(f"  on disk         {full['bytes'] / args.hands:8.1f} bytes a deal")
    if args.catchers:
        seeing = _run(args.hands, workers, args.variant, args.chunk_size, "double_dummy")
        print(f"  double-dummy catchers {seeing['wall']:8.1f} s on the same deals: hidden "
              f"catchers take {full['wall'] / seeing['wall']:.2f}x as long")


if __name__ == "__main__":
    main()
