"""How the built-in heuristic player bids, whists and scores, per preset.

Plays seeded deals with the heuristic policy at every seat (the solver settling open
deals, as ``play_batch`` does) with the tables of each preset's own deal values
(``default_tables("heuristic", variant)``), and prints, for each preset:

- the evaluator's predicted declarer tricks against the double-dummy solver's on every
  bid game's final hands (after the discard; first hand leading): mean absolute error
  after and before the talon, and a calibration table by predicted value;
- the shares of deals bid, all-passed (raspasy) and misère, the misère catch rate, and
  for trick games: the level mix, made, whisted (by two, by one), passed out and
  half-whisted, with whisting on sixes;
- classic: deals with a dark bid (and won dark, made), with a blind pass, bids and
  games without the talon (made), at raspasy step 0 and without bombs unless
  ``--step`` / ``--bombs`` say otherwise;
- Gusarik: the defender's call (whist with the dummy, pass, half) and the raspasy
  tricks (two cards each, the dummy's none).

A preset may name its table size as ``name/4`` (``classic/4``: four players).

    .venv/bin/python scripts/player_stats.py                 # 20,000 deals per preset
    .venv/bin/python scripts/player_stats.py --deals 2000 --presets sochi
    .venv/bin/python scripts/player_stats.py --presets classic classic/4 gusarik
    .venv/bin/python scripts/player_stats.py --presets rostov --unfitted   # before the fit
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from prefstats.game import engine
from prefstats.game.auction import BLIND_PASS, N_CALLS, NO_TALON_BID, W_HALF, W_PASS, W_WHIST
from prefstats.game.contracts import LEVEL, NO_TRUMP, TRUMP
from prefstats.game.deal import deal
from prefstats.game.variants import PRESETS, get_variant
from prefstats.players import adjust
from prefstats.players import evaluate as ev
from prefstats.players.builtin import HEURISTIC, default_params, default_tables
from prefstats.sim.play import play_state, solver_table
from prefstats.solver import solve_batch


@njit(cache=True)
def _play(hands, talon, first, rules, params, tables, key, index, states, obs_buf, table,
          stats, step, bomb):
    """``play_batch``'s loop (one :func:`~prefstats.sim.play.play_state` per deal), with the
    tables given."""
    for i in range(len(hands)):
        st = states[i]
        engine.reset(st, hands[i], talon[i], first[i], 6, step)
        st.bombs[:] = bomb
        play_state(st, rules, HEURISTIC, params, tables, True, key, index[i], obs_buf[0],
                   table, stats)


def play(d, variant, key: int, step: int = 0, bomb: int = 1) -> np.ndarray:
    """Final states of deals ``d`` played by the heuristic with ``variant``'s tables."""
    states = np.zeros(len(d), dtype=engine.STATE)
    _play(d.hands, d.talon, d.talon_first.astype(np.int64), engine.rules_array(variant),
          default_params("heuristic"), default_tables("heuristic", variant), np.uint64(key),
          np.asarray(d.index, dtype=np.int64), states,
          np.zeros(1, dtype=engine.OBSERVATION), solver_table(), np.zeros(1, dtype=np.int64),
          step, bomb)
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
    talon = np.where(g["no_talon"], 0, g["talon"].astype(np.int64))
    final = (dealt[rows, decl] | talon) & ~g["discard"].astype(np.int64)
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


def _first_calls(states: np.ndarray) -> np.ndarray:
    """``(n, N_CALLS)`` counts of each call in the deals' auctions."""
    counts = np.zeros((len(states), N_CALLS), dtype=np.int64)
    for i, st in enumerate(states):
        calls = st["calls"][: st["n_calls"]]
        np.add.at(counts[i], calls.astype(np.int64), 1)
    return counts


