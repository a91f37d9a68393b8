"""Timing helpers shared by the benchmark scripts."""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], repeat: int,
              clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds of the fastest of ``repeat`` calls of ``fn()`` (wall clock, or ``clock``:
    ``time.thread_time`` for CPU time, which other jobs on the machine inflate less)."""
    best = float("inf")
    for _ in range(repeat):
        started = clock()
        fn()
        best = min(best, clock() - started)
    return best


def cpu_model() -> str:
    """The processor's model name, as the system reports it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_load() -> str:
    """The processor, the load averages and core count: on a shared machine they say how
    far this run's figures fall below an idle one's."""
    one, five, fifteen = os.getloadavg()
    return (f"{cpu_model()}, load average {one:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 "
            f"min) on {os.cpu_count()} cores")


def play_batch_rate(deals, variant, clock: Callable[[], float] = time.perf_counter) -> float:
    """Deals per second of unforced ``play_batch`` (realistic mix, solver included) on
    ``deals`` by ``clock``, after a warm-up: what the rollout benchmark compares its
    branches with on the same deals (it moves with the solver, so it cannot scale a
    solver figure to another machine: ``bench_solver.reference_ms`` does)."""
    from prefstats.sim.play import play_batch

    play_batch(deals[:20], variant)  # compile or load the cached kernels
    return len(deals) / best_time(lambda: play_batch(deals, variant), 1, clock)


def deal_parser(doc: str, deals: int, deals_help: str) -> argparse.ArgumentParser:
    """The options of a benchmark that plays deals: how many, the variant, the seed."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=deals, help=deals_help)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--seed", type=int, default=1)
    return ap


def one_thread(variant: str):
    """The variant named, with numba's parallel loops on one thread: figures per core."""
    import numba

    from prefstats.game.variants import get_variant

    numba.set_num_threads(1)
    return get_variant(variant)
