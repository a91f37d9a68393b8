"""A dataset's rows as Arrow tables: one a finished deal, or one a pulka."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import Variant
from prefstats.sim._schema import enum_table


def _binary(values: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """Rows of ``values`` (uint8, 2-D) cut to ``lengths`` as a binary column."""
    lengths = lengths.astype(np.int32)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    keep = np.arange(values.shape[1]) < lengths[:, None]
    data = np.ascontiguousarray(values[keep], dtype=np.uint8)
    return pa.Array.from_buffers(pa.binary(), len(lengths),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def deals_table(states: np.ndarray, deal_ids: np.ndarray, variant: Variant, *,
                dealer: np.ndarray | None = None) -> pa.Table:
    """One row per finished deal: the deal, every decision, tricks and score entries.

    Seats 0, 1, 2 are the first, second and third hand; with 4 players seat 3 is the
    dealer (his tricks are those the talon took on a raspasy); with 5 seat 4 is the next
    to deal, who sits out too (B:474: no hand, no tricks, no entries); with 2 players (Gusarik)
    seat 2 is the dummy, with hand and tricks columns but no sheet. Pool, mountain and
    whist columns are the deal's entries in points (before any help); ``value_i`` its
    settlement in whists. ``bid`` is the winning call (a bid without the talon is its
    contract code + 32, see :mod:`prefstats.game.auction`), ``no_talon`` whether the game was
    played without the talon, ``dark`` and ``blind`` bit masks of the seats that bid in
    the dark and passed blind, ``multiplier`` the game's (bomb x dark). ``dealer`` is
    the dealer's place (default: the sliding deal, ``deal_id`` mod players), ``sat_out``
    the places that sat the deal out as a bit mask: the dealer's with 4 players, with 5
    his and the next to deal's (B:474), none with 2 or 3;
    ``deal_id`` is the deal's number in the seed's stream. The code columns are stored
    as their names (:func:`~prefstats.sim._schema.enum_table`).
    """
    n_players = variant.players
    declarer = states["declarer"].astype(np.int64)
    dealer_places = (deal_ids % n_players if dealer is None else dealer).astype(np.uint8)
    sat_out = np.zeros(len(states), dtype=np.uint8)  # places, as a bit mask
    if variant.dealer_sits_out:
        sat_out |= (1 << dealer_places).astype(np.uint8)
    if n_players == 5:
        sat_out |= (1 << ((dealer_places + 1) % n_players)).astype(np.uint8)
    pool, mountain, whists = score_states(variant, states)
    values = deal_values(variant, pool, mountain, whists)
    solved = states["double_dummy"]
    columns: dict[str, Any] = {
        "deal_id": deal_ids.astype(np.uint64),
        "dealer": dealer_places,
        "sat_out": sat_out,
        "hand_0": states["dealt"][:, 0],
        "hand_1": states["dealt"][:, 1],
        "hand_2": states["dealt"][:, 2],
        "talon": states["talon"],
        "talon_first": states["talon_first"].astype(np.uint8),
        "calls": _binary(states["calls"], states["n_calls"]),
        "kind": states["kind"].astype(np.uint8),
        "declarer": states["declarer"],
        "bid": states["bid"],
        "contract": states["contract"],
        "discard": states["discard"],
        "whist_calls": _binary(states["whist_calls"].view(np.uint8), states["n_whist"]),
        "first": states["first"],
        "second": states["second"],
        "played": states["played"],
        "open": states["open"],
        "double_dummy": solved,
        "solver_tricks": np.where(solved, states["tricks"][np.arange(len(states)),
                                                           np.maximum(declarer, 0)], -1
                                  ).astype(np.int8),
        "raspasy_step": states["raspasy_step"].astype(np.uint8),
        "no_talon": states["no_talon"],
        "dark": states["dark"],
        "blind": states["blind"],
        "multiplier": states["multiplier"].astype(np.uint16),  # up to 2 x 2^8
    }
    for s in range(max(n_players, 3)):  # seat 4, the 5-player next to deal, takes none
        columns[f"tricks_{s}"] = states["tricks"][:, s] if s < 4 else \
            np.zeros(len(states), dtype=np.uint8)
    for s in range(n_players):
        columns[f"pool_{s}"] = (pool[:, s] / 2).astype(np.float32)
        columns[f"mountain_{s}"] = (mountain[:, s] / 2).astype(np.float32)
    for i in range(n_players):
        for j in range(n_players):
            if i != j:
                columns[f"whist_{i}_{j}"] = (whists[:, i, j] / 2).astype(np.float32)
    for s in range(n_players):
        columns[f"value_{s}"] = values[:, s].astype(np.float32)
    return enum_table(pa.table(columns))


def pulkas_table(result: dict[str, np.ndarray], pulka_ids: np.ndarray) -> pa.Table:
    """One row per pulka: its length, what its deals were, the bombs earned and spent
    (Classic), and each place's sheet and result in whists (places 0..N-1; the first
    dealer is place N-1)."""
    columns: dict[str, Any] = {
        "pulka_id": pulka_ids.astype(np.uint32),
        "deals": result["deals"].astype(np.uint16),
        "raspasy": result["raspasy"].astype(np.uint16),
        "games": result["games"].astype(np.uint16),
        "miseres": result["miseres"].astype(np.uint16),
        "finished": result["finished"],
        "bombs_earned": result["bombs_earned"].astype(np.uint16),
        "bombs_spent": result["bombs_spent"].astype(np.uint16),
    }
    for i in range(result["pool"].shape[1]):
        columns[f"result_{i}"] = result["result"][:, i].astype(np.float32)
        columns[f"pool_{i}"] = result["pool"][:, i].astype(np.float32)
        columns[f"mountain_{i}"] = result["mountain"][:, i].astype(np.float32)
    return pa.table(columns)
