"""Hand charts: cells dealt to order (uniform within their class), tidy tables of paired
gains, guide.json records whose rules agree with their cells, greyed thin cells, and
``prefstats guide --variant`` making it all from small n."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from prefstats.cli import app
from prefstats.game.cards import parse_cards, suit_lengths
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.reports import hand_charts as hc
from prefstats.reports.counterfactual import by_points

SOCHI = get_variant("sochi")


def test_sampled_cells_are_the_first_deals_of_their_class_in_the_stream():
    classify = lambda d: np.where(by_points(d.hands[:, 0]) >= 9, 1, 0)  # noqa: E731
    deals, cls, dealt = hc.sample_cells(5, classify, np.array([3, 40]), batch=2_000)
    stream = deal(dealt, seed=5)
    all_cls = classify(stream)
    for c, k in ((0, 3), (1, 40)):
        expect = stream.index[all_cls == c][:k]
        assert np.array_equal(np.sort(deals.index[cls == c]), expect)
    assert np.array_equal(deals.hands, stream.hands[deals.index])


def test_the_conditional_sampler_matches_unconditioned_frequencies_within_a_class():
    # A class (9+ points at seat 0) filled to order, against the same class in a large
    # unconditioned sample: the spade length of the hand has the same distribution.
    classify = lambda d: np.where(by_points(d.hands[:, 0]) >= 9, 0, -1)  # noqa: E731
    got, _, _ = hc.sample_cells(11, classify, np.array([4_000]))
    free = deal(400_000, seed=12)
    ref = free.hands[by_points(free.hands[:, 0]) >= 9, 0]
    a = np.bincount(suit_lengths(got.hands[:, 0])[:, 1], minlength=9) / len(got)
    b = np.bincount(suit_lengths(ref)[:, 1], minlength=9) / len(ref)
    se = np.sqrt(b * (1 - b) / len(got) + b * (1 - b) / len(ref))
    assert len(ref) > 4_000 and np.all(np.abs(a - b) <= 4 * se + 1e-9)


def test_hole_patterns_name_the_lone_card_and_pool_the_rest():
    hands = np.array([parse_cards(t) for t in (
        "♠789 ♣78 ♦7 ♥789J",      # no hole
        "♠789 ♣8 ♦78 ♥789J",      # lone 8
        "♠789 ♣J ♦78 ♥789Q",      # lone J
        "♠789 ♣9J ♦78 ♥789",      # two cards
        "♠789 ♣9JQ ♦7 ♥789",      # long
        "♠789 ♣9 ♦8 ♥789JQ",      # two holes
        "♠89 ♣9 ♦8 ♥789JQK",      # three or more
    )], dtype=np.uint32)
    names = [hc._PATTERNS[p] for p in hc.hole_pattern(hands)]
    assert names == [(0, ""), (1, "lone 8"), (1, "lone J"), (1, "two cards"), (1, "long"),
                     (2, ""), (3, "")]


def _wide(gains: dict[int, tuple[float, int]]) -> pl.DataFrame:
    """Cells whose bid − pass is exactly ``k`` SE from zero (sd 1)."""
    rows = []
    for c, (k, n) in gains.items():
        z = np.tile([-1.0, 1.0], n // 2)
        z = z / z.std(ddof=1)
        for g in k / np.sqrt(n) + z:
            rows.append({"points": c, "pass": 0.0, "6": g})
    return pl.DataFrame(rows)


def test_cell_table_advises_only_at_three_standard_errors_and_greys_thin_cells():
    t = hc.cell_table(_wide({1: (3.5, 400), 2: (2.5, 400), 3: (-3.5, 400), 4: (9.0, 20)}),
                      ["points"], ["6"], min_n=100)
    r = {row["points"]: row for row in t.iter_rows(named=True)}
    assert (r[1]["advice"], r[1]["decided"]) == ("6", True)
    assert (r[2]["advice"], r[2]["decided"]) == ("6", False)
    assert (r[3]["advice"], r[3]["decided"]) == ("pass", True)
    assert (r[4]["enough"], r[4]["advice"], r[4]["decided"]) == (False, "pass", False)
    assert r[1]["gain"] == pytest.approx(3.5 / 20) and r[1]["n"] == 400
    assert r[1]["ci_low"] == pytest.approx(r[1]["gain"] - 1.96 * r[1]["se"])


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("charts")
    result = CliRunner().invoke(app, ["guide", "--variant", "sochi", "--out", str(out),
                                      "--min-n", "12", "--budget", "400000",
                                      "--whist-budget", "1500"])
    assert result.exit_code == 0, result.output
    return out


def test_guide_variant_writes_charts_tables_and_records(made):
    for name in ("first_call_points", "first_call_expected_tricks", "whist", "misere"):
        for ext in ("png", "svg", "csv", "parquet"):
            assert (made / f"{name}.{ext}").stat().st_size > 0
    points = pl.read_parquet(made / "first_call_points.parquet")
    assert set(points["option"]) == {"6", "7", "8", "misere"}
    assert points.select("points", "seat").n_unique() == 9 * 3  # ≤3 .. 11+ by 3 seats
    assert {"gain", "ci_low", "ci_high", "n", "model", "advice"} <= set(points.columns)
    misere = pl.read_csv(made / "misere.csv")
    assert misere.height == len(hc._PATTERNS) and "catch_rate" in misere.columns
    whist = pl.read_parquet(made / "whist.parquet")
    assert set(whist["level"]) <= {6, 7, 8, 9} and set(whist["trumps"]) <= set(range(-1, 5))
    text = (made / "guide.md").read_text()
    assert text.index("![first_call_points]") < text.index("## Tables")


def test_guide_json_rules_agree_with_their_cells(made):
    doc = json.loads((made / "guide.json").read_text())
    keys = {"decision", "features", "option", "gain", "ci_low", "ci_high", "n", "advice",
            "robust", "model"}
    cells, found = {}, []
    for r in doc["records"]:
        assert keys <= set(r) and r["decision"] in ("first_call", "whist", "misere")
        assert r["robust"] is None and r["model"] == "heuristic"
        if r["kind"] == "cell":
            cells[(r["chart"], json.dumps(r["features"]), r["option"])] = r
            if r["n"] < doc["min_n"]:
                assert not r["enough"]
        else:
            found.append(r)
    assert found
    for rule in found:
        mine = [c for (chart, f, _), c in cells.items()
                if chart == rule["chart"] and f == json.dumps(rule["features"])]
        assert all(c["advice"] == rule["option"] for c in mine)
        assert rule["n"] >= doc["min_n"] and rule["ci_low"] > 0  # 3 SE is past the 95% CI
        if rule["option"] != "pass":
            cell = next(c for c in mine if c["option"] == rule["option"])
            assert cell["gain"] == pytest.approx(rule["gain"]) and cell["enough"]
        else:
            assert all(c["gain"] < 0 for c in mine if c["enough"])


def test_greyed_cells_carry_no_advice(made):
    whist = pl.read_csv(made / "whist.csv")
    thin = whist.group_by("level", "aces_kings", "trumps").agg(
        pl.col("enough").any().alias("any"), pl.col("advice").first(),
        pl.col("decided").first())
    assert len(thin.filter(~pl.col("any"))) > 0  # 1,500 deals cannot fill every cell
    assert thin.filter(~pl.col("any"))["advice"].unique().to_list() == ["pass"]
    assert not thin.filter(~pl.col("any"))["decided"].any()
