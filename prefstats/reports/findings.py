"""A chart's title as its finding, read from the data it draws when it is drawn.

A finding is a small template a chart is given with its options (so it survives in
``charts.json`` and is read again from the committed table): ``kind`` says what to read,
``text`` how to say it, ``none`` what to say when the data show nothing of the kind,
``group`` (optional) the group it reads. Kinds, over the rows with enough samples:

- ``from``: the lowest x from which every x above holds y's lower bound above 0 (or y
  at least ``at``), as ``{x}``;
- ``max``: the x of the largest y, as ``{x}`` and ``{y}``;
- ``mode``: the x with the largest y summed over the groups, as ``{x}``;
- ``ends``: y (averaged over the groups) at the first and last x, as ``{first}`` and
  ``{last}``, the last x as ``{x_last}``.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from prefstats.errors import OptionError


def _from(rows: pl.DataFrame, x: str, y: str, at: float | None) -> dict | None:
    found = None
    for row in rows.sort(x, descending=True).iter_rows(named=True):
        holds = row[f"{y}_lo"] > 0 if at is None else row[y] >= at
        if not holds:
            break
        found = row[x]
    return None if found is None else {"x": found}


def _ends(rows: pl.DataFrame, x: str, y: str) -> dict | None:
    means = rows.group_by(x).agg(pl.col(y).mean()).sort(x)
    if len(means) < 2:
        return None
    return {"first": means[y][0], "last": means[y][-1], "x_last": means[x][-1]}


def state(df: pl.DataFrame, finding: Mapping, *, x: str, y: str,
          group: str | None = None) -> str:
    """The finding of ``df`` (see the module text), its first letter capitalised."""
    rows = df.filter("enough") if "enough" in df.columns else df
    if group and "group" in finding:
        rows = rows.filter(pl.col(group) == finding["group"])
    values: dict | None = None
    if len(rows):
        kind = finding["kind"]
        if kind == "from":
            values = _from(rows, x, y, finding.get("at"))
        elif kind == "max":
            best = rows.sort(y, descending=True).row(0, named=True)
            values = {"x": best[x], "y": best[y]}
        elif kind == "mode":
            values = {"x": rows.group_by(x).agg(pl.col(y).sum()).sort(y, descending=True)[x][0]}
        elif kind == "ends":
            values = _ends(rows, x, y)
        else:
            raise OptionError(f"finding: unknown kind {kind!r}")
    text = finding["text"].format(**values) if values else finding.get("none", "")
    return text[:1].upper() + text[1:]
