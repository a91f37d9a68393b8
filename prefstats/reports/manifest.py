"""``charts.json``: what draws each chart of a report folder from the tables beside it,
so the pictures (PNG, SVG, PDF) and the Parquet copies of the tables are made again
from the committed tables alone (:mod:`prefstats.reports.restore`).

An entry is a hand chart (``"hand": true``: drawn by
:func:`prefstats.reports.hand_pictures.draw` from ``<name>.csv``, with its seats, pairs
a cell and source line) or a report chart: the chart function (``"function"``, a
``module:name`` under ``prefstats.reports``), its keyword ``options``, and its data, a
CSV beside it (``"data"``) or the rows themselves (``"rows"``, column by column). Each
carries its ``alt`` text, as the pages show it. ``copies`` names the tables that also
get a Parquet copy; ``models`` the columns of each chart's table of every model's cells,
made from ``models.csv.xz`` (:mod:`~prefstats.reports.model_tables`).
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from prefstats.errors import OptionError
from prefstats.sim._chunks import atomic_write

NAME = "charts.json"
_PACKAGE = "prefstats.reports."


def read(folder: Path) -> dict[str, Any]:
    """The manifest of ``folder`` (empty when it has none)."""
    path = Path(folder) / NAME
    if not path.is_file():
        return {"charts": [], "copies": []}
    return json.loads(path.read_text("utf-8"))


def record(folder: Path, entries: Iterable[dict], copies: Iterable[str] = (),
           base: Path | None = None, models: Mapping[str, list[str]] | None = None) -> None:
    """Add ``entries`` (replacing those of the same name), ``copies`` and the columns of
    the charts' ``models`` tables (:mod:`~prefstats.reports.model_tables`) to the
    manifest of ``base`` (default: ``folder``), written into ``folder``."""
    doc = read(folder if base is None else base)
    new = list(entries)
    names = {e["name"] for e in new}
    doc["charts"] = [e for e in doc["charts"] if e["name"] not in names] + new
    doc["copies"] = list(dict.fromkeys([*doc.get("copies", []), *copies]))
    if models:
        doc["models"] = {**doc.get("models", {}), **models}
    atomic_write(Path(folder) / NAME, (json.dumps(doc, ensure_ascii=False, indent=0)
                                       + "\n").encode("utf-8"))


def _encode(value: Any) -> Any:
    """``value`` as JSON keeps it: a mapping with keys other than strings as pairs."""
    if isinstance(value, Mapping):
        if all(isinstance(k, str) for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {"__pairs__": [[k, _encode(v)] for k, v in value.items()]}
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__pairs__"}:
            return {k: _decode(v) for k, v in value["__pairs__"]}
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def chart_entry(name: str, chart: Callable, data: str | pl.DataFrame, source: str | None,
                alt: str) -> dict | None:
    """The entry of a report chart drawn by ``chart`` (a function of this package, or a
    ``functools.partial`` of one with keywords only) from ``data`` (a CSV's name, or the
    table itself); ``None`` for a chart that cannot be written down (e.g. a lambda)."""
    func = chart.func if isinstance(chart, functools.partial) else chart
    if isinstance(chart, functools.partial) and chart.args:
        return None
    module, qualname = getattr(func, "__module__", ""), getattr(func, "__qualname__", "")
    if not module.startswith(_PACKAGE) or "<" in qualname or "." in qualname:
        return None
    options = dict(chart.keywords) if isinstance(chart, functools.partial) else {}
    entry = {"name": name, "function": f"{module}:{qualname}", "options": _encode(options),
             "source": source, "alt": alt}
    if isinstance(data, str):
        entry["data"] = data
    else:
        entry["rows"] = _encode(data.to_dict(as_series=False))
    return entry


def chart_function(entry: Mapping) -> Callable:
    """The chart function of a report chart's entry, with its options."""
    module, _, name = entry["function"].partition(":")
    if not module.startswith(_PACKAGE):
        raise OptionError(f"charts.json: function {entry['function']!r} is not a prefstats "
                          "chart")
    func = getattr(importlib.import_module(module), name)
    return functools.partial(func, **_decode(entry.get("options", {})))


def chart_data(folder: Path, entry: Mapping) -> pl.DataFrame:
    """The table a report chart's entry draws."""
    if "data" in entry:
        return pl.read_csv(Path(folder) / entry["data"])
    return pl.DataFrame(_decode(entry["rows"]))
