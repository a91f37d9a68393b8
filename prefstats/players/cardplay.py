"""Heuristic card play for closed deals (two whisters, ten checked, Stalingrad) and
raspasy: compiled functions of an observation record that respect what the seat knows.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def play_decision(obs, rules, params, tables):
    """The card to play: for now the lowest legal card."""
    legal = obs.legal
    c = 0
    while not (legal >> c) & 1:
        c += 1
    return c
