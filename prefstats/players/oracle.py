"""The double-dummy player: an oracle that sees every hand, for comparisons.

It plays each card of a trick game or misère so that the result is the double-dummy
value of the position (the declarer maximises his tricks, on misère minimises them;
the defenders do the opposite), and bids, discards and whists like the built-in
heuristic. Seeing all hands is cheating at a real table: its results are the upper
bound that heuristic card play is measured against.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game import engine
from prefstats.game.contracts import TRUMP
from prefstats.game.tricks import trick_winner
from prefstats.players.base import BasePlayer, Observation
from prefstats.players.builtin import BuiltinPlayer
from prefstats.solver import game_of, new_table, solve_position


@njit(cache=True)
def value_after(st, card, table):
    """Declarer's tricks in the whole deal under double-dummy play after the seat to
    act plays ``card`` now (a trick game or misère in state ``st``)."""
    declarer = st.declarer
    misere = st.kind == engine.MISERE_GAME
    trump = -1 if misere else TRUMP[st.contract]
    hands = np.array([np.int64(st.hands[0]), np.int64(st.hands[1]), np.int64(st.hands[2])])
    hands[st.to_act] &= ~(np.int64(1) << card)
    seq = np.zeros(40, np.int64)
    n = st.n_in_trick
    for i in range(n):
        seq[i] = st.trick_cards[i]
    seq[n] = card
    n += 1
    leader = st.leader
    taken = np.int64(st.tricks[declarer])
    if n == 3:
        leader = (leader + trick_winner(seq[0], seq[1], seq[2], trump)) % 3
        taken += leader == declarer
        n = 0
    if hands[0] | hands[1] | hands[2] == 0:
        return taken
    return taken + solve_position(hands, seq, n, leader, game_of(declarer, trump, misere),
                                  table)


@njit(cache=True)
def double_dummy_card(st, legal, table):
    """The legal card (lowest of equals) that keeps the double-dummy value for the seat
    to act: the declarer's best on a trick game, his fewest tricks on misère."""
    declarer_wants_more = st.kind == engine.GAME
    mine = st.to_act == st.declarer
    best = -1
    best_value = -1
    for c in range(32):
        if (legal >> c) & 1:
            v = value_after(st, c, table)
            better = v > best_value if mine == declarer_wants_more else v < best_value
            if best < 0 or better:
                best = c
                best_value = v
    return best


class DoubleDummyPlayer(BasePlayer):
    """Sees every hand (``sees_all``) and plays trick games and misère double dummy;
    bids, discards, whists and plays raspasy like the built-in heuristic.

    >>> from prefstats.game.deal import deal
    >>> from prefstats.sim.play import play_hand
    >>> from prefstats.game.variants import get_variant
    >>> d = deal(1, seed=2)
    >>> st = play_hand(d.hands[0], d.talon[0], [DoubleDummyPlayer() for _ in range(3)],
    ...                get_variant("sochi"))
    >>> int(st["tricks"].sum())
    10
    """

    sees_all = True
    double_dummy_open = True

    def __init__(self, params: np.ndarray | None = None) -> None:
        self.heuristic = BuiltinPlayer("heuristic", params)
        self.table = new_table(1).thread(0)

    def start_deal(self, deal_key: int) -> None:
        self.heuristic.start_deal(deal_key)

    def act(self, obs: Observation) -> int:
        record = obs.record
        if record["phase"] == engine.PLAY and record["kind"] != engine.RASPASY:
            return int(double_dummy_card(obs.state, record["legal"], self.table))
        return self.heuristic.act(obs)
