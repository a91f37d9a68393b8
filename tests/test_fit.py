"""The exploitability gauge and the fitted offsets of the players' calls."""

from __future__ import annotations

from importlib import resources

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from prefstats.analysis.fit import (
    LIMIT,
    MISERE_SCALE,
    TARGET_MAX,
    TARGET_MEAN,
    _own_calls,
    _pull,
    best_rows,
    familywise,
    gauge,
    next_sizes,
    step,
    summary,
)
from prefstats.game import engine
from prefstats.game.auction import W_WHIST
from prefstats.game.cards import honours
from prefstats.game.contracts import LEVEL
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players import adjust
from prefstats.players.builtin import BuiltinPlayer, seat_key
from prefstats.reports.classes import estimated_tricks, misere_holes
from prefstats.sim.play import play_batch, play_hand
from prefstats.sim.rollout import rollout_states

SOCHI = get_variant("sochi")


def test_classes_match_the_reports_classes():
    d = deal(3000, seed=4)
    for seat in range(3):
        hands = d.hands[:, seat]
        got = adjust.hand_classes(hands, seat)
        leads = np.full(len(hands), 1.0 if seat == 0 else 0.0)
        assert np.array_equal(got["tricks"], np.clip(np.rint(estimated_tricks(hands, leads)),
                                                     0, 10))
        assert np.array_equal(got["high"], np.minimum(honours(hands), 5))
        assert np.array_equal(got["holes"], np.minimum(misere_holes(hands)["holes"], 4))


def _whisted(states) -> int:
    return int((states["whist_calls"] == W_WHIST).sum())


def test_offsets_move_the_calls_they_name():
    """A whist offset of -3 tricks on every class whists less; +3 on every first-call
    class bids more; zeros play as the unfitted heuristic, None as the shipped fit."""
    d = deal(800, seed=9)
    zero = np.zeros(adjust.SIZE)
    base = play_batch(d, SOCHI, key=3, offsets=zero)
    shy = zero.copy()
    shy[adjust.WHIST:adjust.MISERE] = -3.0
    fewer = play_batch(d, SOCHI, key=3, offsets=shy)
    assert _whisted(fewer) < _whisted(base)
    keen = zero.copy()
    keen[adjust.CALL:adjust.WHIST] = 3.0
    more = play_batch(d, SOCHI, key=3, offsets=keen)
    assert (more["kind"] == engine.KINDS.index("raspasy")).sum() < (
        base["kind"] == engine.KINDS.index("raspasy")).sum()
    # the rollouts' driver reads them alike; the default is the shipped fit
    assert rollout_states(SOCHI, d, seat=0, decision=None, options=[], key=3,
                          offsets=keen)[0][:, 0].tobytes() == more.tobytes()
    shipped = play_batch(d, SOCHI, key=3, offsets=adjust.fitted(SOCHI))
    assert shipped.tobytes() == play_batch(d, SOCHI, key=3).tobytes()


def test_a_contract_offset_moves_the_contract_named_after_the_talon():
    d = deal(800, seed=9)
    levels = {}
    for sign in (0.0, -1.0, 1.0):
        offsets = np.zeros(adjust.SIZE)
        offsets[adjust.CONTRACT:] = 2.0 * sign
        st = play_batch(d, SOCHI, key=3, offsets=offsets)
        games = st["kind"] == engine.KINDS.index("game")
        levels[sign] = np.asarray(LEVEL)[st["contract"][games]].mean()
        if sign == 0.0:  # the auction does not read these cells: the same games
            bid = st["bid"]
        else:
            assert (st["bid"] == bid).all()
    assert levels[-1.0] < levels[0.0] < levels[1.0]


def test_both_drivers_read_the_offsets_alike():
    """With non-zero offsets the Python protocol path plays each deal as the batch."""
    rng = np.random.default_rng(2)
    offsets = rng.uniform(-1.5, 1.5, adjust.SIZE)
    offsets[adjust.MISERE:adjust.CONTRACT] *= MISERE_SCALE
    d = deal(40, seed=11)
    batch = play_batch(d, SOCHI, key=5, offsets=offsets)
    for i in range(len(d)):
        players = [BuiltinPlayer(offsets=offsets) for _ in range(3)]
        for s, p in enumerate(players):
            p.start_deal(seat_key(np.uint64(5), d.index[i], s))
        one = play_hand(d.hands[i], d.talon[i], players, SOCHI, talon_first=d.talon_first[i])
        assert one.tobytes() == batch[i].tobytes(), i


