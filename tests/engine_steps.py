"""Steps of the engine by hand, shared by the rule tests: apply calls and cards to a
fresh deal (each must be legal) and read a seat's observation."""

from __future__ import annotations

import numpy as np

from prefstats.game import engine
from prefstats.sim.play import new_state


def run(variant, actions, hands, talon, state=None):
    """Apply ``actions`` to ``state`` (else a fresh deal of ``hands`` and ``talon``);
    returns the state and the variant's rules array."""
    rules = engine.rules_array(variant)
    st = new_state(hands, talon)[0] if state is None else state
    for a in actions:
        assert engine.apply(st, rules, a) == 0, (engine.PHASES[st["phase"]], a)
    return st, rules


def observe(st, rules):
    """The observation of the seat in control of ``st``."""
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    engine.observe(st, rules, obs)
    return obs
