"""The hot paths' speed against an earlier revision, measured in one run.

    python scripts/speed_against.py REV [--rounds 2] [--out FILE] -- SECTION [ARGS] ...

Checks ``REV`` out in a temporary worktree and runs each ``scripts/bench.py`` section
there and here in turn, ``--rounds`` times (interleaved, so a change in the machine's load
falls on both), each tree importing its own package (its own compile cache: a revision
not run before compiles first, minutes of CPU). Every figure a section prints on a line
of its own (``  label   1,234 unit``) is paired by label; the table gives each side's
mean over the rounds, their spread and the change. Sections are separated by ``--``:

    python scripts/speed_against.py 81e4c4e -- simulate --hands 400000 \\
        -- rollout --deals 20000 -- pimc --deals 200 --gauge-deals 200

The figures, the commands, the CPU model and the machine's load go to ``--out``
(default ``reports/bench/against-REV.json``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchtools import cpu_model, machine_load

ROOT = Path(__file__).resolve().parent.parent
#: A figure line: an indented label, a number, a unit.
FIGURE = re.compile(r"^\s+(?P<label>\S.*?)(?:\s{2,}|: )(?P<value>\d[\d,]*(?:\.\d+)?)\s+"
                    r"(?P<unit>[^\s(]+(?: [A-Za-z/]+)*?)(?=\s{2,}|\s*\(|\s*$| on )")


def _figures(lines: list[str]) -> dict[str, tuple[float, str]]:
    """The figure lines of a section's output, by label."""
    out = {}
    for line in lines:
        m = FIGURE.match(line)
        if m:
            out[m["label"].strip()] = (float(m["value"].replace(",", "")), m["unit"])
    return out


def _run(tree: Path, section: list[str]) -> dict[str, tuple[float, str]]:
    """One section's figures, the package imported from ``tree``."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, "scripts/bench.py", "--json", out.name, *section],
                       cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, check=True,
                       stdout=subprocess.DEVNULL)
        result = json.loads(Path(out.name).read_text("utf-8"))
    return _figures(result["sections"][section[0]]["output"])


def _sections(rest: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for word in rest:
        if word == "--":
            out.append([])
        else:
            out[-1].append(word)
    return [s for s in out if s]


def main(argv: list[str] | None = None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", help="the revision to measure against (a commit, tag or branch)")
    ap.add_argument("--rounds", type=int, default=2, help="runs of each side, interleaved")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv[:split])
    sections = _sections(argv[split:]) or [["simulate"], ["rollout"], ["pimc"]]
    rev = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()
    load_before = machine_load()
    runs: dict[str, dict[str, list[dict]]] = {}
    with tempfile.TemporaryDirectory(prefix="prefstats-against-") as tmp:
        base = Path(tmp) / rev
        subprocess.run(["git", "worktree", "add", "--detach", str(base), rev], cwd=ROOT,
                       check=True, capture_output=True)
        try:
            for r in range(args.rounds):
                for section in sections:
                    for side, tree in ((rev, base), (head, ROOT)):
                        print(f"round {r + 1}: {' '.join(section)} at {side} ...", flush=True)
                        runs.setdefault(section[0], {}).setdefault(side, []).append(
                            _run(tree, section))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                           capture_output=True)
    table = []
    print(f"\nspeed of {head} against {rev}, {args.rounds} rounds; {load_before}")
    for section in sections:
        name = section[0]
        print(f"  {' '.join(section)}")
        for label, (_, unit) in runs[name][head][0].items():
            sides = {}
            for side in (rev, head):
                values = [run[label][0] for run in runs[name][side] if label in run]
                if len(values) == args.rounds:
                    sides[side] = values
            if len(sides) < 2:
                continue
            old, new = (sum(v) / len(v) for v in (sides[rev], sides[head]))
            change = (new / old - 1) * 100 if old else 0.0
            spread = max(max(v) - min(v) for v in sides.values()) / max(old, 1e-9) * 100
            table.append({"section": name, "label": label, "unit": unit, rev: sides[rev],
                          head: sides[head], "change_pct": round(change, 1),
                          "spread_pct": round(spread, 1)})
            spread_note = f"  (runs differ by up to {spread:.1f}%)" if args.rounds > 1 else ""
            print(f"    {label:34} {old:>12,.2f} -> {new:>12,.2f} {unit:14} "
                  f"{change:+6.1f}%{spread_note}")
    result = {"bench": "against", "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
              "command": "python scripts/speed_against.py " + " ".join(argv),
              "revision": rev, "head": head, "rounds": args.rounds,
              "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "load_before": load_before,
                          "load_after": machine_load()},
              "sections": [" ".join(s) for s in sections], "figures": table}
    out = args.out or ROOT / "reports" / "bench" / f"against-{rev}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    print(f"  written to {out}")
    return result


if __name__ == "__main__":
    main()
