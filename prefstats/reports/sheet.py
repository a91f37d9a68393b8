"""The rule-comparison article on one printable page (A4, PNG and PDF): its title, its
summary and five findings, and each table's headline figures side by side, drawn from
rows ``charts.json`` keeps (so ``prefstats charts`` draws it again)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

import matplotlib as mpl
import polars as pl

from prefstats.reports import manifest
from prefstats.reports.charts import (
    SOURCE_GID,
    STYLE,
    current_source,
    figure,
    minus,
    save,
    sourced,
    wrap,
)
from prefstats.reports.render import Report

#: A4 portrait, in inches, and its margins.
PAGE = (8.27, 11.69)
MARGIN = 0.6
#: The headline figures of the sheet's table: (its column, heading and format; the block
#: and the row of the article's table it comes from).
FIGURES = (("deals", "deals a\npulka\n(mean)", "{:,.1f}", "length",
            "deals to close a pulka (mean)"),
           ("raspasy", "raspasy\n(share of\ndeals)", "{:.0%}", "raspasy",
            "raspasy, share of pulka deals"),
           ("skill", "pulkas till\nskill\nshows", "{:,.1f}", "luck",
            "pulkas before the better player is ahead at 95% confidence"),
           ("worst", "worst\npulka in 100\n(whists)", "{:,.0f}", "swings",
            "worst 1% (1st percentile)"))


def _cell(value: float | None, fmt: str) -> str:
    return "—" if value is None else minus(fmt.format(value))


def summary_sheet(df: pl.DataFrame, path: Path, *, title: str, summary: str,
                  findings: Sequence[str], link: str) -> list[Path]:
    """The page: ``title`` over ``summary``, the numbered ``findings``, then a row per
    table of ``df`` (``table`` and the columns of :data:`FIGURES`), where the whole
    article is (``link``) and the source line of :func:`sourced`; everything within the
    page's margins."""
    width, height = PAGE
    left, text_width = MARGIN / width, 1 - 2 * MARGIN / width
    with mpl.rc_context(STYLE):
        fig = figure(PAGE)
        y = 1 - MARGIN / height

        def put(text: str, size: float, gap: float, **style) -> None:
            nonlocal y
            # characters a line: the text's width over a mean character (0.55 em, bold 0.62)
            em = 0.62 if style.get("fontweight") == "bold" else 0.55
            wrapped = wrap(text, int((width - 2 * MARGIN) * 72 / (em * size)))
            fig.text(left, y, wrapped, fontsize=size, va="top", ha="left", **style)
            y -= (wrapped.count("\n") + 1) * size * 1.35 / 72 / height + gap / height

        put(title, 20, 0.15, fontweight="bold")
        put(summary, 11, 0.25, color="#333333")
        for number, text in enumerate(findings, 1):
            put(f"{number}. {text}", 12, 0.12)
        y -= 0.2 / height
        put("Each table's headline figures", 13, 0.1, fontweight="bold")
        rows = [[str(r["table"]), *(_cell(r[c], fmt) for c, _, fmt, _, _ in FIGURES)]
                for r in df.iter_rows(named=True)]
        box = 0.35 * (len(rows) + 3) / height
        ax = fig.add_axes((left, y - box, text_width, box))
        ax.axis("off")
        shares = [0.32, 0.17, 0.17, 0.17, 0.17]
        table = ax.table(cellText=rows, colLabels=["table", *(f[1] for f in FIGURES)],
                         bbox=(0, 0, 1, 1), cellLoc="right", colLoc="right",
                         colWidths=shares)
        table.auto_set_font_size(False)
        table.set_fontsize(10.5)
        for (row, col), cell in table.get_celld().items():
            cell.set_edgecolor("#cccccc")
            cell.set_height(1 / (len(rows) + 3) * (3 if row == 0 else 1))
            cell.PAD = 0.08 / (shares[col] * (width - 2 * MARGIN))  # 0.08 inches a side
            if col == 0:
                cell.set_text_props(ha="left")
                cell._loc = "left"
            if row == 0:
                cell.set_text_props(fontweight="bold")
                cell.set_facecolor("#f3f3f3")
        y -= box + 0.3 / height
        put(f"The whole article, its figures, tables and methods: {link}", 10, 0,
            color="#333333")
        line = current_source()
        if line:
            fig.text(left, MARGIN / height, wrap(line, int((width - 2 * MARGIN) * 72 / 4.4)),
                     fontsize=8, color="#555555", ha="left", va="bottom", gid=SOURCE_GID)
    return save(fig, path, alt=f"{title}. {summary} " + " ".join(findings), page=True)


def write_sheet(report: Report, labels: Sequence[str], out: Path) -> list[Path]:
    """Draw the article ``report`` (over the tables ``labels``) on one page into ``out``
    (``summary.png``, ``.svg``, ``.pdf``) and record it in ``out``'s ``charts.json``."""
    tables = {b.name: b.table for section in report.sections for b in section.blocks}
    columns: dict[str, list] = {"table": list(labels)}
    for column, _, _, block, measure in FIGURES:
        row = tables[block].filter(pl.col("measure") == measure).row(0, named=True)
        columns[column] = [row[label] for label in labels]
    table = pl.DataFrame(columns, schema_overrides={f[0]: pl.Float64 for f in FIGURES})
    chart = partial(summary_sheet, title=report.title, summary=report.summary,
                    findings=list(report.meta),
                    link="reports/compare/ of prefstats (index.html, article.md)")
    with sourced(report.source):
        written = chart(table, out / "summary")
    entry = manifest.chart_entry("summary", chart, table, report.source,
                                 f"{report.title}: the article on one page, to print.")
    manifest.record(out, [entry] if entry else [])
    return written
