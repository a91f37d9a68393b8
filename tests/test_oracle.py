"""The double-dummy player: card by card it reaches the solver's value of the deal."""

import numpy as np

from prefstats.game import engine
from prefstats.game.contracts import TRUMP
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players import BuiltinPlayer, DoubleDummyPlayer
from prefstats.players.base import OracleObservation
from prefstats.sim.play import play_hand
from prefstats.solver import solve


def test_double_dummy_card_play_keeps_the_solver_value():
    variant = get_variant("sochi")
    d = deal(200, seed=12)
    closed = 0
    for i in range(len(d)):
        st = play_hand(d.hands[i], d.talon[i], [DoubleDummyPlayer() for _ in range(3)],
                       variant, talon_first=d.talon_first[i])
        if st["kind"] != engine.GAME or not st["played"] or st["double_dummy"]:
            continue
        closed += 1
        declarer = int(st["declarer"])
        hands = [int(h) for h in st["dealt"]]
        hands[declarer] = (hands[declarer] | int(st["talon"])) & ~int(st["discard"])
        value = solve(hands, trump=int(TRUMP[st["contract"]]), leader=0, declarer=declarer)
        assert st["tricks"][declarer] == value, i
    assert closed >= 5


def test_only_oracles_get_the_state():
    seen = []

    class Spy(BuiltinPlayer):
        def act(self, obs):
            seen.append(obs)
            return super().act(obs)

    d = deal(3, seed=1)
    for i in range(3):
        play_hand(d.hands[i], d.talon[i], [Spy(), Spy(), Spy()], get_variant("sochi"))
    assert seen and not any(isinstance(o, OracleObservation) for o in seen)
    assert np.all([not hasattr(o, "state") for o in seen])
