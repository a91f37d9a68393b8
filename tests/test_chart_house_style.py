"""The house style checked on every committed chart, drawn again from its tables: every
text readable on what it sits on (WCAG AA), no overlapping text, a title that states the
finding in at most 70 characters, seats by name, every hand chart filling its figure and
its smallest text printing at 6 points or more in an 8.5 cm column (so it reads at 390
px); and the pieces it rests on: the contrast arithmetic, the diverging palette, the PDF."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib as mpl
import numpy as np
import polars as pl
import pytest
from matplotlib.colors import to_rgb
from test_charts_style import overlaps

from prefstats.reports import charts, manifest, model_tables, restore
from prefstats.reports import hand_pictures as hp
from prefstats.reports.hand_charts import cell_table

REPORTS = Path(__file__).resolve().parent.parent / "reports"
FOLDERS = [p.parent.name for p in sorted(REPORTS.glob(f"*/{manifest.NAME}"))]
#: Folders whose charts are drawn for one column: the article's (but its page to print).
COLUMN_FOLDERS = ("compare",)
SHEET = "summary"
#: Drawn in the fast suite: a three-player and a four-player folder (each a guide and a
#: report) and the comparison; the others' charts are the same functions on other tables.
FAST = ("sochi", "classic-4p", "compare")


def test_contrast_is_the_wcag_ratio_and_ink_picks_the_readable_one():
    assert charts.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert charts.contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    dark_red, pale_blue = mpl.colormaps[charts.DIVERGING](0.0), "#d1e5f0"
    assert charts.ink(dark_red) == "#ffffff" and charts.ink(pale_blue) == "#000000"
    for x in np.linspace(0, 1, 101):  # every colour of the scale has a readable ink
        colour = mpl.colormaps[charts.DIVERGING](x)
        assert charts.contrast(charts.ink(colour), colour) >= charts.MIN_CONTRAST
    assert charts.contrast(charts.QUIET, charts.GREY) >= charts.MIN_CONTRAST


def _lightness(colour) -> float:
    """CIE L* of an sRGB colour."""
    y = charts._luminance(colour)
    return 116 * (y ** (1 / 3) if y > 216 / 24389 else (24389 / 27 * y + 16) / 116) - 16


def test_the_diverging_scale_reads_without_hue():
    """Lightness rises from each end to the centre, so both arms are told apart from the
    centre and ordered for any colour vision (and in grey print)."""
    cmap = mpl.colormaps[charts.DIVERGING]
    low = [_lightness(cmap(x)) for x in np.linspace(0, 0.5, 26)]
    high = [_lightness(cmap(x)) for x in np.linspace(1, 0.5, 26)]
    assert all(np.diff(low) > 0) and all(np.diff(high) > 0)
    # the two arms differ in hue where they are equally light: red against blue
    assert to_rgb(cmap(0.1))[0] > to_rgb(cmap(0.1))[2]
    assert to_rgb(cmap(0.9))[2] > to_rgb(cmap(0.9))[0]


def test_a_dark_cell_gets_white_text_and_a_planted_grey_text_is_caught():
    with mpl.rc_context(charts.STYLE):
        fig = charts.figure((3, 2))
        ax = fig.subplots()
        values = np.array([[-60.0, 60.0], [0.0, np.nan]])
        charts.heatmap(ax, values, [["P −85", "M +60"], ["P 0", "n=3"]],
                       np.isnan(values), rows=["a", "b"], cols=["x", "y"], limit=60,
                       xlabel="", ylabel="")
        assert min(c for _, c in charts.text_contrasts(fig)) >= charts.MIN_CONTRAST
        ax.text(0, 0, "grey on red", color="#777777")
        worst = min(charts.text_contrasts(fig), key=lambda x: x[1])
        assert worst[0] == "grey on red" and worst[1] < charts.MIN_CONTRAST


def _drawn(folder: Path) -> list[tuple[str, object]]:
    """Every chart of a committed folder's manifest, drawn (no file written)."""
    figures: list[tuple[str, object]] = []
    with charts.drawing(lambda fig, path: figures.append((path.name, fig))):
        restore.restore_folder(folder)
    return figures


@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow)
                                  for n in FOLDERS])
