"""The written report, comparison and guide on tiny simulated datasets, through the CLI."""

from __future__ import annotations

import re
import shutil

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import prefstats
from prefstats.cli import app
from prefstats.game.variants import get_variant
from prefstats.reports import compare, render
from prefstats.reports.guide import guide
from prefstats.reports.report import comparison_report, dataset_report
from prefstats.sim.simulate import simulate, simulate_pulkas

runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Same-seed sochi and leningrad datasets (random players: every kind of deal)."""
    root = tmp_path_factory.mktemp("reports")
    for v in ("sochi", "leningrad"):
        simulate(get_variant(v), hands=1500, seed=3, out=root / v, policy="random", workers=1,
                 progress=False)
    return root


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_report_writes_every_table_and_chart(data, tmp_path):
    pulkas = tmp_path / "pulkas"
    simulate_pulkas(get_variant("sochi"), pulkas=60, pool_target=5, seed=1, out=pulkas,
                    policy="random", workers=1, progress=False)
    out = tmp_path / "rep"
    _run("report", str(data / "sochi"), "--out", str(out), "--pulkas", str(pulkas))
    md = (out / "report.md").read_text()
    html = (out / "index.html").read_text()
    for name in ("bidding_make", "observed_whist", "raspasy_costs", "seat_deals", "seat_pulkas"):
        assert (out / f"{name}.csv").exists() and f"{name}.csv" in md and f"{name}.csv" in html
    for png in out.glob("*.png"):
        assert png.with_suffix(".svg").exists() and png.name in md
    # small groups are never shown as figures: a table says how many rows it holds back
    assert "Too few samples" in md or "samples are not shown" in md
    assert "Wald test" in md and "[" in md  # every estimate carries its interval
    swapped = runner.invoke(app, ["report", str(pulkas), "--out", str(tmp_path / "x"),
                                  "--pulkas", str(data / "sochi")])
    assert swapped.exit_code == 2 and "not of deals" in swapped.output
    mixed = runner.invoke(app, ["compare", str(data / "sochi"), str(pulkas), "--out",
                                str(tmp_path / "y")])
    assert mixed.exit_code == 2 and "not of deals" in mixed.output


@pytest.fixture(scope="module")
def plain(data, tmp_path_factory):
    """The Sochi dataset's report without pulkas (tests that change it take a copy)."""
    out = tmp_path_factory.mktemp("plain") / "rep"
    _run("report", str(data / "sochi"), "--out", str(out))
    return out


def test_report_without_pulkas_says_so(plain):
    assert "No pulka dataset was given" in (plain / "report.md").read_text()


def test_compare_pairs_same_seed_datasets(data, tmp_path):
    _run("compare", str(data / "sochi"), str(data / "leningrad"), "--out", str(tmp_path))
    paired = pl.read_csv(tmp_path / "compare_paired.csv")
    assert paired["paired"].all() and (paired["n"] == 1500).all()
    assert (tmp_path / "compare_metrics.png").exists()


