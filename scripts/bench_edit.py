"""What an edit beside the kernels costs the next run (``scripts/bench.py edit`` runs this).

The package is copied to a temporary folder and a plain Python function appended to
``prefstats/sim/storage.py`` and to a module that holds kernels
(``prefstats/sim/play.py``); a one-hand rollout (the README's hand, ``prefstats rollout``
in a fresh process, import and cache loading included) is then timed from the edited copy
against the same command from the unedited one, in the same run and with the same
compile cache: the edited copy's first run is what a recompile would slow (minutes), so
the edit recompiles nothing when it takes about the unedited run's time.

    python scripts/bench.py edit [--deals 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtools import machine_load

ROOT = Path(__file__).resolve().parent.parent
HAND = "♠AKQJ10 ♣AK ♦AK ♥A"
EDITED = ("prefstats/sim/storage.py", "prefstats/sim/play.py")
APPENDED = ('\n\ndef _appended_by_the_benchmark(x):\n'
            '    """Return ``x`` twice."""\n    return [x, x]\n')


def _run(root: Path, deals: int) -> float:
    """Seconds of one rollout in a fresh process importing the package from ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "prefstats", "rollout", HAND, "--deals", str(deals),
                    "--format", "json"], env=env, cwd=root, check=True, capture_output=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=2000, help="deals of the rollout")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, the best kept")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="prefstats-edit-") as tmp:
        copies = {}
        for name in ("unedited", "edited"):
            copies[name] = Path(tmp) / name
            shutil.copytree(ROOT / "prefstats", copies[name] / "prefstats",
                            ignore=shutil.ignore_patterns("__pycache__"))
        for path in EDITED:
            with open(copies["edited"] / path, "a", encoding="utf-8") as f:
                f.write(APPENDED)
        _run(copies["unedited"], args.deals)  # the warm cache, loaded once
        first = _run(copies["edited"], args.deals)  # what a recompile would slow
        runs = {name: [_run(root, args.deals) for _ in range(args.repeat)]
                for name, root in copies.items()}
    warm = min(runs["unedited"])
    ratio = first / warm
    print(f"edit: a function appended to {' and '.join(EDITED)}; one-hand rollout of "
          f"{args.deals:,} deals in a fresh process; {machine_load()}")
    print(f"  unedited package       {warm:8.2f} s  (best of {args.repeat}: "
          f"{', '.join(f'{t:.2f}' for t in runs['unedited'])})")
    print(f"  edited, first run      {first:8.2f} s  ({ratio:.2f}x the unedited; then "
          f"{', '.join(f'{t:.2f}' for t in runs['edited'])})")
    return {"unedited_s": warm, "edited_first_s": first, "edited_s": runs["edited"],
            "unedited_runs_s": runs["unedited"], "ratio": ratio}


if __name__ == "__main__":
    main(sys.argv[1:])
