"""``prefstats fit evaluator|bidding|rating`` remake the shipped data: each on small data
here, written to a temporary folder, with its refusals (exit 2)."""

from __future__ import annotations

import json
import re
import tomllib

import numpy as np
import pytest
from typer.testing import CliRunner

from prefstats.analysis.game_stats import decisive_trick
from prefstats.cli import app
from prefstats.game.variants import get_variant
from prefstats.players import evaluate as ev

runner = CliRunner()


def run(*args: str):
    result = runner.invoke(app, ["fit", *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize(("args", "message"), [
    (["evaluator", "--part", "nonsense"], "parts: unknown nonsense"),
    (["evaluator", "--scale", "0"], "scale must be above 0"),
    (["rating", "--pulkas", "1"], "Invalid value for '--pulkas'"),
    (["bidding", "--deals", "0"], "Invalid value for '--deals'"),
    (["bidding", "--variant", "bridge"], "unknown variant"),
    (["rating", "--variant", "bridge"], "unknown variant"),
    (["rating", "--variant", "gusarik", "--players", "3"], "gusarik is played by 2"),
])
def test_bad_input_is_refused(args, message):
    result = runner.invoke(app, ["fit", *args])
    assert result.exit_code == 2, result.output
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())
    assert message in text and "Traceback" not in text


def test_the_evaluator_refits_the_parts_asked_and_keeps_the_rest(tmp_path):
    out = tmp_path / "evaluator.npz"
    run("evaluator", "--scale", "0.005", "--part", "post", "--part", "misere",
        "--out", str(out))
    shipped, made = ev.load_tables(), np.load(out)["tables"]
    assert made.shape == shipped.shape and np.isfinite(made).all()
    rows = {m: slice(ev.MODEL_ROW[m], ev.MODEL_ROW[m + 1]) for m in range(6)}
    for model in (ev.PRE, ev.DEFENCE):  # kept
        assert np.array_equal(made[rows[model]], shipped[rows[model]])
    for model in (ev.POST, ev.MISERE_TRICKS):  # refitted on other deals
        assert not np.array_equal(made[rows[model]], shipped[rows[model]])
    assert np.load(out)["deals"].tolist() == [120, 150, 25, 100]


def test_the_evaluator_from_zero_is_the_same_for_the_same_seed(tmp_path):
    """Every part, the defence on the heuristic's own contracts, twice: the same tables."""
    files = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for out in files:
        run("evaluator", "--scale", "0.003", "--out", str(out))
    a, b = (np.load(f)["tables"] for f in files)
    assert np.array_equal(a, b)
    defence = slice(ev.MODEL_ROW[ev.DEFENCE], ev.MODEL_ROW[ev.DEFENCE + 1])
    assert np.abs(a[defence]).sum() > 0


def test_bidding_writes_the_offsets_with_the_command_that_made_them(tmp_path):
    result = run("bidding", "--variant", "sochi", "--deals", "40", "--rounds", "1",
                 "--out", str(tmp_path))
    path = tmp_path / "fit-sochi-3.npz"
    assert path.is_file() and f"wrote {path}" in result.output
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
    assert meta["command"].startswith("prefstats fit bidding --variant sochi --players 3")
    assert meta["rounds"] <= 1 and "before" in meta and "after" in meta


@pytest.mark.parametrize(("variant", "players"), [("sochi", 3), ("rostov", 4),
                                                  ("gusarik", 2)])
def test_rating_writes_the_bands_of_the_table_asked(tmp_path, variant, players):
    out = tmp_path / "rating.toml"
    run("rating", "--variant", variant, "--players", str(players), "--pulkas", "2",
        "--deals", "1", "--rollout", "2", "--workers", "1",
        "--results", str(tmp_path / "pulkas.jsonl"), "--out", str(out))
    data = tomllib.loads(out.read_text("utf-8"))
    assert (data["variant"], data["players"]) == (variant, players)
    assert data["source"].startswith(f"prefstats fit rating --variant {variant} "
                                     f"--players {players} ")
    assert data["cap"] == pytest.approx(decisive_trick(get_variant(variant, players=players)))


def test_rating_writes_a_calibration_the_rating_reads_and_resumes(tmp_path):
    results, out = tmp_path / "pulkas.jsonl", tmp_path / "rating.toml"
    args = ("rating", "--pulkas", "2", "--deals", "2", "--rollout", "4", "--workers", "1",
            "--results", str(results), "--out", str(out))
    first = run(*args)
    data = tomllib.loads(out.read_text("utf-8"))
    assert data["source"] == ("prefstats fit rating --variant sochi --players 3 --pulkas 2 "
                              "--deals 2 --rollout 4 --seed 1000")
    assert [b["name"] for b in data["bands"]] == ["strong", "average", "beginner"]
    edges = [b["up_to"] for b in data["bands"]]
    assert edges[0] <= edges[1] < edges[2] == float("inf")
    assert set(data["calibration"]) == {"pimc", "heuristic", "random"}
    assert len(results.read_text("utf-8").splitlines()) == 2
    again = run(*args)  # every pulka is in the results file: nothing is played again
    assert "2 of 2 pulkas already" in again.output
    assert json.loads(first.stdout[first.stdout.index("{"):].rsplit("wrote", 1)[0]) == \
        json.loads(again.stdout[again.stdout.index("{"):].rsplit("wrote", 1)[0])
