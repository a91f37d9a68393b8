"""The records the compiled solver takes whole (private): the game it plays and the
decision it values. Each is made by its compiled function here, which gives every field
its one type, so the solver is compiled once for each record, however it is called."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class Game(NamedTuple):
    """The contract as the solver plays it: the ``declarer``'s seat, the ``trump`` suit
    (-1 for none) and whether it is a ``misere`` (the declarer takes as few tricks as he
    can)."""

    declarer: int
    trump: int
    misere: bool


class Decision(NamedTuple):
    """A card to choose: the ``tlen`` cards of ``trick`` (int64 (3,)) on the table, led
    by ``leader`` (the seat to move is ``(leader + tlen) % 3``), in ``game``."""

    trick: np.ndarray
    tlen: int
    leader: int
    game: Game


@njit(cache=True, error_model="numpy")
def game_of(declarer, trump, misere):
    """The :class:`Game` of these fields, typed as the solver is compiled for them."""
    return Game(np.int64(declarer), np.int64(trump), bool(misere))


@njit(cache=True, error_model="numpy")
def decision_of(trick, tlen, leader, declarer, trump, misere):
    """The :class:`Decision` of these fields (``trick``: an int64 array of 3), typed as
    the solver is compiled for them."""
    return Decision(trick, np.int64(tlen), np.int64(leader), game_of(declarer, trump, misere))
