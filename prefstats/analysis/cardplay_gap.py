"""Closed rule-based card play against double dummy on the same closed deals.

Deals are seeded; the closed games are the two-whister games the heuristic auction
reaches, or -- while the auction reaches too few (``--source constructed``, or
``auto`` when the heuristic bids fewer than one deal in ten) -- constructed ones: the
hand with the longest suit declares six of it, discards its two cheapest side cards,
and both defenders whist.

The value of a position is the declarer's tricks under double-dummy play from there on.
Every card a side chooses moves that value or keeps it; the sum of the moves against a
side is its loss, so ``final tricks - value at the start = defence loss - declarer
loss`` exactly. Three set-ups, each on the same deals:

- ``rules``: everybody plays the rule-based card play;
- ``dd declarer``: the declarer plays double dummy: the defence's loss is its gap
  against a perfect declarer;
- ``dd defence``: the defenders play double dummy (cooperating, seeing all cards): the
  declarer's gap.

Last, the open deals of the auction (a lone whister's, misère), played card by card by
the heuristic, against the solver's value of the same deals.

``scripts/defence_gap.py`` prints :func:`gap_report`.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.auction import PASS, W_WHIST
from prefstats.game.contracts import MISERE, TRUMP
from prefstats.players.builtin import (
    HEURISTIC,
    decide,
    default_params,
    default_tables,
    players_record,
)
from prefstats.players.oracle import value_after
from prefstats.sim.play import new_state, play_batch
from prefstats.solver import game_of, new_table, solve_position

RULES_ONLY, DD_DECLARER, DD_DEFENCE = range(3)
SETUPS = ("rules", "dd declarer", "dd defence")


# ---- closed games -------------------------------------------------------------------


def _apply(st, rules, action: int) -> None:
    if engine.apply(st, rules, int(action)) != 0:
        raise RuntimeError(f"illegal {engine.PHASES[int(st['phase'])]} decision {action}")
    engine.advance_forced(st, rules)


def _cheap_discard(hand: int, trump: int) -> int:
    """Two side cards to discard: the lowest, from the shortest suits first."""
    cards = [c for c in range(32) if hand >> c & 1 and c >> 3 != trump]
    length = [bin(hand >> (8 * s) & 0xFF).count("1") for s in range(4)]
    cards.sort(key=lambda c: (c & 7) + 2 * length[c >> 3])
    return (1 << cards[0]) | (1 << cards[1])


def start_of_play(hands, talon, variant, *, declarer: int, contract: int,
                  whist=(W_WHIST, W_WHIST), discard: int | None = None,
                  talon_first: int | None = None) -> np.void:
    """The :data:`engine.STATE` at the first card of a deal where ``declarer`` buys the
    talon with ``contract`` (others pass), discards ``discard`` (default: two cheap side
    cards; on misère the two highest) and the defenders call ``whist``.

    >>> from prefstats.game.cards import parse_cards as p
    >>> from prefstats.game.variants import get_variant
    >>> hands = (p("♠AKQJ1098 ♣AK ♥9"), p("♣QJ1098 ♦AKQJ10"), p("♠7 ♣7 ♦987 ♥AKQJ10"))
    >>> st = start_of_play(hands, p("♥87"), get_variant("sochi"), declarer=0, contract=0)
    >>> int(st["phase"]) == engine.PLAY, bool(st["open"])
    (True, False)
    """
    rules = engine.rules_array(variant)
    st = new_state(hands, talon, talon_first=talon_first)[0]
    bid = False
    opening = MISERE if contract == MISERE else 0  # 6♠ opens (no jumps); he names more
    while st["phase"] == engine.AUCTION:
        bidding = st["to_act"] == declarer and not bid
        _apply(st, rules, opening if bidding else PASS)
        bid |= bidding
    if st["phase"] == engine.DISCARD:
        hand = int(st["hands"][declarer])
        if discard is None:
            if contract == MISERE:
                top = sorted((c for c in range(32) if hand >> c & 1), key=lambda c: c & 7)
                discard = (1 << top[-1]) | (1 << top[-2])
            else:
                discard = _cheap_discard(hand, int(TRUMP[contract]))
        _apply(st, rules, discard)
    if st["phase"] == engine.CONTRACT:
        _apply(st, rules, contract)
    calls = list(whist)
    while st["phase"] == engine.WHIST:
        _apply(st, rules, calls.pop(0))
    return st


def constructed_closed_games(deals, variant) -> np.ndarray:
    """Closed six-level games: the hand with the longest suit declares it, both whist."""
    states = np.zeros(len(deals), dtype=engine.STATE)
    for i in range(len(deals)):
        lengths = np.bitwise_count((deals.hands[i][:, None] >> (8 * np.arange(4))) & 0xFF)
        declarer, trump = np.unravel_index(int(np.argmax(lengths)), lengths.shape)
        states[i] = start_of_play(deals.hands[i], deals.talon[i], variant,
                                  declarer=int(declarer), contract=int(trump))
    return states


def auction_closed_games(deals, variant) -> np.ndarray:
    """The two-whister games the heuristic auction reaches, replayed to their first card."""
    final = play_batch(deals, variant, double_dummy=False)
    rules = engine.rules_array(variant)
    out = []
    for st in final:
        if st["kind"] != engine.GAME or not st["played"] or st["open"]:
            continue
        s = new_state(st["dealt"], st["talon"], talon_first=int(st["talon_first"]),
                      min_level=int(st["min_level"]), raspasy_step=int(st["raspasy_step"]))[0]
        engine.advance_forced(s, rules)
        for call in st["calls"][: st["n_calls"]]:
            _apply(s, rules, call)
        _apply(s, rules, st["discard"])
        _apply(s, rules, st["contract"])
        for call in st["whist_calls"][: st["n_whist"]]:
            _apply(s, rules, call)
        out.append(s)
    return np.array(out, dtype=engine.STATE)


# ---- measuring ----------------------------------------------------------------------


@njit(cache=True)
def _measure_kernel(states, players, dd_declarer, dd_defence, measure, table, obs_buf, out):
    """Play each closed game from its first card; ``out[i]`` = value at the start, final
    declarer tricks, declarer loss, defence loss (values only when ``measure``).
    Returns the first deal with an illegal card, or -1."""
    rules = players.rules
    obs = obs_buf[0]
    for i in range(states.shape[0]):
        st = states[i]
        declarer = st.declarer
        value = 0
        if measure:
            value = st.tricks[declarer] + solve_position(
                np.array([np.int64(st.hands[0]), np.int64(st.hands[1]),
                          np.int64(st.hands[2])]),
                np.zeros(40, np.int64), 0, st.leader,
                game_of(declarer, TRUMP[st.contract], False), table)
        out[i, 0] = value
        out[i, 2] = 0
        out[i, 3] = 0
        engine.advance_forced(st, rules)
        while st.phase != engine.DONE:
            engine.observe(st, rules, obs)
            is_declarer = st.to_act == declarer
            if (dd_declarer and is_declarer) or (dd_defence and not is_declarer):
                best = -1
                best_value = -1
                legal = obs.legal
                for c in range(32):
                    if (legal >> c) & 1:
                        v = value_after(st, c, table)
                        better = v > best_value if is_declarer else v < best_value
                        if best < 0 or better:
                            best = c
                            best_value = v
                card = best
                after = best_value
            else:
                card = decide(HEURISTIC, obs, rules, players.params, players.tables,
                              np.uint64(0))
                after = value_after(st, card, table) if measure else 0
            if is_declarer:
                out[i, 2] += value - after
            else:
                out[i, 3] += after - value
            value = after
            if engine.apply(st, rules, card) != 0:
                return i
            engine.advance_forced(st, rules)
        out[i, 1] = st.tricks[declarer]
    return -1


def play_closed(states: np.ndarray, variant, *, dd_declarer: bool = False,
                dd_defence: bool = False, measure: bool = True) -> np.ndarray:
    """Play copies of ``states`` (at their first card) to the end with the heuristic
    card play, the declarer or the defence playing double dummy if asked; returns
    (n, 4) int64: value at the start, final tricks, declarer loss, defence loss."""
    work = states.copy()
    out = np.zeros((len(work), 4), dtype=np.int64)
    players = players_record(variant, "heuristic", default_params("heuristic"))._replace(
        tables=default_tables("heuristic"))
    bad = _measure_kernel(work, players, dd_declarer, dd_defence, measure,
                          new_table(1).thread(0), np.zeros(1, dtype=engine.OBSERVATION), out)
    if bad >= 0:
        raise RuntimeError(f"illegal card in closed game {bad}")
    return out


def _open_play_lines(deals, variant, out: list[str]) -> None:
    """Open deals (lone whister, misère) played card by card by the heuristic against
    the solver's settlement of the same deals, both reached by the heuristic auction."""
    cards = play_batch(deals, variant, double_dummy=False)
    solved = play_batch(deals, variant, double_dummy=True, misere_catchers="double_dummy")
    for name, mask in (("open games", (cards["kind"] == engine.GAME) & cards["open"]),
                       ("misère", cards["kind"] == engine.MISERE_GAME)):
        rows = np.flatnonzero(mask)
        if not len(rows):
            continue
        declarer = cards["declarer"][rows]
        by_cards = cards["tricks"][rows, declarer]
        by_solver = solved["tricks"][rows, declarer]
        out.append(f"{name:<10} {len(rows):6d} deals: declarer's tricks card by card "
                   f"{by_cards.mean():.3f}, double dummy {by_solver.mean():.3f}"
                   + (f"; caught {np.mean(by_cards > 0):.3f} vs {np.mean(by_solver > 0):.3f}"
                      if name == "misère" else ""))


