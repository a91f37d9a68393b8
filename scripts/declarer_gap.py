"""The heuristic declarer's card play on the closed games the heuristic auction reaches:
his tricks against the heuristic defence, paired against an earlier run of the same
deals (to tune the declarer's rules on a cheap, low-noise proxy) and, with
``--samples K``, against a PIMC declarer on the same games (the gauge's declarer figure,
``prefstats strength``, without its defence and raspasy set-ups).

    .venv/bin/python scripts/declarer_gap.py --deals 20000 --seed 11 --save /tmp/before.npz
    .venv/bin/python scripts/declarer_gap.py --deals 20000 --seed 11 --against /tmp/before.npz
    .venv/bin/python scripts/declarer_gap.py --deals 4000 --seed 2 --samples 32
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prefstats import engine
from prefstats.contracts import LEVEL
from prefstats.deal import deal
from prefstats.play import solver_table
from prefstats.players.bidding import heuristic_tables
from prefstats.players.builtin import POLICIES
from prefstats.simulate import player_key
from prefstats.strength import SIDE_A, SIDE_B, _mean_ci, _params_rows, _play_out, _to_first_card
from prefstats.variants import get_variant


def closed_games(deals: int, seed: int, variant, samples: int):
    """The closed trick games of ``deals`` seeded deals at their first card, with the
    engine's inputs for playing them out."""
    rules = engine.rules_array(variant)
    prm = _params_rows(("heuristic", "pimc"), samples or None)
    codes = np.array([POLICIES.index("heuristic"), POLICIES.index("pimc")], dtype=np.int64)
    tables = heuristic_tables(variant)
    key = np.uint64(player_key(seed))
    d = deal(deals, seed=seed)
    index = np.asarray(d.index, dtype=np.int64)
    states = np.zeros(deals, dtype=engine.STATE)
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    table, stats = solver_table(), np.zeros(1, dtype=np.int64)
    bad = _to_first_card(np.ascontiguousarray(d.hands, dtype=np.uint32),
                         np.ascontiguousarray(d.talon, dtype=np.uint32),
                         np.asarray(d.talon_first, dtype=np.int64), rules, codes[0], prm[0],
                         tables, key, index, states, obs, table, stats)
    if bad >= 0:
        raise RuntimeError(f"illegal decision in deal {bad}")
    closed = ((states["phase"] == engine.PLAY) & (states["kind"] == engine.GAME)
              & ~states["open"])

    def play(pimc_declarer: bool) -> np.ndarray:
        work = states[closed].copy()
        rows = np.arange(len(work))
        declarer = work["declarer"].astype(np.int64)
        sides = np.full((len(work), 3), SIDE_A, dtype=np.int8)
        if pimc_declarer:
            sides[rows, declarer] = SIDE_B
        searched = np.zeros(len(work), dtype=np.int64)
        bad = _play_out(work, sides, rules, codes, prm, tables, key, index[closed], obs,
                        table, stats, searched)
        if bad >= 0:
            raise RuntimeError(f"illegal card in deal {int(index[closed][bad])}")
        return work["tricks"][rows, declarer].astype(np.int64)

    return index[closed], LEVEL[states[closed]["contract"]].astype(np.int64), play


def _line(name: str, tricks: np.ndarray, level: np.ndarray) -> str:
    return f"{name:<22} tricks {tricks.mean():.4f}  made {np.mean(tricks >= level):.2%}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--samples", type=int, default=0, help="PIMC samples (0: no PIMC)")
    ap.add_argument("--save", type=Path, help="write the games and tricks here (.npz)")
    ap.add_argument("--against", type=Path, help="an earlier --save run of the same deals")
    args = ap.parse_args(argv)
    games, level, play = closed_games(args.deals, args.seed, get_variant(args.variant),
                                      args.samples)
    t0 = time.perf_counter()
    heuristic = play(False)
    print(f"{len(games):,} closed games of {args.deals:,} {args.variant} deals, seed "
          f"{args.seed} ({time.perf_counter() - t0:.1f} s)")
    print(_line("heuristic declarer", heuristic, level))
    if args.save:
        np.savez(args.save, games=games, tricks=heuristic)
    if args.against:
        before = np.load(args.against)
        if not np.array_equal(before["games"], games):
            raise SystemExit(f"{args.against} holds other games")
        ci = _mean_ci(heuristic - before["tricks"])
        print(_line("earlier run", before["tricks"], level))
        print(f"gain against the earlier run: {ci['mean']:+.4f} [{ci['low']:+.4f}, "
              f"{ci['high']:+.4f}] tricks a game, {np.mean(heuristic != before['tricks']):.1%}"
              " of games changed")
    if args.samples:
        t0 = time.perf_counter()
        pimc = play(True)
        ci = _mean_ci(pimc - heuristic)
        print(_line(f"PIMC declarer (K={args.samples})", pimc, level)
              + f"  ({time.perf_counter() - t0:.0f} s)")
        print(f"given away by the heuristic declarer: {ci['mean']:+.3f} [{ci['low']:+.3f}, "
              f"{ci['high']:+.3f}] tricks a game (n = {len(games):,})")


if __name__ == "__main__":
    main()
