"""Benchmark of counterfactual rollouts (``scripts/bench.py rollout`` runs this too):
branch plays per second of :func:`prefstats.sim.rollout.rollout` (compiled, every option of
a deal branched from one shared start; a lone whister's open deal settled by the
solver, misère played card by card by catchers who cannot see the discard, as the
heuristic plays by default), on one core and on ``--workers`` threads, against
the Python forced driver (:func:`~prefstats.sim.rollout.play_forced_hands`: the same
forcing through the ``Player`` protocol) in the same run, and the peak memory of the
run (the workers are threads: the compiled driver releases the GIL). A branch play
is one deal played with one option, scored. Each option's own rate
on one core is printed too (the option sets the work: a forced misère is a misère the
players would never bid, played out by the hidden catchers), and ``play_batch`` on
the same deals, so figures measured on a busy machine can be scaled to its known speed.

    .venv/bin/python scripts/bench_rollout.py --deals 100000 --workers 2
    .venv/bin/python scripts/bench_rollout.py --full 1000000   # the 5-minute criterion
"""

from __future__ import annotations

import argparse
import resource
import time

import numba
import numpy as np
from benchtools import best_time, machine_load, play_batch_rate

from prefstats.game import engine
from prefstats.game.contracts import TRUMP
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.sim.rollout import CHUNK, play_forced_hands, rollout, rollout_states
from prefstats.solver import new_table, solve_kernel


