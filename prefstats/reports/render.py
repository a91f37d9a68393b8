"""Writing a report: blocks (a table, its chart and a few lines of text) grouped in
sections, written as ``report.md``, ``index.html``, one CSV per table and PNG + SVG
charts. Rows with fewer than :data:`~prefstats.reports.stats.MIN_SAMPLES` samples are
left out of the shown tables and charts (they stay in the CSV); a block with no such
row says so instead of showing noise.
"""

from __future__ import annotations

import contextlib
import html
import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from prefstats.reports.stats import MIN_SAMPLES

#: How a shown column is written: "int", "text", "num:D" (D decimals; "num:g" four
#: significant digits), "est:D" or "est:g" (estimate with its 95% CI from
#: ``col_lo``/``col_hi``), "pct" (estimate as a percentage with CI).
Column = tuple[str, str, str]


@dataclass
class Block:
    """One table with its chart: ``name`` is the file stem of the CSV and the chart."""

    name: str
    title: str
    text: str
    table: pl.DataFrame
    columns: list[Column]
    chart: Callable[[pl.DataFrame, Path], list[Path]] | None = None
    notes: list[str] = field(default_factory=list)
    #: What the chart draws when it is not ``table`` (e.g. every class behind a summary).
    chart_table: pl.DataFrame | None = None


@dataclass
class Section:
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Report:
    title: str
    meta: list[str]
    sections: list[Section]
    #: Text files written beside the report (the variant files its commands name),
    #: each also shown in it.
    files: dict[str, str] = field(default_factory=dict)


def _fmt(value, kind: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if kind == "int":
        return f"{int(value):,}"
    if kind.startswith("num:"):
        return _number(value, kind[4:])
    return str(value)


def _number(value: float, digits: str) -> str:
    """``digits`` decimals, or four significant digits for ``"g"``."""
    return f"{value:,.4g}" if digits == "g" else f"{value:,.{int(digits)}f}"


def _cell(row: dict, col: str, kind: str) -> str:
    if kind.startswith("est:") or kind == "pct":
        scale, digits, unit = (100, "1", "%") if kind == "pct" else (1, kind[4:], "")
        v, lo, hi = row[col], row.get(f"{col}_lo"), row.get(f"{col}_hi")
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "—"
        text = _number(v * scale, digits) + unit
        if lo is not None and hi is not None and not (math.isnan(lo) or math.isnan(hi)):
            text += f" [{_number(lo * scale, digits)}, {_number(hi * scale, digits)}]"
        return text
    return _fmt(row[col], kind)


def shown(block: Block) -> pl.DataFrame:
    """The rows of a block's table that have enough samples."""
    t = block.table
    return t.filter("enough") if "enough" in t.columns else t


def display_rows(block: Block) -> list[list[str]]:
    return [[_cell(r, c, k) for _, c, k in block.columns] for r in shown(block).iter_rows(
        named=True)]


def _sample_note(block: Block) -> str | None:
    t, s = block.table, shown(block)
    if len(t) and not len(s):
        biggest = int(t["n"].max()) if "n" in t.columns and t["n"].max() is not None else 0
        return (f"Too few samples to show: the largest group has {biggest:,} (a number needs "
                f"at least {MIN_SAMPLES}). See {block.name}.csv.")
    if len(t) > len(s):
        return (f"{len(t) - len(s)} of {len(t)} rows with fewer than {MIN_SAMPLES} samples are "
                f"not shown (they are in {block.name}.csv).")
    if not len(t):
        return "No data for this table in the dataset."
    return None


def write_report(report: Report, out: str | Path) -> Path:
    """Write CSVs, charts, ``report.md`` and ``index.html`` into ``out``; returns it.

    Everything is made in a temporary folder inside ``out`` and then moved into place,
    ``index.html`` last: a failure leaves no half-written report (and removes the
    folders it created); other files in ``out`` are left alone.
    """
    out = Path(out)
    created = [p for p in (out, *out.parents) if not p.exists()]
    out.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix=".report-", dir=out) as tmp:
            for name in _write_files(report, Path(tmp)):
                os.replace(Path(tmp) / name, out / name)
    except BaseException:
        for folder in created:  # innermost first; only if still empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return out


