"""Small multiples in the house style (:mod:`~prefstats.reports.charts`): quantities of
very different sizes side by side, a panel each on its own scale, every bar labelled
with its value and a missing bar marked with why it is missing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib as mpl
import numpy as np
import polars as pl

from prefstats.reports.charts import (
    COLUMN,
    FOOT_POINTS,
    QUIET,
    STYLE,
    colours_for,
    figure,
    fit,
    footed,
    heading,
    minus,
)

#: Inches a bar, and a panel's room for its title and its gap to the next panel.
_BAR, _PANEL_HEAD = 0.17, 0.45


def _value_label(value: float, digits: int) -> str:
    return minus(f"{value:,.{digits}f}")


def _missing(row: Mapping | None, counted: str) -> str:
    """Why a category has no bar: too few cases (how many), or none at all."""
    if row is None or not row.get("n"):
        return f"no {counted}"
    return f"only {int(row['n']):,} {counted}: too few to show"


def panel_bars(df: pl.DataFrame, path: Path, *, panel: str, x: str, y: str, title: str,
               subtitle: str = "", caption: str = "", colours: Mapping | None = None,
               panels: Mapping[str, str] | None = None, counted: Mapping[str, str] | None = None,
               digits: int = 1) -> list[Path]:
    """A panel per value of ``panel`` (titled by ``panels``, else by the value), one under
    the other, each on its own scale: a horizontal bar of ``y`` per ``x`` category (in the
    order they come, coloured by ``colours``) with its 95% interval (``y_lo``, ``y_hi``)
    and its value written at its end (``digits`` decimals); a category without enough
    samples (``enough``; ``n``) gets no bar but the reason, in ``counted``'s words for the
    panel ("caught misères"). :data:`~prefstats.reports.charts.COLUMN` wide, with the
    :func:`~prefstats.reports.charts.heading` over it and ``caption`` under it."""
    if not len(df.filter("enough")):
        return []
    names = df[panel].unique(maintain_order=True).to_list()
    cats = df[x].unique(maintain_order=True).to_list()
    palette = colours_for(cats, colours or {})
    rows = {(r[panel], r[x]): r for r in df.iter_rows(named=True)}
    height_of = len(cats) * _BAR + _PANEL_HEAD
    with mpl.rc_context(STYLE):
        fig = figure((COLUMN, 1.0))
        top = heading(fig, title, subtitle)
        height = top + len(names) * height_of + 0.1
        fig.set_size_inches(COLUMN, height)
        axes = fig.subplots(len(names), 1, squeeze=False)[:, 0]
        for ax, name in zip(axes, names, strict=True):
            _panel(ax, [rows.get((name, c)) for c in cats], cats, palette, y, digits,
                   (counted or {}).get(name, "cases"))
            ax.set_title((panels or {}).get(name, name), loc="left", fontsize=10,
                         fontweight="bold", color="#222222")
        fit(fig, top, h_pad=1.2)
        return footed(fig, [], caption, path)


def _panel(ax, rows: list[Mapping | None], cats: list, palette: Mapping, y: str,
           digits: int, counted: str) -> None:
    """One panel: the bars of ``rows`` (``None``: no row) in the order of ``cats``."""
    shown = [r for r in rows if r is not None and r["enough"]]
    ends = [v for r in shown for v in (r[y], r[f"{y}_lo"], r[f"{y}_hi"], 0.0)
            if v is not None and np.isfinite(v)]
    low, high = (min(ends), max(ends)) if len(ends) > 1 else (0.0, 1.0)
    span = (high - low) or 1.0
    negative = high <= 0  # the bars grow to the left: labels and reasons go left too
    for i, row in enumerate(rows):
        if row is None or not row["enough"]:
            ax.text(0, i, " " + _missing(row, counted) + " ", ha="right" if negative else "left",
                    va="center", fontsize=FOOT_POINTS, fontstyle="italic", color=QUIET)
            continue
        value, lo, hi = row[y], row[f"{y}_lo"], row[f"{y}_hi"]
        err = None if lo is None or hi is None else [[max(value - lo, 0)], [max(hi - value, 0)]]
        ax.barh(i, value, 0.75, xerr=err, color=palette[cats[i]], capsize=2,
                error_kw={"elinewidth": 1})
        end = (lo if value < 0 else hi) if err else value
        ax.annotate(_value_label(value, digits), (end if end is not None else value, i),
                    xytext=(-3 if value < 0 else 3, 0), textcoords="offset points",
                    ha="right" if value < 0 else "left", va="center", fontsize=FOOT_POINTS)
    # room for the labels beyond the longest bar (or the reasons, in an empty panel)
    ax.set_xlim(low - (0.35 * span if low < 0 else 0), high + (0.35 * span if high > 0 else 0))
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(cats)), [str(c) for c in cats])
    ax.set_ylim(len(cats) - 0.5, -0.5)
    ax.tick_params(axis="y", length=0)
    ax.set_xticks([])
    ax.grid(False)
    for side in ("bottom", "left"):
        ax.spines[side].set_visible(False)
