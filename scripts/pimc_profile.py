"""Profile of PIMC's card decisions: the decisions of the strength gauge (heuristic
against PIMC, Sochi, closed games) recorded as knowledge records, then replayed one by
one, timing the sampling and the search apart and counting the search's nodes.

    .venv/bin/python scripts/pimc_profile.py --deals 300 --samples 32

It prints the share of the time in sampling and in ``best_card_kernel``, the nodes a
decision, the same figures by cards left in hand, and a checksum of the chosen cards
(equal before and after a change that must not change decisions). ``--against FILE``
counts the cards that differ from those a run saved with ``--save FILE`` (today's code,
say); ``--check`` compares each searched card with the plain rule it must equal, the
best total of every legal card's exact value over the worlds, ties to the lowest card
(``card_values_batch_kernel``; slower than the search itself).

``--heldout`` also prices deciding from fewer worlds (see :func:`heldout`): a finer
strength test than the gauge for a change that searches fewer of them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from prefstats.analysis.strength import SIDE_A, SIDE_B, first_cards
from prefstats.game import engine
from prefstats.game.cards import popcount
from prefstats.game.contracts import TRUMP
from prefstats.game.variants import get_variant
from prefstats.players.builtin import PIMC, decide_with_solver, decision_key, decision_number
from prefstats.players.knowledge import draws_of, known_of, observation_knowledge
from prefstats.players.pimc import KEY_SPLIT, sampled, searches
from prefstats.sim.play import seat_keys
from prefstats.solver import (
    TT_BITS,
    best_card_kernel,
    card_values_batch_kernel,
    decision_of,
    new_table,
)

# Columns of a recorded decision.
SEAT, HELD, COUNTS, PLAYED, OUT, VOIDS, TALON, HOLDER, TRICK, TLEN, LEADER, DECL, TR, MIS, \
    KEY, SAMPLES = 0, 1, 4, 7, 8, 9, 12, 13, 14, 17, 18, 19, 20, 21, 22, 23
WIDTH = 24


@njit
def _record(states, sides, players, index, obs_buf, table, rec, n_rec):
    """``play_out`` of :mod:`prefstats.analysis.strength`, writing each PIMC decision's record."""
    rules = players[SIDE_A].rules
    obs = obs_buf[0]
    held = np.zeros(3, np.int64)
    counts = np.zeros(3, np.int64)
    voids = np.zeros(3, np.int64)
    for i in range(states.shape[0]):
        st = states[i]
        keys = seat_keys(players[SIDE_A].key, index[i])
        engine.advance_forced(st, rules)
        while st.phase != engine.DONE:
            engine.observe(st, rules, obs)
            side = players[np.int64(sides[i, st.controller])]
            key = decision_key(keys[st.controller], decision_number(obs))
            if side.policy == PIMC and searches(obs) and n_rec[0] < rec.shape[0]:
                r = rec[n_rec[0]]
                n_rec[0] += 1
                played, out, talon, holder = observation_knowledge(obs, held, counts, voids)
                r[SEAT] = obs.playing_for
                for s in range(3):
                    r[HELD + s] = held[s]
                    r[COUNTS + s] = counts[s]
                    r[VOIDS + s] = voids[s]
                    r[TRICK + s] = obs.trick_cards[s] if s < obs.n_in_trick else 0
                r[PLAYED] = played
                r[OUT] = out
                r[TALON] = talon
                r[HOLDER] = holder
                r[TLEN] = obs.n_in_trick
                r[LEADER] = obs.leader
                r[DECL] = obs.declarer
                misere = obs.kind == engine.MISERE_GAME
                r[TR] = -1 if misere else TRUMP[obs.contract]
                r[MIS] = misere
                r[KEY] = np.int64(key)
            action = decide_with_solver(side, obs, key, table)
            engine.apply(st, rules, action)
            engine.advance_forced(st, rules)


@njit
def _sample_one(r, worlds):
    key = np.uint64(r[KEY])
    known = known_of(r[SEAT], r[HELD:HELD + 3].copy(), r[COUNTS:COUNTS + 3].copy(), r[PLAYED],
                     r[OUT], r[VOIDS:VOIDS + 3].copy(), r[TALON], r[HOLDER])
    return sampled(known, _decision(r), draws_of(key, key ^ KEY_SPLIT, 0), worlds)