def gap_report(deals, variant, source: str = "auto") -> str:
    """The three set-ups of the module text on the closed games of ``deals`` (``source``
    ``auction``, ``constructed``, or ``auto``: the auction's unless it reaches fewer
    than one deal in ten), then the open deals, as lines of text."""
    if source not in ("auto", "auction", "constructed"):
        raise OptionError(f"source: expected auto, auction or constructed, got {source!r}")
    out: list[str] = []
    states = np.zeros(0, dtype=engine.STATE)
    if source != "constructed":
        states = auction_closed_games(deals, variant)
        if source == "auto" and len(states) < len(deals) // 10:
            out.append(f"the heuristic auction reached {len(states)} closed games in "
                       f"{len(deals)} deals: using constructed ones")
            source = "constructed"
        else:
            source = "auction"
    if source == "constructed":
        states = constructed_closed_games(deals, variant)
    out.append(f"{len(states)} closed games ({source}), {variant.base} rules")
    out.append(f"{'set-up':<12} {'DD value':>8} {'tricks':>7} {'gap':>6} "
               f"{'defence loss':>13} {'declarer loss':>14} {'seconds':>8}")
    results = []
    for setup, name in enumerate(SETUPS):
        started = time.perf_counter()
        r = play_closed(states, variant, dd_declarer=setup == DD_DECLARER,
                        dd_defence=setup == DD_DEFENCE)
        took = time.perf_counter() - started
        results.append(r)
        out.append(f"{name:<12} {r[:, 0].mean():8.3f} {r[:, 1].mean():7.3f} "
                   f"{(r[:, 1] - r[:, 0]).mean():+6.3f} {r[:, 3].mean():13.3f} "
                   f"{r[:, 2].mean():14.3f} {took:8.1f}")
    out.append("gap = declarer's tricks - double-dummy value; losses are tricks a deal "
               "given away against double-dummy play of the same position")
    rules, dd_declarer, dd_defence = (r[:, 1].mean() for r in results)
    out.append(f"defence gap, rule-based vs double-dummy defence: {rules - dd_defence:.3f} "
               f"tricks a deal against the rule-based declarer, "
               f"{results[DD_DECLARER][:, 3].mean():.3f} against a double-dummy declarer "
               "(aim ≤ 0.5)")
    out.append(f"declarer gap, rule-based vs double-dummy declarer: {dd_declarer - rules:.3f}"
               f" against the rule-based defence, {results[DD_DEFENCE][:, 2].mean():.3f} "
               "against a double-dummy defence")
    _open_play_lines(deals, variant, out)
    return "\n".join(out)
