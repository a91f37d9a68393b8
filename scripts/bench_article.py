"""Benchmark of the rule-comparison article (``prefstats compare`` with no datasets).

    python scripts/bench.py article [--part 4] [--workers N] [--json-out FILE]

Makes the article at a part of its default size (1/``--part`` of the deals and pulkas a
variant) and, as the baseline in the same run, at half of that; each phase (simulating
every variant's deals and pulkas, then writing the article: its analysis, the skill edge
and the charts) is fitted as a fixed time plus a time proportional to the size, and
extrapolated to the default size (200,000 deals and 2,000 pulkas a variant; target ≤ 15
minutes on 2 cores). Both sizes must start the same worker processes: every simulation
starts its own, a fixed cost of about 12 s a table that a linear fit over a size run in
one process and one run in several would take for a cost of the size (at 1/40 against
1/20 it extrapolated 62 minutes for a 10-minute article), so the default sizes, 1/4 and
1/8, both split each table's pulkas into four chunks. The skill edge stops growing at
50,000 deals, so past that the article's extrapolation is an upper bound. The figures,
with the machine's load, also go to ``--json-out`` (default ``reports/bench/article.json``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import inspect
import json
import sys
import tempfile
import time
from pathlib import Path

from benchtools import machine_load

ROOT = Path(__file__).resolve().parent.parent


def _defaults() -> dict[str, int]:
    """The article's default size, as ``prefstats compare`` has it."""
    from prefstats.cli.reporting import compare_command

    params = inspect.signature(compare_command).parameters
    return {k: params[k].default.default for k in ("deals", "pulkas", "pool_target", "seed")}


def _timed(root: Path, deals: int, pulkas: int, default: dict, workers: int | None
           ) -> dict[str, float]:
    """Seconds to simulate every variant at this size, then to write its article."""
    from prefstats.reports.article import make_datasets, write_article

    size = {"deals": deals, "pulkas": pulkas, "pool_target": default["pool_target"],
            "seed": default["seed"]}
    started = time.perf_counter()
    make_datasets(root / "data", workers=workers, progress=False, **size)
    simulated = time.perf_counter()
    write_article(root / "article", root / "data", command="bench", workers=workers,
                  progress=False, **size)  # the datasets are made: it only resumes them
    return {"simulate": simulated - started, "article": time.perf_counter() - simulated}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="bench.py article",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--part", type=int, default=4, help="measure at 1/PART of the "
                        "default size (the baseline at half of that)")
    parser.add_argument("--workers", type=int, default=None, help="default: every core")
    parser.add_argument("--json-out", default=str(ROOT / "reports" / "bench" / "article.json"))
    args = parser.parse_args(argv)
    default = _defaults()
    sizes = {part: (default["deals"] // part, default["pulkas"] // part)
             for part in (args.part * 2, args.part)}
    with tempfile.TemporaryDirectory(prefix="prefstats-bench-article-") as tmp:
        _timed(Path(tmp) / "warm", 400, 20, default, args.workers)  # load the compiled code
        runs = {part: _timed(Path(tmp) / str(part), deals, pulkas, default, args.workers)
                for part, (deals, pulkas) in sizes.items()}
    small, large = runs[args.part * 2], runs[args.part]
    lo, hi = 1 / (args.part * 2), 1 / args.part
    full = {}
    for phase in ("simulate", "article"):
        slope = (large[phase] - small[phase]) / (hi - lo)
        full[phase] = max(large[phase] + slope * (1 - hi), large[phase])
    total = sum(full.values())
    print(f"article: prefstats compare, every preset ({machine_load()})")
    for part, (deals, pulkas) in sizes.items():
        r = runs[part]
        print(f"  1/{part:<3} {deals:>8,} deals {pulkas:>6,} pulkas  simulate "
              f"{r['simulate']:7.1f} s  article {r['article']:7.1f} s")
    print(f"  default {default['deals']:>8,} deals {default['pulkas']:>6,} pulkas  simulate "
          f"{full['simulate']:7.0f} s  article {full['article']:7.0f} s  (extrapolated, "
          "linear in the size; the article's an upper bound)")
    print(f"  total   {total / 60:8.1f} min extrapolated (target ≤ 15 min on 2 cores)")
    from prefstats import __version__

    figures = {"bench": "article", "version": __version__,
               "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
               "command": " ".join(["python scripts/bench.py article", *(argv or [])]),
               "default_deals": default["deals"], "default_pulkas": default["pulkas"],
               "runs": {f"1/{p}": {"deals": sizes[p][0], "pulkas": sizes[p][1], **runs[p]}
                        for p in sizes},
               "extrapolated_s": full, "extrapolated_total_min": total / 60,
               "machine": machine_load()}
    Path(args.json_out).write_text(json.dumps(figures, indent=2) + "\n", "utf-8")
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
