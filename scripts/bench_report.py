"""Benchmark of the full report (``scripts/bench.py report`` runs this too): wall time
and peak memory (whole process, in a fresh subprocess) of ``prefstats report`` on a
dataset of ``--deals`` deals, made with ``prefstats simulate`` when missing. The
target: one million deals in under 60 s and 4 GiB.

    .venv/bin/python scripts/bench_report.py --deals 1000000 --data /tmp/bench-report-1m

``--replicate K`` reports on K copies of the dataset's rows (new deal ids, one lazy
scan per copy) instead: a quick stand-in for a K times larger dataset when simulating
one takes too long.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_RUN = """
import json, resource, sys, time
started = time.perf_counter()
import polars as pl
from prefstats.reports.render import write_report
from prefstats.reports.report import dataset_report
from prefstats.sim.storage import load
path, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = load(path)
size = rows.select(pl.col("deal_id").max()).collect().item() + 1
lf = pl.concat([rows.with_columns(pl.col("deal_id") + k * size) for k in range(copies)])
write_report(dataset_report(path, lf=lf), out)
print(json.dumps({"seconds": time.perf_counter() - started,
                  "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench_report", description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--data", default=None, help="dataset folder (made if missing)")
    parser.add_argument("--policy", default="random", help="players of a dataset made here")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--replicate", type=int, default=1, help="report on K copies")
    args = parser.parse_args(argv)

    data = Path(args.data or Path(tempfile.gettempdir()) / f"bench-report-{args.deals}")
    if not (data / "manifest.json").exists():
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from prefstats.cli import main; main()",
                        "simulate", "--hands",
                        str(args.deals), "--seed", str(args.seed), "--policy", args.policy,
                        "--out", str(data), "--quiet"], check=True)
        print(f"  made {data} with prefstats simulate in {time.perf_counter() - started:.0f} s")
    rows = sum(c["rows"] for c in json.loads((data / "manifest.json").read_text())["chunks"])
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-c", _RUN, str(data), out,
                                 str(args.replicate)], check=True, capture_output=True,
                                text=True)
        wall = time.perf_counter() - started
        figures = json.loads(result.stdout.strip().splitlines()[-1])
        charts = len(list(Path(out).glob("*.png")))
    copies = f" × {args.replicate} copies = {rows * args.replicate:,} deals" * (
        args.replicate > 1)
    print(f"report: {rows:,} deals ({data}){copies}")
    print(f"  report()      {figures['seconds']:8.1f} s (imports included; {wall:.1f} s with "
          "the interpreter's start)")
    print(f"  peak memory   {figures['peak_kib'] / 2**20:8.2f} GiB (whole process)")
    print(f"  output        {charts} PNG charts (+ SVG), CSV per table, report.md, index.html")
    print("  target        < 60 s, < 4 GiB")


if __name__ == "__main__":
    main(sys.argv[1:])
