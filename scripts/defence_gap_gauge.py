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
    .venv/bin/python scripts/defence_gap_gauge.py --deals 4000 --seed 12 --regret 32

``--regret K`` values every legal card of each whister's decision in the all-heuristic
play by PIMC's ``K`` worlds and prints the tricks a decision gives away against PIMC's
best card (PIMC's own estimate, positive: the declarer gains), by trick, by the seat's
place (lead, second or third hand; who led) and by what the card did against PIMC's,
with the costliest decisions to read.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import prefstats
from prefstats.analysis import regret as rg
from prefstats.analysis.strength import SIDE_A, SIDE_B, mean_ci, play_out
from prefstats.game.cards import card_name, format_cards
from prefstats.game.contracts import LADDER, TRUMP
from prefstats.game.tricks import beats
from prefstats.game.variants import get_variant


def declarer_tricks(games, ctx, defence_side: int) -> np.ndarray:
    """The declarer's tricks in each game, the defence played by ``defence_side``."""
    work = games.copy()
    rows = np.arange(len(work))
    declarer = work["declarer"].astype(np.int64)
    sides = np.full((len(work), 3), defence_side, dtype=np.int8)
    sides[rows, declarer] = SIDE_A
    searched = np.zeros(len(work), dtype=np.int64)
    bad = play_out(work, sides, ctx.players, ctx.index, ctx.obs, ctx.table, searched)
    if bad >= 0:
        raise RuntimeError(f"an illegal card in closed game {bad}")
    return work["tricks"][rows, declarer].astype(np.int64)


def _place(row, declarer: int) -> str:
    """Where the whister plays: lead (the declarer on his left or right), second or third
    hand and who led."""
    me = int(row[rg.R_SEAT])
    if row[rg.R_POS] == 0:
        return "lead, declarer " + ("left" if declarer == (me + 1) % 3 else "right")
    return (f"{'2nd' if row[rg.R_POS] == 1 else '3rd'} hand, "
            f"{'declarer' if row[rg.R_LEADER] == declarer else 'partner'} led")


def _act(card: int, row, trump: int) -> str:
    """What a card does: a lead by its suit (trump, a master, a sequence's top, low), a
    follow by whether it wins the trick so far, ruffs or is thrown."""
    outstanding = 0xFFFFFFFF & ~int(row[rg.R_GONE]) & ~int(row[rg.R_HAND])
    suit = card >> 3
    mine = int(row[rg.R_HAND]) >> 8 * suit & 0xFF
    above = outstanding >> 8 * suit & 0xFF & ~((2 << (card & 7)) - 1)
    if row[rg.R_POS] == 0:
        kind = "trump" if suit == trump else "side"
        if not above:
            return kind + " master"
        return kind + (" low" if mine & ((1 << (card & 7)) - 1) == 0 else " high")
    top = int(row[rg.R_TOP])
    if suit == int(row[rg.R_LED]) >> 3:
        if beats(card, top, trump):
            return "win master" if not above else "win"
        return "follow low" if mine & ((1 << (card & 7)) - 1) == 0 else "follow high"
    if suit == trump:
        return "ruff" if beats(card, top, trump) else "ruff under"
    return "throw"


def print_regret(rows: np.ndarray, games: np.ndarray, samples: int, show: int) -> None:
    """The tricks given away by decision, grouped (see the module)."""
    loss = (rows[:, rg.R_VALUE] - rows[:, rg.R_BEST_VALUE]) / samples
    n = len(games)
    print(f"{len(rows):,} whisters' decisions with a choice; PIMC's estimate of the tricks "
          f"given away: {loss.sum() / n:.3f} a game")
    print("by trick:  " + "  ".join(f"{t + 1}: {loss[rows[:, rg.R_TRICK] == t].sum() / n:.3f}"
                                    for t in range(10)))
    declarers = games["declarer"][rows[:, rg.R_GAME]].astype(int)
    trumps = TRUMP[games["contract"][rows[:, rg.R_GAME]]].astype(int)
    places = np.array([_place(r, d) for r, d in zip(rows, declarers, strict=True)])
    kinds = np.array([f"{p}: {_act(int(r[rg.R_CARD]), r, t)} / {_act(int(r[rg.R_BEST]), r, t)}"
                      for p, r, t in zip(places, rows, trumps, strict=True)])
    for group in (places, kinds):
        order = sorted(set(group), key=lambda k: -loss[group == k].sum())
        for k in order[:24]:
            m = group == k
            print(f"  {k:<52} {m.sum():6,} decisions  {loss[m].sum() / n:.4f} a game, "
                  f"{np.mean(loss[m] > 0):.1%} lose")
    for r in rows[np.argsort(-loss, kind="stable")[:show]]:
        st = games[r[rg.R_GAME]]
        hands = "  ".join(f"{s}:{format_cards(int(st['hands'][s]))}" for s in range(3))
        print(f"game {r[rg.R_GAME]} {LADDER[int(st['contract'])]} declarer {int(st['declarer'])}"
              f" trick {r[rg.R_TRICK] + 1} seat {r[rg.R_SEAT]} pos {r[rg.R_POS]}: hand "
              f"{format_cards(int(r[rg.R_HAND]))} played {card_name(int(r[rg.R_CARD]))} PIMC "
              f"{card_name(int(r[rg.R_BEST]))} "
              f"(-{(r[rg.R_VALUE] - r[rg.R_BEST_VALUE]) / samples:.2f});"
              f" start {hands}")


def _ci(diff: np.ndarray) -> str:
    ci = mean_ci(diff)
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
    ap.add_argument("--regret", type=int, default=0, help="PIMC worlds valuing each decision")
    ap.add_argument("--show", type=int, default=20, help="costliest decisions to print")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    games, ctx = rg.closed_games(args.deals, args.seed, get_variant(args.variant),
                                 args.samples)
    if args.regret:
        rows = rg.regret_rows(games, ctx, samples=args.regret, defence=True)
        print(f"{len(games):,} closed games of {args.deals:,} {args.variant} deals, seed "
              f"{args.seed} ({time.perf_counter() - t0:.1f} s)")
        print_regret(rows, games, args.regret, args.show)
        return
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
        # Keyed on the package's source too: the declarer is the heuristic, whose play
        # changes the PIMC defence's result.
        path = Path(args.cache) / (f"defence-pimc-{args.variant}-{args.seed}-{args.deals}-"
                                   f"{args.samples}-{prefstats._cache.key()}.npy")
        if path.exists():
            pimc = np.load(path)
        else:
            t1 = time.perf_counter()
            pimc = declarer_tricks(games, ctx, SIDE_B)
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, pimc)
            print(f"  PIMC defence played in {time.perf_counter() - t1:.1f} s")
        print(f"  tricks the heuristic defence gives away against PIMC K = {args.samples}: "
              f"{_ci(tricks - pimc)} (n = {len(tricks):,})")


if __name__ == "__main__":
    main()
