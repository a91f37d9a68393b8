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
    "aggression": (0, 0.0, "tricks added to the declarer's estimate when bidding (+ bids more)"),
    "whist_appetite": (1, 0.0, "tricks added to a defender's estimate when whisting"),
    "misere_risk": (2, 0.0, "added to the highest catch probability a misère is bid with"),
}
AGGRESSION, WHIST_APPETITE, MISERE_RISK = (PARAMETERS[k][0] for k in PARAMETERS)
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
