"""The defence half of the strength gauge, fast enough to tune on: the heuristic's
closed games (as ``prefstats strength`` reaches them) played out by everybody's
heuristic, and -- once per seed, cached -- with the defence by PIMC.

The gauge's defence figure is the declarer's tricks against the heuristic defence minus
against the PIMC defence, the declarer being the heuristic in both. The second term does
not move when only the defence's card play changes, so a change of the defence moves the
figure by exactly the change in the declarer's tricks against it, paired game by game on
the same deals: that is what ``--baseline`` prints (``--save`` stores a run to compare
with later). ``--pimc`` adds the gauge's own figure with its 95% interval.

    .venv/bin/python scripts/defence_gap_gauge.py --deals 40000 --seed 11 --save /tmp/a.npy
    .venv/bin/python scripts/defence_gap_gauge.py --deals 40000 --seed 11 --baseline /tmp/a.npy
    .venv/bin/python scripts/defence_gap_gauge.py --deals 4000 --seed 2 --pimc
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prefstats import engine
from prefstats.strength import SIDE_A, SIDE_B, _mean_ci, _play_out, first_cards
from prefstats.variants import get_variant


def closed_games(n: int, seed: int, variant: str, samples: int):
    """The closed trick games of ``n`` seeded deals at their first card, with what
    :func:`_play_out` needs."""
    v = get_variant(variant)
    start = first_cards("heuristic", "pimc", deals=n, seed=seed, samples=samples, variant=v)
    states, index = start.states, start.index
    rules, codes, prm, tables, key, obs, table, stats = (
        start.rules, start.codes, start.params, start.tables, start.key, start.obs,
        start.table, start.stats)
    closed = ((states["phase"] == engine.PLAY) & (states["kind"] == engine.GAME)
              & ~states["open"])
    ctx = (rules, codes, prm, tables, key, index[closed], obs, table, stats)
    return states[closed], ctx


def declarer_tricks(games, ctx, defence_side: int) -> np.ndarray:
    """The declarer's tricks in each game, the defence played by ``defence_side``."""
    rules, codes, prm, tables, key, index, obs, table, stats = ctx
    work = games.copy()
    rows = np.arange(len(work))
    declarer = work["declarer"].astype(np.int64)
    sides = np.full((len(work), 3), defence_side, dtype=np.int8)
    sides[rows, declarer] = SIDE_A
    searched = np.zeros(len(work), dtype=np.int64)
    bad = _play_out(work, sides, rules, codes, prm, tables, key, index, obs, table, stats,
                    searched)
    if bad >= 0:
        raise RuntimeError(f"an illegal card in closed game {bad}")
    return work["tricks"][rows, declarer].astype(np.int64)


def _ci(diff: np.ndarray) -> str:
    ci = _mean_ci(diff)
    return f"{ci['mean']:+.4f} [{ci['low']:+.4f}, {ci['high']:+.4f}]"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--pimc", action="store_true", help="also the PIMC defence (cached)")
    ap.add_argument("--cache", default="/tmp/defence-wt", help="folder of the PIMC defence's cache")
    ap.add_argument("--save", help="store the heuristic run's tricks in this .npy file")
    ap.add_argument("--baseline", help="a --save file of the same deals to compare with")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    games, ctx = closed_games(args.deals, args.seed, args.variant, args.samples)
    tricks = declarer_tricks(games, ctx, SIDE_A)
    print(f"{len(games):,} closed games of {args.deals:,} {args.variant} deals, seed "
          f"{args.seed}: declarer's tricks against the heuristic defence "
          f"{tricks.mean():.4f} ({time.perf_counter() - t0:.1f} s)")
    if args.save:
        np.save(args.save, tricks)
    if args.baseline:
        base = np.load(args.baseline)
        if len(base) != len(tricks):
            raise ValueError(f"{args.baseline} holds {len(base)} games, not {len(tricks)}")
        print(f"  against the baseline (negative: the defence gives away less): "
              f"{_ci(tricks - base)}, {int(np.sum(tricks != base)):,} games differ")
    if args.pimc:
        path = Path(args.cache) / (f"defence-pimc-{args.variant}-{args.seed}-{args.deals}-"
                                   f"{args.samples}.npy")
        if path.exists():
            pimc = np.load(path)
        else:
            t1 = time.perf_counter()
            pimc = declarer_tricks(games, ctx, SIDE_B)
            np.save(path, pimc)
            print(f"  PIMC defence played in {time.perf_counter() - t1:.1f} s")
        print(f"  tricks the heuristic defence gives away against PIMC K = {args.samples}: "
              f"{_ci(tricks - pimc)} (n = {len(tricks):,})")


if __name__ == "__main__":
    main()
