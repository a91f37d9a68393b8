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
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prefstats import engine
from prefstats.cards import card_name, format_cards
from prefstats.contracts import LADDER, TRUMP
from prefstats.knowledge import observation_knowledge
from prefstats.pimc import _one_run, pimc_kernel
from prefstats.play import seat_keys
from prefstats.players.builtin import HEURISTIC, decide, decision_key, decision_number
from prefstats.strength import SIDE_A, SIDE_B, _mean_ci, _play_out, first_cards
from prefstats.tricks import beats
from prefstats.variants import get_variant

#: Columns of a regret row: game, trick, cards on the table, the heuristic's card,
#: PIMC's best, their values (declarer's tricks) summed over the worlds, the whister's
#: seat, the leader, the card led and the one winning the trick so far (-1 on a lead),
#: the whister's hand and the cards gone.
(R_GAME, R_TRICK, R_POS, R_CARD, R_BEST, R_VALUE, R_BEST_VALUE, R_SEAT, R_LEADER, R_LED,
 R_TOP, R_HAND, R_GONE) = range(13)


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


@njit(cache=True)
def _regret_kernel(states, rules, params, tables, base_key, index, obs_buf, table, stats,
                   samples, rows):
    """Play each game by the heuristic; at each whister's decision between cards that
    are not one run, fill a row of ``rows`` (``R_*``) with PIMC's values of his card and
    of its best. Returns the rows filled, or -1 on an illegal card."""
    obs = obs_buf[0]
    n = 0
    held = np.zeros(3, np.int64)
    counts = np.zeros(3, np.int64)
    voids = np.zeros(3, np.int64)
    trick = np.zeros(3, np.int64)
    worlds = np.zeros((samples, 3), np.int64)
    values = np.zeros((samples, 32), np.int8)
    for i in range(states.shape[0]):
        st = states[i]
        keys = seat_keys(base_key, index[i])
        engine.advance_forced(st, rules)
        while st.phase != engine.DONE:
            engine.observe(st, rules, obs)
            key = decision_key(keys[st.controller], decision_number(obs))
            card = decide(HEURISTIC, obs, rules, params, tables, key)
            me = obs.playing_for
            if me != obs.declarer and n < rows.shape[0]:
                played, out, talon, holder = observation_knowledge(obs, held, counts, voids)
                on_table = np.int64(0)
                for t in range(obs.n_in_trick):
                    trick[t] = obs.trick_cards[t]
                    on_table |= np.int64(1) << trick[t]
                trump = np.int64(TRUMP[obs.contract])
                led = -1 if obs.n_in_trick == 0 else trick[0] >> 3
                if _one_run(held[me], (played | out) & ~on_table, led, trump) < 0:
                    best = pimc_kernel(me, held, counts, played, out, voids, talon, holder,
                                       trick, obs.n_in_trick, obs.leader, obs.declarer,
                                       trump, False, key, ~key, 0, table, stats, worlds,
                                       values)
                    v = 0
                    bv = 0
                    for j in range(samples):
                        v += values[j, card]
                        bv += values[j, best]
                    top = -1
                    rows[n, R_LED] = -1 if obs.n_in_trick == 0 else trick[0]
                    for t in range(obs.n_in_trick):
                        if top < 0 or beats(trick[t], top, trump):
                            top = trick[t]
                    rows[n, R_GAME] = i
                    rows[n, R_TRICK] = obs.trick
                    rows[n, R_POS] = obs.n_in_trick
                    rows[n, R_CARD] = card
                    rows[n, R_BEST] = best
                    rows[n, R_VALUE] = v
                    rows[n, R_BEST_VALUE] = bv
                    rows[n, R_SEAT] = me
                    rows[n, R_LEADER] = obs.leader
                    rows[n, R_TOP] = top
                    rows[n, R_HAND] = held[me]
                    rows[n, R_GONE] = played
                    n += 1
            if engine.apply(st, rules, card) != 0:
                return -1
            engine.advance_forced(st, rules)
    return n


def _place(row, declarer: int) -> str:
    """Where the whister plays: lead (the declarer on his left or right), second or third
    hand and who led."""
    me = int(row[R_SEAT])
    if row[R_POS] == 0:
        return "lead, declarer " + ("left" if declarer == (me + 1) % 3 else "right")
    return (f"{'2nd' if row[R_POS] == 1 else '3rd'} hand, "
            f"{'declarer' if row[R_LEADER] == declarer else 'partner'} led")


