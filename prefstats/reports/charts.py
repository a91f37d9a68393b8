"""Publishable charts: two generic plots (lines with 95% bands, bars with 95% error
bars) in one house style -- titled, axes labelled with units, a fixed colour per
variant, seat and contract level, readable at article width (7.5 × 4.5 in, 150 dpi).
Only rows with enough samples are drawn. Each chart is saved as PNG and SVG.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.ticker import MaxNLocator, PercentFormatter

#: One colour per variant across every chart (others get the next free colour).
VARIANT_COLOURS = {"sochi": "#1f77b4", "leningrad": "#d62728", "rostov": "#2ca02c"}
SEAT_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#8172b3")
#: Misère charts: bars by the number of short holes.
HOLE_COLOURS = ("#54278f", "#9e9ac8", "#cbc9e2", "#f2f0f7")
LEVEL_COLOURS = {6: "#0072B2", 7: "#E69F00", 8: "#009E73", 9: "#CC79A7", 10: "#D55E00"}
_SPARE = ("#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
STYLE = {"font.size": 11, "axes.titlesize": 13, "axes.labelsize": 11, "legend.fontsize": 10,
         "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
         "grid.alpha": 0.3, "figure.dpi": 150, "savefig.dpi": 150,
         "svg.fonttype": "none",  # SVG text stays text: small, and editable by a writer
         "svg.hashsalt": "prefstats"}  # stable element ids: a rerun writes the same SVG
SIZE = (7.5, 4.5)


def colours_for(names: Sequence, fixed: Mapping | Sequence) -> dict:
    """A colour for each name: from ``fixed`` (a mapping, or a sequence by index),
    then spare colours."""
    spare = iter(_SPARE)
    out = {}
    for i, name in enumerate(names):
        if isinstance(fixed, Mapping):
            out[name] = fixed.get(name) or next(spare)
        else:
            out[name] = fixed[i % len(fixed)]
    return out


def _legend(ax, entries: int) -> None:
    """The legend in a row under the axes, where it never hides data."""
    ax.legend(frameon=False, ncols=min(entries, 5), loc="upper center",
              bbox_to_anchor=(0.5, -0.16))


def _finish(fig, ax, title: str, xlabel: str, ylabel: str, path: Path, note: str | None,
            percent: bool) -> list[Path]:
    if percent:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_title(title, loc="left")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if note:
        fig.text(0.01, 0.01, note, fontsize=8, color="#555555", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.04 if note else 0, 1, 1))
    paths = [path.with_suffix(".png"), path.with_suffix(".svg")]
    fig.savefig(paths[0], pil_kwargs={"optimize": True})
    fig.savefig(paths[1], metadata={"Date": None})  # no timestamp: reruns write the same file
    plt.close(fig)
    return paths


def line_chart(df: pl.DataFrame, path: Path, *, x: str, y: str, group: str | None = None,
               title: str,
               xlabel: str, ylabel: str, colours: Mapping | Sequence = SEAT_COLOURS,
               group_label: str = "", zero_line: bool = False, note: str | None = None,
               percent: bool = False) -> list[Path]:
    """Lines of ``y`` against ``x``, one per ``group``, with shaded ``y_lo``–``y_hi``;
    ``percent`` writes a share axis as percentages. No rows with enough samples: no
    chart (an empty list)."""
    df = df.filter("enough").sort(x)
    if not len(df):
        return []
    groups = df[group].unique(maintain_order=True).sort().to_list() if group else [None]
    palette = colours_for(groups, colours)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        for g in groups:
            part = df.filter(pl.col(group) == g) if group else df
            c = palette[g]
            label = f"{group_label}{g}" if group else None
            ax.plot(part[x], part[y], marker="o", ms=4, color=c, label=label)
            ax.fill_between(part[x], part[f"{y}_lo"], part[f"{y}_hi"], color=c, alpha=0.15,
                            linewidth=0)
        if zero_line:
            ax.axhline(0, color="black", linewidth=0.8)
        if df[x].dtype.is_integer():
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if group:
            _legend(ax, len(groups))
        return _finish(fig, ax, title, xlabel, ylabel, path, note, percent)


def bar_chart(df: pl.DataFrame, path: Path, *, x: str, y: str, group: str | None = None,
              title: str, xlabel: str, ylabel: str, colours: Mapping | Sequence = SEAT_COLOURS,
              group_label: str = "", zero_line: bool = True, note: str | None = None,
              percent: bool = False, errors: bool = True) -> list[Path]:
    """Grouped bars of ``y`` per ``x`` category and ``group``, with 95% error bars from
    ``y_lo``/``y_hi`` unless ``errors`` is false; no chart without rows, as for
    :func:`line_chart`."""
    df = df.filter("enough")
    if not len(df):
        return []
    cats = df[x].unique(maintain_order=True).to_list()
    groups = df[group].unique(maintain_order=True).to_list() if group else [None]
    # without groups each category has its own colour (e.g. one per seat)
    palette = colours_for(groups if group else cats, colours)
    width = 0.8 / len(groups)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=SIZE)
        ax.grid(axis="x", visible=False)
        for k, g in enumerate(groups):
            part = df.filter(pl.col(group) == g) if group else df
            pos = [cats.index(v) + (k - (len(groups) - 1) / 2) * width for v in part[x]]
            # an interval may end a hair inside its estimate (clamped or rounded bounds)
            err = (np.clip([(part[y] - part[f"{y}_lo"]).to_numpy(),
                            (part[f"{y}_hi"] - part[y]).to_numpy()], 0, None)
                   if errors else None)
            colour = palette[g] if group else [palette[v] for v in part[x]]
            ax.bar(pos, part[y], width * 0.95, yerr=err, capsize=3, color=colour,
                   label=f"{group_label}{g}" if group else None, error_kw={"elinewidth": 1})
        # a variant with house rules is named in words: wrap it under its bars
        ax.set_xticks(range(len(cats)), [textwrap.fill(str(c), 24) for c in cats])
        if zero_line:
            ax.axhline(0, color="black", linewidth=0.8)
        if group:
            _legend(ax, len(groups))
        return _finish(fig, ax, title, xlabel, ylabel, path, note, percent)