@pytest.mark.parametrize("preset,players", [("sochi", 3), ("classic", 4), ("gusarik", 2),
                                            ("leningrad", 3)])
def test_extreme_offsets_make_no_illegal_decision(preset, players):
    variant = get_variant(preset, players=players)
    for sign in (-1.0, 1.0):
        offsets = np.full(adjust.SIZE, sign * LIMIT)
        offsets[adjust.MISERE:adjust.CONTRACT] = sign
        # raises on an illegal decision
        states = play_batch(deal(800, seed=3), variant, key=1, offsets=offsets)
        assert (states["phase"] == engine.PHASES.index("done")).all()


def test_bad_offsets_are_refused():
    d = deal(5, seed=1)
    with pytest.raises(ValueError, match="offsets"):
        rollout_states(SOCHI, d, seat=0, decision=None, options=[], offsets=np.zeros(3))
    bad = np.zeros(adjust.SIZE)
    bad[0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        gauge(SOCHI, d, offsets=bad)


def test_candidate_offsets_reach_the_worker_threads():
    d = deal(60, seed=5)
    keen = np.zeros(adjust.SIZE)
    keen[adjust.CALL:adjust.WHIST] = 3.0
    one = gauge(SOCHI, d, seed=5, offsets=keen)
    assert_frame_equal(one, gauge(SOCHI, d, seed=5, offsets=keen, workers=2),
                       check_exact=False)
    shipped = gauge(SOCHI, d, seed=5)
    assert one.height != shipped.height or not np.allclose(one["mean"], shipped["mean"])


def test_a_saved_fit_reads_back(tmp_path):
    offsets = np.arange(adjust.SIZE, dtype=np.float64) / 100
    adjust.save(tmp_path / "f.npz", offsets, {"rounds": 2})
    data = np.load(tmp_path / "f.npz")
    assert np.array_equal(data["adjust"], offsets) and '"rounds": 2' in str(data["meta"])


#: The presets and table sizes whose fitted calls are shipped.
SHIPPED = [("sochi", 3), ("sochi", 4), ("leningrad", 3), ("leningrad", 4), ("rostov", 3),
           ("rostov", 4), ("classic", 3), ("classic", 4), ("gusarik", 2)]


def test_every_shipped_fit_is_listed():
    files = {p.name for p in resources.files("prefstats.players.data").iterdir()
             if p.name.startswith("fit-")}
    assert files == {adjust.data_file(*s) for s in SHIPPED}


@pytest.mark.parametrize("preset,players", SHIPPED)
def test_every_preset_ships_a_fit_that_met_the_target(preset, players):
    variant = get_variant(preset, players=players)
    meta = adjust.fit_meta(variant)
    assert meta is not None, f"no fit shipped for {preset} with {players} players"
    offsets = adjust.fitted(variant)
    scale = np.ones(adjust.SIZE)
    scale[adjust.MISERE:adjust.CONTRACT] = MISERE_SCALE
    assert offsets.shape == (adjust.SIZE,) and (np.abs(offsets) <= LIMIT * scale + 1e-12).all()
    after = meta["after"]
    assert f"--variant {preset} --players {players}" in meta["command"]
    assert after["met"] and after["corrected_over_target"] == 0 and after["mean"] < TARGET_MEAN


def test_own_calls_follow_the_auction():
    """Seat 1 passes after seat 0's 6♠, seat 2 bids 6♣, seat 0 holds ... each seat's
    first call, whether a bid came before it, and its highest level."""
    from prefstats.game.auction import PASS
    from prefstats.game.contracts import parse_contract

    s6, c6, c7 = (parse_contract(t).code for t in ("6♠", "6♣", "7♠"))
    calls = np.full((1, engine.MAX_CALLS), 0, dtype=np.int64)
    seq = [s6, PASS, c6, c6, c7, PASS]  # 0: 6♠, 1: pass, 2: 6♣, 0: holds 6♣, 2: 7♠, 0: pass
    calls[0, :len(seq)] = seq
    out = np.empty((1, 3), dtype=np.int64)
    got = []
    for seat in range(3):
        _own_calls(calls, np.array([len(seq)]), engine.rules_array(SOCHI), np.array([6]),
                   seat, out)
        got.append(tuple(out[0]))
    assert got == [(s6, 0, 6), (PASS, 1, 0), (c6, 1, 7)]


@pytest.fixture(scope="module")
def small_gauge():
    return gauge(SOCHI, deal(200, seed=21), seed=21)


def test_the_gauge_pairs_each_option_with_the_players_own_play(small_gauge):
    t = small_gauge
    assert set(t["decision"]) == {"first_call", "max_bid", "contract", "whist", "misere"}
    assert (t["n"] > 0).all() and (t["lo"] <= t["mean"]).all() and (t["mean"] <= t["hi"]).all()
    # every first call is one of pass and bid (Sochi): the n of the two options add up
    # to every seat's deals, each class once per option
    first = t.filter(pl.col("decision") == "first_call")
    assert first.filter(pl.col("option") == "pass")["n"].sum() == 3 * 200


def test_forcing_the_players_own_choice_gains_nothing(small_gauge):
    """On the deals where the seat's unforced first call was a pass, forcing a pass
    equals its own play: the class of seat 0 at 2 expected tricks (it never bids)."""
    t = small_gauge
    row = t.filter((pl.col("decision") == "first_call") & (pl.col("option") == "pass")
                   & (pl.col("cls") == "open · seat 0 · 3 tricks"))
    assert row.height == 1 and row["mean"][0] == 0.0 and row["se"][0] == 0.0


def _table(rows):
    return pl.DataFrame(rows, schema={"decision": pl.Utf8, "cls": pl.Utf8, "option": pl.Utf8,
                                      "cell": pl.Int64, "pull": pl.Float64,
                                      "mean": pl.Float64, "se": pl.Float64, "n": pl.Int64,
                                      "lo": pl.Float64, "hi": pl.Float64}, orient="row")


def test_summary_counts_only_significant_best_deviations():
    t = _table([
        ("whist", "a", "pass", 5, None, 1.0, 0.1, 100, 0.8, 1.2),
        ("whist", "a", "whist", 5, None, 0.0, 0.0, 100, 0.0, 0.0),
        ("first_call", "b", "bid", 3, None, 0.3, 0.5, 300, -0.7, 1.3),
        ("first_call", "c", "bid", 4, None, 9.0, 0.1, 10, 8.8, 9.2),  # too few deals
    ])
    head = summary(t)
    assert head["largest"] == 1.0 and head["significant"] == 1 and head["classes"] == 2
    assert head["mean"] == pytest.approx(100 / 400)
    assert head["mean_best"] == pytest.approx((100 + 0.3 * 300) / 400)
    assert head["over_target"] == int(TARGET_MAX < 1.0) and not head["met"]
    assert best_rows(t)["option"].to_list() == ["pass", "bid"]


def test_familywise_steps_down_like_holm():
    # one-sided p of z = 5, 2.4, 2.2: 2.9e-7, 0.0082, 0.0139. Among 3 rows each clears its
    # step (0.025/3, /2, /1); with a fourth (p = 0.5) the steps are 0.025/4, /3, /2 and
    # the third (0.0139 > 0.0125) stops the descent
    rows = [("whist", c, "pass", 5, None, z, 1.0, 100, z - 1.96, z + 1.96)
            for c, z in (("a", 5.0), ("b", 2.4), ("c", 2.2))]
    assert sorted(familywise(_table(rows))["cls"].to_list()) == ["a", "b", "c"]
    rows.append(("whist", "d", "pass", 5, None, 0.0, 1.0, 100, -1.96, 1.96))
    assert sorted(familywise(_table(rows))["cls"].to_list()) == ["a", "b"]


def test_a_perfect_field_fails_the_per_class_reading_but_meets_the_familywise_one():
    # 115 classes x 3 options, every true gain 0 (the players already best respond): the
    # per-class 95% CIs flag a class in nearly every gauge, each such chance gain far above
    # TARGET_MAX in a small class; Holm keeps the family-wise error near 2.5%
    rng = np.random.default_rng(17)
    per_class = familywise_hits = 0
    for _ in range(200):
        n = rng.integers(30, 2000, 115)
        se = 15.0 / np.sqrt(n)
        rows = [("whist", f"k{k}", o, 5, None, float(rng.normal(0, se[k])), float(se[k]),
                 int(n[k]), 0.0, 0.0) for k in range(115) for o in ("pass", "whist", "half")]
        rows = [(*r[:7], r[7], r[5] - 1.959964 * r[6], r[5] + 1.959964 * r[6]) for r in rows]
        head = summary(_table(rows))
        per_class += head["over_target"] > 0
        familywise_hits += head["corrected"] > 0
        assert head["met"] == (head["corrected_over_target"] == 0 and head["mean"] < TARGET_MEAN)
    assert per_class >= 190 and familywise_hits <= 12


def test_a_step_moves_each_significant_class_toward_its_best_option():
    t = _table([
        ("whist", "a", "pass", adjust.WHIST + 2, None, 1.0, 0.1, 100, 0.8, 1.2),
        ("first_call", "b", "bid", 7, None, 2.0, 0.1, 100, 1.8, 2.2),
        ("max_bid", "c", "6", 40, -2.0, 2.0, 0.1, 100, 1.8, 2.2),  # from competing lower
        ("misere", "d", "misere", adjust.MISERE + 1, None, 2.0, 0.1, 100, 1.8, 2.2),
        ("contract", "e", "8", -1, None, 2.0, 0.1, 100, 1.8, 2.2),  # no lever
        ("whist", "f", "whist", adjust.WHIST + 3, None, 0.5, 0.5, 100, -0.5, 1.5),  # noise
    ])
    new, moved = step(np.zeros(adjust.SIZE), t, 0.5)
    assert moved == 4
    assert new[adjust.WHIST + 2] == -0.5 and new[7] == 0.5 and new[40] == -0.5
    assert new[adjust.MISERE + 1] == pytest.approx(0.5 * MISERE_SCALE)
    assert np.count_nonzero(new) == 4


def test_a_cell_whose_direction_flips_halves_its_step():
    up = _table([("first_call", "b", "bid", 7, None, 2.0, 0.1, 100, 1.8, 2.2),
                 ("whist", "a", "pass", adjust.WHIST + 2, None, 1.0, 0.1, 100, 0.8, 1.2)])
    down = _table([("first_call", "b", "pass", 7, None, 2.0, 0.1, 100, 1.8, 2.2),
                   ("whist", "a", "pass", adjust.WHIST + 2, None, 1.0, 0.1, 100, 0.8, 1.2)])
    sizes, last = next_sizes(np.full(adjust.SIZE, 0.5), np.zeros(adjust.SIZE), up)
    assert sizes[7] == 0.5 and last[7] == 1 and last[adjust.WHIST + 2] == -1
    sizes, last = next_sizes(sizes, last, down)
    # cell 7 turned from "bid more" to "bid less": half the step; the whist cell kept its way
    assert sizes[7] == 0.25 and last[7] == -1
    assert sizes[adjust.WHIST + 2] == 0.5 and last[adjust.WHIST + 2] == -1
    new, moved = step(np.zeros(adjust.SIZE), down, sizes)
    assert moved == 2 and new[7] == -0.25 and new[adjust.WHIST + 2] == -0.5
    # a cell no significant class pulls keeps its step and its last direction
    quiet = _table([("whist", "a", "pass", adjust.WHIST + 2, None, 1.0, 0.1, 100, 0.8, 1.2)])
    sizes2, last2 = next_sizes(sizes, last, quiet)
    assert sizes2[7] == 0.25 and last2[7] == -1


def _head(largest):
    return {"largest": largest, "largest_class": "whist: x → pass" if largest else None,
            "mean": 0.05, "mean_best": 0.2, "classes": 10, "significant": 1 if largest else 0,
            "over_target": int(largest > TARGET_MAX), "met": largest <= TARGET_MAX,
            "corrected": int(largest > 0), "largest_corrected": largest,
            "corrected_over_target": int(largest > TARGET_MAX)}


def test_the_report_section_shows_the_fit_before_and_after(monkeypatch):
    from prefstats.reports import exploit

    monkeypatch.setattr(exploit, "fit_meta", lambda variant: None)
    empty = exploit.exploit_section(SOCHI, 5)
    assert not empty.blocks and "prefstats exploit --variant sochi" in empty.intro
    row = {"decision": "whist", "cls": "6 · seat 1 · 2 A+K", "option": "pass", "mean": 1.5,
           "lo": 0.5, "hi": 2.5, "n": 400}
    meta = {"command": "python scripts/fit_bidding.py", "seconds": 60, "rounds": 3,
            "before": _head(1.5), "after": _head(0.0), "before_top": [row], "after_top": []}
    monkeypatch.setattr(exploit, "fit_meta", lambda variant: meta)
    section = exploit.exploit_section(SOCHI, 5)
    assert "target not met" in section.intro and "target met" in section.intro
    table = section.blocks[0].table
    assert table.height == 1 and table["gain_lo"][0] == 0.5 and table["stage"][0] == "before"


def test_a_fit_met_at_its_first_gauge_reports_that_gauge_once(monkeypatch):
    from prefstats.reports import exploit

    row = {"decision": "whist", "cls": "6 · seat 1 · 2 A+K", "option": "pass", "mean": 0.4,
           "lo": 0.1, "hi": 0.7, "n": 400}
    meta = {"command": "python scripts/fit_bidding.py --warm", "warm": True, "seconds": 60,
            "rounds": 1, "before": _head(0.4), "after": _head(0.4), "before_top": [row],
            "after_top": [row]}
    monkeypatch.setattr(exploit, "fit_meta", lambda variant: meta)
    section = exploit.exploit_section(SOCHI, 5)
    assert "first gauge already met the target" in section.intro
    assert "the previous fit" in section.intro and "target met" in section.intro
    assert section.blocks[0].table["stage"].to_list() == ["after"]


def test_calls_made_before_looking_pool_every_hand():
    """A dark call or a blind pass is chosen before the hand is seen, so the gauge prices
    it over every hand of its context and seat, never by the hand's expected tricks."""
    classic = get_variant("classic")
    t = gauge(classic, deal(120, seed=5), seed=5).filter(pl.col("decision") == "first_call")
    unseen = t.filter(pl.col("option").is_in(["dark", "blind_pass"]))
    assert unseen.height > 0
    assert unseen["cls"].str.ends_with("hand unseen").all()
    assert (unseen["cell"] == -1).all()
    # each (context, seat) class holds all the deals of its context, whatever the hands
    seen = t.filter(pl.col("option") == "pass")
    for row in unseen.filter(pl.col("option") == "dark").iter_rows(named=True):
        context_seat = row["cls"].removesuffix("hand unseen")
        same = seen.filter(pl.col("cls").str.starts_with(context_seat))
        assert row["n"] <= same["n"].sum()
    assert set(t.filter(~pl.col("cls").str.ends_with("hand unseen"))["option"]) <= {
        "pass", "bid"}


def test_competing_gains_point_the_way_the_cap_moved_the_play():
    """Capping at 8 gains on a deal where the seat went on to 9 by itself (it stopped
    lower) and loses on one where it had stopped at 7 (it went higher): the first pulls
    down, the second's loss up; deals the cap did not change pull nowhere. The mean level
    reached (7.5, a floor where the others stopped first) would have said "compete
    higher" for the level 8."""
    reached = np.array([7, 9, 7, 7])
    diff = np.array([[0.0], [3.0], [-2.0], [0.0]])
    pull = _pull(["8"], reached, diff)
    assert pull[:, 0].tolist() == [0.0, -3.0, -2.0, 0.0]
    t = _table([("max_bid", "c", "8", 40, pull.mean(), diff.mean(), 0.1, 100, 0.1, 0.5)])
    new, moved = step(np.zeros(adjust.SIZE), t, 0.5)
    assert moved == 1 and new[40] == -0.5
