"""Growth with the number of deals: ``prefstats simulate`` then ``prefstats report`` at
each size, with deals/s and the peak RSS of each command (its whole process tree's
largest process, from ``/usr/bin/time -v`` when present, else ``getrusage``); then a
Dask ``LocalCluster`` of two workers writing to a local S3 server (moto), checked chunk
by chunk against a local run.

    python scripts/bench.py scale                  # 1,000,000 and 10,000,000 deals
    python scripts/bench.py scale 200000 1000000   # the sizes given
    python scripts/bench.py scale --no-cluster 1000000

Figures are printed, never asserted. Each size is simulated once into a temporary
folder (deleted after), with the default chunk size and all cores.
"""

from __future__ import annotations

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

from benchtools import machine_load

SIZES = (1_000_000, 10_000_000)
CLUSTER_DEALS = 60_000


def _measured(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Seconds and peak RSS (GiB) of the command ``args``."""
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    started = time.perf_counter()
    if timer:
        done = subprocess.run([timer, "-v", *args], capture_output=True, text=True, env=env)
        peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        kib = int(peak[1]) if peak else 0
    else:
        done = subprocess.run(args, capture_output=True, text=True, env=env)
        kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    seconds = time.perf_counter() - started
    if done.returncode:
        sys.exit(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return seconds, kib / 2**20


def _prefstats(*args: str) -> list[str]:
    return [sys.executable, "-m", "prefstats", *args]


def growth(sizes: list[int]) -> None:
    print(f"scale: simulate and report by deals ({machine_load()})")
    print(f"  {'deals':>12} {'simulate s':>11} {'deals/s':>10} {'sim peak GiB':>13} "
          f"{'report s':>9} {'report peak GiB':>16}")
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="prefstats-scale-") as tmp:
            data, out = Path(tmp) / "d", Path(tmp) / "r"
            sim_s, sim_peak = _measured(_prefstats("simulate", "--hands", str(n), "--seed", "1",
                                                   "--quiet", "--out", str(data)))
            rep_s, rep_peak = _measured(_prefstats("report", str(data), "--out", str(out)))
        print(f"  {n:>12,} {sim_s:>11.1f} {n / sim_s:>10,.0f} {sim_peak:>13.2f} "
              f"{rep_s:>9.1f} {rep_peak:>16.2f}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cluster(deals: int = CLUSTER_DEALS) -> None:
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
        print(f"scale: LocalCluster, 2 workers, to s3://bench/run on a local S3 server "
              f"({deals:,} deals)")
        print(f"  local, 1 process     {local_s:8.1f} s")
        print(f"  dask, 2 workers, S3  {dask_s:8.1f} s (cluster start included)")
        print(f"  same chunks (SHA-256) as the local run: {'yes' if same else 'NO'}")
    finally:
        server.stop()


def main(argv: list[str]) -> None:
    if {"-h", "--help"} & set(argv):
        print(__doc__)
        return
    with_cluster = "--no-cluster" not in argv
    sizes = [int(a.replace("_", "")) for a in argv if a != "--no-cluster"] or list(SIZES)
    growth(sizes)
    if with_cluster:
        print()
        cluster()


if __name__ == "__main__":
    main(sys.argv[1:])
