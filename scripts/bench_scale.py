"""Growth with the number of deals: does memory stay flat?

- the report: ``prefstats report`` of a deal dataset at two sizes (default 1,000,000
  and 10,000,000 deals), its peak RSS from ``/usr/bin/time -v``; it passes when the
  larger one's is within 1.3x of the smaller one's;
- the run: ``simulate`` in a process of its own with a pool of workers (all cores) at
  two sizes (default 1,000,000 and 5,000,000 deals), the peak RSS of that main process
  (``getrusage(RUSAGE_SELF)``; the workers' largest apart, ``RUSAGE_CHILDREN``) and
  deals/s; it passes when the larger run's main process is within 10% of the smaller's;
- then (unless ``--no-cluster``) a Dask ``LocalCluster`` of two workers writing to a
  local S3 server (moto), checked chunk by chunk against a local run.

    python scripts/bench_scale.py                        # the default sizes: long
    python scripts/bench_scale.py --report-sizes 200000 2000000 --run-sizes 200000 1000000
    python scripts/bench_scale.py --datasets d1M d10M    # the report on datasets you have

Each size is simulated once into a temporary folder, deleted after (a size both lists
hold is simulated once: its run is measured, then reported). The figures, ratios and
verdicts, the machine and the command lines go to ``reports/bench/scale.json``, and a
chart of peak RSS against deals to ``reports/bench/scale.png``; the results page of the
docs shows both. Figures are measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_cold_start import machine
from benchtools import machine_load

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports" / "bench" / "scale.json"
REPORT_SIZES = (1_000_000, 10_000_000)
RUN_SIZES = (1_000_000, 5_000_000)
#: Largest peak RSS of the larger size over the smaller's that passes.
REPORT_LIMIT, RUN_LIMIT = 1.3, 1.10
CLUSTER_DEALS = 60_000
TIME = Path("/usr/bin/time")

#: Run in a process of its own: simulate with a pool, then the main process's peak RSS.
_RUN = """
import json, resource, sys, time
from prefstats.game.variants import get_variant
from prefstats.sim.simulate import simulate
deals, out = int(sys.argv[1]), sys.argv[2]
started = time.perf_counter()
simulate(get_variant("sochi"), hands=deals, seed=1, out=out, progress=False)
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds,
                  "main_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "workers_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def _gib(kib: int) -> float:
    return round(kib / 2**20, 3)


def _failed(args: list[str], done: subprocess.CompletedProcess) -> None:
    sys.exit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")


def measure_run(deals: int, out: Path) -> dict:
    """``simulate`` of ``deals`` Sochi deals into ``out`` in a process of its own."""
    args = [sys.executable, "-c", _RUN, str(deals), str(out)]
    done = subprocess.run(args, capture_output=True, text=True, env=_env(), cwd=ROOT)
    if done.returncode:
        _failed(args, done)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return {"deals": deals, "seconds": round(got["seconds"], 1),
            "deals_per_second": round(deals / got["seconds"]),
            "main_peak_gib": _gib(got["main_kib"]),
            "workers_peak_gib": _gib(got["workers_kib"])}


def measure_report(data: Path, out: Path) -> dict:
    """``prefstats report data --out out``: seconds and peak RSS (``/usr/bin/time -v``;
    without it, the largest child this process has waited for)."""
    from prefstats.sim._manifest import progress
    from prefstats.sim.storage import manifest_of

    args = [sys.executable, "-m", "prefstats", "report", str(data), "--out", str(out)]
    started = time.perf_counter()
    done = subprocess.run([str(TIME), "-v", *args] if TIME.exists() else args,
                          capture_output=True, text=True, env=_env(), cwd=ROOT)
    seconds = time.perf_counter() - started
    if done.returncode:
        _failed(args, done)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    kib = int(peak[1]) if peak else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"deals": progress(manifest_of(data))[0], "seconds": round(seconds, 1),
            "peak_gib": _gib(kib)}


