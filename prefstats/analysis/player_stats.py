"""How the built-in heuristic player bids, whists and scores under a variant: the
realism figures of ``prefstats player-stats``.

Plays seeded deals with the heuristic at every seat (the solver settling open deals, as
:func:`~prefstats.sim.play.play_batch` does) and describes:

- the shares of deals bid, all-passed (raspasy) and misère, the misère catch rate, and
  for trick games: the level mix, made, whisted (by two, by one), passed out and
  half-whisted, with whisting on sixes;
- where the variant has them: deals with a dark bid (and won dark, made), with a blind
  pass, bids and games without the talon (made);
- two players (Gusarik): the defender's call and the raspasy tricks;
- the evaluator's predicted declarer tricks against the double-dummy solver's on every
  bid game's final hands (after the discard; first hand leading): mean absolute error
  after and before the talon, and a calibration table by predicted value.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from prefstats.game import engine
from prefstats.game.auction import BLIND_PASS, N_CALLS, NO_TALON_BID, W_HALF, W_PASS, W_WHIST
from prefstats.game.contracts import LEVEL, NO_TRUMP, TRUMP
from prefstats.players import evaluate as ev
from prefstats.sim.play import play_batch
from prefstats.solver import solve_batch


def _pct(x, of) -> str:
    return f"{100 * x / of:5.1f} %" if of else "   -  "


def player_stats(deals, variant, *, key: int = 0, raspasy_step: int = 0, bombs: int = 1,
                 offsets: np.ndarray | None = None, solve: bool = True) -> str:
    """The figures of the module text for ``deals`` played under ``variant`` by the
    heuristic (players' random draws keyed by ``key``; every deal at ``raspasy_step``,
    every seat's bomb multiplier ``bombs``; ``offsets`` of the calls default to the
    variant's shipped fit), as lines of text; ``solve=False`` leaves out the evaluator's
    check against the solver.

    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> print(player_stats(deal(200, seed=1), get_variant("sochi"), solve=False))
    ... # doctest: +ELLIPSIS
      bid ... % ...
    """
    states = play_batch(deals, variant, key=key, raspasy_step=raspasy_step, bombs=bombs,
                        offsets=offsets)
    out: list[str] = []
    _play_lines(states, out)
    if variant.dark_bids or variant.blind_pass or variant.no_talon_bids:
        _classic_lines(states, out)
    if variant.players == 2:
        _gusarik_lines(states, out)
    if solve:
        _evaluator_lines(states, out)
    return "\n".join(out)


@njit(cache=True)
def _predictions(tables, dealt, final, strain, leads, out):
    for i in range(len(final)):
        out[i, 0] = ev.declarer_tricks(tables, final[i], strain[i], leads[i], False)
        out[i, 1] = ev.declarer_tricks(tables, dealt[i], strain[i], leads[i], True)


def _evaluator_lines(states: np.ndarray, out: list[str]) -> None:
    """Predicted against solved declarer tricks on the bid games' final hands."""
    tables = ev.load_tables()
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
    out.append(f"  evaluator vs solver on {n} bid games (solved in "
               f"{time.perf_counter() - t0:.0f} s): MAE after the talon {after:.3f}, before "
               f"{before:.3f} (a constant: {np.abs(solved - solved.mean()).mean():.3f})")
    out.append("    predicted  deals  mean predicted  mean solved")
    bins = np.clip(np.rint(pred[:, 0]), 4, 10).astype(int)
    for b in range(4, 11):
        sel = bins == b
        if sel.any():
            label = f"{'≤' if b == 4 else '≥' if b == 10 else ' '}{b}"
            out.append(f"    {label:>9}  {sel.sum():5d}  {pred[sel, 0].mean():14.2f}  "
                       f"{solved[sel].mean():11.2f}")


def _play_lines(states: np.ndarray, out: list[str]) -> None:
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

    out.append(f"  bid {_pct(len(games) + len(mis), n)}   all-passed (raspasy) "
               f"{_pct((kind == engine.RASPASY).sum(), n)}   misère {_pct(len(mis), n)} "
               f"(caught {_pct(caught.sum(), len(mis))} of {len(mis)})")
    mix = "  ".join(f"{lv}: {_pct((level == lv).sum(), len(games))}" for lv in range(6, 11))
    out.append(f"  trick games {len(games)}; levels {mix}")
    out.append(f"  made {_pct((made & played).sum(), played.sum())} of those played "
               f"({_pct((made | ~played).sum(), len(games))} counting games not played)")
    out.append(f"  whisted {_pct((two | one).sum(), len(games))} (two whisters "
               f"{_pct(two.sum(), len(games))}, one {_pct(one.sum(), len(games))}); "
               f"both passed {_pct(passed.sum(), len(games))}; "
               f"half-whisted {_pct(half.sum(), len(games))}")
    six = level == 6
    out.append(f"  on sixes: whisted {_pct(((two | one) & six).sum(), six.sum())}, "
               f"half {_pct((half & six).sum(), six.sum())}, made "
               f"{_pct((made & played & six).sum(), (played & six).sum())} of those played")


def _first_calls(states: np.ndarray) -> np.ndarray:
    """``(n, N_CALLS)`` counts of each call in the deals' auctions."""
    counts = np.zeros((len(states), N_CALLS), dtype=np.int64)
    for i, st in enumerate(states):
        calls = st["calls"][: st["n_calls"]]
        np.add.at(counts[i], calls.astype(np.int64), 1)
    return counts


def _classic_lines(states: np.ndarray, out: list[str]) -> None:
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
    raspasy = states["kind"] == engine.RASPASY
    out.append(f"  dark bid in {_pct(dark.sum(), n)} of deals (won dark "
               f"{_pct(won_dark.sum(), n)}, made "
               f"{_pct((won_dark & made).sum(), (won_dark & games).sum())} of those trick "
               f"games); blind pass in {_pct(blind.sum(), n)} ({counts[:, BLIND_PASS].sum()} "
               f"calls; all passed after one {_pct((blind & raspasy).sum(), blind.sum())})")
    out.append(f"  bids without the talon in {_pct(bids_nt.sum(), n)} of deals; played so "
               f"{_pct(nt.sum(), n)} (trick games {(nt & games).sum()}, made "
               f"{_pct((nt & made).sum(), (nt & games).sum())}; misère "
               f"{(nt & (states['kind'] == engine.MISERE_GAME)).sum()}); multiplier > 1 in "
               f"{_pct((states['multiplier'] > 1).sum(), n)}")


def _gusarik_lines(states: np.ndarray, out: list[str]) -> None:
    """The defender's call and the raspasy tricks."""
    games = states[states["kind"] == engine.GAME]
    decl = games["declarer"].astype(np.int64)
    # the defending player's call: the role that is not the dummy's (seat 2)
    dummy_first = (decl + 1) % 3 == 2
    call = np.where(dummy_first, games["second"], games["first"])
    ras = states[states["kind"] == engine.RASPASY]
    two = (ras["tricks"][:, 2] == 0).all() and (ras["tricks"][:, :2].sum(1) == 10).all()
    n = len(games)
    out.append(f"  defender with the dummy: whist {_pct((call == W_WHIST).sum(), n)}, pass "
               f"{_pct((call == W_PASS).sum(), n)}, half {_pct((call == W_HALF).sum(), n)}; "
               f"raspasy {len(ras)}: the two players' tricks sum to 10 and the dummy has none: "
               f"{two}; mean tricks of the first hand {ras['tricks'][:, 0].mean():.2f}")
