"""A whole game's record -- a pulka, or an evening of several -- as read and written:
its header and deals (``docs/ANALYZE.md``, "A whole game"), from JSON or from a compact
text form (:func:`parse_game_text`); both round-trip through :func:`dump_game_json` and
:func:`dump_game_text`. Each deal is today's deal record
(:mod:`prefstats.analysis.record`) with its number ``deal`` and, optionally, the sheet
as written after it (``pool``, ``mountain``, ``whists``)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from prefstats.analysis.record import (
    FIELDS,
    DealRecord,
    field_name,
    read_text,
    value_positions,
)
from prefstats.errors import RecordError

HEADER_FIELDS = ("variant", "names", "pool_target", "comment", "result")
SCORE_FIELDS = ("pool", "mountain", "whists")
#: A deal's fields: its number, today's deal record (the header gives the variant and
#: names, the sliding deal the dealer) and the sheet as written after it.
DEAL_FIELDS = ("deal", *(f for f in FIELDS if f not in ("variant", "players", "names",
                                                         "dealer")), *SCORE_FIELDS)
#: Fields written as one text value, lists of text, lists of lists, numbers.
_TEXT = ("variant", "comment", "talon", "talon_first", "discard", "contract", "lay")
_TEXTS = ("names", "calls", "whist")
#: Points on the sheet are exact halves; a written figure may round to this.
TOLERANCE = 0.01


@dataclass
class GameRecord:
    """A game as read: ``header`` (``HEADER_FIELDS``) and ``deals`` (dicts of
    ``DEAL_FIELDS``, in order); ``source`` and ``lines`` (the line of each value, by its
    path: ``("deals", i, field, ...)`` or ``(field,)``) only name places in errors."""

    header: dict
    deals: list[dict]
    source: str = field(default="game", compare=False)
    lines: dict[tuple, int] | None = field(default=None, compare=False, repr=False)

    def where(self, path: tuple) -> str:
        """``pulka.json deal 3 line 40, mountain``, as a deal record's errors read."""
        line = None
        for k in range(len(path), -1, -1):
            if self.lines and path[:k] in self.lines:
                line = self.lines[path[:k]]
                break
        at = f" line {line}" if line is not None else ""
        if path and path[0] == "deals" and len(path) > 1:
            number = self.deals[path[1]].get("deal", path[1] + 1) \
                if path[1] < len(self.deals) and isinstance(self.deals[path[1]], dict) \
                else path[1] + 1
            rest = f", {field_name(path[2:])}" if len(path) > 2 else ""
            return f"{self.source} deal {number}{at}{rest}"
        return f"{self.source}{at}, {field_name(path)}"

    def error(self, path: tuple, message: str) -> RecordError:
        return RecordError(f"{self.where(path)}: {message}")

    def names(self) -> list[str]:
        return list(self.header.get("names") or [f"player {p}" for p in range(3)])

    def deal_record(self, i: int) -> DealRecord:
        """Deal ``i`` (from 0) as today's deal record, its errors naming the file, the
        line and the deal."""
        data = {k: v for k, v in self.deals[i].items() if k not in ("deal", *SCORE_FIELDS)}
        data["variant"] = self.header.get("variant", "sochi")
        lines = {p[2:]: n for p, n in (self.lines or {}).items()
                 if len(p) > 2 and p[:2] == ("deals", i)}
        if self.lines and ("deals", i) in self.lines:
            lines[()] = self.lines[("deals", i)]
        return DealRecord(data, f"{self.source} deal {self.deals[i]['deal']}", lines)


# ---- checking the shape --------------------------------------------------------------


