"""Heuristic decisions before the play: bids, the discard, the contract, whist calls.

Compiled functions of an observation record (see :mod:`prefstats.engine`), the rules
array, the parameter array (:mod:`prefstats.players.params`) and the evaluation tables.
"""

from __future__ import annotations

from numba import njit

from prefstats.auction import PASS, W_WHIST


@njit(cache=True)
def _lowest(mask):
    c = 0
    while not (mask >> c) & 1:
        c += 1
    return c


@njit(cache=True)
def bid_decision(obs, rules, params, tables):
    """The call to make: for now always pass."""
    return PASS


@njit(cache=True)
def discard_decision(obs, rules, params, tables):
    """The two cards to discard: for now the two lowest."""
    first = _lowest(obs.legal)
    rest = obs.legal & ~(1 << first)
    return (1 << first) | (1 << _lowest(rest))


@njit(cache=True)
def contract_decision(obs, rules, params, tables):
    """The contract to name: for now the bid itself."""
    return obs.bid


@njit(cache=True)
def whist_decision(obs, rules, params, tables):
    """The whist call: for now whist when allowed."""
    if (obs.legal >> W_WHIST) & 1:
        return W_WHIST
    return _lowest(obs.legal)
