"""Writing a report: blocks (a table, its chart and a few lines of text) grouped in
sections, written as ``report.md``, ``index.html``, one CSV per table, PNG + SVG + PDF
charts and ``charts.json`` (:mod:`~prefstats.reports.manifest`: how each chart is drawn
again from the tables). Rows with fewer than
:data:`~prefstats.reports.stats.MIN_SAMPLES` samples are left out of the shown tables
and charts (they stay in the CSV); a block with no such row says so instead of showing
noise.
"""

from __future__ import annotations

import contextlib
import html
import math
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from prefstats.reports import findings, manifest
from prefstats.reports.charts import sourced
from prefstats.reports.stats import DECIMALS, MIN_SAMPLES

#: How a shown column is written: "text"; a kind of figure of :data:`FIGURES`
#: ("count", "share", "whists" …, each with one format everywhere); "unit" or
#: "unit_diff", the figure (or difference) of the kind named by the row's ``unit``; or a
#: format: "int", "num:D" (D decimals; "num:g" four significant digits), "est:D"
#: (estimate with its 95% CI from ``col_lo``/``col_hi``), "diff:D" (the same, signed),
#: "pct" (a share as a percentage, with its CI when it has one), "pp" (a difference of
#: shares in percentage points, signed).
Column = tuple[str, str, str]

#: Tables with more rows than this fold away (``<details>``) on the HTML page.
FOLD_ROWS = 12

#: One number format per kind of figure, for every table of every report.
FIGURES = {"count": "int", "share": "pct", "whists": "est:2", "points": "est:2",
           "deals": "est:1", "pulkas": "est:0", "p": "num:g",
           "share_diff": "pp", "whists_diff": "diff:2", "points_diff": "diff:2"}


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
    #: A line under the chart saying what it shows (also its alt text).
    caption: str = ""


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
    #: Other documents the report links to: (what it is, file name beside the report).
    links: list[tuple[str, str]] = field(default_factory=list)
    #: The source line under every chart (:func:`~prefstats.reports.charts.source_line`).
    source: str | None = None
    #: The Markdown file's name.
    markdown: str = "report.md"
    #: A paragraph shown first (e.g. the variant's rules in words).
    summary: str = ""
    #: Pictures shown before the sections (title, image file beside the report), e.g.
    #: the hand charts of ``prefstats guide --variant``.
    lead: list[tuple[str, str]] = field(default_factory=list)


def _number(value: float, digits: str, signed: bool = False) -> str:
    """``digits`` decimals, or four significant digits for ``"g"``; a sign on request."""
    sign = "+" if signed else ""
    if math.isinf(value):  # an interval without bound (e.g. an edge that may be nil)
        return ("+" if signed and value > 0 else "") + ("∞" if value > 0 else "−∞")
    if digits == "g":
        return f"{value:{sign},.4g}"
    return f"{round(value, int(digits)) + 0.0:{sign},.{int(digits)}f}"  # + 0.0: no "-0.0"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


#: Estimate formats: (scale, decimals, unit, signed).
_ESTIMATES = {"pct": (100, "1", "%", False), "pp": (100, "1", " pp", True)}


def _format_of(row: dict, kind: str) -> str:
    if kind in ("unit", "unit_diff"):
        kind = row["unit"] + ("_diff" if kind == "unit_diff" else "")
    return FIGURES.get(kind, kind)


def _cell(row: dict, col: str, kind: str) -> str:
    kind = _format_of(row, kind)
    value = row[col]
    if _missing(value):
        return "—"
    if kind == "int":
        return f"{int(value):,}"
    if kind.startswith("num:"):
        return _number(value, kind[4:])
    if kind in _ESTIMATES or kind.startswith(("est:", "diff:")):
        scale, digits, unit, signed = _ESTIMATES.get(kind) or (1, kind.partition(":")[2], "",
                                                               kind.startswith("diff:"))
        lo, hi = row.get(f"{col}_lo"), row.get(f"{col}_hi")
        text = _number(value * scale, digits, signed) + unit
        if not (_missing(lo) or _missing(hi)):
            bounds = (_number(b * scale, digits, signed) for b in (lo, hi))
            text += " [{}, {}]".format(*bounds)
        return text
    return str(value)


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
            for name in _write_files(report, Path(tmp), out):
                os.replace(Path(tmp) / name, out / name)
    except BaseException:
        for folder in created:  # innermost first; only if still empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return out


