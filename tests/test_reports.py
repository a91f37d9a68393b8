"""Report sections on small synthetic frames with known answers, and the written report
on a tiny simulated dataset."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from prefstats.game.auction import W_HALF, W_PASS, W_WHIST
from prefstats.game.cards import parse_cards
from prefstats.game.engine import GAME, MISERE_GAME, RASPASY
from prefstats.reports.bidding_section import bidding_table, misere_table, thresholds
from prefstats.reports.compare import paired_differences, variant_metrics
from prefstats.reports.raspasy import raspasy_chain, raspasy_costs, raspasy_tricks
from prefstats.reports.seats import pulka_seat_luck, seat_luck
from prefstats.reports.stats import finish_means, mean_aggs, with_proportion
from prefstats.reports.whist import whist_table

# Three hands of ten and a talon, disjoint: ♠ long for seat 0; 2 aces+kings for seat 1.
HANDS = (parse_cards("♠AKQJ1098 ♣A ♦A"), parse_cards("♠7 ♣KQJ ♦KQJ ♥KQ7"),
         parse_cards("♣10987 ♦10987 ♥AJ"))
TALON = parse_cards("♥10 9")


def deals(n: int, **columns) -> pl.LazyFrame:
    """``n`` rows in the dataset schema: the fixed hands above, a raspasy by default;
    ``columns`` (scalars or sequences) override."""
    base = {"deal_id": np.arange(n, dtype=np.uint32), "dealer": np.uint8(0),
            "hand_0": np.uint32(HANDS[0]), "hand_1": np.uint32(HANDS[1]),
            "hand_2": np.uint32(HANDS[2]), "talon": np.uint32(TALON), "kind": RASPASY,
            "declarer": -1, "contract": -1, "first": -1, "second": -1, "played": True,
            "raspasy_step": 0, "tricks_0": 3, "tricks_1": 3, "tricks_2": 4}
    for s in range(3):
        base |= {f"pool_{s}": 0.0, f"mountain_{s}": 0.0, f"value_{s}": 0.0}
        base |= {f"whist_{s}_{j}": 0.0 for j in range(3) if j != s}
    base |= columns
    df = pl.DataFrame({k: np.broadcast_to(np.asarray(v), (n,)) for k, v in base.items()})
    return df.with_columns(pl.col("kind").cast(pl.UInt8), pl.col("declarer", "contract", "first",
                                                                  "second").cast(pl.Int8),
                           pl.col("^tricks_.*$").cast(pl.UInt8)).lazy()


def test_mean_interval_is_the_t_interval():
    x = np.random.default_rng(3).normal(5, 2, 40)
    df = finish_means(pl.DataFrame({"v": x}).select(mean_aggs(pl.col("v"), "m")), ["m"])
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert df["m_lo"][0] == pytest.approx(lo) and df["m_hi"][0] == pytest.approx(hi)


def test_proportion_interval_is_wilson():
    df = with_proportion(pl.DataFrame({"k": [7, 0], "n": [40, 40]}), "k", "n", "p")
    for row, k in zip(df.iter_rows(named=True), (7, 0), strict=True):
        ci = stats.binomtest(k, 40).proportion_ci(method="wilson")
        assert (row["p_lo"], row["p_hi"]) == pytest.approx((ci.low, ci.high))


def test_whisting_pays_exactly_x():
    # 7♠ by seat 0, 120 deals: seat 1 whists and gets 30 ± 4, seat 2 passes and gets 10 ± 4
    n, noise = 120, np.tile([4.0, -4.0], 60)
    lf = deals(n, kind=GAME, declarer=0, contract=5, first=W_WHIST, second=W_PASS,
               tricks_0=8, value_1=30 + noise, value_2=10 - noise, value_0=-40.0)
    t = whist_table(lf)
    whist = t.filter(pl.col("high_cards") == 3).row(0, named=True)  # seat 1: K♣ K♦ K♥
    assert whist["ev_whist"] == pytest.approx(30) and whist["ev_whist_n"] == n
    passer = t.filter(pl.col("high_cards") == 1).row(0, named=True)  # seat 2: A♥
    assert passer["ev_pass"] == pytest.approx(10)
    # one class per call here, so compare the calls across classes with the helper itself
    both = deals(2 * n, kind=GAME, declarer=0, contract=5,
                 first=np.repeat([W_WHIST, W_PASS], n), second=W_HALF, tricks_0=8,
                 value_1=np.concatenate([30 + noise, 10 + noise]), value_0=0.0)
    row = whist_table(both).filter(pl.col("high_cards") == 3).row(0, named=True)
    assert row["gain"] == pytest.approx(20)
    assert row["gain_se"] == pytest.approx(np.sqrt(2 * noise.var(ddof=1) / n))
    assert row["enough"]


def test_bidding_make_rate_and_gain():
    # seat 0 (7 spades with AKQ, 2 side aces: 12 points) declares 6♠ in 100 deals and makes
    # 70; then 100 raspasy deals in which he did not declare, worth -5 to him
    made = np.r_[np.full(70, 6), np.full(30, 5), np.full(100, 3)]
    kind = np.r_[np.full(100, GAME), np.full(100, RASPASY)]
    value = np.r_[np.full(70, 20.0), np.full(30, -40.0), np.full(100, -5.0)]
    lf = deals(200, kind=kind, declarer=np.where(kind == GAME, 0, -1),
               contract=np.where(kind == GAME, 0, -1), first=W_WHIST, second=W_WHIST,
               tricks_0=made, value_0=value)
    t = bidding_table(lf)
    row = t.filter(pl.col("level") == 6).row(0, named=True)
    assert row["points"] == 12 and row["n"] == 100 and row["p_make"] == pytest.approx(0.7)
    ci = stats.binomtest(70, 100).proportion_ci(method="wilson")
    assert (row["p_make_lo"], row["p_make_hi"]) == pytest.approx((ci.low, ci.high))
    assert row["ev_bid"] == pytest.approx(0.7 * 20 - 0.3 * 40)
    assert row["ev_pass"] == pytest.approx(-5) and row["gain"] == pytest.approx(7)
    assert thresholds(t)["points"].to_list() == [12]


def test_thresholds_start_above_the_last_losing_class():
    t = pl.DataFrame({"level": [6] * 5 + [7], "points": [8, 9, 10, 11, 12, 9],
                      "gain": [1.0, -1.0, 2.0, 3.0, 4.0, -2.0], "enough": True}).with_columns(
        gain_lo=pl.col("gain") - pl.Series([2.0, 2, 3, 2, 2, 2]))  # 10 gains, not surely
    assert thresholds(t).select("level", "points").rows() == [(6, 11)]


def test_misere_caught_by_holes():
    # seat 2 (♣10987 ♦10987 ♥AJ: the minors are safe from the seven up, ♥AJ is a short
    # hole) declares misère 40 times and is caught 10 times
    lf = deals(40, kind=MISERE_GAME, declarer=2, contract=15, tricks_2=np.r_[np.zeros(30),
                                                                             np.ones(10)])
    row = misere_table(lf).row(0, named=True)
    assert (row["holes"], row["short_holes"], row["n"]) == (1, 1, 40)
    assert row["p_caught"] == pytest.approx(0.25)


def test_raspasy_tricks_costs_and_chain():
    tricks = np.array([[0, 4, 6], [2, 3, 5]] * 20)
    lf = deals(40, tricks_0=tricks[:, 0], tricks_1=tricks[:, 1], tricks_2=tricks[:, 2],
               mountain_0=tricks[:, 0] * 1.0, mountain_1=tricks[:, 1] * 1.0,
               mountain_2=tricks[:, 2] * 1.0)
    shares = raspasy_tricks(lf).filter(pl.col("seat") == 0)
    assert shares.filter(pl.col("tricks") == 0)["share"][0] == pytest.approx(0.5)
    assert shares["share"].sum() == pytest.approx(1)
    costs = raspasy_costs(lf, {"raspasy_rates": [1, 2, 3]})
    seat2 = costs.filter(pl.col("seat") == 2).sort("step")
    assert seat2["cost"].to_list() == pytest.approx([5.5, 11, 16.5])
    assert costs.filter(pl.col("seat") == 0)["p_zero"].to_list() == pytest.approx([0.5] * 3)
    # every deal a raspasy: the chain never ends; half raspasy: 2 deals a chain
    half = pl.concat([lf, deals(40, kind=GAME, declarer=0, contract=5)])
    chain = raspasy_chain(half, {"raspasy_rates": [1, 2, 3]}).row(0, named=True)
    mean_cost = costs.group_by("step").agg(pl.col("cost").mean()).sort("step")["cost"]
    expect = mean_cost[0] + 0.5 * mean_cost[1] + 0.25 * mean_cost[2] / 0.5
    assert chain["chain_deals"] == pytest.approx(2) and chain["chain_cost"] == pytest.approx(
        expect)


def test_raspasy_chain_measured_in_pulkas():
    # deals: half raspasy (p0 = 1/2); pulkas: 2 raspasy in 3 deals (pi = 2/3), so a
    # deal after a raspasy continues the chain with p = 1 + 1/2 - (1/2) / (2/3) = 3/4
    lf = pl.concat([deals(40), deals(40, kind=GAME, declarer=0, contract=5)])
    pulkas = pl.DataFrame({"pulka_id": range(50), "deals": 3, "raspasy": 2}).lazy()
    chain = raspasy_chain(lf, {"raspasy_rates": [1], "raspasy_exit": 7}, pulkas)
    row = chain.row(2, named=True)
    assert row["rule"] == "in pulkas (min bid 7 after raspasy)" and row["n"] == 150
    assert row["p_raspasy"] == pytest.approx(0.75) and row["chain_deals"] == pytest.approx(4)


def test_seat_luck_and_pulkas():
    rng = np.random.default_rng(5)
    v = rng.normal(0, 10, (500, 2))
    lf = deals(500, value_0=v[:, 0] + 3, value_1=v[:, 1], value_2=-v.sum(axis=1) - 3)
    table, test = seat_luck(lf)
    assert table["mean"][0] == pytest.approx(v[:, 0].mean() + 3)
    assert test["df"] == 2 and test["p_value"] < 1e-6
    pulkas = pl.DataFrame({"pulka_id": range(500), "result_0": v[:, 0], "result_1": v[:, 1],
                           "result_2": -v.sum(axis=1), "deals": 30, "raspasy": 4}).lazy()
    ptable, ptest = pulka_seat_luck(pulkas)
    assert ptable["n"].to_list() == [500] * 3 and ptest["deals"] == 30
    assert ptest["p_value"] > 0.001


def test_paired_comparison_shrinks_the_interval():
    rng = np.random.default_rng(2)
    base = rng.normal(0, 50, 400)
    a = deals(400, value_0=base, value_1=-base)
    b = deals(400, value_0=base * 1.1, value_1=-base * 1.1)  # same deals, 10% bigger swings
    t = paired_differences({"a": a, "b": b})
    spread = t.filter(pl.col("metric").str.starts_with("spread")).row(0, named=True)
    assert spread["paired"] and spread["diff"] == pytest.approx(0.1 * np.abs(base).mean() * 2 / 3)
    assert spread["se_paired"] < spread["se_unpaired"] and spread["ci_shrink"] > 0.5
    other = deals(400, hand_0=np.uint32(HANDS[1]), hand_1=np.uint32(HANDS[0]))
    assert not paired_differences({"a": a, "c": other})["paired"].any()
    m = variant_metrics({"a": a, "b": b})
    assert set(m["variant"]) == {"a", "b"}


def test_estimated_tricks_is_the_evaluators_best_strain():
    from prefstats.players.evaluate import estimate_tricks
    from prefstats.reports.classes import estimated_tricks

    leads = np.array([True, False, True])
    got = estimated_tricks(np.array(HANDS, dtype=np.uint32), leads)
    want = [max(estimate_tricks(h, s, leads=bool(lead), before_talon=True) for s in range(5))
            for h, lead in zip(HANDS, leads, strict=True)]
    assert got == pytest.approx(want)
    assert got[0] > got[2]  # seven spades with A K Q against a hand of small cards


def test_guide_bidding_rules():
    from prefstats.reports.guide import _bidding_rules

    row = {"n": 100, "ev_pass_n": 100, "enough": True, "p_make": 0.8, "p_make_lo": 0.7,
           "p_make_hi": 0.9, "bid_share": 0.1}
    gains = {6: [(8, 1.0, 0.5), (9, 2.0, 1.0)],  # pays from 8
             7: [(8, 3.0, 1.0), (9, -1.0, -3.0)],  # pays at 8 only
             8: [(8, -1.0, -2.0)]}  # never
    t = pl.DataFrame([row | {"level": lv, "points": p, "gain": g, "gain_lo": lo,
                             "gain_hi": g + (g - lo)}
                      for lv, rows in gains.items() for p, g, lo in rows])
    lines = _bidding_rules(t, "points", "points")
    assert lines[0].startswith("- **6 declared** with 8+ points beat passing")
    assert lines[1].startswith("- **7: no single threshold**") and "8 points" in lines[1]
    assert lines[2].startswith("- **8 declared never beat passing**")
    assert lines[3] == "- **9**: too few declared deals to say."


def test_class_sums_by_slices_add_up_to_the_whole():
    # the hands are read a slice of deals at a time: any batch gives the same sums, each
    # seat row counted once
    from prefstats.reports.frames import class_sums, seat_rows

    value = np.arange(200, dtype=float) % 7
    lf = deals(200, kind=np.where(np.arange(200) % 3, RASPASY, GAME), declarer=0, contract=0,
               first=W_WHIST, second=W_PASS, value_1=value, value_2=-value)

    def sums(batch: int) -> pl.DataFrame:
        got = class_sums(lf, lambda d: seat_rows(d).select("kind", "seat", "hand", "value"),
                         ("whist",), [("kind", "high_cards")], batch=batch)
        return next(iter(got.values())).sort("kind", "high_cards")

    whole, sliced = sums(10**6), sums(7)
    assert whole["n"].sum() == 600 and sliced.equals(whole)
