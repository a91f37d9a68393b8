"""Compile time of each kernel (``scripts/bench.py compile`` runs this too).

In a fresh process with an empty temporary cache (``PREFSTATS_CACHE``), every warm-up
step of :data:`prefstats.cli._compile.STEPS` is run in turn and timed: its first call
compiles its kernel and whatever the earlier steps did not (the functions a kernel
calls are compiled once, with the first kernel that calls them). Then the compiled
functions holding more than one specialisation are listed with their argument types:
each is compiled that many times, once for each. The figures go to
``reports/bench/compile.json`` with the machine; with ``--cache`` an existing cache
is used instead (load times, and the specialisations of everything loaded).

    python scripts/bench_compile.py
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_cold_start import OUT, ROOT, machine
from benchtools import machine_load

_CHILD = """
import json, re, time
from prefstats.cli import _compile
times, cpu = {}, {}
for name, step in _compile.STEPS.items():
    started, used = time.perf_counter(), time.process_time()
    _compile._endgame() if name == "endgame" else step.run()
    times[name] = time.perf_counter() - started
    cpu[name] = time.process_time() - used
every = _compile.dispatchers()
def short(sig):  # a record type by its size: its fields fill a screen
    return re.sub(r"Record\\(\\[.*?\\], (\\d+), (True|False)\\)", r"Record(\\1 bytes)", str(sig))
twice = {name: [short(s) for s in d.signatures] for name, d in every.items()
         if len(d.signatures) > 1}
print(json.dumps({"seconds": times, "cpu_seconds": cpu, "functions": sum(bool(d.signatures)
                  for d in every.values()), "specialisations": sum(
                  len(d.signatures) for d in every.values()), "several": twice}))
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=None,
                    help="a cache to use as it is (default: an empty temporary one)")
    ap.add_argument("--out", type=Path, default=OUT / "compile.json")
    args = ap.parse_args(argv)
    from prefstats import __version__
    from prefstats.cli import _compile

    with tempfile.TemporaryDirectory(prefix="prefstats-compile-") as tmp:
        env = {**os.environ, "PREFSTATS_CACHE": str(args.cache or Path(tmp) / "cache"),
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        env.pop("NUMBA_CACHE_DIR", None)
        started = machine()
        done = subprocess.run([sys.executable, "-c", _CHILD], env=env, cwd=tmp,
                              capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"the compile run failed:\n{done.stderr[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"compile: {'cache ' + str(args.cache) if args.cache else 'empty cache'}, "
          f"{started['cpu']}, {started['load']}")
    for name, seconds in figures["seconds"].items():
        print(f"  {_compile.STEPS[name].label:58} {seconds:8.1f} s "
              f"({figures['cpu_seconds'][name]:.1f} s of CPU)")
    print(f"  {figures['functions']} compiled functions, {figures['specialisations']} "
          f"specialisations; {len(figures['several'])} with more than one:")
    for name, sigs in sorted(figures["several"].items(), key=lambda kv: -len(kv[1])):
        print(f"    {len(sigs)} {name}")
    result = {"bench": "compile", "version": __version__,
              "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
              "machine": {**started, "load_after": machine_load()},
              "command": "python scripts/bench_compile.py"
                         + (f" --cache {args.cache}" if args.cache else ""),
              "cache": "given" if args.cache else "empty", **figures}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    print(f"  written to {args.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
