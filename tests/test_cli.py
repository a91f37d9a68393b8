"""The command line: dealing, the main job, and data on stdout as JSON or CSV."""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from prefstats.cli import app
from prefstats.game.cards import card_counts, parse_cards, suit_lengths
from prefstats.game.deal import deal
from prefstats.reports.classes import bidding_class
from prefstats.solver import solve_leads

runner = CliRunner()


def test_deal_prints_hands_and_talon():
    result = runner.invoke(app, ["deal", "-n", "2", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "first hand" in result.output and "talon" in result.output
    assert "seed 1" in result.output


def test_deal_is_reproducible_from_printed_seed():
    first = runner.invoke(app, ["deal", "-n", "1", "--seed", "5"])
    second = runner.invoke(app, ["deal", "-n", "1", "--seed", "5"])
    assert first.output == second.output


def test_deal_rejects_bad_count():
    result = runner.invoke(app, ["deal", "-n", "0"])
    assert result.exit_code != 0


def test_demo_simulates_and_reports(tmp_path, monkeypatch):
    # the guide on one process: starting workers costs seconds, and the guide's rollouts
    # on two are checked in test_guide_charts.py and test_rollout.py
    monkeypatch.setattr("prefstats.sim._workers.usable_cores", lambda: 1)
    args = ["demo", "--hands", "100", "--pulkas", "10", "--pool-target", "5", "--seed", "3",
            "--data", str(tmp_path / "data"), "--out", str(tmp_path / "reports"), "--quiet"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "exact" in result.output and "aces in hand" in result.output
    folder = tmp_path / "reports" / "sochi"
    assert (folder / "index.html").exists() and (folder / "guide.md").exists()
    assert "pulkas" in (folder / "report.md").read_text()
    other = ["demo", "--hands", "80", *args[3:]]  # other arguments: refused, then --force
    refused = runner.invoke(app, other)
    assert refused.exit_code == 2 and "--force" in refused.output
    assert "Traceback" not in refused.output
    forced = runner.invoke(app, [*other[:3], "--pulkas", "0", *other[5:], "--force"])
    assert forced.exit_code == 0, forced.output


# ---- the command line as a data tool --------------------------------------------------

def _data(*args: str) -> str:
    """stdout of a command that must succeed."""
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _masks(record: dict) -> list[int]:
    return [parse_cards(record[f"hand_{s}"]) for s in range(3)] + [parse_cards(record["talon"])]


def test_deal_json_is_the_dealt_stream():
    doc = json.loads(_data("deal", "-n", "3", "--seed", "7", "--start", "10", "--format", "json"))
    dealt = deal(3, seed=7, start=10)
    assert doc["seed"] == 7 and [d["deal_id"] for d in doc["deals"]] == [10, 11, 12]
    for i, record in enumerate(doc["deals"]):
        assert _masks(record) == [*map(int, dealt.hands[i]), int(dealt.talon[i])]


def test_deal_csv_has_a_header_and_one_row_a_deal():
    rows = list(csv.DictReader(io.StringIO(_data("deal", "-n", "4", "--seed", "7", "--format",
                                                 "csv"))))
    assert list(rows[0]) == ["seed", "deal_id", "hand_0", "hand_1", "hand_2", "talon"]
    assert len(rows) == 4 and {r["seed"] for r in rows} == {"7"}
    for r in rows:
        masks = _masks(r)
        assert [int(card_counts(m)) for m in masks] == [10, 10, 10, 2]
        assert masks[0] | masks[1] | masks[2] | masks[3] == 0xFFFFFFFF


def test_deal_with_fixed_cards_and_conditions():
    doc = json.loads(_data("deal", "-n", "20", "--seed", "1", "--hand0", "♠AKQJ",
                           "--talon", "♥A", "--where", "spades0 >= 6", "--where",
                           "points1<=4", "--format", "json"))
    hands = [_masks(d) for d in doc["deals"]]
    fixed, ace = parse_cards("♠AKQJ"), parse_cards("♥A")
    assert len(hands) == 20
    for h in hands:
        assert h[0] & fixed == fixed and h[3] & ace == ace
    first = [h[0] for h in hands]
    second = [h[1] for h in hands]
    assert (suit_lengths(first)[:, 0] >= 6).all()
    assert (bidding_class(second)["points"] <= 4).all()
    # the same as the Python API with the same constraints
    same = deal(20, seed=1, fixed_hands=("♠AKQJ", None, None), fixed_talon="♥A",
                where=lambda d: (suit_lengths(d.hands[:, 0])[:, 0] >= 6)
                & (bidding_class(d.hands[:, 1])["points"] <= 4))
    assert [d["deal_id"] for d in doc["deals"]] == same.index.tolist()


@pytest.mark.parametrize("condition, check", [
    ("hearts2 = 0", lambda h: suit_lengths(h)[:, 3] == 0),
    ("longest1 > 5", lambda h: suit_lengths(h).max(axis=1) > 5),
    ("aces0 >= 3", lambda h: np.bitwise_count(h & np.uint32(0x80808080)) >= 3),
])
def test_deal_where_features(condition, check):
    seat = int(condition.split()[0][-1])
    doc = json.loads(_data("deal", "-n", "5", "--seed", "2", "--where", condition,
                           "--format", "json"))
    hands = np.array([_masks(d)[seat] for d in doc["deals"]], dtype=np.uint32)
    assert np.all(check(hands))


def test_solve_a_dealt_deal_without_typing_it():
    doc = json.loads(_data("solve", "--seed", "1", "--deal", "3", "--trump", "S",
                           "--format", "json"))
    dealt = deal(1, seed=1, start=3)
    assert [parse_cards(h) for h in doc["hands"]] == list(map(int, dealt.hands[0]))
    leads = solve_leads(list(dealt.hands[0]), trump=0, leader=0, declarer=0)
    assert doc["tricks"] == max(leads.values()) and doc["seed"] == 1 and doc["deal_id"] == 3
    assert sorted(r["tricks"] for r in doc["leads"]) == sorted(leads.values())
    assert all(r["optimal"] == (r["tricks"] == doc["tricks"]) for r in doc["leads"])
    typed = json.loads(_data("solve", *doc["hands"], "--trump", "S", "--format", "json"))
    assert typed["leads"] == doc["leads"] and typed["seed"] is None
    text = _data("solve", "--seed", "1", "--deal", "3", "--trump", "S")
    assert "deal 3 of seed 1" in text and f"takes {doc['tricks']} trick" in text


def test_solve_csv():
    hands = ["♠AKQJ10 ♣AK ♦A ♥87", "♠98 ♣QJ10 ♦KQJ ♥AK", "♠7 ♣987 ♦1098 ♥QJ10"]
    rows = list(csv.DictReader(io.StringIO(_data("solve", *hands, "--format", "csv"))))
    assert list(rows[0]) == ["card", "tricks", "optimal"] and len(rows) == 10


PULKA = {"variant": "sochi", "deals": [
    {"type": "raspasy", "tricks": [0, 4, 6]},
    {"type": "game", "declarer": 1, "contract": "7♥", "tricks": [2, 7, 1],
     "whist": {"2": "whist", "0": "pass"}}]}


def test_score_as_data(tmp_path):
    path = tmp_path / "pulka.json"
    path.write_text(json.dumps(PULKA, ensure_ascii=False), "utf-8")
    doc = json.loads(_data("score", str(path), "--log", "--format", "json"))
    assert doc["variant"] == "sochi" and doc["deals"] == 2 and len(doc["sheet"]) == 3
    assert sum(p["score"] for p in doc["sheet"]) == pytest.approx(0)
    assert doc["sheet"][1]["pool"] == 4 and doc["log"]
    sheet = list(csv.DictReader(io.StringIO(_data("score", str(path), "--format", "csv"))))
    assert [r["player"] for r in sheet] == ["0", "1", "2"]
    assert float(sheet[1]["pool"]) == 4 and sheet[1]["whists_on_1"] == ""
    entries = list(csv.DictReader(io.StringIO(_data("score", str(path), "--log", "--format",
                                                    "csv"))))
    assert len(entries) == len(doc["log"]) and list(entries[0]) == ["deal", "column", "player",
                                                                    "on", "amount"]
    table = _data("score", str(path))
    assert "pool point" in table and "sochi, 3 players, 2 deal(s)" in table


def test_rollout_csv():
    out = _data("rollout", "♠AKQJ10 ♣AK ♦AK ♥A", "--deals", "132", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0])[:4] == ["option", "mean", "ci_lo", "ci_hi"]
    assert {r["option"] for r in rows} >= {"pass", "bid"}
    means = [float(r["mean"]) for r in rows]
    assert means == sorted(means, reverse=True)  # best first


def test_json_alone_on_stdout_of_the_installed_command():
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run([sys.executable, "-m", "prefstats", "deal", "-n", "2", "--seed", "3",
                           "--format", "json"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["deals"]) == 2