@njit
def _decision(r):
    return decision_of(r[TRICK:TRICK + 3].copy(), r[TLEN], r[LEADER], r[DECL], r[TR], r[MIS] != 0)


@njit
def _search_one(r, worlds, table):
    return best_card_kernel(worlds, _decision(r), table)


@njit
def _values_one(r, worlds, table, out):
    """Every legal card's value in each of ``worlds`` for decision ``r``, signed so
    that more is better for the seat to play."""
    card_values_batch_kernel(worlds, _decision(r), table, out)
    mover = (r[LEADER] + r[TLEN]) % 3
    return 1 if (mover == r[DECL]) != (r[MIS] != 0) else -1


def _choice(values: np.ndarray) -> int:
    """PIMC's column: the best total, ties to the lowest card."""
    return int(np.argmax(values.sum(axis=0)))


def plain_rule(recs: np.ndarray, worlds: np.ndarray, searched: np.ndarray) -> np.ndarray:
    """The card of the best total exact value over each decision's worlds, ties to the
    lowest: what ``best_card_kernel`` must choose."""
    out = np.full((worlds.shape[1], 32), -1, np.int8)
    table = new_table(1).thread(0)
    cards = np.full(len(recs), -1, np.int64)
    for i in searched:
        sign = _values_one(recs[i], worlds[i], table, out)
        legal = np.flatnonzero(out[0] >= 0)
        cards[i] = legal[_choice(sign * out[:, legal].astype(np.int64))]
    return cards


def _racing_stop(values: np.ndarray, first: int) -> int:
    """Worlds a racing rule would search: the first m >= ``first`` after which the
    leading card has been no worse than any other in each world so far (what the
    bounds of ``best_card_kernel`` show cheaply), else all."""
    for m in range(first, len(values)):
        a = _choice(values[:m])
        if (values[:m, a:a + 1] >= values[:m]).all():
            return m
    return len(values)