def _write_files(report: Report, out: Path) -> list[str]:
    """Write the report's files into ``out``; their names, ``index.html`` last."""
    charts: dict[str, str | None] = {}
    names = []
    for section in report.sections:
        for b in section.blocks:
            b.table.write_csv(out / f"{b.name}.csv", float_precision=9)  # summation-order noise
            names.append(f"{b.name}.csv")
            data = b.table if b.chart_table is None else b.chart_table
            drawn = b.chart(data, out / b.name) if b.chart is not None and len(
                data.filter("enough")) else []
            charts[b.name] = drawn[0].name if drawn else None
            names += [p.name for p in drawn]
    texts = {**report.files, "report.md": _markdown(report, charts),
             "index.html": _html(report, charts)}
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
    return names + list(texts)


def _markdown(report: Report, charts: dict[str, str | None]) -> str:
    lines = [f"# {report.title}", "", *(f"- {m}" for m in report.meta), ""]
    for name, text in report.files.items():
        lines += [f"`{name}`:", "", "```toml", text.rstrip("\n"), "```", ""]
    for section in report.sections:
        lines += [f"## {section.title}", "", section.intro, ""]
        for b in section.blocks:
            lines += [f"### {b.title}", "", b.text, ""]
            if charts.get(b.name):
                lines += [f"![{b.title}]({charts[b.name]})", ""]
            rows = display_rows(b)
            if rows:
                heads = [h for h, _, _ in b.columns]
                lines += ["| " + " | ".join(heads) + " |",
                          "|" + "|".join("---" for _ in heads) + "|"]
                lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |"
                          for r in rows]
                lines.append("")
            for note in [_sample_note(b), *b.notes]:
                if note:
                    lines += [f"*{note}*", ""]
            lines += [f"Data: [{b.name}.csv]({b.name}.csv)", ""]
    return "\n".join(lines)


_CODE = re.compile(r"`([^`]+)`")  # markdown code spans in the header lines
_CSS = """body{font-family:system-ui,sans-serif;max-width:1400px;margin:2em auto;padding:0 1em;
color:#222}h1,h2{border-bottom:1px solid #ddd}.block{display:flex;flex-wrap:wrap;gap:1.5em;
align-items:flex-start}.block img{max-width:720px;width:100%}table{border-collapse:collapse;
font-size:0.85em}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f3f3f3}.note{color:#666;font-style:italic}"""


def _html(report: Report, charts: dict[str, str | None]) -> str:
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(report.title)}"
             f"</title><style>{_CSS}</style></head><body><h1>{e(report.title)}</h1><ul>"]
    parts += ["<li>" + _CODE.sub(r"<code>\1</code>", e(m)) + "</li>" for m in report.meta]
    parts.append("</ul>")
    parts += [f"<p><code>{e(name)}</code>:</p><pre>{e(text)}</pre>"
              for name, text in report.files.items()]
    for section in report.sections:
        parts.append(f"<h2>{e(section.title)}</h2><p>{e(section.intro)}</p>")
        for b in section.blocks:
            parts.append(f"<h3>{e(b.title)}</h3><p>{e(b.text)}</p><div class='block'>")
            if charts.get(b.name):
                parts.append(f"<img src='{charts[b.name]}' alt='{e(b.title)}'>")
            rows = display_rows(b)
            if rows:
                parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h, _, _ in b.columns)
                             + "</tr>")
                parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                          for r in rows]
                parts.append("</table>")
            parts.append("</div>")
            for note in [_sample_note(b), *b.notes]:
                if note:
                    parts.append(f"<p class='note'>{e(note)}</p>")
            parts.append(f"<p>Data: <a href='{b.name}.csv'>{b.name}.csv</a></p>")
    parts.append("</body></html>")
    return "\n".join(parts)