def classic_report(states: np.ndarray) -> None:
    """Dark bids, blind passes and games without the talon."""
    n = len(states)
    counts = _first_calls(states)
    dark = states["dark"] != 0
    blind = states["blind"] != 0
    decl = states["declarer"].astype(np.int64)
    won_dark = (decl >= 0) & ((states["dark"] >> np.maximum(decl, 0)) & 1).astype(bool)
    bids_nt = counts[:, NO_TALON_BID:].sum(1) > 0
    nt = states["no_talon"]
    games = states["kind"] == engine.GAME
    rows = np.arange(n)
    taken = states["tricks"][rows, np.maximum(decl, 0)]
    level = LEVEL[np.maximum(states["contract"], 0)]
    made = games & ((taken >= level) | ~states["played"])

    def pct(x, of):
        return f"{100 * x / of:5.1f} %" if of else "   -  "

    raspasy = states["kind"] == engine.RASPASY
    print(f"  dark bid in {pct(dark.sum(), n)} of deals (won dark {pct(won_dark.sum(), n)}, "
          f"made {pct((won_dark & made).sum(), (won_dark & games).sum())} of those trick "
          f"games); blind pass in {pct(blind.sum(), n)} ({counts[:, BLIND_PASS].sum()} "
          f"calls; all passed after one {pct((blind & raspasy).sum(), blind.sum())})")
    print(f"  bids without the talon in {pct(bids_nt.sum(), n)} of deals; played so "
          f"{pct(nt.sum(), n)} (trick games {(nt & games).sum()}, made "
          f"{pct((nt & made).sum(), (nt & games).sum())}; misère "
          f"{(nt & (states['kind'] == engine.MISERE_GAME)).sum()}); multiplier > 1 in "
          f"{pct((states['multiplier'] > 1).sum(), n)}")


def gusarik_report(states: np.ndarray) -> None:
    """The defender's call and the raspasy tricks."""
    games = states[states["kind"] == engine.GAME]
    decl = games["declarer"].astype(np.int64)
    # the defending player's call: the role that is not the dummy's (seat 2)
    dummy_first = (decl + 1) % 3 == 2
    call = np.where(dummy_first, games["second"], games["first"])
    ras = states[states["kind"] == engine.RASPASY]
    two = (ras["tricks"][:, 2] == 0).all() and (ras["tricks"][:, :2].sum(1) == 10).all()
    n = len(games)

    def pct(x, of):
        return f"{100 * x / of:5.1f} %" if of else "   -  "

    print(f"  defender with the dummy: whist {pct((call == W_WHIST).sum(), n)}, pass "
          f"{pct((call == W_PASS).sum(), n)}, half {pct((call == W_HALF).sum(), n)}; "
          f"raspasy {len(ras)}: the two players' tricks sum to 10 and the dummy has none: "
          f"{two}; mean tricks of the first hand {ras['tricks'][:, 0].mean():.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--presets", nargs="+", default=list(PRESETS),
                    help="preset names, name/4 for four players")
    ap.add_argument("--step", type=int, default=0, help="raspasy step of every deal")
    ap.add_argument("--bombs", type=int, default=1, help="every seat's bomb multiplier")
    ap.add_argument("--unfitted", action="store_true",
                    help="the unfitted heuristic (zero offsets) instead of the shipped fit")
    args = ap.parse_args()
    tables = default_tables("heuristic")
    d = deal(args.deals, seed=args.seed)
    for spec in args.presets:
        name, _, players = spec.partition("/")
        variant = get_variant(name, players=int(players) if players else None)
        t0 = time.perf_counter()
        offsets = np.zeros(adjust.SIZE) if args.unfitted else adjust.fitted(variant)
        with adjust.using(variant, offsets):
            states = play(d, variant, args.seed, args.step, args.bombs)
        fitted = "unfitted" if args.unfitted or adjust.fit_meta(variant) is None else "fitted"
        print(f"{spec} ({fitted} players): {args.deals} deals, seed {args.seed}, raspasy "
              f"step {args.step}, bombs {args.bombs} (played in "
              f"{time.perf_counter() - t0:.0f} s)")
        play_report(states)
        if variant.dark_bids or variant.blind_pass or variant.no_talon_bids:
            classic_report(states)
        if variant.players == 2:
            gusarik_report(states)
        evaluator_report(states, tables)


if __name__ == "__main__":
    main()
