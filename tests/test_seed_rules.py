"""Rules of the seed texts: each test names the seed line it rests on
(docs/RULES.md §11 lists them by audit row). The worked examples of help, the returned
half-whist, Leningrad's consolation and Rostov's raspasy are §9 (test_rules_examples.py).
"""

import numpy as np
import pytest

from prefstats.game.auction import (
    BLIND_PASS,
    DARK,
    NO_TALON_BID,
    PASS,
    W_HALF,
    W_PASS,
    W_WHIST,
    call_name,
    legal_calls,
    legal_whist_calls,
    parse_call,
)
from prefstats.game.contracts import MISERE, N_CONTRACTS
from prefstats.game.scoring import ScoreSheet, apply_help, raspasy_entries
from prefstats.game.variants import PRESETS, get_variant

TABLES = [(name, players) for name in PRESETS
          for players in ((2,) if name == "gusarik" else (3, 4))]


def trick_bids(history, variant, **kw):
    """The bids with the talon among the legal calls (misère aside)."""
    return [call_name(c) for c in legal_calls(history, variant, **kw)
            if c < N_CONTRACTS and c != MISERE]


# ---- row 1: no jumps (B:95, B:541, A:S2) ------------------------------------------------


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_every_preset_opens_at_six_spades_and_climbs_one_step(name, players):
    """B:95 "strictly up, without jumping over steps", B:541, A:S2 "starts from 6♠"."""
    v = get_variant(name, players=players)
    assert not v.jump_bids
    assert trick_bids([], v) == ["6♠"]
    assert trick_bids([], v, after_raspasy=True) == [f"{v.raspasy_exit}♠"]
    assert trick_bids([parse_call("6♠")], v) == ["6♣"]
    house = get_variant(name, players=players, jump_bids=True)
    assert len(trick_bids([], house)) == N_CONTRACTS - 1


def test_leningrad_opens_at_seven_spades_after_a_raspasy():
    """B:225, B:331: the hard exit; then one step at a time (B:95)."""
    v = get_variant("leningrad")
    assert trick_bids([], v, after_raspasy=True) == ["7♠"]
    assert trick_bids([parse_call("7♠")], v, after_raspasy=True) == ["7♣"]


def test_blind_pass_floor_and_dark_bids_on_the_one_step_ladder():
    """B:267, B:408: only a seven interrupts a blind pass (its next step 7♠); B:402: a
    dark bid may; B:103: the dark bid is the next step, bid blind."""
    classic = get_variant("classic")
    after = legal_calls([BLIND_PASS], classic)
    assert [call_name(c) for c in after if c not in (PASS, BLIND_PASS, DARK)] == [
        "7♠", "misère", "7♠ nt", "misère nt"]
    assert trick_bids([BLIND_PASS, DARK], classic) == ["6♠"]
    assert trick_bids([DARK, parse_call("6♠"), DARK], classic) == ["6♣"]


def test_bids_without_the_talon_step_on_their_own_ladder():
    """B:418: at a level a bid without the talon beats every bid with it; the next
    level with the talon beats it."""
    classic = get_variant("classic")
    h = [parse_call(c) for c in ("6♠", "6♣", "6♦", "6♥")]
    assert [call_name(c) for c in legal_calls(h, classic)
            if c < N_CONTRACTS or c >= NO_TALON_BID] == ["6NT", "6♠ nt"]


# ---- row 3: greedy whist (B:253) ----------------------------------------------------------


def test_greedy_whist_has_no_half_whist():
    """B:253: under greedy whist "going for one's own" (B:241's half-whist) is not
    allowed; Sochi is greedy (B:308)."""
    sochi = get_variant("sochi")
    assert sochi.whist_split == "greedy" and not sochi.half_whist
    assert legal_whist_calls(parse_call("6♥"), [W_PASS], sochi) == [W_PASS, W_WHIST]
    gentleman = get_variant("leningrad")
    assert legal_whist_calls(parse_call("6♥"), [W_PASS], gentleman) == [W_PASS, W_WHIST,
                                                                        W_HALF]


# ---- row 2: help (B:317) ------------------------------------------------------------------


def _closed(variant_name="sochi", target=2):
    sheet = ScoreSheet(get_variant(variant_name), pool_target=target)
    sheet.record_game(0, "6♠", None, {1: "pass", 2: "pass"}, dealer=2)
    return sheet


