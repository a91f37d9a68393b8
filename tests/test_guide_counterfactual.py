"""The guide advises from paired counterfactual figures only: the
gain tables against a direct computation, the 3-standard-error rule, the threshold rule
(positive with 95% confidence and staying positive), and a guide on a small dataset
whose only advice-like lines are counterfactual."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.reports import counterfactual as cf
from prefstats.reports.guide import OBSERVED, PLAYER_MODEL, advice, guide
from prefstats.reports.stats import MIN_SAMPLES
from prefstats.sim.simulate import simulate

SOCHI = get_variant("sochi")


def test_gains_match_a_direct_paired_computation():
    deals = deal(300, seed=4)
    frame = cf.seat_rollouts(SOCHI, deals, "first_call", ["pass", "bid"], cf.by_points,
                             seed=4)
    got = {r["cls"]: r for r in cf.gains(frame, "pass", "bid").iter_rows(named=True)}
    diffs: dict[int, list[float]] = {}
    for seat in range(3):
        points = cf.by_points(deals.hands[:, seat])
        f = frame.filter(pl.col("seat") == seat)
        base = dict(f.filter(option="pass").select("deal", "value").iter_rows())
        bid = dict(f.filter(option="bid").select("deal", "value").iter_rows())
        for d in range(len(deals)):
            if base[d] is not None and bid[d] is not None:
                diffs.setdefault(int(points[d]), []).append(bid[d] - base[d])
    expect = {c: v for c, v in diffs.items() if len(v) >= 2}
    assert set(got) == set(expect) and sum(len(v) for v in expect.values()) > 300
    for c, v in expect.items():
        mean, se = np.mean(v), np.std(v, ddof=1) / np.sqrt(len(v))
        row = got[c]
        assert row["n"] == len(v)
        assert row["mean"] == pytest.approx(mean) and row["se"] == pytest.approx(se)
        assert row["lo"] == pytest.approx(mean - 1.959964 * se)
        assert row["hi"] == pytest.approx(mean + 1.959964 * se)
    text = cf.table("t", frame, [min(expect)], "pass", ["bid"], "points")
    assert f"{cf.cell(got[min(expect)])} ({len(expect[min(expect)]):,})" in text


def _frame(gain_by_class: dict[int, tuple[float, int]], option: str = "bid") -> pl.DataFrame:
    """A rollout frame whose paired gain in class c is exactly ``k`` standard errors
    (``gain_by_class[c] = (k, n)``; the pass branch is worth zero)."""
    rows = []
    deal_no = 0
    for c, (k, n) in gain_by_class.items():
        z = np.tile([-1.0, 1.0], n // 2)
        z = z / z.std(ddof=1)
        gain = k / np.sqrt(n) + z  # sample sd 1, so se = 1/sqrt(n)
        for g in gain:
            rows += [(0, deal_no, c, "pass", 0.0), (0, deal_no, c, option, float(g))]
            deal_no += 1
    return pl.DataFrame(rows, schema=["seat", "deal", "cls", "option", "value"], orient="row")


@pytest.mark.parametrize(("k", "advised"), [(2.0, False), (4.0, True)])
def test_advice_needs_three_standard_errors(k, advised):
    table = cf.gains(_frame({7: (k, 200)}), "pass", "bid")
    row = table.row(0, named=True)
    assert row["mean"] / row["se"] == pytest.approx(k) and row["lo"] > 0
    verdict = advice(table, "points", "Bid", "Pass")[0]
    assert verdict.startswith("- **Bid with 7 or more points** (with the built-in heuristic "
                              "players") is advised
    assert verdict.startswith("- **No advice**") is not advised
    # the figure it rests on: gain, 95% CI, n and SE
    assert f"n = {row['n']:,}, SE {row['se']:.2f} ({k:+.1f} SE)" in verdict


def test_decisively_negative_everywhere_advises_passing():
    table = cf.gains(_frame({6: (-4.0, 200), 7: (-5.0, 200)}), "pass", "bid")
    assert advice(table, "points", "Bid", "Pass rather than bid")[0].startswith(
        "- **Pass rather than bid with every hand**")


def _lows(los: dict[int, float], n: int = MIN_SAMPLES) -> pl.DataFrame:
    return pl.DataFrame({"cls": list(los), "mean": [lo + 1 for lo in los.values()],
                         "se": 0.5, "lo": list(los.values()), "hi": 9.0, "n": n})


def test_threshold_is_positive_and_stays_positive():
    assert cf.threshold(_lows({4: 1.0, 5: -1.0, 6: 0.5, 7: 2.0, 8: 1.0}))["cls"] == 6
    assert cf.threshold(_lows({4: 1.0, 5: 2.0, 6: -0.1})) is None
    assert cf.threshold(_lows({4: -1.0, 5: 0.0})) is None
    # a thin class above does not break the run; it is not read at all
    thin = pl.concat([_lows({5: 1.0, 6: 1.0}), _lows({7: -3.0}, n=MIN_SAMPLES - 1)])
    assert cf.threshold(thin)["cls"] == 5
    # downward (misère by holes): the most holes up to which it pays in every class below
    assert cf.threshold(_lows({0: 1.0, 1: 0.5, 2: -1.0, 3: 0.2}), upward=False)["cls"] == 1


def test_guide_on_a_small_dataset_advises_only_from_rollouts(tmp_path):
    simulate(SOCHI, hands=500, seed=3, out=tmp_path / "d", workers=1, progress=False)
    text = guide(tmp_path / "d", tmp_path / "out", deals=500, misere_deals=100).read_text()
    advice_part, _, observed = text.partition(f"## {OBSERVED}")
    assert observed and PLAYER_MODEL in advice_part and "first 500 deals" in advice_part
    assert "seed 3" in advice_part and "## First call: bid or pass" in advice_part
    assert not re.search(r"\bBid \d+ with", text)  # the old observational advice
    assert re.search(r"^  - \d+ points: [+-]\d+\.\d whists a deal, 95% CI \[[+-]\d+\.\d, "
                     r"[+-]\d+\.\d\], n = [\d,]+, SE \d+\.\d\d \([+-]\d+\.\d SE\)$",
                     advice_part, re.M)
    # every verdict names what to do (or that there is no advice) and the player model
    for verdict in re.findall(r"^- .*$", advice_part, re.M):
        assert verdict.startswith(("- **No advice", "- **Bid", "- **Pass", "- **Call",
                                   "- **Whist", "- **Half")), verdict
        assert "heuristic players" in verdict or "too few deals" in verdict, verdict
    assert "hole(s)" in advice_part and "aces and kings" in advice_part
    assert "expected tricks" in advice_part and "seat 0: whist − pass" in advice_part
    assert "## The player model is an assumption" in advice_part
    assert "random: bid − pass" in advice_part
    # the search player's column, on the first tenth of the deals
    assert "search (PIMC): bid − pass" in advice_part and "on the first 50 of" in advice_part
    for name in ("deals", "misere_deals", "search_deals"):
        with pytest.raises(ValueError, match=f"{name} must be a positive number"):
            guide(tmp_path / "d", tmp_path / "bad", **{name: 0})
    assert not (tmp_path / "bad").exists()


# ---- tables by expected tricks, by level and seat, under two policies (items 5, 6) ------


def test_expected_tricks_classes_are_the_evaluator_s_by_seat():
    from prefstats.reports.classes import estimated_tricks

    deals = deal(200, seed=6)
    frame = cf.seat_rollouts(SOCHI, deals, "first_call", ["pass", "bid"], cf.by_points,
                             seed=6)
    tricks = cf.regroup(frame, cf.by_tricks)
    assert tricks.height == frame.height
    for seat in range(3):
        leads = np.full(200, float(seat == 0))
        want = np.rint(estimated_tricks(deals.hands[:, seat], leads)).astype(int)
        got = tricks.filter((pl.col("seat") == seat) & (pl.col("option") == "pass"))
        assert got["cls"].to_list() == want[got["deal"].to_numpy()].tolist()
    assert tricks.drop("cls").equals(frame.drop("cls"))


def test_whist_by_level_and_seat_is_the_paired_gain_of_that_seat_s_defences():
    from prefstats.game.contracts import LEVEL

    variant = get_variant("leningrad")
    deals = deal(400, seed=7)
    whist = cf.by_level(cf.seat_rollouts(variant, deals, "whist", ["pass", "whist"],
                                         cf.by_honours, seed=7))
    # the contract defended is the same in both branches of a deal
    both = whist.group_by("seat", "deal").agg(pl.col("cls").n_unique())
    assert both["cls"].max() == 1 and whist["cls"].is_in(list(range(6, 11))).all()
    text = cf.seat_table("t", whist, range(6, 11), "pass", "whist", "level")
    for seat in range(3):
        f = whist.filter(pl.col("seat") == seat)
        base = dict(f.filter(option="pass").select("deal", "value").iter_rows())
        diffs = {}
        for d, value, code in f.filter(option="whist").select("deal", "value", "contract"
                                                               ).iter_rows():
            if value is not None and base.get(d) is not None:
                diffs.setdefault(int(LEVEL[code]), []).append(value - base[d])
        level, v = max(diffs.items(), key=lambda kv: len(kv[1]))
        mean, se = np.mean(v), np.std(v, ddof=1) / np.sqrt(len(v))
        row = {"mean": mean, "lo": mean - 1.959964 * se, "hi": mean + 1.959964 * se}
        line = next(x for x in text.splitlines() if x.startswith(f"| {level} |"))
        assert f"{cf.cell(row)} ({len(v):,})" == line.split(" | ")[1 + seat].rstrip(" |")


def test_the_threshold_table_names_both_policies_and_their_figures():
    deals = deal(300, seed=8)
    frames = {p: cf.seat_rollouts(SOCHI, deals, "first_call", ["pass", "bid"], cf.by_points,
                                  seed=8, policy=p) for p in ("heuristic", "random")}
    assert not frames["heuristic"]["value"].equals(frames["random"]["value"])
    text = cf.policy_table("t", frames, range(4, 11), "pass", "bid", "points")
    lines = text.splitlines()
    assert "heuristic: bid − pass (n)" in lines[2] and "random: bid − pass (n)" in lines[2]
    assert lines[-1].startswith("| threshold |") and lines[-1].count("|") == 4
    random = {r["cls"]: r for r in cf.gains(frames["random"], "pass", "bid").iter_rows(
        named=True)}
    cls = max(random, key=lambda c: random[c]["n"])
    row = next(x for x in lines if x.startswith(f"| {cls} |"))
    assert f"{cf.cell(random[cls])} ({random[cls]['n']:,})" in row.split(" | ")[2]
