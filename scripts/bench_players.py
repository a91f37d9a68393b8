"""Benchmark of the players: whole deals per second on one core, auction through score
entries (``scripts/bench.py players`` runs this too).

- closed play: ``play_batch(..., double_dummy=False)``, the heuristic plays every
  card, open deals and misère included (no solver);
- realistic mix: ``play_batch`` as the heuristic policy runs by default, one solver
  call settling each open deal (a lone whister's, misère);
- the Python protocol: ``play_hand`` with three ``BuiltinPlayer`` objects;
- baseline: ``play_hand`` with three ``RandomLegalPlayer`` objects.

Score entries are :func:`prefstats.game.scoring.score_batch` of the finished deals, inside
the timed path. What the deals turned out to be (games, open, misère, raspasy) is
printed, since the mix sets the speed.

    .venv/bin/python scripts/bench_players.py --deals 100000 --variant sochi
"""

from __future__ import annotations

import argparse

import numba
import numpy as np
from benchtools import best_time, machine_load

from prefstats.game import engine
from prefstats.game.deal import deal
from prefstats.game.scoring import score_states
from prefstats.game.variants import get_variant
from prefstats.players.base import RandomLegalPlayer
from prefstats.players.builtin import BuiltinPlayer, seat_key
from prefstats.sim.play import play_batch, play_hand


def _batch(deals, variant, double_dummy):
    states = play_batch(deals, variant, double_dummy=double_dummy)
    score_states(variant, states)
    return states


def _python_path(deals, variant, make_players) -> None:
    for i in range(len(deals)):
        players = make_players(i)
        st = play_hand(deals.hands[i], deals.talon[i], players, variant,
                       talon_first=deals.talon_first[i])
        score_states(variant, st[None])


def _builtin_players(deals):
    def make(i):
        players = [BuiltinPlayer("heuristic") for _ in range(3)]
        for s, p in enumerate(players):
            p.start_deal(seat_key(np.uint64(0), deals.index[i], s))
        return players
    return make


def _mix(states: np.ndarray) -> str:
    kind = states["kind"]
    n = len(states)
    game = kind == engine.GAME
    shares = {
        "raspasy": kind == engine.RASPASY,
        "misère": kind == engine.MISERE_GAME,
        "games not played": game & ~states["played"],
        "closed games": game & states["played"] & ~states["open"],
        "open games": game & states["open"],
    }
    return ", ".join(f"{name} {100 * mask.sum() / n:.1f}%" for name, mask in shares.items())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100_000, help="deals per batch run")
    ap.add_argument("--python-deals", type=int, default=1_000,
                    help="deals through the Python protocol")
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    numba.set_num_threads(1)
    variant = get_variant(args.variant)
    deals = deal(args.deals, seed=args.seed)
    small = deals[: args.python_deals]
    _batch(deals[:100], variant, False)  # compile or load the cached kernels
    _batch(deals[:100], variant, None)
    _python_path(small[:5], variant, _builtin_players(small))

    closed = len(deals) / best_time(lambda: _batch(deals, variant, False), 3)
    states = _batch(deals, variant, None)
    mix = len(deals) / best_time(lambda: _batch(deals, variant, None), 2)
    python = len(small) / best_time(
        lambda: _python_path(small, variant, _builtin_players(small)), 1)
    baseline = len(small) / best_time(lambda: _python_path(
        small, variant, lambda i: [RandomLegalPlayer(seed=3 * i + s) for s in range(3)]), 1)

    print(f"players: {args.variant}, one core, auction through score entries (score_batch); "
          f"{machine_load()}")
    print(f"  deals: {_mix(states)}")
    rows = [
        ("play_batch, no solver", closed, f"{len(deals):,} deals, best of 3; target 50,000"),
        ("play_batch, realistic mix", mix, f"{len(deals):,} deals, best of 2; target 1,000"),
        ("Python protocol (BuiltinPlayer)", python, f"{len(small):,} deals"),
        ("baseline: RandomLegalPlayer", baseline, f"{len(small):,} deals, play_hand"),
    ]
    for name, rate, note in rows:
        print(f"  {name:<32} {rate:>11,.0f} deals/s  ({note})")
    print(f"  ratios: batch/Python protocol {closed / python:,.0f}x, "
          f"batch/random baseline {closed / baseline:,.0f}x, "
          f"Python protocol/random baseline {python / baseline:.1f}x")


if __name__ == "__main__":
    main()