def heldout(recs: np.ndarray, samples: int, secs: np.ndarray) -> None:
    """The strength cost of deciding from fewer worlds: each searched decision's card
    from its first K' worlds (or as many as a racing rule searches) against the card of
    all K, both valued on K more worlds of the decision's stream that neither saw (an
    unbiased loss, in tricks a decision). The time share counts a decision's search
    time (``secs``) as proportional to its worlds: an upper bound on the saving (world
    one is solved exactly and the last bounds are narrowed whatever the count)."""
    k = samples
    rules = [(f"first {f} worlds", lambda v, f=f: f) for f in (k // 2, 5 * k // 8, 3 * k // 4,
                                                                  7 * k // 8)]
    rules += [(f"racing from {f}", lambda v, f=f: _racing_stop(v, f))
              for f in (3 * k // 8, k // 2, 5 * k // 8, 3 * k // 4)]
    loss = np.zeros((len(rules), len(recs)))
    share = np.zeros((len(rules), len(recs)))
    changed = np.zeros((len(rules), len(recs)))
    worlds = np.zeros((2 * k, 3), np.int64)
    out = np.full((2 * k, 32), -1, np.int8)
    table = new_table(1).thread(0)
    for i in range(len(recs)):
        _sample_one(recs[i], worlds)  # rows k.. continue the decision's own stream
        sign = _values_one(recs[i], worlds, table, out)
        legal = np.flatnonzero(out[0] >= 0)
        v = sign * out[:k, legal].astype(np.int64)
        held = sign * out[k:, legal].astype(np.float64)
        full = _choice(v)
        for r, (_, stop) in enumerate(rules):
            m = stop(v)
            a = _choice(v[:m])
            loss[r, i] = held[:, full].mean() - held[:, a].mean()
            share[r, i] = secs[i] * m / k
            changed[r, i] = a != full
    print(f"  held out: {len(recs)} searched decisions, each rule against all {k} worlds")
    print("    rule               time share  changed  loss in tricks a decision")
    for r, (name, _) in enumerate(rules):
        se = loss[r].std() / np.sqrt(len(recs))
        print(f"    {name:18s} {share[r].sum() / secs.sum():10.3f} {changed[r].mean():8.3f}"
              f"  {loss[r].mean():+.5f} ± {se:.5f}")


def record(deals: int, seed: int, samples: int) -> np.ndarray:
    start = first_cards("heuristic", "pimc", deals=deals, seed=seed, samples=samples,
                        variant=get_variant("sochi"))
    st = start.states
    closed = (st["phase"] == engine.PLAY) & (st["kind"] == engine.GAME) & ~st["open"]
    games = st[closed]
    rows = np.arange(len(games))
    decl = games["declarer"].astype(np.int64)
    rec = np.zeros((200_000, WIDTH), np.int64)
    n_rec = np.zeros(1, np.int64)
    for flip in (True, False):
        sides = np.full((len(games), 3), SIDE_A if flip else SIDE_B, dtype=np.int8)
        sides[rows, decl] = SIDE_B if flip else SIDE_A
        _record(games.copy(), sides, start.players, start.index[closed], start.obs, start.table,
                rec, n_rec)
    return rec[: n_rec[0]]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--save", help="write the chosen cards to this .npy file (to compare)")
    ap.add_argument("--against", help="count the chosen cards that differ from this --save file")
    ap.add_argument("--check", action="store_true",
                    help="compare each searched card with the plain rule's (exact values)")
    ap.add_argument("--bits", type=int, default=TT_BITS, help="log2 of the table's entries")
    ap.add_argument("--heldout", action="store_true",
                    help="also price deciding from fewer worlds on held-out worlds")
    args = ap.parse_args(argv)
    recs = record(args.deals, args.seed, args.samples)
    n = len(recs)
    worlds = np.zeros((n, args.samples, 3), np.int64)
    only = np.zeros(n, np.int64)
    for i in range(n):  # compile, and keep the worlds for the search's timing
        only[i] = _sample_one(recs[i], worlds[i])
    t_sample = 1e9
    for _ in range(args.repeat):
        t0 = time.thread_time()
        for i in range(n):
            _sample_one(recs[i], worlds[i])
        t_sample = min(t_sample, time.thread_time() - t0)
    searched = np.flatnonzero(only < 0)
    cards_left = np.array([popcount(int(recs[i, HELD + recs[i, SEAT]])) for i in range(n)])
    chosen = only.copy()
    nodes = np.zeros(n, np.int64)
    secs = np.full(n, np.inf)
    best = 1e9
    for rep in range(args.repeat):
        table = new_table(1, args.bits).thread(0)  # fresh each pass: the same work each
        if rep == 0:
            _search_one(recs[searched[0]], worlds[searched[0]], table)
            table = new_table(1, args.bits).thread(0)
        t_all = time.thread_time()
        for i in searched:
            s0 = table.nodes[0]
            t0 = time.perf_counter()
            chosen[i] = _search_one(recs[i], worlds[i], table)
            secs[i] = min(secs[i], time.perf_counter() - t0)
            nodes[i] = table.nodes[0] - s0
        best = min(best, time.thread_time() - t_all)
    print(f"{n} decisions, {len(searched)} searched, K = {args.samples}, table 2**{args.bits}")
    print(f"  sampling   {1e3 * t_sample / n:.3f} ms a decision")
    print(f"  search     {1e3 * best / n:.3f} ms a decision (best of {args.repeat})")
    print(f"  total      {1e3 * (t_sample + best) / n:.3f} ms a decision")
    print(f"  nodes      {nodes.sum() / n:,.0f} a decision")
    print("  by cards in hand: decisions, searched, ms a searched one, nodes a searched one")
    for c in range(10, 0, -1):
        m = cards_left == c
        s = m & (only < 0)
        if m.any():
            ms = 1e3 * secs[s].mean() if s.any() else 0.0
            per = nodes[s].mean() if s.any() else 0.0
            print(f"    {c:2d}: {m.sum():5d} {s.sum():5d} {ms:8.3f} {per:10,.0f}")
    print(f"  chosen checksum {int((chosen * np.arange(1, n + 1)).sum() % 1_000_000_007)}")
    if args.save:
        np.save(args.save, chosen)
    if args.against:
        before = np.load(args.against)
        if before.shape != chosen.shape:
            raise SystemExit(f"{args.against} holds {before.size} cards, this run {n}: "
                             "record both with the same --deals, --seed and --samples")
        print(f"  against {args.against}: {int((before != chosen).sum())} of {n} cards differ")
    if args.check:
        plain = plain_rule(recs, worlds, searched)
        differ = int((plain[searched] != chosen[searched]).sum())
        print(f"  plain rule: {differ} of {len(searched)} searched cards differ")
    if args.heldout:
        heldout(recs[searched], args.samples, secs[searched])


if __name__ == "__main__":
    main()