def verdict(rows: list[dict], key: str, limit: float) -> dict:
    """The largest size's ``key`` over the smallest's, and whether it is within ``limit``."""
    small, large = min(rows, key=lambda r: r["deals"]), max(rows, key=lambda r: r["deals"])
    ratio = large[key] / small[key]
    return {"ratio": round(ratio, 3), "limit": limit, "pass": ratio <= limit}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cluster(deals: int = CLUSTER_DEALS) -> dict:
    """A LocalCluster of two workers writes to a local S3 server: same chunks as a local
    run of one process."""
    import fsspec
    from moto.server import ThreadedMotoServer

    from prefstats.game.variants import get_variant
    from prefstats.sim.simulate import simulate
    from prefstats.sim.storage import manifest_of

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    os.environ.update(AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}", AWS_ACCESS_KEY_ID="bench",
                      AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    try:
        fsspec.filesystem("s3").mkdir("bench")
        sochi = get_variant("sochi")
        with tempfile.TemporaryDirectory(prefix="prefstats-scale-") as tmp:
            started = time.perf_counter()
            simulate(sochi, hands=deals, seed=3, out=tmp, workers=1, progress=False)
            local_s = time.perf_counter() - started
            started = time.perf_counter()
            simulate(sochi, hands=deals, seed=3, out="s3://bench/run", workers=2,
                     backend="dask", progress=False)
            dask_s = time.perf_counter() - started
            same = ({c["index"]: c["sha256"] for c in manifest_of(tmp)["chunks"]} ==
                    {c["index"]: c["sha256"] for c in manifest_of("s3://bench/run")["chunks"]})
    finally:
        server.stop()
    print(f"  LocalCluster, 2 workers, to a local S3 server ({deals:,} deals): "
          f"{dask_s:.1f} s (local, 1 process: {local_s:.1f} s); same chunks: "
          f"{'yes' if same else 'NO'}")
    return {"deals": deals, "local_seconds": round(local_s, 1),
            "dask_seconds": round(dask_s, 1), "same_chunks": same}


def chart(result: dict, path: Path) -> None:
    """Peak RSS against deals: the report and the run's main process."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    for name, key, label in (("report", "peak_gib", "prefstats report"),
                             ("run", "main_peak_gib", "simulate, main process")):
        rows = sorted(result[name]["sizes"], key=lambda r: r["deals"])
        if rows:
            ax.plot([r["deals"] for r in rows], [r[key] for r in rows], "o-", label=label)
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("deals")
    ax.set_ylabel("peak RSS (GiB)")
    ax.set_title(f"Memory by deals (prefstats {result['version']})", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report-sizes", type=int, nargs=2, default=REPORT_SIZES,
                    metavar=("SMALL", "LARGE"), help="deals of the two reported datasets")
    ap.add_argument("--run-sizes", type=int, nargs=2, default=RUN_SIZES,
                    metavar=("SMALL", "LARGE"), help="deals of the two measured runs")
    ap.add_argument("--datasets", type=Path, nargs=2, metavar=("SMALL", "LARGE"),
                    help="report these deal datasets instead of simulating the report sizes")
    ap.add_argument("--no-cluster", action="store_true", help="skip the Dask/S3 check")
    ap.add_argument("--out", type=Path, default=OUT, help="the JSON (the chart beside it)")
    args = ap.parse_args(argv)
    from prefstats import __version__

    started = machine()
    print(f"scale: peak RSS by deals ({started['load']})", flush=True)
    runs, reports = [], []
    commands = {"run": "python -c 'simulate(get_variant(\"sochi\"), hands=N, seed=1, "
                       "out=DATA)' (a pool of all cores)",
                "report": f"{TIME} -v prefstats report DATA --out REPORT"}
    report_sizes = set() if args.datasets else set(args.report_sizes)
    with tempfile.TemporaryDirectory(prefix="prefstats-scale-") as tmp:
        for deals in sorted(report_sizes | set(args.run_sizes)):
            data = Path(tmp) / f"d{deals}"
            row = measure_run(deals, data)
            if deals in args.run_sizes:
                runs.append(row)
                print(f"  simulate {deals:>12,}: {row['deals_per_second']:>8,} deals/s, main "
                      f"process {row['main_peak_gib']:.2f} GiB, workers "
                      f"{row['workers_peak_gib']:.2f} GiB", flush=True)
            if deals in report_sizes:
                reports.append(measure_report(data, Path(tmp) / "report"))
            shutil.rmtree(data)  # each size's disk, freed before the next
        for data in args.datasets or []:
            reports.append(measure_report(data, Path(tmp) / "report"))
    for row in reports:
        print(f"  report   {row['deals']:>12,}: {row['seconds']:.1f} s, peak "
              f"{row['peak_gib']:.2f} GiB", flush=True)
    result = {
        "bench": "scale", "version": __version__,
        "command": "python scripts/bench_scale.py " + " ".join(argv or sys.argv[1:]),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {**started, "load_after": machine_load()}, "commands": commands,
        "report": {"sizes": reports, **verdict(reports, "peak_gib", REPORT_LIMIT)},
        "run": {"sizes": runs, **verdict(runs, "main_peak_gib", RUN_LIMIT)},
    }
    for name in ("report", "run"):
        r = result[name]
        print(f"  {name}: larger over smaller {r['ratio']:.3f} (limit {r['limit']}): "
              f"{'pass' if r['pass'] else 'FAIL'}")
    if not args.no_cluster:
        result["cluster"] = cluster()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    chart(result, args.out.with_suffix(".png"))
    print(f"  written to {args.out} and {args.out.with_suffix('.png')}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