def test_guide_and_a_bad_folder(tmp_path):
    # its sections, on 300 deals: the guide rolls out every deal of its dataset
    simulate(get_variant("sochi"), hands=300, seed=3, out=tmp_path / "d", policy="random",
             workers=1, progress=False)
    out = _run("guide", str(tmp_path / "d"), "--out", str(tmp_path))
    text = (tmp_path / "guide.md").read_text()
    assert "## First call: bid or pass" in text and "## Whisting" in text and "guide.md" in out
    assert "## What the simulated players did — observational, not advice" in text
    result = runner.invoke(app, ["report", str(tmp_path / "nothing"), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "not a prefstats dataset" in result.output


# ---- reports people read on screen ----------------------------------------------------

def _visible(html: str) -> str:
    """The page's text outside <pre> and <code>, tags removed."""
    text = re.sub(r"<(pre|code)>.*?</\1>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", text)


def _check_page(folder) -> tuple[str, str]:
    md = (folder / "report.md").read_text("utf-8")
    html = (folder / "index.html").read_text("utf-8")
    assert "<meta name='viewport' content='width=device-width, initial-scale=1'>" in html
    assert "overflow-x:auto" in html  # wide tables scroll inside the page on a phone
    # the table of contents: every anchor it names exists, in both files
    ids = set(re.findall(r"id='([^']+)'", html))
    links = re.findall(r"href='#([^']+)'", html)
    assert len(links) > 3 and set(links) <= ids
    md_links = re.findall(r"\]\(#([^)]+)\)", md)
    assert md_links == links  # the same anchors, in the same order
    # every CSV and SVG is linked from both
    for f in [*folder.glob("*.csv"), *folder.glob("*.svg")]:
        assert f"]({f.name})" in md and f"href='{f.name}'" in html, f.name
    # no Markdown mark leaks into the HTML
    visible = _visible(html)
    for mark in ("`", "**", "]("):
        assert mark not in visible, (mark, visible[visible.index(mark) - 80:][:160])
    assert not re.search(r"(?<![\w*])\*\w", visible)
    return md, html


def test_report_reads_on_screen(data, plain, tmp_path):
    out = tmp_path / "rep"
    shutil.copytree(plain, out)
    md, html = _check_page(out)
    # a GitHub anchor, as github.com makes it for this heading
    assert "(#observational-not-advice-what-the-simulated-players-did--bidding)" in md
    assert "<code>prefstats guide" in html and "guide.md" not in re.findall(r"href='([^']+)'",
                                                                          html)
    # NO_PULKAS names an option in a code span: code in HTML, not backticks
    assert "<code>--pulkas DIR</code>" in html
    guide(data / "sochi", out, deals=60, misere_deals=12)
    _run("report", str(data / "sochi"), "--out", str(out))
    md, html = _check_page(out)
    assert "](guide.md)" in md and "href='guide.md'" in html


def test_comparison_reads_on_screen(data, tmp_path):
    _run("compare", str(data / "sochi"), str(data / "leningrad"), "--out", str(tmp_path))
    md, _ = _check_page(tmp_path)
    # shares as percentages, their differences in percentage points
    rows = [line for line in md.splitlines() if line.startswith("| Leningrad | raspasy (of")]
    assert len(rows) == 2, rows  # side by side, then against Sochi
    assert re.search(r"\| 1,500 \| \d+\.\d% \[\d+\.\d, \d+\.\d\] \|$", rows[0]), rows
    assert re.search(r"\| [+-]\d+\.\d pp \[[+-]\d+\.\d, [+-]\d+\.\d\] \|", rows[1]), rows
    assert re.search(r"\| \d+\.\d% \|$", rows[1]), rows  # CI shrink, a share


#: Columns holding shares, by name; every one must be shown as a percentage.
_SHARE = re.compile(r"^(p_|.*share$|share$|ci_shrink$)")


def _kinds(report) -> list[tuple[str, str, str]]:
    return [(b.name, col, kind) for s in report.sections for b in s.blocks
            for _, col, kind in b.columns]


def test_every_share_is_a_percentage_and_every_figure_has_one_format(data):
    sochi = dataset_report(data / "sochi")
    both = comparison_report([data / "sochi", data / "leningrad"])
    kinds = _kinds(sochi) + _kinds(both)
    for block, col, kind in kinds:
        if _SHARE.match(col):
            assert render.FIGURES.get(kind, kind) == "pct", (block, col, kind)
        assert not kind.endswith(":g"), (block, col, kind)  # no format without a kind
    # a block's columns named after seats hold raspasy trick shares
    tricks = next(b for s in sochi.sections for b in s.blocks if b.name == "raspasy_tricks")
    assert {k for _, c, k in tricks.columns if c.endswith("hand")} == {"share"}
    # whist amounts are written one way everywhere
    whists = {render.FIGURES.get(k, k) for _, c, k in kinds
              if c in ("ev_bid", "ev_pass", "gain", "mean", "ev_whist", "cost")}
    assert whists <= {"est:2"}


def test_a_cell_by_kind():
    row = {"v": 0.2061, "v_lo": 0.2043, "v_hi": 0.208, "d": 0.024, "d_lo": 0.023,
           "d_hi": 0.025, "unit": "share", "w": 1.234, "w_lo": -0.5, "w_hi": 3.0}
    assert render._cell(row, "v", "unit") == "20.6% [20.4, 20.8]"
    assert render._cell(row, "d", "unit_diff") == "+2.4 pp [+2.3, +2.5]"
    assert render._cell(row | {"unit": "whists"}, "w", "unit_diff") == "+1.23 [-0.50, +3.00]"
    assert render._cell(row, "w", "whists") == "1.23 [-0.50, 3.00]"
    assert render._cell({"x": None}, "x", "share") == "—"
    assert render._cell({"x": 0.361}, "x", "share") == "36.1%"
    # a difference that rounds to zero has no minus sign
    assert render._cell({"x": -4e-4, "x_lo": -1e-3, "x_hi": 2e-3}, "x", "pp") == \
        "+0.0 pp [-0.1, +0.2]"


def test_the_comparison_has_the_headline_figures_paired_by_deal(data):
    frames = {v: prefstats.load(data / v) for v in ("sochi", "leningrad")}
    paired = compare.paired_differences(frames)
    names = set(paired["metric"])
    assert len(names) >= 12 and paired["paired"].all() and (paired["n"] == 1500).all()
    for wanted in ("raspasy (of deals)", "misère (of deals)", "trick games made",
                   "game value", "whists written per deal", "seat luck: first hand"):
        assert any(n.startswith(wanted) for n in names), wanted
    # a mean's difference is the mean of the per-deal differences, and its paired SE
    # theirs, as a textbook paired comparison computes them (deals matched by deal_id)
    spread = {v: lf.sort("deal_id").select(pl.mean_horizontal(pl.col("^value_.*$").abs()))
              .collect().to_series().to_numpy() for v, lf in frames.items()}
    d = spread["leningrad"] - spread["sochi"]
    row = paired.filter(pl.col("metric").str.starts_with("spread")).row(0, named=True)
    assert row["diff"] == pytest.approx(d.mean())
    assert row["se_paired"] == pytest.approx(d.std(ddof=1) / np.sqrt(len(d)))
    assert row["diff_lo"] < row["diff"] < row["diff_hi"] and row["se_paired"] > 0
    assert 0 < row["ci_shrink"] < 1


def test_made_share_counts_made_trick_games(data):
    lf = prefstats.load(data / "sochi")
    table = compare.variant_metrics({"sochi": lf})
    made = table.filter(pl.col("metric").str.starts_with("trick games made")).row(0, named=True)
    games = (prefstats.readable(lf).filter(pl.col("kind") == "game")
             .with_columns(level=pl.col("contract").cast(pl.String).str.extract(r"^(\d+)")
                           .cast(pl.Int64),
                           taken=pl.concat_list("tricks_0", "tricks_1", "tricks_2")
                           .list.get(pl.col("declarer").cast(pl.Int64)))
             .select(made=~pl.col("played") | (pl.col("taken") >= pl.col("level"))).collect())
    assert made["n"] == len(games)
    assert made["value"] == pytest.approx(games["made"].mean())
    assert made["value_lo"] < made["value"] < made["value_hi"]
