"""The heuristic declarer's card play on the closed games the heuristic auction reaches:
his tricks against the heuristic defence, paired against an earlier run of the same
deals (to tune the declarer's rules on a cheap, low-noise proxy) and, with
``--samples K``, against a PIMC declarer on the same games (the gauge's declarer figure,
``prefstats strength``, without its defence and raspasy set-ups).

    .venv/bin/python scripts/declarer_gap.py --deals 20000 --seed 11 --save /tmp/before.npz
    .venv/bin/python scripts/declarer_gap.py --deals 20000 --seed 11 --against /tmp/before.npz
    .venv/bin/python scripts/declarer_gap.py --deals 4000 --seed 2 --samples 32
    .venv/bin/python scripts/declarer_gap.py --deals 4000 --seed 12 --regret 32

``--regret K`` values every legal card of each of the heuristic declarer's decisions in
the all-heuristic play by PIMC's ``K`` worlds and prints the tricks a decision gives away
against PIMC's best card (PIMC's own estimate), by trick and by the kind of decision,
with the costliest decisions to read.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from prefstats.analysis import regret as rg
from prefstats.analysis.strength import SIDE_A, SIDE_B, mean_ci, play_out
from prefstats.game.cards import card_name, format_cards
from prefstats.game.contracts import LADDER, LEVEL, TRUMP
from prefstats.game.variants import get_variant


def closed_games(deals: int, seed: int, variant, samples: int):
    """The closed trick games of ``deals`` seeded deals (:func:`rg.closed_games`): their
    deal numbers, levels, and how to play them out and value their decisions."""
    games, ctx = rg.closed_games(deals, seed, variant, samples or None)
    index = ctx.index

    def play(pimc_declarer: bool) -> np.ndarray:
        work = games.copy()
        rows = np.arange(len(work))
        declarer = work["declarer"].astype(np.int64)
        sides = np.full((len(work), 3), SIDE_A, dtype=np.int8)
        if pimc_declarer:
            sides[rows, declarer] = SIDE_B
        searched = np.zeros(len(work), dtype=np.int64)
        bad = play_out(work, sides, ctx.players, index, ctx.obs, ctx.table, searched)
        if bad >= 0:
            raise RuntimeError(f"illegal card in deal {int(index[bad])}")
        return work["tricks"][rows, declarer].astype(np.int64)

    def regret(k: int) -> tuple[np.ndarray, np.ndarray]:
        return rg.regret_rows(games, ctx, samples=k, defence=False, per_game=12), games

    return index, LEVEL[games["contract"]].astype(np.int64), play, regret


def _what(card: int, row, trump: int) -> str:
    """A card in words: trump or side suit, master (no outstanding card above) or not."""
    outstanding = 0xFFFFFFFF & ~int(row[rg.R_GONE]) & ~int(row[rg.R_HAND])
    above = outstanding >> 8 * (card >> 3) & 0xFF & ~((2 << (card & 7)) - 1)
    return ("trump" if card >> 3 == trump else "side") + ("" if above else " master")


def _kind(row, trump: int) -> str:
    """What the heuristic did against PIMC's card, in words."""
    where = "lead" if row[rg.R_POS] == 0 else f"follow {int(row[rg.R_POS]) + 1}"
    card, best = int(row[rg.R_CARD]), int(row[rg.R_BEST])
    return f"{where} {_what(card, row, trump)} / {_what(best, row, trump)}"


def print_regret(rows: np.ndarray, games: np.ndarray, samples: int, show: int) -> None:
    """The tricks given away by decision, grouped (see the module)."""
    loss = (rows[:, rg.R_BEST_VALUE] - rows[:, rg.R_VALUE]) / samples
    n_games = len(games)
    print(f"{len(rows):,} declarer decisions with a choice; PIMC's estimate of the tricks "
          f"given away: {loss.sum() / n_games:.3f} a game")
    print("by trick:  " + "  ".join(f"{t + 1}: {loss[rows[:, rg.R_TRICK] == t].sum() / n_games:.3f}"
                                    for t in range(10)))
    trumps = TRUMP[games["contract"][rows[:, rg.R_GAME]]]
    kinds = np.array([_kind(r, int(t)) for r, t in zip(rows, trumps, strict=True)])
    for k in sorted(set(kinds)):
        m = kinds == k
        print(f"  {k:<36} {m.sum():6,} decisions  {loss[m].sum() / n_games:.3f} a game, "
              f"{np.mean(loss[m] > 0):.1%} differ")
    for r in rows[np.argsort(-loss, kind="stable")[:show]]:
        st = games[r[rg.R_GAME]]
        d = int(st["declarer"])
        hands = "  ".join(f"{s}:{format_cards(int(st['hands'][s]))}" for s in range(3))
        print(f"game {r[rg.R_GAME]} {LADDER[int(st['contract'])]} declarer {d}"
              f" trick {r[rg.R_TRICK] + 1} pos {r[rg.R_POS]}: hand "
              f"{format_cards(int(r[rg.R_HAND]))}"
              f" played {card_name(int(r[rg.R_CARD]))} PIMC {card_name(int(r[rg.R_BEST]))} "
              f"(-{(r[rg.R_BEST_VALUE] - r[rg.R_VALUE]) / samples:.2f}); start {hands}")


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
    ap.add_argument("--regret", type=int, default=0, help="PIMC worlds valuing each decision")
    ap.add_argument("--show", type=int, default=20, help="costliest decisions to print")
    args = ap.parse_args(argv)
    games, level, play, regret = closed_games(args.deals, args.seed, get_variant(args.variant),
                                              args.samples)
    if args.regret:
        rows, start = regret(args.regret)
        print_regret(rows, start, args.regret, args.show)
        if args.save:
            np.savez(args.save, rows=rows, start=start)
        return
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
        ci = mean_ci(heuristic - before["tricks"])
        print(_line("earlier run", before["tricks"], level))
        print(f"gain against the earlier run: {ci['mean']:+.4f} [{ci['low']:+.4f}, "
              f"{ci['high']:+.4f}] tricks a game, {np.mean(heuristic != before['tricks']):.1%}"
              " of games changed")
    if args.samples:
        t0 = time.perf_counter()
        pimc = play(True)
        ci = mean_ci(pimc - heuristic)
        print(_line(f"PIMC declarer (K={args.samples})", pimc, level)
              + f"  ({time.perf_counter() - t0:.0f} s)")
        print(f"given away by the heuristic declarer: {ci['mean']:+.3f} [{ci['low']:+.3f}, "
              f"{ci['high']:+.3f}] tricks a game (n = {len(games):,})")


if __name__ == "__main__":
    main()