def test_help_skips_the_dealer_and_the_whister_only():
    """B:317: "except the dealer and the player who whisted against him in this game"."""
    sheet = _closed(target=4)
    sheet.record_game(1, "6♠", None, {2: "pass", 0: "pass"}, dealer=0)  # pools 2, 2, 0
    # A 7♠ whisted by player 1, dealt by player 2: both barred, nobody to help.
    sheet.record_game(0, "7♠", [7, 2, 1], {1: "whist", 2: "pass"}, dealer=2)
    assert sheet.pool.tolist() == [4, 2, 0] and sheet.mountain.tolist() == [0, 2, 2]
    # A misère's catchers did not whist: player 2 is helped, player 1 deals.
    sheet.record_misere(0, 0, dealer=1)
    assert sheet.pool.tolist() == [4, 2, 4]
    assert sheet.whists[0, 2] == 10 * 4 and sheet.mountain.tolist() == [0, 8, 8]


def test_help_ties_go_to_the_smaller_mountain_then_clockwise():
    """B:317: equal pools: the smaller mountain; equal mountains: the first clockwise."""
    v = get_variant("sochi")
    t = v.scoring_table()
    n = 3
    deal = np.zeros(2 * n + n * n, dtype=np.int64)
    deal[2] = 4  # player 2 closed, 4 half points beyond
    out = np.empty_like(deal)
    free = np.zeros(n, dtype=np.bool_)
    pool, target = np.array([2, 2, 8]), 8
    apply_help(t, target, pool, np.array([0, 0, 0]), deal, free, False, out)
    assert out[:n].tolist() == [4, 0, 0]  # clockwise from 2: player 0 first
    apply_help(t, target, pool, np.array([6, 2, 0]), deal, free, False, out)
    assert out[:n].tolist() == [0, 4, 0]  # the smaller mountain
    apply_help(t, target, np.array([6, 2, 8]), np.array([0, 0, 0]), deal, free, False, out)
    assert out[:n].tolist() == [2, 2, 0]  # player 0 fills up, the rest to the next
    assert out[2 * n + 2 * n:].tolist() == [20, 20, 0]  # 10 whists a point (halves)


def test_help_with_nobody_writes_off_the_mountain_then_every_other():
    """B:317: down to zero, "the rest into the mountain of all the others (the dealer
    included)"."""
    t = get_variant("sochi").scoring_table()
    n = 3
    deal = np.zeros(2 * n + n * n, dtype=np.int64)
    deal[0] = 6
    out = np.empty_like(deal)
    barred = np.array([False, True, True])
    apply_help(t, 8, np.array([8, 0, 0]), np.array([4, 0, 0]), deal, barred, False, out)
    assert out[:n].tolist() == [0, 0, 0] and out[n:2 * n].tolist() == [-4, 2, 2]


def test_help_zero_trick_raspasy_of_a_closed_player_helps_nobody():
    """B:317: on raspasy a closed player without a trick writes off his mountain and
    may not help."""
    t = get_variant("sochi").scoring_table()
    n = 3
    deal = np.zeros(2 * n + n * n, dtype=np.int64)
    deal[0] = 2
    out = np.empty_like(deal)
    free = np.zeros(n, dtype=np.bool_)
    apply_help(t, 8, np.array([8, 0, 0]), np.array([6, 0, 0]), deal, free, True, out)
    assert out[:n].tolist() == [0, 0, 0] and out[n:2 * n].tolist() == [-2, 0, 0]


def test_help_reaches_the_half_whister_whose_whist_was_returned():
    """B:317 bars who whisted against the helper; B:241: a returned half-whist leaves
    the half-whister a passer."""
    sheet = ScoreSheet(get_variant("leningrad", pulka_end="help"), pool_target=2)
    sheet.record_game(0, "6♠", None, {1: "pass", 2: "pass"}, dealer=2)
    sheet.record_game(0, "6♠", [6, 3, 1], {1: "whist", 2: "half"}, dealer=0)
    assert sheet.pool.tolist() == [2, 0, 2]
    sheet = ScoreSheet(get_variant("leningrad", pulka_end="help"), pool_target=2)
    sheet.record_game(0, "6♠", None, {1: "pass", 2: "pass"}, dealer=2)
    sheet.record_game(0, "6♠", None, {1: "pass", 2: "half"}, dealer=1)  # it stood
    assert sheet.pool.tolist() == [2, 0, 0] and sheet.mountain.tolist() == [0, 2, 2]


def test_sheet_dealer_defaults_to_the_sliding_deal():
    """RULES.md §1: deal k of a 3-player sheet is dealt by player (2 + k) mod 3."""
    sheet = ScoreSheet(get_variant("sochi"), pool_target=4)
    sheet.record_game(0, "6♠", None, {1: "pass", 2: "pass"})  # deal 0: dealer 2
    sheet.record_game(0, "7♠", None, {1: "pass", 2: "pass"})  # deal 1: dealer 0
    assert sheet.pool.tolist() == [4, 2, 0]  # player 1 helped, the first clockwise
    sheet.record_game(0, "6♠", None, {1: "pass", 2: "pass"})  # deal 2: dealer 1
    assert sheet.pool.tolist() == [4, 2, 2]  # not player 1, the larger pool: he deals


