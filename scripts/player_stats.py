"""How the built-in heuristic player bids, whists and scores, per preset.

Plays seeded deals with the heuristic policy at every seat (the solver settling open
deals, as ``play_batch`` does) with the tables of each preset's own deal values
(``default_tables("heuristic", variant)``), and prints, for each preset:

- the evaluator's predicted declarer tricks against the double-dummy solver's on every
  bid game's final hands (after the discard; first hand leading): mean absolute error
  after and before the talon, and a calibration table by predicted value;
- the shares of deals bid, all-passed (raspasy) and misère, the misère catch rate, and
  for trick games: the level mix, made, whisted (by two, by one), passed out and
  half-whisted, with whisting on sixes.

    .venv/bin/python scripts/player_stats.py                 # 20,000 deals per preset
    .venv/bin/python scripts/player_stats.py --deals 2000 --presets sochi
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from prefstats import engine
from prefstats.auction import W_HALF, W_PASS, W_WHIST
from prefstats.contracts import LEVEL, NO_TRUMP, TRUMP
from prefstats.deal import deal
from prefstats.play import play_state, solver_table
from prefstats.players import evaluate as ev
from prefstats.players.builtin import HEURISTIC, default_params, default_tables
from prefstats.solver import solve_batch
from prefstats.variants import PRESETS, get_variant


@njit(cache=True)
def _play(hands, talon, first, rules, params, tables, key, index, states, obs_buf, table,
          stats):
    """``play_batch``'s loop (one :func:`~prefstats.play.play_state` per deal), with the
    tables given."""
    for i in range(len(hands)):
        st = states[i]
        engine.reset(st, hands[i], talon[i], first[i], 6, 0)
        play_state(st, rules, HEURISTIC, params, tables, True, key, index[i], obs_buf[0],
                   table, stats)


def play(d, variant, key: int) -> np.ndarray:
    """Final states of deals ``d`` played by the heuristic with ``variant``'s tables."""
    states = np.zeros(len(d), dtype=engine.STATE)
    _play(d.hands, d.talon, d.talon_first.astype(np.int64), engine.rules_array(variant),
          default_params("heuristic"), default_tables("heuristic", variant), np.uint64(key),
          np.asarray(d.index, dtype=np.int64), states,
          np.zeros(1, dtype=engine.OBSERVATION), solver_table(), np.zeros(1, dtype=np.int64))
    return states


@njit(cache=True)
def _predictions(tables, dealt, final, strain, leads, out):
    for i in range(len(final)):
        out[i, 0] = ev.declarer_tricks(tables, final[i], strain[i], leads[i], False)
        out[i, 1] = ev.declarer_tricks(tables, dealt[i], strain[i], leads[i], True)


def evaluator_report(states: np.ndarray, tables: np.ndarray) -> None:
    """Predicted against solved declarer tricks on the bid games' final hands."""
    g = states[states["kind"] == engine.GAME]
    n = len(g)
    decl = g["declarer"].astype(np.int64)
    rows = np.arange(n)
    dealt = g["dealt"].astype(np.int64)
    final = (dealt[rows, decl] | g["talon"]) & ~g["discard"].astype(np.int64)
    hands = dealt.copy()
    hands[rows, decl] = final
    trump = TRUMP[g["contract"]].astype(np.int64)
    strain = np.where(trump < 0, NO_TRUMP, trump)
    pred = np.zeros((n, 2))
    _predictions(tables, dealt[rows, decl], final, strain, (decl == 0).astype(np.float64),
                 pred)
    t0 = time.perf_counter()
    solved = solve_batch(hands, trump, 0, decl).astype(np.float64)
    after, before = np.abs(pred - solved[:, None]).mean(0)
    print(f"  evaluator vs solver on {n} bid games (solved in "
          f"{time.perf_counter() - t0:.0f} s): MAE after the talon {after:.3f}, before "
          f"{before:.3f} (a constant: {np.abs(solved - solved.mean()).mean():.3f})")
    print("    predicted  deals  mean predicted  mean solved")
    bins = np.clip(np.rint(pred[:, 0]), 4, 10).astype(int)
    for b in range(4, 11):
        sel = bins == b
        if sel.any():
            label = f"{'≤' if b == 4 else '≥' if b == 10 else ' '}{b}"
            print(f"    {label:>9}  {sel.sum():5d}  {pred[sel, 0].mean():14.2f}  "
                  f"{solved[sel].mean():11.2f}")


def play_report(states: np.ndarray) -> None:
    """Shares of the deal outcomes."""
    n = len(states)
    kind = states["kind"]
    games = states[kind == engine.GAME]
    mis = states[kind == engine.MISERE_GAME]
    level = LEVEL[games["contract"]].astype(int)
    first, second = games["first"], games["second"]
    two = (first == W_WHIST) & (second == W_WHIST)
    one = (first == W_WHIST) != (second == W_WHIST)
    half = second == W_HALF
    passed = (first == W_PASS) & (second == W_PASS)
    played = games["played"]
    taken = games["tricks"][np.arange(len(games)), games["declarer"]]
    made = taken >= level
    caught = mis["tricks"][np.arange(len(mis)), mis["declarer"]] > 0

    def pct(x, of):
        return f"{100 * x / of:5.1f} %" if of else "   -  "

    print(f"  bid {pct(len(games) + len(mis), n)}   all-passed (raspasy) "
          f"{pct((kind == engine.RASPASY).sum(), n)}   misère {pct(len(mis), n)} "
          f"(caught {pct(caught.sum(), len(mis))} of {len(mis)})")
    mix = "  ".join(f"{lv}: {pct((level == lv).sum(), len(games))}" for lv in range(6, 11))
    print(f"  trick games {len(games)}; levels {mix}")
    print(f"  made {pct((made & played).sum(), played.sum())} of those played "
          f"({pct((made | ~played).sum(), len(games))} counting games not played)")
    print(f"  whisted {pct((two | one).sum(), len(games))} (two whisters "
          f"{pct(two.sum(), len(games))}, one {pct(one.sum(), len(games))}); "
          f"both passed {pct(passed.sum(), len(games))}; "
          f"half-whisted {pct(half.sum(), len(games))}")
    six = level == 6
    print(f"  on sixes: whisted {pct(((two | one) & six).sum(), six.sum())}, "
          f"half {pct((half & six).sum(), six.sum())}, made "
          f"{pct((made & played & six).sum(), (played & six).sum())} of those played")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--presets", nargs="+", default=list(PRESETS))
    args = ap.parse_args()
    tables = default_tables("heuristic")
    d = deal(args.deals, seed=args.seed)
    for name in args.presets:
        t0 = time.perf_counter()
        states = play(d, get_variant(name), args.seed)
        print(f"{name}: {args.deals} deals, seed {args.seed} "
              f"(played in {time.perf_counter() - t0:.0f} s)")
        play_report(states)
        evaluator_report(states, tables)


if __name__ == "__main__":
    main()
