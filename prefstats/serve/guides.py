"""The committed guides (``reports/<table>/guide.json``) and a hand's cell in them.

A hand's cell is found by the features its chart is drawn by, computed as the charts
compute them; each feature is clipped to the values the guide holds (the charts merge
a rare class into its neighbour at the edges), so the guide itself says where its
edges lie.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np

from prefstats.errors import OptionError, VariantError

#: The decisions a guide advises on, and the chart each one is read from.
CHARTS = {
    "first_call": ("first_call_points", "first_call_expected_tricks"),
    "whist": ("whist",),
    "misere": ("misere",),
    "raspasy": ("raspasy",),
}
PRESETS = ("sochi", "leningrad", "rostov", "classic", "gusarik")


def table_name(variant: str, players: int) -> str:
    """The folder of a preset's guide: ``sochi``, or ``sochi-4p`` for four players."""
    if variant not in PRESETS:
        raise VariantError(f"variant: unknown preset {variant!r}; one of {', '.join(PRESETS)}")
    if players not in (3, 4):
        raise OptionError(f"players: 3 or 4, got {players}")
    return variant if players == 3 else f"{variant}-4p"


class Guide:
    """One committed guide (``doc``, as ``guide.json`` holds it) indexed for lookups: a
    chart's cells, and the records of one cell."""

    def __init__(self, doc: dict) -> None:
        self.doc = doc
        self._cells: dict[str, list[dict]] = {}
        self._rows: dict[tuple[str, str], list[dict]] = {}
        for r in doc["records"]:
            if r["kind"] == "cell":
                self._cells.setdefault(r["chart"], []).append(r)
            self._rows.setdefault((r["chart"], _key(r["features"])), []).append(r)
        self.seats = sorted({r["features"]["seat"] for r in self._cells.get(
            "first_call_points", [])})

    def cells(self, chart: str) -> list[dict]:
        """The cells of ``chart`` (one record a cell and option), in the chart's order."""
        return self._cells.get(chart, [])

    def rows(self, chart: str, features: dict) -> list[dict]:
        """The records (cells and rule) of the cell of ``features`` in ``chart``."""
        return self._rows.get((chart, _key(features)), [])


def _key(features: dict) -> str:
    return json.dumps(features, sort_keys=True)


class Guides:
    """The guides under ``root``, each read once on first use (a lock keeps two requests
    from reading the same file twice)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._loaded: dict[str, Guide] = {}
        self._lock = threading.Lock()

    def tables(self) -> list[str]:
        """The tables with a committed guide, presets first, then 4-player tables."""
        names = [p.parent.name for p in self.root.glob("*/guide.json")]
        return sorted(names, key=lambda n: (n.endswith("-4p"), n))

    def get(self, table: str) -> Guide:
        """The guide of ``table`` (a name from :meth:`tables`)."""
        with self._lock:
            if table not in self._loaded:
                if table not in self.tables():
                    raise VariantError(f"variant: no committed guide for {table!r}")
                text = (self.root / table / "guide.json").read_text(encoding="utf-8")
                self._loaded[table] = Guide(json.loads(text))
            return self._loaded[table]


def _clip(records: list[dict], feature: str, value: int) -> int:
    """``value`` clipped to the values of ``feature`` in the guide's cells."""
    held = [r["features"][feature] for r in records if r["features"][feature] >= 0]
    return int(min(max(value, min(held)), max(held)))