def alt_text(options: Mapping, data: pl.DataFrame, title: str) -> str:
    """A chart in words: its finding (read from ``data``), what it draws against what."""
    drawn = options.get("title") or title
    ylabel, xlabel = options.get("ylabel"), options.get("xlabel")
    text = (f"{drawn}: {ylabel} by {xlabel}." if ylabel and xlabel else
            f"{drawn}: {ylabel}." if ylabel else f"{drawn}.")
    if options.get("finding") and "x" in options and "y" in options:
        stated = findings.state(data, options["finding"], x=options["x"], y=options["y"],
                                group=options.get("group"))
        text = f"{stated}. {text}" if stated else text
    return text


def _write_files(report: Report, out: Path, final: Path) -> list[str]:
    """Write the report's files into ``out`` (to be moved into ``final``); their names,
    ``index.html`` last."""
    charts: dict[str, str | None] = {}
    names, entries = [], []
    # the lead pictures' alt texts, by file, from the manifest they were drawn with
    alts = {f"{e['name']}.png": e["alt"] for e in manifest.read(final)["charts"]}
    tables = {id(b.table): f"{b.name}.csv" for s in report.sections for b in s.blocks}
    for section in report.sections:
        for b in section.blocks:
            b.table.write_csv(out / f"{b.name}.csv", float_precision=DECIMALS)
            names.append(f"{b.name}.csv")
            data = b.table if b.chart_table is None else b.chart_table
            with sourced(report.source):
                drawn = b.chart(data, out / b.name) if b.chart is not None and len(
                    data.filter("enough")) else []
            charts[b.name] = drawn[0].name if drawn else None
            names += [p.name for p in drawn]
            alts[b.name] = alt_text(getattr(b.chart, "keywords", {}), data, b.title)
            entry = drawn and manifest.chart_entry(b.name, b.chart, tables.get(id(data), data),
                                                   report.source, alts[b.name])
            if entry:
                entries.append(entry)
    texts = {**report.files, report.markdown: _markdown(report, charts, alts),
             "index.html": _html(report, charts, alts)}
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
    if entries:
        manifest.record(out, entries, base=final)
        names.append(manifest.NAME)
    return names + list(texts)


class _Anchors:
    """Heading anchors as GitHub makes them (lower case, punctuation dropped, spaces to
    hyphens, ``-1``, ``-2`` … on repeats), so one anchor serves report.md on GitHub and
    index.html; taken in the order the headings appear."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, title: str) -> str:
        slug = re.sub(r"[^\w\- ]", "", _CODE.sub(r"\1", title).strip().lower()).replace(" ", "-")
        count = self._seen.get(slug, 0)
        self._seen[slug] = count + 1
        return f"{slug}-{count}" if count else slug


@dataclass
class _Outline:
    """The headings of a report with their anchors: what the table of contents lists."""

    contents: str
    sections: list[tuple[str, list[str]]]  # per section: its anchor, its blocks' anchors
    files: str


_CONTENTS, _FILES = "Contents", "Files"


def _outline(report: Report) -> _Outline:
    anchor = _Anchors()
    anchor(report.title)
    contents = anchor(_CONTENTS)
    sections = [(anchor(s.title), [anchor(b.title) for b in s.blocks]) for s in report.sections]
    return _Outline(contents, sections, anchor(_FILES))


def _file_list(report: Report, charts: dict[str, str | None]) -> list[tuple[str, list[str]]]:
    """Every file of the report by what it is: (label, file names)."""
    blocks = [b for s in report.sections for b in s.blocks]
    svgs = [Path(charts[b.name]).with_suffix(".svg").name for b in blocks if charts.get(b.name)]
    return [(label, names) for label, names in (
        ("linked documents", [href for _, href in report.links]),
        ("tables (CSV, every row)", [f"{b.name}.csv" for b in blocks]),
        ("charts (SVG; PNG beside each)", svgs),
        ("variant files", list(report.files))) if names]


def _chart_links(name: str) -> list[tuple[str, str]]:
    """(text, file) of a chart's vector, print and bitmap files."""
    svg = Path(name).with_suffix(".svg").name
    return [(svg, svg), ("PDF", Path(name).with_suffix(".pdf").name), ("PNG", name)]


