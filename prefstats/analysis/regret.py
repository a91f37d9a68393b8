"""Regret of the heuristic's card play by PIMC's own estimate: at each card decision of
one side (the declarer, or the whisters) in the all-heuristic play of closed games, the
tricks PIMC's worlds give the heuristic's card against PIMC's best card. The card-play
gauges ``scripts/declarer_gap.py --regret`` and ``scripts/defence_gap_gauge.py
--regret`` print it by trick and kind of decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.analysis.strength import first_cards
from prefstats.game import engine
from prefstats.game.contracts import TRUMP
from prefstats.game.tricks import beats
from prefstats.players.builtin import HEURISTIC, decide, decision_key, decision_number
from prefstats.players.knowledge import draws_of, known_of, observation_knowledge
from prefstats.players.pimc import _one_run, pimc_kernel
from prefstats.sim.play import seat_keys
from prefstats.solver import decision_of

#: Columns of a regret row: game, trick, cards on the table, the heuristic's card,
#: PIMC's best, their values (the declarer's tricks) summed over the worlds, the seat,
#: the leader, the card led and the one winning the trick so far (-1 on a lead), the
#: seat's hand, its legal cards and the cards gone.
(R_GAME, R_TRICK, R_POS, R_CARD, R_BEST, R_VALUE, R_BEST_VALUE, R_SEAT, R_LEADER, R_LED,
 R_TOP, R_HAND, R_LEGAL, R_GONE) = range(14)
COLUMNS = 14


@njit(cache=True)
def regret_kernel(states, players, index, obs_buf, table, samples, rows, defence):
    """Play each game by the heuristic; at each decision of the declarer (``defence``
    false) or of a whister (true) between cards that are not one run (one run: the same
    card in every world, nothing to value), fill a row of ``rows`` (``R_*``) with PIMC's
    values of the heuristic's card and of PIMC's best. Returns the rows filled, or -1 on
    an illegal card."""
    rules, params, tables = players.rules, players.params, players.tables
    obs = obs_buf[0]
    n = 0
    held = np.zeros(3, np.int64)
    counts = np.zeros(3, np.int64)
    voids = np.zeros(3, np.int64)
    trick = np.zeros(3, np.int64)
    worlds = np.zeros((samples, 3), np.int64)
    values = np.zeros((samples, 32), np.int8)
    for i in range(states.shape[0]):
        st = states[i]
        keys = seat_keys(players.key, index[i])
        engine.advance_forced(st, rules)
        while st.phase != engine.DONE:
            engine.observe(st, rules, obs)
            key = decision_key(keys[st.controller], decision_number(obs))
            card = decide(HEURISTIC, obs, rules, params, tables, key)
            me = obs.playing_for
            if (me != obs.declarer) == defence and n < rows.shape[0]:
                played, out, talon, holder = observation_knowledge(obs, held, counts, voids)
                on_table = np.int64(0)
                for t in range(obs.n_in_trick):
                    trick[t] = obs.trick_cards[t]
                    on_table |= np.int64(1) << trick[t]
                trump = np.int64(TRUMP[obs.contract])
                led = -1 if obs.n_in_trick == 0 else trick[0] >> 3
                if _one_run(held[me], (played | out) & ~on_table, led, trump) < 0:
                    best = pimc_kernel(
                        known_of(me, held, counts, played, out, voids, talon, holder),
                        decision_of(trick, obs.n_in_trick, obs.leader, obs.declarer, trump,
                                    False),
                        draws_of(key, ~key, 0), table, worlds, values)
                    v = 0
                    bv = 0
                    for j in range(samples):
                        v += values[j, card]
                        bv += values[j, best]
                    top = -1
                    for t in range(obs.n_in_trick):
                        if top < 0 or beats(trick[t], top, trump):
                            top = trick[t]
                    rows[n, R_GAME] = i
                    rows[n, R_TRICK] = obs.trick
                    rows[n, R_POS] = obs.n_in_trick
                    rows[n, R_CARD] = card
                    rows[n, R_BEST] = best
                    rows[n, R_VALUE] = v
                    rows[n, R_BEST_VALUE] = bv
                    rows[n, R_SEAT] = me
                    rows[n, R_LEADER] = obs.leader
                    rows[n, R_LED] = -1 if obs.n_in_trick == 0 else trick[0]
                    rows[n, R_TOP] = top
                    rows[n, R_HAND] = held[me]
                    rows[n, R_LEGAL] = obs.legal
                    rows[n, R_GONE] = played
                    n += 1
            if engine.apply(st, rules, card) != 0:
                return -1
            engine.advance_forced(st, rules)
    return n


def closed_games(deals: int, seed: int, variant, samples: int | None):
    """The closed trick games of ``deals`` seeded deals at their first card, bid by the
    heuristic against PIMC (``samples`` worlds) as the strength gauge bids them
    (:func:`~prefstats.analysis.strength.first_cards`), and the engine's inputs to play
    them on: ``(games, context)``, the context their
    :class:`~prefstats.analysis.strength.FirstCards` (its players: the heuristic's, then
    PIMC's)."""
    start = first_cards("heuristic", "pimc", deals=deals, seed=seed, samples=samples,
                        variant=variant)
    states = start.states
    closed = ((states["phase"] == engine.PLAY) & (states["kind"] == engine.GAME)
              & ~states["open"])
    return states[closed], start._replace(states=states[closed], index=start.index[closed])


def regret_rows(games: np.ndarray, context, *, samples: int, defence: bool,
                per_game: int = 20) -> np.ndarray:
    """The rows (``R_*`` columns) of :func:`regret_kernel` over ``games`` and their
    ``context`` from :func:`closed_games` (the games left unchanged), valued by
    ``samples`` worlds; at most ``per_game`` decisions a game."""
    rows = np.zeros((per_game * len(games), COLUMNS), dtype=np.int64)
    n = regret_kernel(games.copy(), context.players[0], context.index, context.obs,
                      context.table, samples, rows, defence)
    if n < 0:
        raise RuntimeError("the heuristic played an illegal card")
    return rows[:n]
