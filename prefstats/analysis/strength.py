"""The strength gauge: one built-in player's card play against another's, paired on the
same deals (``prefstats strength --policy A --against B``).

Seeded deals are bid, discarded and whisted by policy ``A`` up to their first card; then
each is played out several ways with the same random keys (so a PIMC seat draws the same
worlds wherever the play is the same):

- **closed trick games** (played card by card; open ones are settled double dummy and
  misère is left out): everybody by ``A``; the declarer by ``B`` against ``A``'s
  defence; ``A``'s declarer against ``B``'s defence. The declarer's tricks under ``B``
  minus under ``A`` are the tricks ``A``'s declarer gives away; the declarer's tricks
  against ``A``'s defence minus against ``B``'s, those ``A``'s defence gives away. Each
  with its 95% interval (normal, on the paired differences) and the made rates.
- **raspasy**: each seat in turn played by ``A`` among ``B`` players, against the same
  seat by ``B`` among ``B`` players: the tricks it takes under each (fewer is better).

>>> g = gauge("heuristic", "random", deals=60, seed=2)
>>> g["declarer"]["games"] > 0 and g["declarer"]["given_away"]["mean"] < 0  # random is worse
True
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.contracts import LEVEL
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players.bidding import heuristic_tables
from prefstats.players.builtin import (
    PIMC,
    POLICIES,
    Players,
    decide_with_solver,
    decision_key,
    decision_number,
    player_key,
    players_record,
    resolve_params,
)
from prefstats.players.params import SAMPLES, policy_params
from prefstats.players.pimc import searches
from prefstats.sim.play import deal_arrays, seat_keys, solver_table
from prefstats.solver import Table

#: Who plays a seat's cards in a setup: policy A or B.
SIDE_A, SIDE_B = 0, 1
MAX_DEALS = 10_000_000


@njit(cache=True)
def _to_first_card(deals, players, states, obs_buf, table):
    """Reset each deal and make its decisions by ``players`` up to its first card (or
    its end, a game nobody whisted)."""
    rules = players.rules
    obs = obs_buf[0]
    for i in range(deals.hands.shape[0]):
        st = states[i]
        engine.reset(st, deals.hands[i], deals.talon[i], deals.talon_first[i], 6, 0)
        keys = seat_keys(players.key, deals.numbers[i])
        engine.advance_forced(st, rules)
        while st.phase != engine.DONE and st.phase != engine.PLAY:
            engine.observe(st, rules, obs)
            key = decision_key(keys[st.controller], decision_number(obs))
            action = decide_with_solver(players, obs, key, table)
            if engine.apply(st, rules, action) != 0:
                return i
            engine.advance_forced(st, rules)
    return -1


@njit(cache=True)
def play_out(states, sides, players, index, obs_buf, table, searched):
    """Play each deal to its end, the cards of seat ``s`` decided by the players of side
    ``sides[i, s]`` (``players``: the two sides' records, A and B; the key is A's);
    ``searched[i]`` counts the PIMC searches. Returns the first deal with an illegal
    card, or -1."""
    rules = players[SIDE_A].rules
    obs = obs_buf[0]
    for i in range(states.shape[0]):
        st = states[i]
        keys = seat_keys(players[SIDE_A].key, index[i])
        searched[i] = 0
        engine.advance_forced(st, rules)
        while st.phase != engine.DONE:
            engine.observe(st, rules, obs)
            side = players[np.int64(sides[i, st.controller])]
            key = decision_key(keys[st.controller], decision_number(obs))
            if side.policy == PIMC and searches(obs):
                searched[i] += 1
            action = decide_with_solver(side, obs, key, table)
            if engine.apply(st, rules, action) != 0:
                return i
            engine.advance_forced(st, rules)
    return -1


def mean_ci(diff: np.ndarray) -> dict[str, float]:
    """Mean of paired differences with its normal 95% interval."""
    mean = float(diff.mean()) if len(diff) else float("nan")
    half = 1.96 * float(diff.std(ddof=1)) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
    return {"mean": mean, "low": mean - half, "high": mean + half}


def sides_players(policies: tuple[str, str], samples: int | None, variant: Any,
                  key: np.uint64) -> tuple[Players, Players]:
    """The two sides' players (A, B: ``policies``), ``samples`` worlds for a PIMC one,
    both with the heuristic's tables of ``variant`` and the run's ``key``."""
    return tuple(players_record(variant, p, policy_params(p, samples=samples)
                                if p == "pimc" and samples is not None else resolve_params(p),
                                key=key)._replace(tables=heuristic_tables(variant))
                 for p in policies)  # type: ignore[return-value]


class FirstCards(NamedTuple):
    """Seeded deals bid by policy A and stopped at their first card, with what
    ``play_out`` needs to play them on under either policy."""

    states: np.ndarray
    index: np.ndarray
    players: tuple[Players, Players]
    obs: np.ndarray
    table: Table


def first_cards(policy: str, against: str, *, deals: int, seed: int, samples: int | None,
                variant: Any) -> FirstCards:
    """Bid ``deals`` seeded deals with ``policy`` (the players of ``policy`` and
    ``against``, in that order) up to the first card of the play."""
    players = sides_players((policy, against), samples, variant, np.uint64(player_key(seed)))
    d = deal_arrays(deal(deals, seed=seed))
    states = np.zeros(deals, dtype=engine.STATE)
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    table = solver_table()
    bad = _to_first_card(d, players[SIDE_A], states, obs, table)
    if bad >= 0:
        raise RuntimeError(f"policy {policy!r} made an illegal decision in deal {bad}")
    return FirstCards(states, d.numbers, players, obs, table)


def gauge(policy: str, against: str, *, deals: int, seed: int = 1, samples: int | None = None,
          variant: str | Any = "sochi") -> dict[str, Any]:
    """The gauge of ``policy`` against ``against`` on ``deals`` seeded deals (see the
    module): a dict with ``declarer``, ``defence`` and ``raspasy`` parts, each with its
    paired figures, and the seconds and PIMC searches each setup took.

    ``OptionError`` for an unknown policy, ``deals`` < 1 or ``samples`` out of range.
    """
    for name in (policy, against):
        if name not in POLICIES:
            raise OptionError(f"unknown policy {name!r}; choose from {', '.join(POLICIES)}")
    if not 1 <= deals <= MAX_DEALS:
        raise OptionError(f"deals must lie in 1..{MAX_DEALS:,}, got {deals}")
    if seed < 0:
        raise OptionError(f"seed must be non-negative, got {seed}")
    rules_variant = get_variant(variant) if isinstance(variant, str) else variant
    start = first_cards(policy, against, deals=deals, seed=seed, samples=samples,
                        variant=rules_variant)
    states, index, players = start.states, start.index, start.players
    closed = ((states["phase"] == engine.PLAY) & (states["kind"] == engine.GAME)
              & ~states["open"])
    raspasy = (states["phase"] == engine.PLAY) & (states["kind"] == engine.RASPASY)
    timing: dict[str, dict[str, float]] = {}

    def play(which: np.ndarray, sides: np.ndarray, name: str) -> np.ndarray:
        work = states[which].copy()
        searched = np.zeros(len(work), dtype=np.int64)
        t0 = time.perf_counter()
        bad = play_out(work, np.ascontiguousarray(sides, dtype=np.int8), players,
                       index[which], start.obs, start.table, searched)
        took = time.perf_counter() - t0
        if bad >= 0:
            raise RuntimeError(f"an illegal card in deal {int(index[which][bad])} ({name})")
        timing[name] = {"seconds": took, "pimc_searches": int(searched.sum())}
        return work

    games = states[closed]
    declarer = games["declarer"].astype(np.int64)
    rows = np.arange(len(games))
    level = LEVEL[games["contract"]].astype(np.int64)
    base_sides = np.full((len(games), 3), SIDE_A, dtype=np.int8)
    tricks = {}
    for name, flip_declarer in (("A", None), ("B declarer", True), ("B defence", False)):
        sides = base_sides.copy()
        if flip_declarer is True:
            sides[rows, declarer] = SIDE_B
        elif flip_declarer is False:
            sides[:] = SIDE_B
            sides[rows, declarer] = SIDE_A
        done = play(closed, sides, name)
        tricks[name] = done["tricks"][rows, declarer].astype(np.int64)
    made = {name: float(np.mean(t >= level)) if len(t) else float("nan")
            for name, t in tricks.items()}
    result: dict[str, Any] = {
        "policy": policy, "against": against, "variant": rules_variant.base, "deals": deals,
        "seed": seed, "samples": next((int(p.params[SAMPLES]) for p in players
                                       if p.policy == PIMC), None),
        "declarer": {"games": len(games), "tricks_A": _mean(tricks["A"]),
                     "tricks_B": _mean(tricks["B declarer"]),
                     "given_away": mean_ci(tricks["B declarer"] - tricks["A"]),
                     "made_A": made["A"], "made_B": made["B declarer"]},
        "defence": {"games": len(games), "tricks_A": _mean(tricks["A"]),
                    "tricks_B": _mean(tricks["B defence"]),
                    "given_away": mean_ci(tricks["A"] - tricks["B defence"]),
                    "made_A": made["A"], "made_B": made["B defence"]},
    }
    # raspasy: seat s by A among B players, against everybody by B
    n_r = int(raspasy.sum())
    all_b = play(raspasy, np.full((n_r, 3), SIDE_B, dtype=np.int8), "raspasy B")
    under_a, under_b = [], []
    for seat in range(3):
        sides = np.full((n_r, 3), SIDE_B, dtype=np.int8)
        sides[:, seat] = SIDE_A
        done = play(raspasy, sides, f"raspasy A at seat {seat}")
        under_a.append(done["tricks"][:, seat].astype(np.int64))
        under_b.append(all_b["tricks"][:, seat].astype(np.int64))
    ta, tb = np.concatenate(under_a), np.concatenate(under_b)
    result["raspasy"] = {"deals": n_r, "tricks_A": _mean(ta), "tricks_B": _mean(tb),
                         "difference": mean_ci(ta - tb)}
    result["timing"] = timing
    searches_done = sum(t["pimc_searches"] for t in timing.values())
    result["pimc_ms_per_search"] = (1e3 * sum(t["seconds"] for t in timing.values()
                                              if t["pimc_searches"]) / searches_done
                                    if searches_done else None)
    return result


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if len(x) else float("nan")


def _ci_text(ci: dict[str, float]) -> str:
    return f"{ci['mean']:+.3f} [{ci['low']:+.3f}, {ci['high']:+.3f}]"


def format_gauge(g: dict[str, Any]) -> str:
    """The gauge as a plain-text table."""
    a, b = g["policy"], g["against"]
    k = f", PIMC samples {g['samples']}" if g["samples"] is not None else ""
    lines = [f"{a} against {b}: {g['deals']:,} {g['variant']} deals, seed {g['seed']}{k}"]
    for side in ("declarer", "defence"):
        p = g[side]
        lines.append(
            f"  {side:<9} {p['games']:>6,} closed games  tricks given away by {a}: "
            f"{_ci_text(p['given_away'])}  made {p['made_A']:.1%} ({a}) -> "
            f"{p['made_B']:.1%} ({b} {side})")
    r = g["raspasy"]
    lines.append(f"  raspasy   {r['deals']:>6,} deals  tricks a seat takes: {r['tricks_A']:.3f} "
                 f"({a}) against {r['tricks_B']:.3f} ({b}), {_ci_text(r['difference'])}")
    if g["pimc_ms_per_search"] is not None:
        lines.append(f"  PIMC: {g['pimc_ms_per_search']:.2f} ms a searched card")
    return "\n".join(lines)