def solver_profile(variant, deals, seat: int, decision: str, options: list[str]) -> None:
    """Where each option's branches spend their time: how many end in a deal settled by
    one solver call (an open game or a misère, at the first card, on the whole ten-trick
    deal after the discard) and what share of the branch's time those solves take (one
    thread, one table kept over the deals, as in a rollout); where most solves are of
    misères, those by the declarer's tricks; then the solves' share of all the branches' time."""
    total = solving = 0.0
    for option in options:
        started = time.perf_counter()
        states, legal = rollout_states(variant, deals, seat=seat, decision=decision,
                                       options=[option])
        branch = time.perf_counter() - started
        st = states[:, 0][legal[:, 0]]
        solved = st[st["double_dummy"]]
        misere = solved["kind"] == engine.MISERE_GAME
        trump = np.where(misere, -1, TRUMP[solved["contract"]])
        table = new_table(1).thread(0)
        taken = np.empty(len(solved), dtype=np.int64)
        seconds = np.empty(len(solved))
        nodes = np.empty(len(solved), dtype=np.int64)
        if len(solved):  # compiled (or loaded from the cache) before the clock starts
            h = solved[0]["hands"].astype(np.int64)
            solve_kernel(h[0], h[1], h[2], 0, int(solved[0]["declarer"]), int(trump[0]),
                         bool(misere[0]), table)
        for i, s in enumerate(solved):
            h = s["hands"].astype(np.int64)
            before = table.nodes[0]
            started = time.perf_counter()
            taken[i] = solve_kernel(h[0], h[1], h[2], 0, int(s["declarer"]), int(trump[i]),
                                    bool(misere[i]), table)
            seconds[i] = time.perf_counter() - started
            nodes[i] = table.nodes[0] - before
        assert (taken == solved["tricks"][np.arange(len(solved)), solved["declarer"]]).all()
        total += branch
        solving += seconds.sum()
        print(f"  forced {option}: {len(deals):,} deals, {len(st):,} legal, {len(solved):,} "
              f"settled by one solve each ({len(solved) / max(len(st), 1):.1%}; "
              f"{1e3 * seconds.mean() if len(solved) else 0:.3f} ms and "
              f"{nodes.mean() if len(solved) else 0:,.0f} nodes a solve): the solves take "
              f"{seconds.sum() / branch:.0%} of the branch's {branch:.2f} s")
        if misere.sum() <= len(solved) / 2:  # the breakdown only where misères are most
            continue
        for t in range(11):
            rows = misere & (taken == t)
            if rows.any():
                print(f"    misère, declarer takes {t:>2}: {rows.sum() / misere.sum():6.1%}  "
                      f"{1e3 * seconds[rows].mean():6.3f} ms, {nodes[rows].mean():9,.0f} "
                      f"nodes a solve")
    print(f"  all {len(options)} options: the solves take {solving / total:.0%} of the "
          f"branches' {total:.2f} s (timed one call at a time, so a little over)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=40_000, help="deals per compiled run")
    ap.add_argument("--python-deals", type=int, default=300,
                    help="deals through the Python forced driver")
    ap.add_argument("--option-deals", type=int, default=5_000,
                    help="deals for each option's own rate")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--variant", default="sochi")
    ap.add_argument("--seat", type=int, default=0)
    ap.add_argument("--options", default="pass,bid,misere")
    ap.add_argument("--decision", default="first_call")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true",
                    help="also profile each option's branches on --option-deals deals: "
                         "the solver's share of their time")
    ap.add_argument("--full", type=int, default=0, metavar="DEALS",
                    help="also time one run of DEALS deals on --workers (1000000: the "
                         "criterion itself, 3.4-3.6 min), not extrapolated")
    args = ap.parse_args(argv)
    numba.set_num_threads(1)
    variant = get_variant(args.variant)
    options = args.options.split(",")
    deals = deal(args.deals, seed=args.seed)
    small = deals[: args.python_deals]
    run = dict(seat=args.seat, decision=args.decision, options=options)
    rollout(variant, deals[:50], **run)  # compile or load the cached kernels
    play_forced_hands(variant, small[:3], **run)

    k = len(options)
    one = len(deals) * k / best_time(lambda: rollout(variant, deals, **run), 2)
    started = time.perf_counter()
    frame = rollout(variant, deals, workers=args.workers, **run)
    many = len(deals) * k / (time.perf_counter() - started)
    python = len(small) * k / best_time(lambda: play_forced_hands(variant, small, **run), 1)
    sample = deals[: args.option_deals]
    alone = {o: len(sample) / best_time(lambda o=o: rollout_states(
        variant, sample, seat=args.seat, decision=args.decision, options=[o]), 1)
        for o in options}
    batch = play_batch_rate(sample, variant)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20

    legal = frame.filter("legal")
    print(f"rollout: {args.variant}, seat {args.seat}, {args.decision} "
          f"({', '.join(options)}), heuristic, open deals by the solver")
    kinds = legal.group_by("option", "kind").len().sort("option", "kind")
    for option in options:
        part = kinds.filter(option=option)
        total = part["len"].sum()
        shares = ", ".join(f"{r['kind']} {100 * r['len'] / total:.1f}%"
                           for r in part.iter_rows(named=True))
        print(f"  {option:<8} legal {total / len(deals):6.1%}: {shares}")
    rows = [
        ("compiled, one core", one, f"{len(deals):,} deals x {k}, best of 2"),
        (f"compiled, {args.workers} workers", many,
         f"{len(deals):,} deals x {k}; target 40,000 on 2 cores"),
        ("Python forced driver", python, f"{len(small):,} deals x {k}, one core"),
    ]
    for name, rate, note in rows:
        print(f"  {name:<26} {rate:>11,.0f} branch plays/s  ({note})")
    for option, rate in alone.items():
        print(f"  {'only ' + option:<26} {rate:>11,.0f} branch plays/s  "
              f"({len(sample):,} deals, one core)")
    print(f"  {'play_batch, same deals':<26} {batch:>11,.0f} deals/s        "
          f"({len(sample):,} deals, unforced, one core: scales this run to an idle "
          f"machine)")
    print(f"  ratio compiled/Python on one core {one / python:,.0f}x")
    million = 1_000_000 * k / many
    print(f"  1,000,000 deals x {k} at {args.workers} workers: {million / 60:.1f} min "
          f"(extrapolated from this run's rate; target 5 min)")
    print(f"  peak memory {own:.2f} GiB (the whole run: the workers are threads of this "
          f"process); a run holds its value columns (8 + 1 + 1 bytes a branch) and one "
          f"{CHUNK:,}-deal chunk of states a worker")
    if args.full:
        full = deal(args.full, seed=args.seed + 1)
        started = time.perf_counter()
        rollout(variant, full, workers=args.workers, **run)
        took = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        print(f"  {args.full:,} deals x {k} at {args.workers} workers, run: {took / 60:.2f} min "
              f"({args.full * k / took:,.0f} branch plays/s; peak memory {peak:.2f} GiB)")
    if args.profile:
        solver_profile(variant, sample, args.seat, args.decision, options)
    print(f"  {machine_load()}")


if __name__ == "__main__":
    main()
