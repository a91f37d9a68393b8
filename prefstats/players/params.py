"""Tunable parameters of the built-in heuristic player, as a float64 array.

Each parameter has a name, a default and a meaning; ``heuristic_params(**overrides)``
builds the array the compiled player reads, so a report can sweep one of them.

Classic's calls made before looking (``blind_pass``, ``dark_bid`` and their step and
bomb terms) are chances, drawn from the decision's reproducible random key: they may
depend only on public state (whether anyone has bid, the raspasy step, the seat's
bomb), never on the hand. A seat that says "dark" then bids the lowest legal bid
blind and passes afterwards. With the defaults, measured on 20,000 classic deals at
raspasy step 0 without bombs (``prefstats player-stats --preset classic``),
about 2.5 % of deals have a dark bid and 5 % a blind pass (3 and 4 players alike).
``bomb_reserve`` prices spending a bomb (the declarer's bomb multiplies his game and
is spent when it is made; a raspasy is never multiplied); ``no_talon_margin`` is the
caution of bids without the talon (about 0.5 % of classic deals are played so).

The PIMC player (``policy = "pimc"``) bids, discards and whists as the heuristic does,
reading the same parameters, and has one more after them: ``samples``, the deals it
samples and solves for each card of a closed game (:data:`PIMC_PARAMETERS`).

Every parameter has an allowed range (:data:`RANGES`): chances lie in [0, 1], trick
margins within ±3 tricks, weights and factors between 0 and a bound well past any
sensible value. A value outside it, or not finite, is refused by name (the compiled
player reads cards by estimated tricks and would fail on nan or an absurd margin).

>>> p = heuristic_params(aggression=0.5)
>>> float(p[AGGRESSION])
0.5
>>> heuristic_params(blind_pass=5)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
prefstats.errors.OptionError: player parameter blind_pass = 5 is out of range: allowed 0 to 1 ...
"""

from __future__ import annotations

import numpy as np

from prefstats.errors import OptionError

#: name -> (index, default, meaning)
PARAMETERS: dict[str, tuple[int, float, str]] = {
    "aggression": (0, 0.4, "tricks added to the declarer's estimate when bidding (+ bids more)"),
    "whist_appetite": (1, 0.0, "tricks added to a defender's estimate when whisting"),
    "misere_risk": (2, 0.4, "highest estimated catch probability a misère is bid with"),
    "expect_whist": (3, 0.8, "chance a bidder assumes his contract is whisted (else credited)"),
    "others_pass": (4, 0.6, "chance a bidder assumes each player yet to speak passes"),
    "raspasy_fear": (5, 1.0, "weight of the raspasy a pass may cause in the bidding value"),
    "partner_whist": (6, 0.5, "chance the first defender assumes the other one whists"),
    "blind_pass": (7, 0.03, "chance of a blind pass at a first call before anyone bids"),
    "blind_pass_step": (8, 0.01, "added to blind_pass per consecutive raspasy before the deal"),
    "dark_bid": (9, 0.015, "chance of bidding dark at a first call before anyone bids"),
    "dark_bid_step": (10, 0.005, "added to dark_bid per consecutive raspasy before the deal"),
    "dark_bomb": (11, 2.0, "factor on the dark-bid chance when the seat holds a bomb"),
    "bomb_reserve": (12, 3.0, "whists a declarer charges per extra multiplier of his bomb "
                              "for spending it on this game (keeps bombs for good games)"),
    "no_talon_margin": (13, 0.5, "tricks taken off the estimate of a game without the talon"),
}
AGGRESSION, WHIST_APPETITE, MISERE_RISK = (
    PARAMETERS[k][0] for k in ("aggression", "whist_appetite", "misere_risk"))
EXPECT_WHIST, OTHERS_PASS, RASPASY_FEAR, PARTNER_WHIST = (
    PARAMETERS[k][0] for k in ("expect_whist", "others_pass", "raspasy_fear", "partner_whist"))
BLIND_PASS_P, BLIND_PASS_STEP, DARK_BID_P, DARK_BID_STEP, DARK_BOMB = (
    PARAMETERS[k][0] for k in ("blind_pass", "blind_pass_step", "dark_bid", "dark_bid_step",
                               "dark_bomb"))