def _markdown(report: Report, charts: dict[str, str | None], alts: dict[str, str]) -> str:
    outline = _outline(report)
    lines = [f"# {report.title}", ""]
    if report.summary:
        lines += [report.summary, ""]
    lines += [line for t, f in report.lead for line in (f"![{alts.get(f, t)}]({f})", "")]
    lines += [*(f"- {m}" for m in report.meta),
              *(f"- {label}: [{href}]({href})" for label, href in report.links), ""]
    lines += [f"## {_CONTENTS}", ""]
    for section, (anchor, anchors) in zip(report.sections, outline.sections, strict=True):
        lines.append(f"- [{section.title}](#{anchor})")
        lines += [f"  - [{b.title}](#{a})" for b, a in zip(section.blocks, anchors,
                                                             strict=True)]
    lines += [f"- [{_FILES}](#{outline.files})", ""]
    for name, text in report.files.items():
        lines += [f"`{name}`:", "", "```toml", text.rstrip("\n"), "```", ""]
    for section in report.sections:
        lines += [f"## {section.title}", "", section.intro, ""]
        for b in section.blocks:
            lines += [f"### {b.title}", "", *((b.text, "") if b.text else ())]
            if charts.get(b.name):
                lines += [f"![{alts[b.name]}]({charts[b.name]})", ""]
                lines += [f"*{b.caption}*", ""] if b.caption else []
            rows = display_rows(b)
            if rows:
                heads = [h for h, _, _ in b.columns]
                fold = len(rows) > FOLD_ROWS
                if fold:
                    lines += [f"<details><summary>the table ({len(rows)} rows)</summary>", ""]
                lines += ["| " + " | ".join(heads) + " |",
                          "|" + "|".join("---" for _ in heads) + "|"]
                lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |"
                          for r in rows]
                lines += ["", "</details>"] if fold else []
                lines.append("")
            for note in [_sample_note(b), *b.notes]:
                if note:
                    lines += [f"*{note}*", ""]
            links = [(f"{b.name}.csv", f"{b.name}.csv")]
            if charts.get(b.name):
                links += _chart_links(charts[b.name])
            lines += ["Data: " + " · ".join(f"[{t}]({f})" for t, f in links), ""]
    lines += [f"## {_FILES}", ""]
    lines += [f"- {label}: " + ", ".join(f"[{n}]({n})" for n in names)
              for label, names in _file_list(report, charts)]
    return "\n".join(lines) + "\n"


