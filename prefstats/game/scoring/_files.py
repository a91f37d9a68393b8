"""A pulka's sheet from a JSON or TOML record of its deals (``prefstats score``)."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path

from prefstats.errors import RecordError
from prefstats.game.scoring._sheet import ScoreSheet
from prefstats.game.variants import (
    get_variant,
    variant_from_mapping,
)

_DEAL_KEYS = {
    "game": ({"declarer", "contract", "whist"}, {"tricks", "dealer", "multiplier", "talon"}),
    "misere": ({"declarer", "tricks"}, {"dealer", "multiplier"}),
    "raspasy": ({"tricks"}, {"dealer", "multiplier"}),
}


def _record(sheet: ScoreSheet, deal: Mapping) -> None:
    """Record one deal outcome given as a mapping (see :func:`sheet_from_records`)."""
    if not isinstance(deal, Mapping) or deal.get("type") not in _DEAL_KEYS:
        raise RecordError("type: expected 'game', 'misere' or 'raspasy'")
    required, optional = _DEAL_KEYS[deal["type"]]
    for key in required - set(deal):
        raise RecordError(f"{key}: missing")
    for key in set(deal) - required - optional - {"type"}:
        raise RecordError(f"{key}: unknown key")
    dealer = deal.get("dealer")
    if deal["type"] == "raspasy":
        sheet.record_raspasy(deal["tricks"], dealer, multiplier=deal.get("multiplier", 1))
    elif deal["type"] == "misere":
        sheet.record_misere(deal["declarer"], deal["tricks"], dealer,
                            multiplier=deal.get("multiplier", 1))  # fmt: skip
    else:
        whist = deal["whist"]
        if isinstance(whist, Mapping):  # JSON and TOML keys are strings
            whist = {int(k) if str(k).isdigit() else k: call for k, call in whist.items()}
        sheet.record_game(deal["declarer"], deal["contract"], deal.get("tricks"), whist, dealer,
                          multiplier=deal.get("multiplier", 1), talon=deal.get("talon"))


def sheet_from_records(data: Mapping) -> ScoreSheet:
    """A sheet with every deal of ``data`` recorded, in order.

    ``data`` holds ``variant`` (a preset name, or a table ``{base = "sochi", ...}`` of
    options), optional ``players`` (default: the preset's) and ``pool_target``, and
    ``deals``: a list of ``{type = "game", declarer, contract, tricks, whist = {seat =
    call}}`` (optional ``multiplier`` and ``talon``, e.g. ``"A♠ K♥"``), ``{type =
    "misere", declarer, tricks}`` (optional ``multiplier``) or ``{type = "raspasy",
    tricks}`` (optional ``multiplier``: a bomb raspasy's bomb; each with an optional
    ``dealer``). Errors raise ``RecordError`` naming the
    deal.

    >>> s = sheet_from_records({"variant": "sochi", "deals": [
    ...     {"type": "raspasy", "tricks": [0, 4, 6]},
    ...     {"type": "game", "declarer": 1, "contract": "7♥", "tricks": [2, 7, 1],
    ...      "whist": {"2": "whist", "0": "pass"}}]})
    >>> s.pool.tolist(), s.mountain.tolist()
    ([1.0, 4.0, 0.0], [0.0, 4.0, 6.0])
    """
    if not isinstance(data, Mapping):
        raise RecordError("expected a table with 'variant' and 'deals'")
    for key in set(data) - {"variant", "players", "pool_target", "deals"}:
        raise RecordError(f"{key}: unknown key")
    spec = data.get("variant", "sochi")
    players = data.get("players")
    if isinstance(spec, Mapping):
        variant = variant_from_mapping({"players": players, **spec})
    else:
        variant = get_variant(spec, players=players)
    sheet = ScoreSheet(variant, data.get("pool_target"))
    deals = data.get("deals", [])
    if not isinstance(deals, list):
        raise RecordError("deals: expected a list of deal outcomes")
    for number, deal in enumerate(deals, 1):
        try:
            _record(sheet, deal)
        except ValueError as exc:
            raise RecordError(f"deal {number}: {exc}") from None
    return sheet


def load_pulka(path: str | Path) -> ScoreSheet:
    """Read a pulka's score sheet from a JSON (``.json``) or TOML file of its deals.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pulka.toml"
    >>> _ = path.write_text('''variant = "sochi"
    ... [[deals]]
    ... type = "raspasy"
    ... tricks = [0, 4, 6]''', "utf-8")
    >>> load_pulka(path).pool.tolist()
    [1.0, 0.0, 0.0]

    :param path: the file: a variant and its deals, as :func:`sheet_from_records` takes them.
    :returns: the score sheet after every deal.
    :raises RecordError: naming the deal and field of a record that cannot be scored.
    """
    path = Path(path)
    text = path.read_text("utf-8")
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RecordError(f"{path.name}: {exc}") from None
    return sheet_from_records(data)