# ---- rows 11, 13, 14, 15: scoring -------------------------------------------------------


def test_dealer_writes_the_zero_trick_pool():
    """B:312, B:355: with 4 players the talon's cards are the dealer's, "who writes both
    mountain and pool"."""
    for name in ("sochi", "leningrad"):
        v = get_variant(name, players=4)
        assert v.dealer_raspasy_pool
        rows = raspasy_entries(v, [3, 3, 4, 0], dealer=3).tolist()
        assert [0, 3, -1, 2 * v.raspasy_rates[0]] in rows  # his pool, in half points
        off = get_variant(name, players=4, dealer_raspasy_pool=False)
        assert not [r for r in raspasy_entries(off, [3, 3, 4, 0], dealer=3).tolist()
                    if r[1] == 3]


@pytest.mark.parametrize("name", ["sochi", "leningrad", "rostov", "classic"])
def test_talon_whists_in_every_four_player_preset(name):
    """B:233–235, the general section: the dealer writes whists for a good talon."""
    assert get_variant(name, players=4).talon_whists
    assert not get_variant(name).talon_whists


def test_misere_failed_is_an_option():
    """B:229: "for each trick twice the pool points" -- Leningrad's 20; an option."""
    assert get_variant("leningrad").misere_failed == 20
    assert get_variant("sochi").misere_failed == 10
    sheet = ScoreSheet(get_variant("sochi", misere_failed=20))
    sheet.record_misere(0, 2)
    assert sheet.mountain.tolist() == [40, 0, 0]


def test_classic_whist_is_responsible_by_quota():
    """B:245–247: the seed's responsible whist; "full" rests on no line."""
    assert get_variant("classic").whist_responsibility == "quota"
    sheet = ScoreSheet(get_variant("classic"))
    sheet.record_game(0, "7♠", [9, 1, 0], {1: "whist", 2: "whist"})
    assert sheet.mountain.tolist() == [0, 0, 4]  # "full" would charge both whisters


def test_second_whister_answers_on_a_nine():
    """B:247: on 8-10 "the second whist is responsible": a short defence costs the
    second whister only; a defence with its trick costs nobody (gentleman)."""
    v = get_variant("leningrad")
    sheet = ScoreSheet(v)
    sheet.record_game(0, "9♠", [10, 0, 0], {1: "whist", 2: "whist"})
    assert sheet.mountain.tolist() == [0, 0, 8]
    sheet = ScoreSheet(v)
    sheet.record_game(0, "9♠", [9, 1, 0], {1: "whist", 2: "whist"})
    assert sheet.mountain.tolist() == [0, 0, 0]


def test_half_responsible_whist_until_a_pool_closes():
    """B:422: "half-responsible whist, but only until at least one player has closed
    his pool; from then on the whist is responsible"."""
    v = get_variant("classic", half_responsible_until_closed=True)
    sheet = ScoreSheet(v, pool_target=4)
    sheet.record_game(0, "7♠", [9, 1, 0], {1: "whist", 2: "whist"})  # player 2 short 1
    assert sheet.pool.tolist() == [4, 0, 0] and sheet.mountain.tolist() == [0, 0, 2]
    sheet.record_game(1, "7♠", [0, 9, 1], {2: "whist", 0: "whist"})  # a pool is closed
    assert sheet.mountain.tolist() == [4, 0, 2]


@pytest.mark.parametrize(("name", "players", "options"), [
    ("classic", 3, {"half_responsible_until_closed": True}),
    ("sochi", 4, {"raspasy_ties": "half"}),
    ("rostov", 4, {"raspasy_talon": "dealer", "raspasy_ties": "half"}),
])
def test_pulka_loop_equals_sheet_replay_with_the_seed_options(name, players, options):
    """The compiled pulka loop against the score sheet, on the options of this file."""
    from test_pulka_classic import replay

    from prefstats.sim.pulka import play_pulkas

    variant = get_variant(name, players=players, **options)
    result = play_pulkas(variant, [0, 3], seed=5, pool_target=5, player_key=11)
    for row, pid in enumerate([0, 3]):
        sheet = replay(variant, pid, 5, 5, "heuristic", 11)[0]
        np.testing.assert_array_equal(result["pool"][row], sheet.pool)
        np.testing.assert_array_equal(result["mountain"][row], sheet.mountain)
        np.testing.assert_array_equal(result["whists"][row], sheet.whists)
