"""Per-class adjustments of the heuristic's calls, fitted by counterfactual rollouts.

The heuristic prices its calls from the evaluator's estimates (:mod:`.bidding`). Where
rollouts show that a class of hands pays to call otherwise (:mod:`prefstats.analysis.fit`,
``prefstats fit bidding``), the fit moves an offset of that class, so the players'
calls become the best response to the field they play in. The offsets are one row of
256 floats appended to the heuristic's tables (:func:`.bidding.heuristic_tables`), so
both drivers read them alike; a preset's fitted row ships as data
(``data/fit-<preset>-<players>.npz``) and is selected by the variant's ``base`` preset
and number of players (a house variant plays with its base preset's fit). A variant
without a shipped fit plays with zero offsets: the unfitted heuristic.

Layout (seats from the dealer's left; ``tricks`` the evaluator's expected tricks of the
dealt hand in its best strain before the talon, rounded, :func:`trick_class`):

- ``CALL[context][seat][tricks]``: tricks added to the bidder's estimates of every trick
  game, as ``aggression`` is; context 0 while nobody has bid, 1 once somebody has
  (competing);
- ``WHIST[level - 6][seat][aces and kings, 5 and more pooled]``: tricks added to the
  defence's estimate, as ``whist_appetite`` is;
- ``MISERE[holes, 4 and more pooled]``: subtracted from the estimated chance that a
  misère first call is caught (:func:`hole_class`);
- ``CONTRACT[seat][tricks]``: tricks added to the declarer's estimates when he names
  his contract after the talon (the class of the hand he was dealt).
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import resources
from typing import Any

import numpy as np
from numba import njit

from prefstats.errors import OptionError
from prefstats.game.cards import ACE, KING, RANK_MASKS, popcount
from prefstats.players.evaluate import SAFE, declarer_tricks

N_CONTEXTS, N_SEATS, N_TRICK_CLASSES = 2, 3, 11
N_LEVELS, N_HIGH, N_HOLES = 5, 6, 5
CALL = 0
WHIST = CALL + N_CONTEXTS * N_SEATS * N_TRICK_CLASSES
MISERE = WHIST + N_LEVELS * N_SEATS * N_HIGH
CONTRACT = MISERE + N_HOLES
SIZE = CONTRACT + N_SEATS * N_TRICK_CLASSES
#: The row's length in the tables.
ROW = 256

_AK = np.uint32(RANK_MASKS[ACE] | RANK_MASKS[KING])




@njit(cache=True)
def best_tricks(tables, hand, leads):
    """The evaluator's expected tricks of dealt ``hand`` in its best strain, before the
    talon (``leads``: 1.0 when the hand leads to the first trick)."""
    best = -1.0
    for strain in range(5):
        best = max(best, declarer_tricks(tables, hand, strain, leads, True))
    return best


@njit(cache=True)
def trick_class(tables, hand, leads):
    """:func:`best_tricks` rounded to a whole trick, 0..10."""
    return min(max(int(np.rint(best_tricks(tables, hand, leads))), 0), N_TRICK_CLASSES - 1)


@njit(cache=True)
def high_class(hand):
    """Aces and kings of ``hand``, ``N_HIGH - 1`` and more pooled."""
    return min(popcount(np.uint32(hand) & _AK), N_HIGH - 1)


@njit(cache=True)
def hole_class(hand):
    """Misère holes of ``hand`` (suits whose holding is not :data:`SAFE`), 4 pooled."""
    holes = 0
    for suit in range(4):
        if not SAFE[(np.int64(hand) >> (8 * suit)) & 0xFF]:
            holes += 1
    return min(holes, N_HOLES - 1)


@njit(cache=True)
def call_cell(context, seat, tricks):
    return CALL + (context * N_SEATS + seat) * N_TRICK_CLASSES + tricks


@njit(cache=True)
def whist_cell(level, seat, high):
    return WHIST + ((level - 6) * N_SEATS + seat) * N_HIGH + high


@njit(cache=True)
def misere_cell(holes):
    return MISERE + holes


@njit(cache=True)
def contract_cell(seat, tricks):
    return CONTRACT + seat * N_TRICK_CLASSES + tricks


@njit(cache=True)
def _classes(tables, hands, leads, out_tricks, out_high, out_holes):
    for i in range(len(hands)):
        out_tricks[i] = trick_class(tables, np.int64(hands[i]), leads)
        out_high[i] = high_class(np.int64(hands[i]))
        out_holes[i] = hole_class(np.int64(hands[i]))


def hand_classes(hands: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    """Each dealt hand of ``seat``: its ``tricks`` (:func:`trick_class`), ``high``
    (:func:`high_class`) and ``holes`` (:func:`hole_class`) classes."""
    from prefstats.players.evaluate import load_tables

    hands = np.asarray(hands, dtype=np.int64)
    out = {k: np.empty(len(hands), dtype=np.int64) for k in ("tricks", "high", "holes")}
    _classes(load_tables(), hands, 1.0 if seat == 0 else 0.0, out["tricks"], out["high"],
             out["holes"])
    return out


# ---- the shipped fits ----------------------------------------------------------------


def data_file(base: str, players: int) -> str:
    """The file name of a preset's fit."""
    return f"fit-{base}-{players}.npz"


