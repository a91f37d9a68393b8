"""The skill edge of one built-in player over another, in whists a deal, for the
rule-comparison article's luck-against-skill section.

Seeded deals are played whole (bidding, whisting and cards) by the field's policy at
every seat, then again with one seat at a time played by the weaker player among the
field. The field player's edge at a seat is his deal value minus the weaker player's at
the same seat of the same deal (same keys, so the same random choices wherever the play
is the same); a deal's edge is its mean over the seats that decide (seat-rotated, so no
seat's luck enters), and the figure is its mean over the deals with a normal 95%
interval. The deals start fresh (no raspasy step, no bombs): the edge of a deal in a
pulka under way is taken to be the same.

>>> e = skill_edge("sochi", deals=40, seed=2)
>>> e["deals"], e["seats"], e["edge"] > 0  # the careless player loses whists
(40, 3, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from prefstats.analysis.strength import MAX_DEALS, SIDE_A, SIDE_B, mean_ci, play_out
from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.deal import deal
from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import Variant, get_variant
from prefstats.players.bidding import heuristic_tables
from prefstats.players.builtin import POLICIES, player_key, players_record
from prefstats.players.params import policy_params
from prefstats.sim.play import default_talon_first, solver_table

#: The weaker player: the built-in heuristic that rates his hand a trick too high when he
#: bids and when he whists (the defaults are 0.4 and 0).
CARELESS = {"aggression": 1.4, "whist_appetite": 1.0}


def _fresh_states(deals: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``deals`` seeded deals reset to their first decision (the same deals a
    ``simulate`` run with ``seed`` holds), with their numbers in the seed's stream."""
    d = deal(deals, seed=seed)
    first = getattr(d, "talon_first", None)
    if first is None:
        first = [default_talon_first(t) for t in d.talon]
    hands = np.ascontiguousarray(d.hands, dtype=np.uint32)
    states = np.zeros(deals, dtype=engine.STATE)
    for i in range(deals):
        engine.reset(states[i], hands[i], np.uint32(d.talon[i]), int(first[i]), 6, 0)
    return states, np.asarray(d.index, dtype=np.int64)


def skill_edge(variant: str | Variant, *, deals: int, seed: int, field: str = "heuristic",
               weaker: dict[str, float] | None = None) -> dict[str, Any]:
    """What a ``field`` player (a built-in policy with its defaults) wins a deal over a
    heuristic player with the parameters ``weaker`` (default :data:`CARELESS`) in his
    seat, among ``field`` players (see the module): ``edge`` whists a deal at a deciding
    seat with ``low``/``high`` (95%) and ``se``, ``deals``, ``seats`` (the seats that
    decide: 2 in Gusarik, else 3) and ``places`` (the variant's players: with 4 the
    dealer sits out, so a place decides in 3 deals of 4).

    ``OptionError`` for an unknown policy, a parameter out of range or ``deals`` < 2.
    """
    if field not in POLICIES:
        raise OptionError(f"unknown policy {field!r}; choose from {', '.join(POLICIES)}")
    if not 2 <= deals <= MAX_DEALS:
        raise OptionError(f"deals must lie in 2..{MAX_DEALS:,}, got {deals}")
    v = get_variant(variant) if isinstance(variant, str) else variant
    key = np.uint64(player_key(seed))
    players = tuple(players_record(v, policy, params, key=key)._replace(tables=heuristic_tables(v))
                    for policy, params in ((field, policy_params(field)),
                                           ("heuristic",
                                            policy_params("heuristic", **(weaker or CARELESS)))))
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    fresh, index = _fresh_states(deals, seed)

    def values(weak_seat: int | None) -> np.ndarray:
        states = fresh.copy()
        sides = np.full((deals, 3), SIDE_A, dtype=np.int8)
        if weak_seat is not None:
            sides[:, weak_seat] = SIDE_B
        bad = play_out(states, sides, players, index, obs, solver_table(),
                       np.zeros(deals, dtype=np.int64))
        if bad >= 0:
            raise RuntimeError(f"an illegal decision in deal {int(index[bad])}")
        return deal_values(v, *score_states(v, states))

    everyone = values(None)
    seats = 2 if v.players == 2 else 3  # Gusarik's seat 2 is the dummy, decided for
    per_deal = np.mean([everyone[:, s] - values(s)[:, s] for s in range(seats)], axis=0)
    ci = mean_ci(per_deal)
    return {"edge": ci["mean"], "low": ci["low"], "high": ci["high"],
            "se": float(per_deal.std(ddof=1) / np.sqrt(deals)), "deals": deals,
            "seats": seats, "places": v.players}
