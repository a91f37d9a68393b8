"""Small multiples in the house style (:mod:`~prefstats.reports.charts`): quantities of
very different sizes, a panel each on its own scale, every bar labelled with its value
and a missing bar marked with why."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib as mpl
import numpy as np
import polars as pl

from prefstats.reports import charts as c


def panel_bars(df: pl.DataFrame, path: Path, *, panel: str, x: str, y: str, title: str,
               subtitle: str = "", caption: str = "", colours: Mapping | None = None,
               panels: Mapping[str, str] | None = None, counted: Mapping[str, str] | None = None,
               digits: int = 1) -> list[Path]:
    """A panel per value of ``panel`` (titled by ``panels``), one under the other, each on
    its own scale: a horizontal bar of ``y`` per ``x`` category with its 95% interval
    (``y_lo``, ``y_hi``) and its value at its end; a category without ``enough`` samples
    gets the reason instead, in ``counted``'s words for the panel ("caught misères")."""
    if not len(df.filter("enough")):
        return []
    names = df[panel].unique(maintain_order=True).to_list()
    cats = df[x].unique(maintain_order=True).to_list()
    palette = c.colours_for(cats, colours or {})
    rows = {(r[panel], r[x]): r for r in df.iter_rows(named=True)}
    with mpl.rc_context(c.STYLE):
        fig = c.figure((c.COLUMN, 1.0))
        top = c.heading(fig, title, subtitle)
        fig.set_size_inches(c.COLUMN, top + len(names) * (len(cats) * 0.17 + 0.45) + 0.1)
        for ax, name in zip(fig.subplots(len(names), 1, squeeze=False)[:, 0], names,
                            strict=True):
            _panel(ax, [rows.get((name, k)) for k in cats], cats, palette, y, digits,
                   (counted or {}).get(name, "cases"))
            ax.set_title((panels or {}).get(name, name), loc="left", fontsize=10,
                         fontweight="bold", color="#222222")
        c.fit(fig, top, h_pad=1.2)
        return c.footed(fig, [], caption, path)


def _panel(ax, rows: list, cats: list, palette: Mapping, y: str, digits: int,
           counted: str) -> None:
    """One panel: the bars of ``rows`` (``None``: no row) in the order of ``cats``."""
    ends = [v for r in rows if r is not None and r["enough"]
            for v in (r[y], r[f"{y}_lo"], r[f"{y}_hi"], 0.0) if v is not None and np.isfinite(v)]
    low, high = (min(ends), max(ends)) if len(ends) > 1 else (0.0, 1.0)
    span = high - low
    for i, row in enumerate(rows):
        if row is None or not row["enough"]:
            why = f"only {int(row['n']):,} {counted}" if row and row.get("n") else "none"
            ax.text(0, i, f" {why}: too few to show ", ha="right" if high <= 0 else "left",
                    va="center", fontsize=c.FOOT_POINTS, fontstyle="italic", color=c.QUIET)
            continue
        value, lo, hi = row[y], row[f"{y}_lo"], row[f"{y}_hi"]
        bounded = lo is not None and hi is not None
        ax.barh(i, value, 0.75, color=palette[cats[i]], capsize=2, error_kw={"elinewidth": 1},
                xerr=[[max(value - lo, 0)], [max(hi - value, 0)]] if bounded else None)
        ax.annotate(c.minus(f"{value:,.{digits}f}"),
                    ((lo if value < 0 else hi) if bounded else value, i),
                    xytext=(-3 if value < 0 else 3, 0), textcoords="offset points",
                    ha="right" if value < 0 else "left", va="center", fontsize=c.FOOT_POINTS)
    # room for the labels beyond the longest bar
    ax.set_xlim(low - (0.35 * span if low < 0 else 0), high + (0.35 * span if high > 0 else 0))
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(cats)), [str(k) for k in cats])
    ax.set_ylim(len(cats) - 0.5, -0.5)
    ax.tick_params(axis="y", length=0)
    ax.set_xticks([])
    ax.grid(False)
    for side in ("bottom", "left"):
        ax.spines[side].set_visible(False)
