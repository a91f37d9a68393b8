"""Cold start (``scripts/bench.py cold_start`` runs this too): how long a new user waits.

What a new user does, with an empty temporary cache (``PREFSTATS_CACHE``; the shared
cache is never touched): ``git clone`` of this checkout's ``HEAD`` and ``make run`` in
it (the virtual environment's set-up included), then, as the baseline, ``make run``
again on the warm cache (the datasets removed, so it simulates them again). Wall and
CPU seconds (on a shared machine the CPU says more), the steps the warm-up compiled and
how long each took, the machine (CPU model, cores, load before and after) and the
command lines go to ``reports/bench/cold_start.json``.

    python scripts/bench_cold_start.py               # make run on a fresh clone
    python scripts/bench_cold_start.py --commands    # and three commands, cold then warm

``--commands`` also times, each on an empty cache then warm: the first simulated deals
(``prefstats simulate``: the dealer, the players and the solver, the endgame table), the
first one-hand rollout (what the simulation left to compile) and a short ``prefstats
demo`` (``--hands``, ``--pulkas``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import cpu_model, machine_load

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports" / "bench"
HAND = "♠AKQJ10 ♣AK ♦A ♥AK"


def machine() -> dict:
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "load": machine_load(),
            "python": platform.python_version(), "system": platform.platform()}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict, cwd: Path,
          timeline: list | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one command run to its end (its worker processes
    included; a failure stops the benchmark with the command's output). On a shared
    machine the CPU time says more than the wall time. Each line the command prints
    (``make`` echoes its commands, the demo names its phases) goes to ``timeline`` with
    the second it came, so the figures say where the time went."""
    started, cpu = time.perf_counter(), _children_cpu()
    lines = []
    with subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as process:
        for line in process.stdout:
            lines.append([round(time.perf_counter() - started, 1), line.rstrip()[:160]])
    seconds = time.perf_counter() - started
    if process.returncode:
        output = "\n".join(text for _, text in lines)[-2000:]
        sys.exit(f"{' '.join(argv)} failed ({process.returncode}):\n{output}")
    if timeline is not None:
        timeline.extend(lines)
    return seconds, _children_cpu() - cpu


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=20_000, help="the demo's deals")
    ap.add_argument("--pulkas", type=int, default=300, help="the demo's pulkas")
    ap.add_argument("--cache", type=Path, default=None,
                    help="an empty folder to compile into and keep (default: a temporary "
                         "one, removed)")
    ap.add_argument("--commands", action="store_true",
                    help="also time three commands, each on an empty cache then warm")
    ap.add_argument("--clone", type=Path, default=None,
                    help="where to make the fresh clone, kept afterwards (default: a "
                         "temporary folder, removed)")
    ap.add_argument("--out", type=Path, default=OUT / "cold_start.json")
    args = ap.parse_args(argv)
    from prefstats import __version__

    prefstats = [sys.executable, "-m", "prefstats"]
    with tempfile.TemporaryDirectory(prefix="prefstats-cold-") as tmp:
        work = Path(tmp)
        cache = args.cache or work / "cache"
        if cache.exists() and any(cache.iterdir()):
            sys.exit(f"{cache}: not empty; a cold start needs an empty cache")
        env = {**os.environ, "PREFSTATS_CACHE": str(cache),
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        env.pop("NUMBA_CACHE_DIR", None)
        runs = {
            "first simulated deals": [*prefstats, "simulate", "--hands", "2000", "--out",
                                      "deals", "--chunk-size", "1000", "--quiet", "--force"],
            "first rollout": [*prefstats, "rollout", HAND, "--deals", "64"],
            "demo": [*prefstats, "demo", "--hands", str(args.hands), "--pulkas",
                     str(args.pulkas), "--data", "data", "--out", "reports", "--force",
                     "--quiet"],
        }
        figures = {}
        started = machine()
        commands = {k: " ".join(v[2:]) for k, v in runs.items()} if args.commands else {}
        steps = {}

        timelines: dict[str, list] = {}

        def run(label: str, argv: list[str], env: dict, cwd: Path) -> None:
            seconds, cpu = timed(argv, env, cwd, timelines.setdefault(label, []))
            figures[label] = {"wall": round(seconds, 1), "cpu": round(cpu, 1)}
            print(f"  {label:32} {seconds:8.1f} s ({cpu:.1f} s of CPU)", flush=True)

        clone = args.clone or work / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        run("make run (cold)", ["make", "run"], {**env, "PYTHONPATH": ""}, clone)
        for path in (cache / "numba").glob("*/compile-times.json"):
            steps = json.loads(path.read_text("utf-8"))
        shutil.rmtree(clone / "data")
        run("make run (warm)", ["make", "run"], {**env, "PYTHONPATH": ""}, clone)
        commands["make run"] = "git clone … && make run"
        if args.clone is None:
            shutil.rmtree(clone, ignore_errors=True)
        for phase in ("cold", "warm") if args.commands else ():
            if phase == "cold":  # empty again, for the commands' own cold start
                shutil.rmtree(cache, ignore_errors=True)
            for name, command in runs.items():
                run(f"{name} ({phase})", command, env, work)
        for path in (cache / "numba").glob("*/compile-times.json"):
            steps = json.loads(path.read_text("utf-8"))
        if args.cache is None:
            shutil.rmtree(cache, ignore_errors=True)
    result = {"bench": "cold_start", "version": __version__,
              "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
              "machine": {**started, "load_after": machine_load()},
              "command": "python scripts/bench_cold_start.py " + " ".join(argv or []),
              "commands": commands,
              "seconds": figures, "compile_steps_seconds": steps,
              "timeline": timelines}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"cold start: {started['load']}; steps compiled "
          f"(s): {json.dumps({k: round(v, 1) for k, v in steps.items()})}")
    print(f"  written to {args.out}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