def _act(card: int, row, trump: int) -> str:
    """What a card does: a lead by its suit (trump, a master, a sequence's top, low), a
    follow by whether it wins the trick so far, ruffs or is thrown."""
    outstanding = 0xFFFFFFFF & ~int(row[R_GONE]) & ~int(row[R_HAND])
    suit = card >> 3
    mine = int(row[R_HAND]) >> 8 * suit & 0xFF
    above = outstanding >> 8 * suit & 0xFF & ~((2 << (card & 7)) - 1)
    if row[R_POS] == 0:
        kind = "trump" if suit == trump else "side"
        if not above:
            return kind + " master"
        return kind + (" low" if mine & ((1 << (card & 7)) - 1) == 0 else " high")
    top = int(row[R_TOP])
    if suit == int(row[R_LED]) >> 3:
        if beats(card, top, trump):
            return "win master" if not above else "win"
        return "follow low" if mine & ((1 << (card & 7)) - 1) == 0 else "follow high"
    if suit == trump:
        return "ruff" if beats(card, top, trump) else "ruff under"
    return "throw"


def print_regret(rows: np.ndarray, games: np.ndarray, samples: int, show: int) -> None:
    """The tricks given away by decision, grouped (see the module)."""
    loss = (rows[:, R_VALUE] - rows[:, R_BEST_VALUE]) / samples
    n = len(games)
    print(f"{len(rows):,} whisters' decisions with a choice; PIMC's estimate of the tricks "
          f"given away: {loss.sum() / n:.3f} a game")
    print("by trick:  " + "  ".join(f"{t + 1}: {loss[rows[:, R_TRICK] == t].sum() / n:.3f}"
                                    for t in range(10)))
    declarers = games["declarer"][rows[:, R_GAME]].astype(int)
    trumps = TRUMP[games["contract"][rows[:, R_GAME]]].astype(int)
    places = np.array([_place(r, d) for r, d in zip(rows, declarers, strict=True)])
    kinds = np.array([f"{p}: {_act(int(r[R_CARD]), r, t)} / {_act(int(r[R_BEST]), r, t)}"
                      for p, r, t in zip(places, rows, trumps, strict=True)])
    for group in (places, kinds):
        order = sorted(set(group), key=lambda k: -loss[group == k].sum())
        for k in order[:24]:
            m = group == k
            print(f"  {k:<52} {m.sum():6,} decisions  {loss[m].sum() / n:.4f} a game, "
                  f"{np.mean(loss[m] > 0):.1%} lose")
    for r in rows[np.argsort(-loss, kind="stable")[:show]]:
        st = games[r[R_GAME]]
        hands = "  ".join(f"{s}:{format_cards(int(st['hands'][s]))}" for s in range(3))
        print(f"game {r[R_GAME]} {LADDER[int(st['contract'])]} declarer {int(st['declarer'])}"
              f" trick {r[R_TRICK] + 1} seat {r[R_SEAT]} pos {r[R_POS]}: hand "
              f"{format_cards(int(r[R_HAND]))} played {card_name(int(r[R_CARD]))} PIMC "
              f"{card_name(int(r[R_BEST]))} (-{(r[R_VALUE] - r[R_BEST_VALUE]) / samples:.2f});"
              f" start {hands}")


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
    ap.add_argument("--regret", type=int, default=0, help="PIMC worlds valuing each decision")
    ap.add_argument("--show", type=int, default=20, help="costliest decisions to print")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    games, ctx = closed_games(args.deals, args.seed, args.variant, args.samples)
    if args.regret:
        rules, _, prm, tables, key, index, obs, table, stats = ctx
        rows = np.zeros((20 * len(games), 13), dtype=np.int64)
        n = _regret_kernel(games.copy(), rules, prm[0], tables, key, index, obs, table, stats,
                           args.regret, rows)
        if n < 0:
            raise RuntimeError("an illegal card")
        print(f"{len(games):,} closed games of {args.deals:,} {args.variant} deals, seed "
              f"{args.seed} ({time.perf_counter() - t0:.1f} s)")
        print_regret(rows[:n], games, args.regret, args.show)
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
