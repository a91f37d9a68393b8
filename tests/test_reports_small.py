"""Reports on small and ordinary datasets: no crash on ordinary data, no
half-written report folder, every variant named with its house rules and a command that
remakes it, pulkas of another variant refused, datasets of other seeds compared unpaired.
"""

from __future__ import annotations

import re
import shlex
import shutil

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import prefstats
from prefstats.cli import app
from prefstats.game.variants import get_variant, load_variant
from prefstats.reports import charts, render
from prefstats.reports.stats import with_proportion, zero_means_test
from prefstats.sim.simulate import simulate, simulate_pulkas

runner = CliRunner()
SOCHI = get_variant("sochi")
HOUSE = get_variant("leningrad", stalingrad=True)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Datasets as a new user makes them, with the built-in heuristic players."""
    root = tmp_path_factory.mktemp("small")
    made = {"sochi": (SOCHI, 3000, 1),  # the crash: a Wilson bound past its estimate
            "tiny": (SOCHI, 200, 1),
            "five": (SOCHI, 5, 1),
            "four": (get_variant("sochi", players=4, whist_split="gentleman"), 300, 1),
            "house": (HOUSE, 300, 1),
            "seed2": (SOCHI, 500, 2),
            "gusarik": (get_variant("gusarik"), 300, 1)}
    for name, (variant, hands, seed) in made.items():
        simulate(variant, hands=hands, seed=seed, out=root / name, workers=1, progress=False)
    simulate_pulkas(get_variant("leningrad"), pulkas=10, pool_target=5, seed=1,
                    out=root / "len-pulkas", workers=1, progress=False)
    return root


@pytest.fixture(scope="module")
def reported(data, tmp_path_factory):
    """The report of a dataset of ``data``, made once a module (tests that change it take
    a copy)."""
    made: dict[str, object] = {}

    def report_of(name: str):
        if name not in made:
            out = tmp_path_factory.mktemp("reported") / name
            _ok("report", data / name, "--out", out)
            made[name] = out
        return made[name]
    return report_of


def _ok(*args: str) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def _refused(*args: str) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.mark.parametrize("name", ["sochi", "tiny", "five", "four", "gusarik"])
def test_report_and_guide_on_ordinary_data(data, reported, tmp_path, name):
    out = reported(name)
    assert (out / "index.html").exists() and not list(out.glob(".report-*"))
    if name != "sochi":  # its guide rolls out 3,000 deals: the slow test below
        shutil.copytree(out, tmp_path / name)
        _guide_beside_the_report(data / name, tmp_path / name)


@pytest.mark.slow
def test_guide_on_the_largest_ordinary_dataset(data, tmp_path):
    """The guide on 3,000 Sochi deals. The fast suite checks it on Sochi deals with the
    tiny dataset above and with 500 deals in test_guide_counterfactual.py
    (test_guide_on_a_small_dataset_advises_only_from_rollouts)."""
    _ok("report", data / "sochi", "--out", tmp_path)
    _guide_beside_the_report(data / "sochi", tmp_path)


def _guide_beside_the_report(dataset, out) -> None:
    _ok("guide", dataset, "--out", out)
    assert (out / "index.html").exists() and (out / "guide.md").exists()
    assert not list(out.glob(".report-*"))


def test_wilson_bounds_stay_around_the_estimate():
    df = with_proportion(pl.DataFrame({"h": [0, 3, 10, 0], "n": [10, 10, 10, 0]}), "h", "n",
                         "p")
    p, lo, hi = (df[c].to_numpy() for c in ("p", "p_lo", "p_hi"))
    assert lo[0] == 0.0 and hi[2] == 1.0  # not 1.7e-18 and 1 - 1e-16
    assert (lo[:3] <= p[:3]).all() and (p[:3] <= hi[:3]).all()
    assert lo[3] == 0.0 and hi[3] == 1.0 and np.isnan(p[3])


def test_bar_chart_takes_a_bound_a_hair_inside_the_estimate(tmp_path):
    df = pl.DataFrame({"x": [0, 1], "y": [0.0, 0.5], "y_lo": [1.7e-18, 0.4],
                       "y_hi": [0.1, 0.6], "enough": [True, True]})
    paths = charts.bar_chart(df, tmp_path / "c", x="x", y="y", title="t", xlabel="x",
                             ylabel="y")
    assert all(p.exists() for p in paths)
    assert charts.bar_chart(df.filter(pl.col("x") > 5), tmp_path / "e", x="x", y="y",
                            title="t", xlabel="x", ylabel="y") == []


def test_seat_test_without_variation_is_not_a_crash():
    chi2, df, p = zero_means_test(np.zeros((100, 2)))
    assert np.isnan(chi2) and np.isnan(p) and df == 2


def test_a_failed_report_leaves_nothing_half_written(data, reported, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    old = tmp_path / "old"
    shutil.copytree(reported("tiny"), old)
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    (old / "notes.txt").write_text("mine")
    monkeypatch.setattr(render, "_html", broken)
    for out in (old, tmp_path / "new" / "deeper"):
        with pytest.raises(RuntimeError):
            prefstats.reports.report(data / "tiny", out)
    assert not (tmp_path / "new").exists()  # the folders it created are gone
    after = {p.name: p.read_bytes() for p in old.iterdir()}
    assert after == before | {"notes.txt": b"mine"}  # the old report whole, nothing added


def test_report_out_that_cannot_be_written(data, tmp_path):
    (tmp_path / "file").write_text("x")
    assert "File exists" in _refused("report", data / "tiny", "--out", tmp_path / "file")
    assert "Not a directory" in _refused("report", data / "tiny", "--out",
                                         tmp_path / "file" / "sub")
    assert (tmp_path / "file").read_text() == "x"


def test_house_rules_are_named_and_the_command_remakes_the_dataset(data, tmp_path):
    out = tmp_path / "rep"
    _ok("report", data / "house", "--out", out)
    md = (out / "report.md").read_text("utf-8")
    assert "# prefstats report: Leningrad with stalingrad = true" in md
    command = re.search(r"made by `(prefstats simulate [^`]+)`", md)[1]
    config = re.search(r"--config (\S+)", command)[1]
    assert load_variant(out / config) == HOUSE
    assert "stalingrad = true" in md.split("## ")[0]  # the TOML shown in the report
    args = shlex.split(command)[1:]
    args[args.index(config)] = str(out / config)
    _ok(*args, "--out", tmp_path / "again", "--workers", "1", "--quiet")
    again = prefstats.load(tmp_path / "again").collect()
    assert again.equals(prefstats.load(data / "house").collect())


def test_preset_command_names_the_preset(reported):
    md = (reported("four") / "report.md").read_text("utf-8")
    assert "Sochi, 4 players, with whist_split = \"gentleman\"" in md
    assert "--config variant-sochi-4p-" in md
    assert "players: built-in heuristic" in md and "misère catchers: hidden" in md


def test_pulkas_of_another_variant_are_refused(data, tmp_path):
    message = _refused("report", data / "sochi", "--out", tmp_path, "--pulkas",
                       data / "len-pulkas")
    assert "pulkas of Leningrad" in message and "deals are of Sochi" in message
    assert not list(tmp_path.iterdir())


def test_pulkas_none_of_which_finished_are_refused(data, tmp_path):
    long = tmp_path / "long"
    simulate_pulkas(SOCHI, pulkas=2, pool_target=100_000, seed=1, out=long, workers=1,
                    progress=False)
    assert "none of its 2 pulkas finished" in _refused(
        "report", data / "sochi", "--out", tmp_path / "r", "--pulkas", long)


def test_compare_of_tiny_datasets(data, tmp_path):
    _ok("compare", data / "five", data / "tiny", data / "four", "--out", tmp_path)
    assert (tmp_path / "index.html").exists()


def test_compare_other_seeds_is_unpaired_and_says_so(data, tmp_path):
    _ok("compare", data / "sochi", data / "seed2", "--out", tmp_path)
    paired = pl.read_csv(tmp_path / "compare_paired.csv")
    assert not paired["paired"].any()
    assert paired["diff_lo"].is_not_null().all() and (paired["diff_lo"] < paired["diff_hi"]).all()
    md = (tmp_path / "report.md").read_text("utf-8")
    assert "each difference is unpaired" in md and "Sochi (seed2)" in md


def test_compare_labels_variants_and_lists_the_rules_that_differ(data, tmp_path):
    _ok("compare", data / "sochi", data / "house", "--out", tmp_path)
    rules = pl.read_csv(tmp_path / "compare_rules.csv", infer_schema=False)
    row = rules.filter(pl.col("option") == "stalingrad").row(0, named=True)
    assert row == {"option": "stalingrad", "Sochi": "false",
                   "Leningrad with stalingrad = true": "true"}
    assert "base" in rules["option"].to_list()
    md = (tmp_path / "report.md").read_text("utf-8")
    assert "Leningrad with stalingrad = true" in md and "leningrad'" not in md
    assert any(p.name.startswith("variant-leningrad-3p-") for p in tmp_path.iterdir())


def test_guide_on_a_pulka_dataset_is_refused(data, tmp_path):
    assert "not of deals" in _refused("guide", data / "len-pulkas", "--out", tmp_path)
    assert not (tmp_path / "guide.md").exists()