@functools.cache
def _shipped(name: str) -> tuple[np.ndarray, dict[str, Any]] | None:
    path = resources.files("prefstats.players.data").joinpath(name)
    if not path.is_file():
        return None
    with path.open("rb") as f:
        data = np.load(f)
        row, meta = data["adjust"], json.loads(str(data["meta"]))
    if row.shape != (SIZE,) or not np.all(np.isfinite(row)):
        raise RuntimeError(f"{name}: the fitted offsets must be {SIZE} finite values, got "
                           f"shape {row.shape}")
    row.flags.writeable = False
    return row, meta


def fitted(variant) -> np.ndarray:
    """The offsets ``variant``'s players use by default: the shipped fit of its base
    preset and number of players, else zeros (the unfitted heuristic)."""
    shipped = _shipped(data_file(variant.base, variant.players))
    return np.zeros(SIZE) if shipped is None else shipped[0]


def checked(offsets) -> np.ndarray:
    """``offsets`` as :data:`SIZE` float64 values (a candidate of the fit), or
    ``ValueError`` when they are not that many finite values."""
    offsets = np.asarray(offsets, dtype=np.float64)
    if offsets.shape != (SIZE,) or not np.all(np.isfinite(offsets)):
        raise OptionError(f"offsets: expected {SIZE} finite values, got shape {offsets.shape}")
    return offsets


def fit_meta(variant) -> dict[str, Any] | None:
    """What the shipped fit of ``variant``'s preset records (rounds, deals, the gauge
    before and after), or None without one."""
    shipped = _shipped(data_file(variant.base, variant.players))
    return None if shipped is None else shipped[1]


def fit_id(variant) -> str | None:
    """What identifies the offsets ``variant``'s players use (:func:`fitted`): the first
    16 hex digits of their SHA-256, or None for zeros (the unfitted heuristic). Datasets
    record it, so data played by other fitted players is never resumed into theirs."""
    offsets = np.ascontiguousarray(fitted(variant), dtype=np.float64)
    return hashlib.sha256(offsets.tobytes()).hexdigest()[:16] if offsets.any() else None


def row(variant, offsets=None) -> np.ndarray:
    """``offsets`` (default :func:`fitted`) as the tables' row of :data:`ROW` floats."""
    out = np.zeros(ROW)
    out[:SIZE] = fitted(variant) if offsets is None else checked(offsets)
    return out


def save(path, offsets: np.ndarray, meta: dict[str, Any]) -> None:
    """Write a fit (``offsets`` and its record ``meta``) as :func:`fitted` reads it."""
    np.savez_compressed(path, adjust=np.asarray(offsets, dtype=np.float64),
                        meta=np.array(json.dumps(meta, sort_keys=True)))