def _number(game: GameRecord, path: tuple, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise game.error(path, f"expected a number, got {json.dumps(value, ensure_ascii=False)}")
    return value


def _strings(game: GameRecord, path: tuple, value, count: int | None = None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise game.error(path, f"expected a list of text, got "
                               f"{json.dumps(value, ensure_ascii=False)}")
    if count is not None and len(value) != count:
        raise game.error(path, f"expected {count} entries, got {len(value)}")
    return [v.strip() for v in value]


def _checked(game: GameRecord) -> GameRecord:
    """``game`` with every value of the right shape, text stripped and tricks as lists;
    deals numbered 1, 2, 3 ... in order (a gap is a missing deal)."""
    h = game.header
    for key in h:
        if key not in (*HEADER_FIELDS, "deals"):
            raise game.error((key,), f"unknown field; a game has {', '.join(HEADER_FIELDS)}, "
                                     f"deals")
    for key in ("variant", "comment"):
        if key in h and not isinstance(h[key], str):
            raise game.error((key,), "expected text")
        if key in h:
            h[key] = h[key].strip()
    if "names" in h:
        h["names"] = _strings(game, ("names",), h["names"], 3)
    if "pool_target" in h and (isinstance(h["pool_target"], bool)
                               or not isinstance(h["pool_target"], int)
                               or h["pool_target"] < 1):
        raise game.error(("pool_target",), f"a positive whole number, got {h['pool_target']!r}")
    if "result" in h:
        if not isinstance(h["result"], list) or len(h["result"]) != 3:
            raise game.error(("result",), "the three players' final scores")
        for p, v in enumerate(h["result"]):
            _number(game, ("result", p), v)
    if not game.deals:
        raise game.error(("deals",), "a game needs at least one deal")
    for i, deal in enumerate(game.deals):
        path = ("deals", i)
        if not isinstance(deal, dict):
            raise game.error(path, "a deal is an object of deal record fields")
        for key in deal:
            if key not in DEAL_FIELDS:
                raise game.error((*path, key), f"unknown field; a deal has "
                                               f"{', '.join(DEAL_FIELDS)}")
        number = deal.get("deal")
        if isinstance(number, bool) or not isinstance(number, int):
            raise game.error((*path, "deal"), f"each deal needs its number \"deal\" (1, 2 "
                                              f"...), got {number!r}")
        if number != i + 1:
            gap = (f"deal {i + 1} is missing (deal {number} follows deal {i})" if number > i + 1
                   else f"expected deal {i + 1}, the deals are numbered in order from 1")
            raise game.error((*path, "deal"), gap)
        for key in _TEXT:
            if key in deal:
                if not isinstance(deal[key], str):
                    raise game.error((*path, key), f"expected text, got {deal[key]!r}")
                deal[key] = deal[key].strip()
        for key in _TEXTS:
            if key in deal:
                deal[key] = _strings(game, (*path, key), deal[key])
        if "hands" in deal:
            deal["hands"] = _strings(game, (*path, "hands"), deal["hands"], 3)
        if "play" in deal:
            if not isinstance(deal["play"], list):
                raise game.error((*path, "play"), "a list of tricks")
            tricks = []
            for t, trick in enumerate(deal["play"]):
                if isinstance(trick, str):
                    trick = trick.split()
                tricks.append(_strings(game, (*path, "play", t), trick))
            deal["play"] = tricks
        for key in ("pool", "mountain"):
            if key in deal:
                if not isinstance(deal[key], list) or len(deal[key]) != 3:
                    raise game.error((*path, key), "the three players' figures, place 0 first")
                for p, v in enumerate(deal[key]):
                    _number(game, (*path, key, p), v)
        if "whists" in deal:
            rows = deal["whists"]
            if not isinstance(rows, list) or len(rows) != 3 or not all(
                    isinstance(r, list) and len(r) == 3 for r in rows):
                raise game.error((*path, "whists"), "three rows of three: what each place "
                                                    "wrote on each")
            for p, row in enumerate(rows):
                for q, v in enumerate(row):
                    _number(game, (*path, "whists", p, q), v)
    return game


# ---- JSON ----------------------------------------------------------------------------


def parse_game_json(text: str, source: str = "game") -> GameRecord:
    """A :class:`GameRecord` from JSON: an object with the header's fields and
    ``deals``, a list of deal objects."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source} line {exc.lineno}, column {exc.colno}: not valid JSON: "
                          f"{exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("deals"), list):
        raise RecordError(f"{source} line 1: a game record is a JSON object with \"deals\", "
                          f"a list of deals")
    lines = {p: text.count("\n", 0, pos) + 1 for p, pos in value_positions(text).items()}
    deals = data.pop("deals")
    return _checked(GameRecord(data, deals, source, lines))


def dump_game_json(game: GameRecord) -> str:
    """The JSON form of ``game``: one line per hand and per trick."""
    parts = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
             for k, v in game.header.items()]
    deals = []
    for deal in game.deals:
        rows = []
        for k, v in deal.items():
            if k in ("hands", "play", "whists") and v:
                inner = ",\n".join(f"        {json.dumps(x, ensure_ascii=False)}" for x in v)
                rows.append(f"      {json.dumps(k)}: [\n{inner}\n      ]")
            else:
                rows.append(f"      {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
        deals.append("    {\n" + ",\n".join(rows) + "\n    }")
    parts.append('  "deals": [\n' + ",\n".join(deals) + "\n  ]")
    return "{\n" + ",\n".join(parts) + "\n}\n"


# ---- the text form -------------------------------------------------------------------


def _figure(text: str) -> int | float | str:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text  # refused with its place by _checked


def _split(text: str, sep: str) -> list[str]:
    return [] if not text.strip() else [p.strip() for p in text.split(sep)]


def _read_value(key: str, text: str):
    """A text-form value as the JSON form holds it."""
    if key in ("deal", "pool_target"):
        return _figure(text.strip())
    if key in ("pool", "mountain", "result"):
        return [_figure(x) for x in _split(text.replace(",", " "), " ") if x]
    if key == "whists":
        return [[_figure(x) for x in row.replace(",", " ").split()] for row in _split(text, "|")]
    if key == "hands":
        return _split(text, "|")
    if key == "play":
        return [row.split() for row in _split(text, "|")]
    if key in _TEXTS:
        return _split(text, ",")
    return text.strip()


def parse_game_text(text: str, source: str = "game") -> GameRecord:
    """A :class:`GameRecord` from the text form: ``key: value`` lines, the header first,
    then a ``deal N`` line opening each deal; ``#`` starts a comment line. Lists are
    written ``a, b, c`` (names, calls, whist calls, figures), ``x | y | z`` (hands,
    tricks -- cards in a trick by spaces -- and the rows of ``whists``)."""
    header: dict = {}
    deals: list[dict] = []
    lines: dict[tuple, int] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        low = line.lower()
        if low.startswith("deal") and ":" not in line:
            deals.append({"deal": _figure(line[4:].strip())})
            lines[("deals", len(deals) - 1)] = lines[("deals", len(deals) - 1, "deal")] = n
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep:
            raise RecordError(f"{source} line {n}: expected \"field: value\" or \"deal N\", "
                              f"got {line!r}")
        target, path = (deals[-1], ("deals", len(deals) - 1, key)) if deals else (header, (key,))
        if key in target:
            raise RecordError(f"{source} line {n}: {key} given twice")
        target[key] = _read_value(key, value)
        lines[path] = n
    return _checked(GameRecord(header, deals, source, lines))


def _write_value(key: str, value) -> str:
    if key in ("pool", "mountain", "result"):
        return ", ".join(str(x) for x in value)
    if key == "whists":
        return " | ".join(" ".join(str(x) for x in row) for row in value)
    if key == "hands":
        return " | ".join(value)
    if key == "play":
        return " | ".join(" ".join(t) for t in value)
    if key in _TEXTS:
        return ", ".join(value)
    return str(value)


def dump_game_text(game: GameRecord) -> str:
    """The text form of ``game`` (see :func:`parse_game_text`)."""
    out = [f"{k}: {_write_value(k, v)}" for k, v in game.header.items()]
    for deal in game.deals:
        out += ["", f"deal {deal['deal']}"]
        out += [f"{k}: {_write_value(k, v)}".rstrip() for k, v in deal.items() if k != "deal"]
    return "\n".join(out) + "\n"


def load_game(path: str | Path) -> GameRecord:
    """The game record at ``path``: JSON (``.json``) or the text form (any other name)."""
    path = Path(path)
    parse = parse_game_json if path.suffix.lower() == ".json" else parse_game_text
    return parse(read_text(path, "game record"), path.name)


def is_game_file(path: str | Path) -> bool:
    """Whether ``path`` holds a game (a text form, or JSON with ``deals``) rather than
    one deal record."""
    path = Path(path)
    if path.suffix.lower() != ".json":
        return True
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False  # the deal reader reports it
    return isinstance(data, dict) and "deals" in data
