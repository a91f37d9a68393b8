"""The written report, comparison and guide on tiny simulated datasets, through the CLI."""

from __future__ import annotations

import polars as pl
import pytest
from typer.testing import CliRunner

from prefstats.cli import app
from prefstats.simulate import simulate, simulate_pulkas
from prefstats.variants import get_variant

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
    for name in ("bidding_make", "whist", "raspasy_costs", "seat_deals", "seat_pulkas"):
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


def test_report_without_pulkas_says_so(data, tmp_path):
    _run("report", str(data / "sochi"), "--out", str(tmp_path))
    assert "No pulka dataset was given" in (tmp_path / "report.md").read_text()


def test_compare_pairs_same_seed_datasets(data, tmp_path):
    _run("compare", str(data / "sochi"), str(data / "leningrad"), "--out", str(tmp_path))
    paired = pl.read_csv(tmp_path / "compare_paired.csv")
    assert paired["paired"].all() and (paired["n"] == 1500).all()
    assert (tmp_path / "compare_metrics.png").exists()


def test_guide_and_a_bad_folder(data, tmp_path):
    out = _run("guide", str(data / "sochi"), "--out", str(tmp_path))
    text = (tmp_path / "guide.md").read_text()
    assert "## First call: bid or pass" in text and "## Whisting" in text and "guide.md" in out
    assert "## What the simulated players did — observational, not advice" in text
    result = runner.invoke(app, ["report", str(tmp_path / "nothing"), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "not a prefstats dataset" in result.output