def hand_features(records: list[dict], chart: str, hand: int, *, seat: int,
                  level: int | None = None, trump: int | None = None) -> dict:
    """The features of ``hand``'s cell in ``chart`` (``records``: the chart's cells);
    ``level`` and ``trump`` (a suit index, ``None`` for no trumps) are the contract
    defended, for the whist chart."""
    from prefstats.game.cards import suit_lengths
    from prefstats.reports.classes import high_cards
    from prefstats.reports.counterfactual import by_points, by_tricks
    from prefstats.reports.hand_charts import hole_pattern

    hands = np.array([hand], dtype=np.uint32)
    if chart == "first_call_points":
        return {"points": _clip(records, "points", int(by_points(hands)[0])), "seat": seat}
    if chart == "first_call_expected_tricks":
        tricks = int(by_tricks(hands, seat)[0])
        return {"expected_tricks": _clip(records, "expected_tricks", tricks), "seat": seat}
    if chart == "misere":  # its cells are in the chart's order of hole patterns
        patterns = [r["features"] for r in records if r["option"] == "misere"]
        return dict(patterns[int(hole_pattern(hands)[0])])
    aces_kings = _clip(records, "aces_kings", int(high_cards(hands)[0]))
    if chart == "whist":
        if level is None:
            raise OptionError("level: the whist decision needs the level defended (6 to 10)")
        length = -1 if trump is None else _clip(records, "trumps",
                                                int(suit_lengths(hand)[trump]))
        return {"level": _clip(records, "level", level), "aces_kings": aces_kings,
                "trumps": length}
    longest = int(suit_lengths(hand).max())
    return {"aces_kings": aces_kings, "longest": _clip(records, "longest", longest)}


def _negated(row: dict) -> dict:
    """A gain over passing turned into passing's gain over the option."""
    def neg(x: float | None) -> float | None:
        return None if x is None else -x

    return {**row, "gain": neg(row["gain"]), "ci_low": neg(row["ci_high"]),
            "ci_high": neg(row["ci_low"])}


def cell_answer(guide: Guide, chart: str, features: dict) -> dict:
    """The guide's answer for the cell of ``features`` in ``chart``: the stated rule when
    the advice is decided, else the advised option's row (passing: the best option's
    row, negated), with every option's row of the cell."""
    rows = guide.rows(chart, features)
    cells = [r for r in rows if r["kind"] == "cell"]
    if not cells:
        raise OptionError(f"hand: no cell of chart {chart} for {features}")
    rule = next((r for r in rows if r["kind"] == "rule"), None)
    advice = cells[0]["advice"]
    measured = [r for r in cells if r["gain"] is not None]
    if rule is not None:
        source = rule
    elif not measured:  # no pair played in this cell
        source = {"gain": None, "ci_low": None, "ci_high": None, "n": 0}
    elif advice == "pass":
        source = _negated(max(measured, key=lambda r: r["gain"]))
    else:
        source = next(r for r in cells if r["option"] == advice)
    return {"advice": advice, "gain": source["gain"], "ci_low": source["ci_low"],
            "ci_high": source["ci_high"], "n": source["n"], "robust": source.get("robust"),
            "breaks": source.get("breaks", []), "decided": rule is not None,
            "rule": rule["text"] if rule else None,
            "cell": {"chart": chart, "features": features,
                     "options": [{k: r.get(k) for k in ("option", "gain", "ci_low", "ci_high",
                                                        "n", "enough")} for r in cells]}}


#: Hands dealt, at most, to find one of a cell's class.
SAMPLE_HANDS = 20_000


def sample_hand(records: list[dict], chart: str, features: dict, seed: int = 0) -> dict:
    """A hand of the cell ``features`` of ``chart`` (the first of the seed's stream) and
    what My hand needs to ask about it: seat, decision, level and trump."""
    from prefstats.game.cards import format_cards
    from prefstats.game.deal import deal

    decision = next(d for d, charts in CHARTS.items() if chart in charts)
    seat = int(features.get("seat", 0))
    level = int(features["level"]) if "level" in features else None
    trump = None if features.get("trumps", 0) == -1 else 0
    for hand in deal(SAMPLE_HANDS, seed=seed).hands[:, seat]:
        if hand_features(records, chart, int(hand), seat=seat, level=level,
                         trump=trump) == features:
            found = {"hand": format_cards(int(hand)), "seat": seat, "decision": decision}
            if decision == "whist":
                found.update(level=level, trump="NT" if trump is None else "♠")
            return found
    raise OptionError(f"features: no hand of {features} in {SAMPLE_HANDS:,} dealt")
