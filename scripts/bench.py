"""Benchmarks of the hot paths, each against a simple baseline measured in the same run.

    python scripts/bench.py                          # every section
    python scripts/bench.py deal                     # one section, its own arguments after
    python scripts/bench.py --json bench.json deal   # and write the figures as JSON

A section is this file's ``deal`` or a module ``scripts/bench_<name>.py`` with a
``main(argv)`` (a new file is a new section: nothing to register); arguments after the
section name go to it. Figures are printed, never asserted: speed is measured, not
promised in tests. ``--json FILE`` writes each section's printed figures (and the dict
its ``main`` returns, if any) with the version, command, date and machine load.
``compile`` (each kernel's compile time) and ``cold_start`` (``make run`` on a fresh
clone with an empty cache, then warm) compile the whole engine from nothing: minutes;
they also write their figures with the machine's to ``reports/bench/*.json``.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib.util
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from benchtools import best_time, machine_load

HERE = Path(__file__).resolve().parent


def _best_rate(fn, n: int, repeat: int = 3) -> float:
    """Items per second of ``fn(n)``, best of ``repeat`` runs."""
    return n / best_time(lambda: fn(n), repeat)


def _naive_deal(n: int, seed: int = 0):
    """Baseline: one ``rng.permutation`` per deal in a Python loop."""
    rng = np.random.default_rng(seed)
    hands = np.empty((n, 3), dtype=np.uint32)
    talon = np.empty(n, dtype=np.uint32)
    weights = np.uint32(1) << np.arange(32, dtype=np.uint32)
    for i in range(n):
        bits = weights[rng.permutation(32)]
        hands[i] = bits[:30].reshape(3, 10).sum(axis=1)
        talon[i] = bits[30:].sum()
    return hands, talon


_PEAK = """
import json, resource, sys
from prefstats.game.deal import deal
d = deal(int(sys.argv[1]), seed=1)
print(json.dumps({"peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def bench_deal(argv: list[str]) -> dict[str, float]:
    """deal(): deals/second in calls of one million (best of five) against the naive
    baseline, and the peak memory of one call dealing ``argv[0]`` (10 million) deals."""
    from prefstats.game.deal import deal

    n = int(argv[0]) if argv else 10_000_000
    chunk = 1_000_000
    deal(10, seed=1)  # compile or load the cached kernel
    fast = _best_rate(lambda k: deal(k, seed=1), chunk, repeat=5)
    naive = _best_rate(_naive_deal, 20_000, repeat=2)
    peak = json.loads(
        subprocess.run(
            [sys.executable, "-c", _PEAK, str(n)], capture_output=True, text=True, check=True
        ).stdout
    )
    print("deal: one core")
    print(f"  deal()          {fast / 1e6:8.2f} M deals/s ({chunk:,} deals a call, best of 5)")
    print(f"  naive baseline  {naive / 1e6:8.4f} M deals/s (rng.permutation per deal)")
    print(f"  ratio           {fast / naive:8.0f}x")
    print(
        f"  peak memory     {peak['peak_kib'] / 2**20:8.3f} GiB (whole process) "
        f"dealing {n:,} deals in one call"
    )
    return {"deals_per_s": fast, "naive_deals_per_s": naive, "peak_gib": peak["peak_kib"] / 2**20}


def _sections() -> dict[str, object]:
    sections = {"deal": bench_deal}
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sections[name] = module.main
    return sections


class _Tee(io.TextIOBase):
    """Prints and keeps what a section prints."""

    def __init__(self, out) -> None:
        self.out, self.kept = out, io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def main(argv: list[str]) -> None:
    sections = _sections()
    json_path = None
    if argv[:1] == ["--json"] and len(argv) > 1:
        json_path, argv = Path(argv[1]), argv[2:]
    if argv[:1] in (["-h"], ["--help"]):
        print(f"usage: bench.py [--json FILE] [section [arguments]]\n\n{__doc__}\n"
              f"sections: {', '.join(sections)}")
        return
    if argv and argv[0] not in sections:
        sys.exit(f"unknown section {argv[0]!r}; sections: {', '.join(sections)}")
    from prefstats import __version__

    chosen = [argv[0]] if argv else list(sections)
    results = {}
    for name in chosen:
        args = argv[1:] if argv else []
        tee, began = _Tee(sys.stdout), time.perf_counter()
        with contextlib.redirect_stdout(tee):
            figures = sections[name](args)
        results[name] = {"command": " ".join(["python scripts/bench.py", name, *args]),
                         "seconds": round(time.perf_counter() - began, 1),
                         "figures": figures, "output": tee.kept.getvalue().splitlines()}
        print()
    if json_path:
        json_path.write_text(json.dumps({
            "version": __version__, "date": datetime.datetime.now(datetime.UTC).isoformat(
                timespec="seconds"), "machine": machine_load(), "sections": results,
        }, indent=2) + "\n", "utf-8")
        print(f"wrote {json_path}")


if __name__ == "__main__":
    main(sys.argv[1:])
