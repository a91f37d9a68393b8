"""The built-in players' strength (``scripts/bench.py strength`` runs this too): what the
heuristic's declarer, defence, misère declarer and catchers give away against PIMC
(K = 32) on the same closed games and misères, and its raspasy tricks, by
:func:`prefstats.analysis.strength.gauge` (``prefstats strength``), each with n and a 95%
interval, beside the targets of the players' work (declarer ≤ 0.04 and defence ≤ 0.05
tricks a closed game). The seed is one never used to tune the players; the default
36,000 deals give about 3,000 closed games. The figures, the command and the machine go
to ``reports/bench/strength.json``, which the documentation's results page shows.

    .venv/bin/python scripts/bench_strength.py --deals 36000 --seed 90210
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path

from benchtools import machine_load

from prefstats.analysis.strength import gauge

OUT = Path(__file__).resolve().parents[1] / "reports" / "bench" / "strength.json"

#: The most tricks a closed game each side may give away to PIMC (the players' target).
TARGETS = {"declarer": 0.04, "defence": 0.05}
#: The closed games a side's figure is judged on against its target.
JUDGED_ON = 3_000


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=36_000)
    ap.add_argument("--seed", type=int, default=90210)
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--against", default="pimc")
    ap.add_argument("--out", type=Path, default=OUT, help="the JSON file written")
    args = ap.parse_args(argv)
    began = time.perf_counter()
    g = gauge("heuristic", args.against, deals=args.deals, seed=args.seed,
              samples=args.samples, variant=args.variant)
    took = time.perf_counter() - began
    print(f"strength: heuristic against {args.against} (K = {g['samples']}), "
          f"{args.deals:,} {args.variant} deals, seed {args.seed}; {machine_load()}")
    figures: dict[str, float] = {"seconds": took}
    sides = {}
    for side in ("declarer", "defence", "misere_declarer", "misere_catchers"):
        part = g[side]
        ci = part["given_away"]
        target = TARGETS.get(side)
        verdict = ""
        if target is not None:
            met = "met" if ci["mean"] <= target else "not met"
            verdict = (f"  (target ≤ {target}: {met})" if part["games"] >= JUDGED_ON else
                       f"  (target ≤ {target}: fewer than {JUDGED_ON:,} games to judge)")
        print(f"  {side.replace('_', ' '):<16} {part['games']:>6,} games  tricks given away "
              f"{ci['mean']:+.3f} [{ci['low']:+.3f}, {ci['high']:+.3f}]{verdict}")
        figures |= {f"{side}_games": part["games"], f"{side}_given_away": ci["mean"],
                    f"{side}_low": ci["low"], f"{side}_high": ci["high"]}
        sides[side] = {"games": part["games"], "given_away": ci, "target": target,
                       "judged": target is not None and part["games"] >= JUDGED_ON}
    r = g["raspasy"]
    d = r["difference"]
    print(f"  raspasy          {r['deals']:>6,} deals  tricks a seat takes {r['tricks_A']:.3f} "
          f"against {r['tricks_B']:.3f}: {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]")
    figures |= {"raspasy_deals": r["deals"], "raspasy_difference": d["mean"]}
    if g["pimc_ms_per_search"] is not None:
        print(f"  PIMC             {g['pimc_ms_per_search']:.2f} ms a searched card")
        figures["pimc_ms_per_search"] = g["pimc_ms_per_search"]
    print(f"  {took:.0f} s in all")
    from prefstats import __version__

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "bench": "strength", "version": __version__,
        "command": "python scripts/bench_strength.py " + " ".join(
            sys.argv[1:] if argv is None else argv),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine_load(), "seconds": round(took, 1), "variant": args.variant,
        "deals": args.deals, "seed": args.seed, "against": args.against,
        "samples": g["samples"], "sides": sides,
        "raspasy": {"deals": r["deals"], "tricks_heuristic": r["tricks_A"],
                    "tricks_against": r["tricks_B"], "difference": d},
    }, indent=1) + "\n", "utf-8")
    print(f"  written to {args.out}")
    return figures


if __name__ == "__main__":
    main()