_CODE = re.compile(r"`([^`]+)`")
#: The inline Markdown the report's texts use, as HTML (after escaping; code spans apart).
_INLINE = ((re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
           (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"<em>\1</em>"),
           (re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)"), r"<a href='\2'>\1</a>"))


def inline_html(text: str) -> str:
    """``text`` (plain words with inline Markdown: code spans, bold, italics, links) as
    escaped HTML, so no Markdown mark shows on the page.

    >>> inline_html("see `a*b` and **this** [guide](guide.md) < *now*")
    "see <code>a*b</code> and <strong>this</strong> <a href='guide.md'>guide</a> &lt; <em>now</em>"
    """
    parts = _CODE.split(text)  # odd items: the insides of code spans
    out = []
    for i, part in enumerate(parts):
        part = html.escape(part)
        if i % 2:
            out.append(f"<code>{part}</code>")
            continue
        for pattern, replacement in _INLINE:
            part = pattern.sub(replacement, part)
        out.append(part)
    return "".join(out)


_CSS = """body{font-family:system-ui,sans-serif;max-width:1400px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45;overflow-wrap:anywhere}h1,h2{border-bottom:1px solid #ddd}
h1{font-size:1.6em}img{max-width:100%;height:auto}figure{margin:1em 0}
figure img{max-width:900px;width:100%}figcaption{color:#555;font-size:0.9em}
.summary{font-size:1.05em;max-width:60em}summary{cursor:pointer;color:#0072B2}
.block{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}
.block>*{min-width:0;max-width:100%}.block img{max-width:720px;width:100%;height:auto}
.table{overflow-x:auto;max-width:100%}table{border-collapse:collapse;font-size:0.85em}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:right;white-space:nowrap;
overflow-wrap:normal}
th{background:#f3f3f3}.note{color:#666;font-style:italic}nav ul{padding-left:1.2em}
pre{overflow-x:auto}
@media (max-width:600px){body{margin:0.5em auto;padding:0 0.5em}table{font-size:0.75em}}"""


#: A link to a sibling report's Markdown, which its HTML page replaces.
_SIBLING_MARKDOWN = re.compile(r"href='(\.\./[^/']+/)(?:article|report)\.md'")


def _page_links(text: str) -> str:
    """``text`` (HTML) with its links to a sibling report's Markdown sent to its page."""
    return _SIBLING_MARKDOWN.sub(r"href='\1index.html'", text)


def _html_links(links: list[tuple[str, str]]) -> str:
    e = html.escape
    return " · ".join(f"<a href='{e(f)}'>{e(t)}</a>" for t, f in links)


def _html(report: Report, charts: dict[str, str | None], alts: dict[str, str]) -> str:
    e = html.escape
    outline = _outline(report)
    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>"
             "<meta name='viewport' content='width=device-width, initial-scale=1'>"
             f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>"
             f"<h1>{e(report.title)}</h1>"]
    if report.summary:
        parts.append(f"<p class='summary'>{inline_html(report.summary)}</p>")
    parts += [f"<figure><a href='{e(Path(f).with_suffix('.svg').name)}'><img src='{e(f)}' "
              f"alt='{e(alts.get(f, t))}'></a><figcaption>{e(t)}</figcaption></figure>"
              for t, f in report.lead]
    parts.append("<ul>")
    parts += [f"<li>{inline_html(m)}</li>" for m in report.meta]
    parts += [f"<li>{e(label)}: {_html_links([(href, href)])}</li>"
              for label, href in report.links]
    parts.append(f"</ul><nav><h2 id='{outline.contents}'>{_CONTENTS}</h2><ul>")
    for section, (anchor, anchors) in zip(report.sections, outline.sections, strict=True):
        parts.append(f"<li><a href='#{anchor}'>{e(section.title)}</a><ul>")
        parts += [f"<li><a href='#{a}'>{e(b.title)}</a></li>"
                  for b, a in zip(section.blocks, anchors, strict=True)]
        parts.append("</ul></li>")
    parts.append(f"<li><a href='#{outline.files}'>{_FILES}</a></li></ul></nav>")
    parts += [f"<p><code>{e(name)}</code>:</p><pre>{e(text)}</pre>"
              for name, text in report.files.items()]
    for section, (anchor, anchors) in zip(report.sections, outline.sections, strict=True):
        parts.append(f"<h2 id='{anchor}'>{e(section.title)}</h2>" + "".join(
            f"<p>{_page_links(inline_html(p))}</p>" for p in section.intro.split("\n\n")))
        for b, a in zip(section.blocks, anchors, strict=True):
            text = f"<p>{inline_html(b.text)}</p>" if b.text else ""
            parts.append(f"<h3 id='{a}'>{e(b.title)}</h3>{text}<div class='block'>")
            links = [(f"{b.name}.csv", f"{b.name}.csv")]
            if charts.get(b.name):
                svg = Path(charts[b.name]).with_suffix(".svg").name
                image = (f"<a href='{svg}'><img src='{charts[b.name]}' "
                         f"alt='{e(alts[b.name])}'></a>")
                parts.append(f"<figure>{image}<figcaption>{inline_html(b.caption)}"
                             "</figcaption></figure>" if b.caption else image)
                links += _chart_links(charts[b.name])
            rows = display_rows(b)
            if rows:
                fold = len(rows) > FOLD_ROWS
                if fold:
                    parts.append(f"<details><summary>the table ({len(rows)} rows)</summary>")
                parts.append("<div class='table'><table><tr>"
                             + "".join(f"<th>{e(h)}</th>" for h, _, _ in b.columns) + "</tr>")
                parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                          for r in rows]
                parts.append("</table></div>" + ("</details>" if fold else ""))
            parts.append("</div>")
            for note in [_sample_note(b), *b.notes]:
                if note:
                    parts.append(f"<p class='note'>{inline_html(note)}</p>")
            parts.append(f"<p>Data: {_html_links(links)}</p>")
    parts.append(f"<h2 id='{outline.files}'>{_FILES}</h2><ul>")
    parts += [f"<li>{e(label)}: {_html_links([(n, n) for n in names])}</li>"
              for label, names in _file_list(report, charts)]
    parts.append("</ul></body></html>")
    return "\n".join(parts) + "\n"


_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def site_index(root: str | Path) -> Path:
    """Write ``root/index.html``: a link to every report page in a folder under
    ``root`` (its ``index.html``, titled by its own title), the article first."""
    root = Path(root)
    pages = sorted(root.glob("*/index.html"), key=lambda p: (p.parent.name != "compare",
                                                            p.parent.name))
    e = html.escape
    items = []
    for page in pages:
        found = _TITLE.search(page.read_text("utf-8"))
        title = html.unescape(found.group(1)) if found else page.parent.name
        rel = page.relative_to(root).as_posix()
        guide = page.parent / "guide.md"
        extra = (f" · <a href='{e(guide.relative_to(root).as_posix())}'>guide</a>"
                 if guide.is_file() else "")
        items.append(f"<li><a href='{e(rel)}'>{e(title)}</a>{extra}</li>")
    text = ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>prefstats reports</title><style>{_CSS}</style></head><body>"
            "<h1>prefstats reports</h1><p>The rule-comparison article and each variant's "
            "report (its hand charts and rules first, then the tables).</p><ul>"
            + "".join(items) + "</ul></body></html>\n")
    out = root / "index.html"
    out.write_text(text, encoding="utf-8")
    return out
