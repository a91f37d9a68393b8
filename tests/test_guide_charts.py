"""Hand charts: cells dealt to order (uniform within their class), tidy tables of paired
gains, guide.json records whose rules agree with their cells, greyed thin cells, advice
tested for robustness under other tables of players, the raspasy chart, and
``prefstats guide --variant`` making it all from small n."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from prefstats.cli import app
from prefstats.errors import VariantError
from prefstats.game.cards import parse_cards, suit_lengths
from prefstats.game.deal import deal
from prefstats.game.variants import PRESETS, get_variant
from prefstats.reports import hand_charts as hc
from prefstats.reports import manifest
from prefstats.reports.counterfactual import by_points
from prefstats.sim.rollout import MIN_PIECE

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
    names = [hc.PATTERNS[p] for p in hc.hole_pattern(hands)]
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
    assert r[1]["ci_low"] == pytest.approx(r[1]["gain"] - 1.959964 * r[1]["se"])


@pytest.fixture(scope="module")
def guide_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("charts")
    result = CliRunner().invoke(app, ["guide", "--variant", "sochi", "--out", str(out),
                                      "--min-n", "8", "--budget", "400000",
                                      "--whist-budget", "1500", "--raspasy-budget", "500",
                                      "--models", "timid,search", "--model-n", "13",
                                      "--timings", str(out / "bench" / "timings.json")])
    assert result.exit_code == 0, result.output
    return out, result.output


@pytest.fixture(scope="module")
def made(guide_run):
    return guide_run[0]


def test_guide_says_which_chart_is_under_way_and_what_each_table_took(guide_run):
    lines = [x for x in guide_run[1].splitlines() if x.startswith("guide: ")]
    charts = [x for x in lines if " chart " in x]
    assert len(charts) == 15  # five charts under each of three tables, in order
    assert charts[0].startswith("guide: 1/15 chart first_call_points, players heuristic")
    assert charts[-1].startswith("guide: 15/15 chart raspasy, players search")
    for model in ("heuristic", "timid", "search"):
        assert any(x.startswith(f"guide: the charts under {model} took ") for x in lines)
    assert lines[-1].endswith(" in all")
    timings = json.loads((guide_run[0] / "bench" / "timings.json").read_text())
    assert set(timings["wall_seconds"]) == {"heuristic", "timid", "search", "all"}
    assert sum(timings["wall_seconds"].values()) <= 2 * timings["wall_seconds"]["all"]
    assert timings["command"].startswith("prefstats guide --variant sochi --seed 1")
    assert {"version", "date", "machine", "cpu_seconds"} <= set(timings)


def test_guide_variant_writes_charts_tables_and_records(made):
    for name in ("first_call_points", "first_call_expected_tricks", "whist", "misere",
                 "raspasy"):
        for ext in ("png", "svg", "pdf", "csv", "parquet"):
            assert (made / f"{name}.{ext}").stat().st_size > 0
        models = pl.read_parquet(made / f"{name}_models.parquet")
        assert set(models["model"]) == {"heuristic", "timid", "search"}
        assert {"robust", "gain_min", "gain_max", "breaks"} <= set(
            pl.read_parquet(made / f"{name}.parquet").columns)
    raspasy = pl.read_csv(made / "raspasy.csv")
    assert set(raspasy["option"]) == {"6", "misere"}
    assert set(raspasy["aces_kings"]) <= set(range(6)) and set(raspasy["longest"]) <= {3, 4, 5, 6}
    assert {"raspasy_value", "raspasy_low", "raspasy_high"} <= set(raspasy.columns)
    points = pl.read_parquet(made / "first_call_points.parquet")
    assert set(points["option"]) == {"6", "7", "8", "misere"}
    assert points.select("points", "seat").n_unique() == 9 * 3  # ≤3 .. 11+ by 3 seats
    assert {"gain", "ci_low", "ci_high", "n", "model", "advice"} <= set(points.columns)
    misere = pl.read_csv(made / "misere.csv")
    assert misere.height == len(hc.PATTERNS) and "catch_rate" in misere.columns
    whist = pl.read_parquet(made / "whist.parquet")
    assert set(whist["level"]) <= {6, 7, 8, 9} and set(whist["trumps"]) <= set(range(-1, 5))
    text = (made / "guide.md").read_text()
    assert text.index("](first_call_points.png)") < text.index("## Tables")
    assert text.index("](raspasy.png)") < text.index("## Tables")
    assert "![Bid " in text or "![No hand points" in text  # the alt text states the finding
    # timid fills its cells to --model-n (enough for a verdict), search to a fifth of it
    assert re.search(r"^- `timid`: [^\n]*; 13 pairs a cell$", text, re.M)
    assert re.search(r"^- `search`: [^\n]*; 3 pairs a cell$", text, re.M)


def test_guide_json_rules_agree_with_their_cells(made):
    doc = json.loads((made / "guide.json").read_text())
    rules_agree_with_cells(doc)
    # some rule's robustness was measured, so its bounds are checked
    assert any(r["robust"] is not None for r in doc["records"] if r["kind"] != "cell")


def rules_agree_with_cells(doc: dict) -> None:
    """Every rule of a guide.json names its cell, n ≥ min_n, its gain with CI and whether
    it is robust, and its advice is its cell's best option (the cell's own advice, the
    option with the largest gain among those with enough pairs, or a pass when none
    gains)."""
    keys = {"decision", "features", "option", "gain", "ci_low", "ci_high", "n", "advice",
            "robust", "model"}
    cells, found = {}, []
    for r in doc["records"]:
        assert keys <= set(r) and r["decision"] in ("first_call", "whist", "misere", "raspasy")
        assert r["robust"] in (True, False, None) and r["model"] == "heuristic"
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
        assert mine and all(c["advice"] == rule["option"] for c in mine)
        assert all(c["robust"] == rule["robust"] for c in mine)
        best = max((c for c in mine if c["enough"]), key=lambda c: c["gain"])
        assert rule["option"] == (best["option"] if best["gain"] > 0 else "pass")
        words = {True: "; robust)", False: "; not robust: ", None: "robustness not measured"}
        assert words[rule["robust"]] in rule["text"] and f"n = {rule['n']:,}" in rule["text"]
        if rule["robust"] is not None:
            assert rule["gain_min"] <= rule["gain"] + 1e-9 <= rule["gain_max"] + 2e-9
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


REPORTS = Path(__file__).parent.parent / "reports"
CHARTS = ("first_call_points", "first_call_expected_tricks", "whist", "misere", "raspasy")


def _current_guides() -> list[Path]:
    return sorted(REPORTS.glob("*/guide.json"))


def test_every_preset_and_its_four_player_table_has_a_committed_guide():
    expected = set(PRESETS)
    for name in PRESETS:
        try:
            get_variant(name, players=4)
        except VariantError:  # Gusarik: two players and a dummy
            continue
        expected.add(f"{name}-4p")
    assert {p.parent.name for p in _current_guides()} == expected


def test_committed_guides_rules_agree_with_their_cells():
    guides = _current_guides()
    assert len(guides) >= 4
    for path in guides:
        doc = json.loads(path.read_text())
        assert doc.get("models"), f"{path}: robustness not measured"
        rules_agree_with_cells(doc)
        assert {r["decision"] for r in doc["records"] if r["kind"] == "rule"} == {
            "first_call", "whist", "misere", "raspasy"}, path
        drawn = {e["name"] for e in manifest.read(path.parent)["charts"] if e.get("hand")}
        assert drawn == set(CHARTS), path  # `prefstats charts` draws each from its table
        for name in CHARTS:
            assert (path.parent / f"{name}.csv").stat().st_size > 0


def test_committed_sochi_whist_at_six_with_two_aces_and_kings_turns_on_trump_length():
    whist = pl.read_csv(REPORTS / "sochi" / "whist.csv").filter(
        (pl.col("level") == 6) & (pl.col("aces_kings") == 2) & (pl.col("option") == "whist"))
    cell = {r["trumps"]: r for r in whist.iter_rows(named=True)}
    assert cell[0]["enough"] and cell[4]["enough"]
    assert cell[0]["ci_high"] < cell[4]["ci_low"]  # none of his trumps against 4 or more
    assert (cell[0]["advice"], cell[4]["advice"]) == ("pass", "whist")


def test_committed_misere_charts_rate_a_clean_hand_and_every_single_hole():
    for path in (p.parent / "misere.csv" for p in _current_guides()):
        misere = pl.read_csv(path).filter(pl.col("holes") <= 1)
        assert misere.height == sum(1 for h, _ in hc.PATTERNS if h <= 1), path
        assert misere["enough"].all() and (misere["n"] >= 1000).all(), path
        assert misere["catch_rate"].is_not_null().all(), path


def _chart(name: str, gains: dict[tuple[int, str], tuple[float, int]], min_n: int):
    """A chart of one feature ``c`` whose option ``6`` gains exactly ``k`` SE (sd 1)."""
    rows = []
    for (c, _), (k, n) in gains.items():
        z = np.tile([-1.0, 1.0], n // 2)
        z = z / z.std(ddof=1)
        rows += [{"c": c, "pass": 0.0, "6": g} for g in k / np.sqrt(n) + z]
    wide = pl.DataFrame(rows, schema={"c": pl.Int64, "pass": pl.Float64, "6": pl.Float64})
    table = hc.cell_table(wide, ["c"], ["6"], min_n, model=name)
    return hc.Chart("first_call", "x", ["c"], ["6"], table, 0, min_n, {}, wide, name)


def test_advice_is_robust_only_when_no_model_prefers_another_option():
    # Cell 1: bid under the default, and under both models; cell 2: bid under the
    # default, but 'b' passes at 3 SE; cell 3: 'b' has too few pairs to judge.
    default = _chart("heuristic", {(1, ""): (6.0, 400), (2, ""): (6.0, 400),
                                   (3, ""): (6.0, 400)}, 100)
    a = _chart("a", {(1, ""): (1.0, 60), (2, ""): (0.5, 60), (3, ""): (1.0, 60)}, 40)
    b = _chart("b", {(1, ""): (0.0, 60), (2, ""): (-3.0, 60), (3, ""): (-9.0, 10)}, 40)
    table = hc.with_robustness(default, [a, b]).table
    r = {row["c"]: row for row in table.iter_rows(named=True)}
    assert [r[c]["advice"] for c in (1, 2, 3)] == ["6"] * 3
    assert (r[1]["robust"], r[1]["breaks"]) == (True, "")
    assert (r[2]["robust"], r[2]["breaks"]) == (False, "b")
    assert r[2]["gain_min"] == pytest.approx(-3.0 / np.sqrt(60))
    assert r[2]["gain_max"] == pytest.approx(6.0 / np.sqrt(400))
    assert (r[3]["robust"], r[3]["unmeasured"]) == (None, "b")
    models = default.models
    assert set(models["model"]) == {"heuristic", "a", "b"} and models.height == 9


@pytest.mark.parametrize(("name", "players", "seat"), [("sochi", 4, 2), ("gusarik", None, 1)])
def test_the_raspasy_chart_is_the_last_seat_after_everyone_passed(name, players, seat):
    variant = get_variant(name, players=players)
    assert hc.seats_of(variant)[-1] == seat
    chart = hc.raspasy_chart(variant, 3, 5, budget=300, batch=300)
    assert chart.decision == "raspasy" and len(chart.wide) > 0
    # a forced pass after every earlier seat passed is a raspasy: its value is the pass's
    values = chart.wide["pass"].drop_nulls()
    assert len(values) == len(chart.wide)
    cost = chart.table.group_by("aces_kings", "longest").agg(pl.col("raspasy_value").first())
    assert cost["raspasy_value"].drop_nulls().len() > 0


def test_charts_are_the_same_for_any_number_of_workers():
    one = hc.raspasy_chart(SOCHI, 3, 5, budget=200, batch=200)
    assert len(one.wide) > 2 * MIN_PIECE  # two workers share every rollout
    two = hc.raspasy_chart(SOCHI, 3, 5, budget=200, batch=200, workers=2)
    assert one.wide.equals(two.wide) and one.table.equals(two.table)


def test_a_branch_plays_alike_alone_or_beside_the_others():
    # the raspasy chart plays the misère only on the deals whose pass faced the raspasy
    d = deal(80, seed=3)
    both = hc._play(SOCHI, d, 2, "first_call", ["pass", "misere"], 3, 1)
    faced = np.flatnonzero(both.raspasy[:, 0])
    assert 0 < len(faced) < len(d)
    passed = hc._play(SOCHI, d, 2, "first_call", ["pass"], 3, 2)
    misere = hc._play(SOCHI, d[faced], 2, "first_call", ["misere"], 3, 2)
    assert np.array_equal(passed.value[:, 0], both.value[:, 0], equal_nan=True)
    assert np.array_equal(passed.raspasy[:, 0], both.raspasy[:, 0])
    assert np.array_equal(misere.value[:, 0], both.value[faced, 1], equal_nan=True)
    assert np.array_equal(misere.caught[:, 0], both.caught[faced, 1])
