"""The strength gauge: the built-in heuristic card play against PIMC on the same closed games.

The closed two-whister games the heuristic auction reaches on seeded deals (same deals,
same bidding, discard and whist calls) are played from their first card three ways:
everybody by the heuristic; the declarer by PIMC (``--worlds`` sampled deals a card,
:mod:`prefstats.pimc`) against the heuristic defence; the heuristic declarer against a
PIMC defence. Paired on each game, the declarer's tricks under PIMC minus under the
heuristic are the tricks the heuristic declarer gives away; the heuristic defence's
are the tricks the declarer takes against it minus against PIMC. Each with its 95%
interval (normal, on the paired differences), and the shift in the made rate.

A PIMC seat knows what a seat at the table knows: its hand, every card played (by
whom and in which trick, so the voids shown), the shown talon and, as declarer, its
discard. The driver here plays every card through the engine, forced ones included,
so it sees the whole history that the engine's observation does not yet carry.

    .venv/bin/python scripts/strength.py --deals 4000 --seed 1 --worlds 32
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from defence_gap import auction_closed_games

from prefstats import engine
from prefstats.auction import W_WHIST
from prefstats.cards import popcount
from prefstats.contracts import LEVEL, TRUMP
from prefstats.deal import deal, seed_keys
from prefstats.pimc import DEFAULT_WORLDS, pimc_kernel
from prefstats.players.builtin import HEURISTIC, decide, default_params, default_tables
from prefstats.solver import new_table
from prefstats.variants import get_variant

SETUPS = ("heuristic", "PIMC declarer", "PIMC defence")
#: Decisions a deal may take (keys of the worlds' streams): 3 seats x 10 tricks.
_DECISIONS_A_DEAL = 32


# Not cached: numba keys a script's cache on the script alone, so a cached kernel would
# replay the players' machine code from before an edit of prefstats (the package's own
# cache is keyed on all its source, see prefstats/__init__.py).
@njit
def _play_kernel(states, rules, params, tables, pimc_declarer, pimc_defence, key0, key1,
                 table, stats, obs_buf, worlds, values, out):
    """Play each closed game from its first card, each side by PIMC or the heuristic.
    ``out[i]`` = declarer's tricks, PIMC decisions. Returns the first game with an
    illegal card, or -1."""
    obs = obs_buf[0]
    k = worlds.shape[0]
    held = np.zeros(3, np.int64)
    counts = np.zeros(3, np.int64)
    voids = np.zeros(3, np.int64)
    trick = np.zeros(3, np.int64)
    for i in range(states.shape[0]):
        st = states[i]
        declarer = st.declarer
        trump = np.int64(TRUMP[st.contract])
        talon = 0 if st.no_talon else np.int64(st.talon)
        voids[:] = 0
        decisions = 0
        while st.phase != engine.DONE:
            seat = st.to_act
            tlen = st.n_in_trick
            card = engine.forced(st, rules)
            if card < 0:
                if pimc_declarer if seat == declarer else pimc_defence:
                    for s in range(3):
                        held[s] = np.int64(st.hands[s]) if s == seat else 0
                        counts[s] = popcount(np.int64(st.hands[s]))
                    for t in range(tlen):
                        trick[t] = st.trick_cards[t]
                    known_out = np.int64(st.discard) if seat == declarer else 0
                    start = (i * _DECISIONS_A_DEAL + decisions) * k
                    card = pimc_kernel(seat, held, counts, np.int64(st.gone), known_out,
                                       voids, talon, declarer, trick, tlen, st.leader,
                                       declarer, trump, False, key0, key1, start, table,
                                       stats, worlds, values)
                    decisions += 1
                else:
                    engine.observe(st, rules, obs)
                    card = decide(HEURISTIC, obs, rules, params, tables, np.uint64(0))
            if tlen > 0:  # the voids this card shows, for every seat's later samples
                led = st.trick_cards[0] >> 3
                if card >> 3 != led:
                    voids[seat] |= 1 << led
                    if trump >= 0 and card >> 3 != trump:
                        voids[seat] |= 1 << trump
            if engine.apply(st, rules, card) != 0:
                return i
        out[i, 0] = st.tricks[declarer]
        out[i, 1] = decisions
    return -1


def play(states: np.ndarray, variant, *, pimc_declarer: bool, pimc_defence: bool,
         worlds: int = DEFAULT_WORLDS, seed: int = 0) -> tuple[np.ndarray, np.ndarray, float]:
    """Declarer's tricks and PIMC decisions of each game, and the CPU seconds taken."""
    work = states.copy()
    out = np.zeros((len(work), 2), dtype=np.int64)
    _, key0, key1 = seed_keys(seed)
    table = tuple(t[0] for t in new_table(1))
    t0 = time.thread_time()
    bad = _play_kernel(work, engine.rules_array(variant), default_params("heuristic"),
                       default_tables("heuristic"), pimc_declarer, pimc_defence, key0, key1,
                       table, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=engine.OBSERVATION),
                       np.zeros((worlds, 3), np.int64), np.zeros((worlds, 32), np.int8), out)
    took = time.thread_time() - t0
    if bad >= 0:
        raise RuntimeError(f"illegal card in closed game {bad}")
    return out[:, 0], out[:, 1], took


def two_whister_games(n_deals: int, seed: int, variant) -> np.ndarray:
    """The closed games with two whisters that the heuristic auction reaches."""
    states = auction_closed_games(deal(n_deals, seed=seed), variant)
    both = (states["first"] == W_WHIST) & (states["second"] == W_WHIST)
    return states[both]


def _ci(diff: np.ndarray) -> str:
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    return f"{diff.mean():+.3f} [{diff.mean() - half:+.3f}, {diff.mean() + half:+.3f}]"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=4000, help="deals to run the auction on")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--worlds", type=int, default=DEFAULT_WORLDS, help="PIMC samples a card")
    ap.add_argument("--variant", default="sochi")
    args = ap.parse_args(argv)
    if args.deals < 1 or not 1 <= args.worlds <= 4096:
        sys.exit("--deals must be positive and --worlds lie in 1..4096")
    variant = get_variant(args.variant)
    states = two_whister_games(args.deals, args.seed, variant)
    level = LEVEL[states["contract"]].astype(np.int64)
    print(f"{len(states)} closed two-whister games from {args.deals} {args.variant} deals, "
          f"seed {args.seed}; PIMC K = {args.worlds}")
    tricks = []
    for name, pd, pf in zip(SETUPS, (False, True, False), (False, False, True), strict=True):
        got, decisions, took = play(states, variant, pimc_declarer=pd, pimc_defence=pf,
                                    worlds=args.worlds, seed=args.seed)
        tricks.append(got)
        rate = f"{1e3 * took / decisions.sum():.2f} ms a PIMC decision ({decisions.sum()})" \
            if decisions.sum() else ""
        print(f"  {name:<15} declarer tricks {got.mean():.3f}  made "
              f"{np.mean(got >= level):6.1%}  {took:7.1f} s  {rate}")
    base, pimc_decl, pimc_def = tricks
    made = [np.mean(t >= level) for t in tricks]
    print(f"heuristic declarer gives away {_ci(pimc_decl - base)} tricks a game against a "
          f"PIMC declarer; made rate {made[1] - made[0]:+.1%} under PIMC")
    print(f"heuristic defence gives away {_ci(base - pimc_def)} tricks a game against a "
          f"PIMC defence; made rate {made[2] - made[0]:+.1%} under PIMC")


if __name__ == "__main__":
    main()