def test_every_committed_chart_is_readable(name):
    """The house style on every chart of a committed folder. Only the folders in ``FAST``
    run in the fast suite; the others, under `slow`, draw the same chart kinds (guide and
    report, three and four players) from other tables, which sochi and classic-4p cover."""
    folder = REPORTS / name
    entries = manifest.read(folder)["charts"]
    figures = _drawn(folder)
    assert [n for n, _ in figures] == [e["name"] for e in entries]
    hand = {e["name"] for e in entries if e.get("hand")}  # names may repeat across kinds
    for chart, fig in figures:
        low = [(t, round(c, 2)) for t, c in charts.text_contrasts(fig)
               if c < charts.MIN_CONTRAST]
        assert low == [], f"{name}/{chart}: text below {charts.MIN_CONTRAST}:1"
        assert overlaps(fig) == [], f"{name}/{chart}: overlapping text"
        texts = " ".join(" ".join(t.get_text().split()) for t in fig.findobj(mpl.text.Text))
        assert not re.search(r"\bseat [0-9]", texts), f"{name}/{chart}: a seat by number"
        column = chart in hand or (name in COLUMN_FOLDERS and chart != SHEET)
        if column:  # the finding as title, readable on a phone and in a printed column
            title = charts.title_of(fig)
            assert 0 < len(title) <= charts.TITLE_CHARS, (chart, title)
            assert fig.get_size_inches()[0] <= charts.COLUMN
            points = charts.print_points(fig)
            assert points >= charts.MIN_PRINT_POINTS, f"{name}/{chart}: {points:.1f} pt"
        if chart in hand:
            fig.canvas.draw()
            boxes = [ax.get_tightbbox() for ax in fig.axes]  # labels, cells, colour bar
            span = (max(b.x1 for b in boxes) - min(b.x0 for b in boxes)) / fig.bbox.width
            cells = [ax.get_window_extent() for ax in fig.axes if ax.images]
            share = sum(c.width for c in cells) / fig.bbox.width
            assert span >= 0.8 and share >= 0.4, f"{name}/{chart}: an empty part"
            assert "Coloured cells cover" in texts and "whists a deal" in texts


def test_every_picture_a_page_shows_is_drawn_again_from_the_tables():
    """What the repository does not keep, `prefstats charts` makes: every image a
    committed page shows has a manifest entry (or is kept), every manifest entry its
    table."""
    assert set(FAST) <= set(FOLDERS)  # the fast suite draws the folders it names
    for page in sorted(REPORTS.glob("*/index.html")):
        folder = page.parent
        doc = manifest.read(folder)
        drawn = {f"{e['name']}.png" for e in doc["charts"]}
        for src in re.findall(r"<img src='([^']+)'", page.read_text("utf-8")):
            assert src in drawn or (folder / src).is_file(), f"{folder.name}: {src}"
        for e in doc["charts"]:
            data = e.get("data") or (f"{e['name']}.csv" if e.get("hand") else None)
            assert data is None or (folder / data).is_file(), (folder.name, e["name"])
        # a table of every model's cells is made from models.csv.xz (by `prefstats charts`)
        made = {model_tables.table_name(c) for c in doc.get("models", {})}
        assert not made or (folder / model_tables.FILE).is_file(), folder.name
        for name in doc["copies"]:
            assert name in made or (folder / f"{name}.csv").is_file(), (folder.name, name)


def test_the_misere_chart_and_its_pdf(tmp_path):
    """A hand chart drawn from its table alone: seats named, the title ≤ 70 characters,
    the PDF with its fonts embedded and the alt text as its subject."""
    wide = pl.DataFrame({"seat": [0, 1, 2] * 40, "points": [7] * 120,
                         "pass": [0.0] * 120, "6": np.linspace(5, 15, 120)})
    table = cell_table(wide, ["points", "seat"], ["6"], 30)
    chart = hp.chart_from_table("first_call_points", table, 30)
    paths, alt = hp.picture(chart, {0: "first hand", 1: "second hand", 2: "dealer"},
                            tmp_path / "fc", "prefstats test · seed 1", "Sochi")
    assert [p.suffix for p in paths] == [".png", ".svg", ".pdf"]
    pdf = paths[2].read_bytes()
    assert b"/FontFile2" in pdf  # TrueType, embedded (pdf.fonttype 42)
    assert alt.startswith("Bid from 7 hand points in every seat.")
    assert "first hand" in paths[1].read_text() and "seat 0" not in paths[1].read_text()
