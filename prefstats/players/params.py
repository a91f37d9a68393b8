"""Tunable parameters of the built-in heuristic player, as a float64 array.

Each parameter has a name, a default and a meaning; ``heuristic_params(**overrides)``
builds the array the compiled player reads, so a report can sweep one of them.

>>> p = heuristic_params(aggression=0.5)
>>> float(p[AGGRESSION])
0.5
"""

from __future__ import annotations

import numpy as np

#: name -> (index, default, meaning)
PARAMETERS: dict[str, tuple[int, float, str]] = {
    "aggression": (0, 0.4, "tricks added to the declarer's estimate when bidding (+ bids more)"),
    "whist_appetite": (1, 0.0, "tricks added to a defender's estimate when whisting"),
    "misere_risk": (2, 0.4, "highest estimated catch probability a misère is bid with"),
    "expect_whist": (3, 0.8, "chance a bidder assumes his contract is whisted (else credited)"),
    "others_pass": (4, 0.6, "chance a bidder assumes each player yet to speak passes"),
    "raspasy_fear": (5, 1.0, "weight of the raspasy a pass may cause in the bidding value"),
    "partner_whist": (6, 0.5, "chance the first defender assumes the other one whists"),
}
AGGRESSION, WHIST_APPETITE, MISERE_RISK = (
    PARAMETERS[k][0] for k in ("aggression", "whist_appetite", "misere_risk"))
EXPECT_WHIST, OTHERS_PASS, RASPASY_FEAR, PARTNER_WHIST = (
    PARAMETERS[k][0] for k in ("expect_whist", "others_pass", "raspasy_fear", "partner_whist"))
N_PARAMS = len(PARAMETERS)


def heuristic_params(**overrides: float) -> np.ndarray:
    """The parameter array with the defaults, changed by ``overrides`` (by name)."""
    params = np.zeros(N_PARAMS, dtype=np.float64)
    for index, default, _ in PARAMETERS.values():
        params[index] = default
    for name, value in overrides.items():
        if name not in PARAMETERS:
            raise ValueError(f"unknown player parameter {name!r}; known: {', '.join(PARAMETERS)}")
        params[PARAMETERS[name][0]] = float(value)
    return params
