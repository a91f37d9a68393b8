"""The strength gauge: one built-in player's card play against another's, paired on the
same deals (``prefstats strength --policy A --against B``).

Seeded deals are bid, discarded and whisted by policy ``A`` up to their first card; then
each is played out several ways with the same random keys (so a PIMC seat draws the same
worlds wherever the play is the same):

- **closed trick games** (played card by card; open ones are settled double dummy):
  everybody by ``A``; the declarer by ``B`` against ``A``'s defence; ``A``'s declarer
  against ``B``'s defence. The declarer's tricks under ``B`` minus under ``A`` are the
  tricks ``A``'s declarer gives away; the declarer's tricks against ``A``'s defence minus
  against ``B``'s, those ``A``'s defence gives away. Each with its 95% interval (normal,
  on the paired differences) and the made rates.
- **misère** (the deals whose auction ends in one), the same three ways: the tricks
  ``A``'s declarer takes minus ``B``'s are what ``A``'s declarer gives away; the tricks
  the declarer takes against ``B``'s catchers minus against ``A``'s, what ``A``'s
  catchers give away (tricks the declarer escapes); with the caught rates. A policy that
  plays open deals double dummy plays an open misère by the catchers' model
  (``misere_catchers``, :mod:`prefstats.players.misere`), the heuristic and PIMC alike,
  so between those two only a closed (dark) misère can differ; the random player plays
  at random.
- **raspasy**: each seat in turn played by ``A`` among ``B`` players, against the same
  seat by ``B`` among ``B`` players: the tricks it takes under each (fewer is better).

A positive "given away" means ``A`` does worse than ``B``.

>>> g = gauge("heuristic", "random", deals=60, seed=2)
>>> g["declarer"]["games"] > 0 and g["declarer"]["given_away"]["mean"] < 0  # random is worse
True
>>> g = gauge("random", "heuristic", deals=200, seed=5)  # random auctions: many misères
>>> g["misere_declarer"]["given_away"]["low"] > 0 and g["misere_catchers"]["given_away"]["low"] > 0
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
from prefstats.game.exact import Z95
from prefstats.game.variants import get_variant
from prefstats.players.bidding import heuristic_tables
from prefstats.players.builtin import (
    DOUBLE_DUMMY_OPEN,
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
from prefstats.players.misere import catchers_code, open_misere_card
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
    ``sides[i, s]`` (``players``: the two sides' records, A and B; the key is A's); a
    side that plays open deals double dummy plays an open misère by its catchers' model
    (:func:`~prefstats.players.misere.open_misere_card`), as in a simulation.
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
            if (side.double_dummy and st.phase == engine.PLAY and st.open
                    and st.kind == engine.MISERE_GAME):
                action = open_misere_card(st, obs.legal, side.catchers, table)
            else:
                action = decide_with_solver(side, obs, key, table)
            if engine.apply(st, rules, action) != 0:
                return i
            engine.advance_forced(st, rules)
    return -1


def mean_ci(diff: np.ndarray) -> dict[str, float]:
    """Mean of paired differences with its normal 95% interval."""
    mean = float(diff.mean()) if len(diff) else float("nan")
    half = Z95 * float(diff.std(ddof=1)) / len(diff) ** 0.5 if len(diff) > 1 else float("nan")
    return {"mean": mean, "low": mean - half, "high": mean + half}


def sides_players(policies: tuple[str, str], samples: int | None, variant: Any,
                  key: np.uint64, catchers: str = "hidden") -> tuple[Players, Players]:
    """The two sides' players (A, B: ``policies``), ``samples`` worlds for a PIMC one,
    both with the heuristic's tables of ``variant``, the run's ``key`` and the misère
    ``catchers`` model."""
    return tuple(players_record(variant, p, policy_params(p, samples=samples)
                                if p == "pimc" and samples is not None else resolve_params(p),
                                key=key, catchers=catchers)._replace(
                                    tables=heuristic_tables(variant))
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
                variant: Any, catchers: str = "hidden") -> FirstCards:
    """Bid ``deals`` seeded deals with ``policy`` (the players of ``policy`` and
    ``against``, in that order, with the misère ``catchers`` model) up to the first card
    of the play."""
    players = sides_players((policy, against), samples, variant, np.uint64(player_key(seed)),
                            catchers)
    d = deal_arrays(deal(deals, seed=seed))
    states = np.zeros(deals, dtype=engine.STATE)
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    table = solver_table()
    bad = _to_first_card(d, players[SIDE_A], states, obs, table)
    if bad >= 0:
        raise RuntimeError(f"policy {policy!r} made an illegal decision in deal {bad}")
    return FirstCards(states, d.numbers, players, obs, table)


def misere_play(policy: str, catchers: str) -> str:
    """How built-in ``policy`` plays a misère's cards, in words (``catchers``: the model
    of the misère catchers)."""
    if not DOUBLE_DUMMY_OPEN[POLICIES.index(policy)]:
        return "at random"
    closed = "PIMC's search" if policy == "pimc" else "the heuristic's rules"
    return (f"open: the declarer double dummy, the catchers {CATCHERS_TEXT[catchers]}; "
            f"closed (dark): {closed}")


#: The misère catchers' models in words.
CATCHERS_TEXT = {"hidden": "who cannot see the discard (hidden)",
                 "double_dummy": "who see the discard (double_dummy, an upper bound)"}


def gauge(policy: str, against: str, *, deals: int, seed: int = 1, samples: int | None = None,
          variant: str | Any = "sochi", misere_catchers: str = "hidden") -> dict[str, Any]:
    """The gauge of ``policy`` against ``against`` on ``deals`` seeded deals (see the
    module): a dict with ``declarer``, ``defence``, ``misere_declarer``,
    ``misere_catchers`` and ``raspasy`` parts, each with its paired figures, how each
    policy plays misère (``misere_play``) under the ``misere_catchers`` model, and the
    seconds and PIMC searches each setup took.

    ``OptionError`` for an unknown policy or catchers model, ``deals`` < 1 or
    ``samples`` out of range.
    """
    for name in (policy, against):
        if name not in POLICIES:
            raise OptionError(f"unknown policy {name!r}; choose from {', '.join(POLICIES)}")
    if not 1 <= deals <= MAX_DEALS:
        raise OptionError(f"deals must lie in 1..{MAX_DEALS:,}, got {deals}")
    if seed < 0:
        raise OptionError(f"seed must be non-negative, got {seed}")
    catchers_code(misere_catchers)
    rules_variant = get_variant(variant) if isinstance(variant, str) else variant
    start = first_cards(policy, against, deals=deals, seed=seed, samples=samples,
                        variant=rules_variant, catchers=misere_catchers)
    states, index, players = start.states, start.index, start.players
    playing = states["phase"] == engine.PLAY
    closed = playing & (states["kind"] == engine.GAME) & ~states["open"]
    misere = playing & (states["kind"] == engine.MISERE_GAME)
    raspasy = playing & (states["kind"] == engine.RASPASY)
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

    def three_ways(which: np.ndarray, names: tuple[str, str, str]) -> list[np.ndarray]:
        """The declarer's tricks in the games ``which`` played by everybody A, the
        declarer by B, the other two by B (the setups' ``names``)."""
        declarer = states[which]["declarer"].astype(np.int64)
        rows = np.arange(len(declarer))
        tricks = []
        for name, setup in zip(names, ("A", "B declarer", "B other"), strict=True):
            sides = np.full((len(rows), 3), SIDE_A if setup != "B other" else SIDE_B,
                            dtype=np.int8)
            sides[rows, declarer] = SIDE_B if setup == "B declarer" else SIDE_A
            tricks.append(play(which, sides, name)["tricks"][rows, declarer].astype(np.int64))
        return tricks

    games = states[closed]
    level = LEVEL[games["contract"]].astype(np.int64)
    all_a, b_declarer, b_defence = three_ways(closed, ("A", "B declarer", "B defence"))
    result: dict[str, Any] = {
        "policy": policy, "against": against, "variant": rules_variant.base, "deals": deals,
        "seed": seed, "samples": next((int(p.params[SAMPLES]) for p in players
                                       if p.policy == PIMC), None),
        "declarer": {"games": len(games), "tricks_A": _mean(all_a),
                     "tricks_B": _mean(b_declarer),
                     "given_away": mean_ci(b_declarer - all_a),
                     "made_A": _mean(all_a >= level), "made_B": _mean(b_declarer >= level)},
        "defence": {"games": len(games), "tricks_A": _mean(all_a),
                    "tricks_B": _mean(b_defence),
                    "given_away": mean_ci(all_a - b_defence),
                    "made_A": _mean(all_a >= level), "made_B": _mean(b_defence >= level)},
    }
    # misère: the declarer's tricks, fewer for him and more for the catchers is better
    all_a, b_declarer, b_catchers = three_ways(
        misere, ("misère A", "misère B declarer", "misère B catchers"))
    n_m = int(misere.sum())
    result["misere_declarer"] = {"games": n_m, "tricks_A": _mean(all_a),
                                 "tricks_B": _mean(b_declarer),
                                 "given_away": mean_ci(all_a - b_declarer),
                                 "caught_A": _mean(all_a > 0), "caught_B": _mean(b_declarer > 0)}
    result["misere_catchers"] = {"games": n_m, "tricks_A": _mean(all_a),
                                 "tricks_B": _mean(b_catchers),
                                 "given_away": mean_ci(b_catchers - all_a),
                                 "caught_A": _mean(all_a > 0), "caught_B": _mean(b_catchers > 0)}
    result["misere_catchers_model"] = misere_catchers
    result["misere_play"] = {p: misere_play(p, misere_catchers) for p in (policy, against)}
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
            f"  {side:<15} {p['games']:>6,} closed games  tricks given away by {a}: "
            f"{_ci_text(p['given_away'])}  made {p['made_A']:.1%} ({a}) -> "
            f"{p['made_B']:.1%} ({b} {side})")
    for side in ("declarer", "catchers"):
        p = g[f"misere_{side}"]
        lines.append(
            f"  {'misère ' + side:<15} {p['games']:>6,} misères       tricks given away by {a}: "
            f"{_ci_text(p['given_away'])}  caught {p['caught_A']:.1%} ({a}) -> "
            f"{p['caught_B']:.1%} ({b} {side})")
    play = g["misere_play"]
    lines.append(f"  misère played by {a}: {play[a]}")
    if b != a:
        lines.append(f"  misère played by {b}: {play[b]}")
        if all(DOUBLE_DUMMY_OPEN[POLICIES.index(p)] for p in (a, b)):
            lines.append(f"  ({a} and {b} play an open misère alike: open misères give away "
                         "exactly 0, only closed ones can differ)")
    r = g["raspasy"]
    lines.append(f"  {'raspasy':<15} {r['deals']:>6,} deals  tricks a seat takes: "
                 f"{r['tricks_A']:.3f} ({a}) against {r['tricks_B']:.3f} ({b}), "
                 f"{_ci_text(r['difference'])}")
    if g["pimc_ms_per_search"] is not None:
        lines.append(f"  PIMC: {g['pimc_ms_per_search']:.2f} ms a searched card")
    return "\n".join(lines)
