"""What the books say: the exact figures against combinatorics, the one-suit play, the
verdicts, a tiny run of every section and the committed report's structure."""

import json
from math import comb
from pathlib import Path

import pytest

from prefstats.analysis import books_play
from prefstats.analysis.books import (
    decimals_tolerance,
    exact_row,
    judge,
    preferans_hand_probability,
    proportion_row,
    split_probability,
    talon_out_probability,
)
from prefstats.analysis.books_sections import book_rows
from prefstats.analysis.suit_play import at_least, holding, sure_tricks, trick_distribution
from prefstats.game.cards import parse_cards
from prefstats.reports.books import write_books

COMMITTED = Path(__file__).parents[1] / "reports" / "books"
#: Every part of BOOKS.md, as the report's sections name them.
SECTIONS = {"Table 4: suit splits", "Talon outs and the rule of 7",
            "Table 6: one-hole misère by outs", "Table 2: extra trick from a holding",
            "Table 3: bid one level higher", "First-hand sure tricks",
            "Misère folklore: catch chance by hole and lead", "Whist obligations",
            "The preferans hand", "Anecdotes"}
FIELDS = {"source", "claim", "book", "project", "ci_low", "ci_high", "n", "verdict", "reason",
          "method", "defence", "seed"}
#: Table 4 as the book prints it: (missing, larger part) -> figure.
TABLE4 = {(3, 3): 0.2105, (3, 2): 0.7895, (4, 4): 0.0867, (4, 3): 0.4954, (4, 2): 0.4180,
          (5, 5): 0.0325, (5, 4): 0.2709, (5, 3): 0.6966, (8, 8): 0.0007, (8, 4): 0.3501}


def hypergeometric_split(missing: int, larger: int) -> float:
    one = comb(missing, larger) * comb(20 - missing, 10 - larger) / comb(20, 10)
    return one if 2 * larger == missing else 2 * one


@pytest.mark.parametrize(("missing", "larger"), sorted(TABLE4))
def test_suit_splits_enumerated_match_the_formula_and_the_book(missing, larger):
    p = split_probability(missing, larger)
    assert p == pytest.approx(hypergeometric_split(missing, larger), abs=1e-12)
    assert abs(p - TABLE4[missing, larger]) < 1e-4


@pytest.mark.parametrize(("outs", "book"), [(5, 0.411), (6, 0.480), (7, 0.545), (11, 0.762)])
def test_talon_outs_enumerated_match_the_formula_and_the_book(outs, book):
    p = talon_out_probability(outs)
    assert p == pytest.approx(1 - comb(22 - outs, 2) / comb(22, 2), abs=1e-12)
    assert abs(p - book) < 1e-3


def test_the_preferans_hand_is_one_twelve_card_set_of_all():
    p = preferans_hand_probability()
    assert p == pytest.approx(1 / comb(32, 12), rel=1e-12)
    assert round(p * 1e9, 2) == 4.43 and round(1 / (3 * p) / 1e6, 2) == 75.26


def test_one_suit_play_counts_every_layout():
    assert sum(trick_distribution(holding("AQ7")).values()) == pytest.approx(1.0)
    assert sure_tricks(holding("AKQJ10987")) == 8 and sure_tricks(holding("AK")) == 2
    assert sure_tricks(holding("Q7")) == 0
    # Four tricks from A K Q 7 fail exactly when one defender holds all four others.
    assert at_least(holding("AKQ7"), 4) == pytest.approx(1 - hypergeometric_split(4, 4))
    with pytest.raises(ValueError, match="holding"):
        holding("AQx")


def test_outs_and_fixable_read_the_safe_holdings():
    hand = parse_cards("♠7 ♣Q ♦AKQJ10987")  # the ♣Q is the hole
    assert books_play.outs(hand) == 4  # ♣7, or the ♣Q out for ♠8, ♠9 or ♥7
    assert books_play.fixable(hand | parse_cards("♠8 ♥A"))
    assert not books_play.fixable(hand | parse_cards("♣8 ♥A"))  # a lone ♣8 is a hole
    assert not books_play.fixable(hand | parse_cards("♥A ♥K"))


def test_verdicts_and_tolerances():
    assert decimals_tolerance(".2105") == pytest.approx(1e-4)
    assert judge(0.5, 0.45, 0.48, 0.02) == "confirmed"
    assert judge(0.5, 0.40, 0.47, 0.02) == "refuted"
    row = exact_row("s", "src", "c", ".480", 0.4805, n=231, why="w")
    assert row.verdict == "confirmed" and row.reason == ""
    row = exact_row("s", "src", "c", ".85", 0.913, n=None, why="because")
    assert row.verdict == "refuted" and row.reason == "because"
    row = proportion_row("s", "src", "c", 0.3, 14, 100, defence="d", seed=1, tol=0.05,
                         why="w")
    assert row.ci_low < 0.14 < row.ci_high and row.verdict == "refuted"


def _check_records(records):
    assert len(records) >= 30
    assert {r["section"] for r in records} == SECTIONS
    for r in records:
        assert set(r) >= FIELDS, r["claim"]
        assert r["verdict"] in ("confirmed", "refuted", "not comparable")
        assert r["verdict"] == "confirmed" or r["reason"], r["claim"]
        if r["method"] == "simulated" and r["ci_low"] is not None and r["n"]:
            assert r["ci_low"] <= r["project"] <= r["ci_high"], r["claim"]
    exact = [r for r in records if r["section"] in
             ("Table 4: suit splits", "The preferans hand")]
    assert exact and all(r["verdict"] == "confirmed" for r in exact)


def test_a_tiny_run_covers_every_section(tmp_path):
    rows, curve = book_rows("sochi", scale=0.001, seed=3, workers=1)
    records = [r.record() for r in rows]
    _check_records(records)
    both = {r["defence"] for r in records if r["section"].startswith("Misère folklore")}
    assert len(both - {"any"}) == 2  # both catchers' models
    out = write_books(records, curve, tmp_path / "books",
                      {"variant": "sochi", "seed": 3, "scale": 0.001, "version": "test",
                       "command": "prefstats books --scale 0.001"})
    assert json.loads((out / "books.json").read_text("utf-8")) == json.loads(
        json.dumps(records))
    text = (out / "article.md").read_text("utf-8")
    assert all(f"## {s}" in text for s in SECTIONS)
    assert "books.json" in (out / "index.html").read_text("utf-8")


def test_the_committed_report():
    records = json.loads((COMMITTED / "books.json").read_text("utf-8"))
    _check_records(records)
    assert sum(f.stat().st_size for f in COMMITTED.iterdir()) < 500_000