BOMB_RESERVE, NO_TALON_MARGIN = (PARAMETERS[k][0] for k in ("bomb_reserve", "no_talon_margin"))
N_PARAMS = len(PARAMETERS)
#: The PIMC player's own parameters, after the heuristic's: name -> (index, default, meaning).
PIMC_PARAMETERS: dict[str, tuple[int, float, str]] = {
    "samples": (N_PARAMS, 32.0, "deals the PIMC player samples and solves for each card of a "
                                "closed game (a whole number; from 32 its play levels off)"),
}
SAMPLES = PIMC_PARAMETERS["samples"][0]
N_PIMC_PARAMS = N_PARAMS + len(PIMC_PARAMETERS)

_CHANCE = (0.0, 1.0)
_TRICKS = (-3.0, 3.0)
#: name -> (lowest, highest) allowed value, both included.
RANGES: dict[str, tuple[float, float]] = {
    "aggression": _TRICKS, "whist_appetite": _TRICKS, "misere_risk": _CHANCE,
    "expect_whist": _CHANCE, "others_pass": _CHANCE, "raspasy_fear": (0.0, 10.0),
    "partner_whist": _CHANCE, "blind_pass": _CHANCE, "blind_pass_step": _CHANCE,
    "dark_bid": _CHANCE, "dark_bid_step": _CHANCE, "dark_bomb": (0.0, 10.0),
    "bomb_reserve": (0.0, 100.0), "no_talon_margin": _TRICKS,
    "samples": (1.0, 1024.0),
}
#: Parameters that take whole numbers only.
WHOLE = frozenset({"samples"})


def parameters(policy: str) -> dict[str, tuple[int, float, str]]:
    """The parameters of built-in ``policy`` (none for ``random``)."""
    if policy == "heuristic":
        return PARAMETERS
    return {**PARAMETERS, **PIMC_PARAMETERS} if policy == "pimc" else {}


def policy_params(policy: str, **overrides: float) -> np.ndarray:
    """The parameter array of ``policy`` with the defaults, changed by ``overrides`` (by
    name); raises ``OptionError`` for an unknown name or a value outside its range.

    >>> p = policy_params("pimc", samples=8)
    >>> len(p) == N_PIMC_PARAMS, float(p[SAMPLES]), float(p[AGGRESSION])
    (True, 8.0, 0.4)
    """
    known = parameters(policy)
    params = np.zeros(len(known), dtype=np.float64)
    for index, default, _ in known.values():
        params[index] = default
    for name, value in overrides.items():
        if name not in known:
            raise OptionError(f"unknown player parameter {name!r} for policy {policy!r}; "
                              f"known: {', '.join(known) or 'none'}")
        params[known[name][0]] = float(value)
    return check_params(params)


def heuristic_params(**overrides: float) -> np.ndarray:
    """The heuristic's parameter array: :func:`policy_params` of ``"heuristic"``."""
    return policy_params("heuristic", **overrides)


def check_params(params: np.ndarray) -> np.ndarray:
    """``params`` (a full parameter array: the heuristic's, or the PIMC player's, told
    apart by length) if every value is finite, in its range and whole where it must be."""
    params = np.asarray(params, dtype=np.float64)
    if params.shape not in ((N_PARAMS,), (N_PIMC_PARAMS,)):
        raise OptionError(f"player parameters: expected {N_PARAMS} values (heuristic) or "
                          f"{N_PIMC_PARAMS} (pimc), got shape {params.shape}")
    for name, (index, _, meaning) in parameters(
            "heuristic" if len(params) == N_PARAMS else "pimc").items():
        low, high = RANGES[name]
        value = float(params[index])
        if not low <= value <= high:  # false for nan too
            raise OptionError(f"player parameter {name} = {value:g} is out of range: allowed "
                              f"{low:g} to {high:g} ({meaning})")
        if name in WHOLE and value != int(value):
            raise OptionError(f"player parameter {name} = {value:g} must be a whole number")
    return params


def describe_ranges(policy: str = "heuristic") -> str:
    """Each parameter of ``policy`` with its default and range, for help texts."""
    return "; ".join(f"{name} (default {default:g}, {RANGES[name][0]:g} to {RANGES[name][1]:g})"
                     for name, (_, default, _) in parameters(policy).items())
