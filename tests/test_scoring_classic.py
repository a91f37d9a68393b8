"""Scoring of Classic and Gusarik (RULES.md §10): multipliers, the underbid penalty, full
whist responsibility, talon whists and two players; the compiled batch against the entry
functions; properties of the sheet (hypothesis, derandomised)."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sheet_checks import (
    assert_deal_values_add_up,
    assert_relabelling_permutes_the_scores,
    assert_settles_to_zero,
    play,
)

from prefstats.game import engine
from prefstats.game.auction import W_HALF, W_PASS, W_WHIST, legal_whist_calls, whist_outcome
from prefstats.game.cards import parse_cards
from prefstats.game.contracts import MISERE
from prefstats.game.deal import deal
from prefstats.game.scoring import (
    GAME,
    OUTCOME_FIELDS,
    RASPASY,
    ScoreSheet,
    deal_value,
    deal_values,
    entry_totals,
    game_entries,
    misere_entries,
    outcome_entries,
    random_outcomes,
    raspasy_entries,
    score_batch,
    score_states,
    sheet_from_records,
    talon_honours,
)
from prefstats.game.variants import get_variant
from prefstats.sim.play import play_batch


def sheet(name="sochi", players=None, pool_target=None, **options):
    return ScoreSheet(get_variant(name, players=players, **options), pool_target)


# ---- the multiplier ------------------------------------------------------------------------


def test_issue_example_eight_on_a_double_bomb_bid_dark():
    # An 8 (price 6) on a double bomb (x4) bid dark (x2): 48 in the pool, 48 a whist trick.
    s = sheet("classic")
    s.record_game(0, "8♥", [8, 2, 0], {1: "whist", 2: "pass"}, multiplier=4 * 2)
    assert s.pool.tolist() == [48, 0, 0] and s.mountain.tolist() == [0, 0, 0]
    assert s.whists[:, 0].tolist() == [0, 48 * 2, 0]
    two = sheet("classic")
    two.record_game(0, "8♥", [8, 1, 1], {1: "whist", 2: "whist"}, multiplier=8)
    assert two.whists[:, 0].tolist() == [0, 48, 48]


def test_multiplier_covers_every_game_entry_and_prices_a_bomb_raspasy():
    v = get_variant("classic", players=4)
    talon = parse_cards("A♠ A♥")
    cases = [  # remise with consolation and the dealer's, shortfall, half-whist, misère
        (game_entries, (v, 0, "7♥", [5, 1, 4, 0], {1: "whist", 2: "pass"}, 3)),
        (game_entries, (v, 1, "6♠", [3, 7, 0, 0], {2: "whist", 0: "whist"}, 3)),
        (game_entries, (v, 0, "6♦", None, {1: "pass", 2: "half"}, 3)),
        (misere_entries, (v, 2, 3, 0)),
        (misere_entries, (v, 2, 0, 0)),
    ]
    for entries, args in cases:
        one = entries(*args)
        five = entries(*args, multiplier=5)
        assert five[:, :3].tolist() == one[:, :3].tolist()
        assert five[:, 3].tolist() == (5 * one[:, 3]).tolist()
    one = game_entries(v, 0, "7♥", [7, 1, 2, 0], {1: "whist", 2: "whist"}, 3, talon=talon)
    four = game_entries(v, 0, "7♥", [7, 1, 2, 0], {1: "whist", 2: "whist"}, 3, talon=talon,
                        multiplier=4)  # fmt: skip
    assert four[:, 3].tolist() == (4 * one[:, 3]).tolist()
    # a raspasy's multiplier is its bomb: a triple bomb, 8 a trick (B:398), whatever the step
    tricks = [[0, 4, 6, 0]]
    pool, mountain, _ = score_batch(v, RASPASY, 0, 0, tricks, -1, -1, 3, step=2, multiplier=8)
    assert (pool // 2).tolist() == [[8, 0, 0, 8]]  # the dealer's empty talon too (§6)
    assert (mountain // 2).tolist() == [[0, 32, 48, 0]]


@pytest.mark.parametrize(("name", "players"), [("classic", 3), ("classic", 4), ("gusarik", 2)])
def test_totals_are_linear_in_the_multiplier(name, players):
    v = get_variant(name, players=players)
    o = random_outcomes(v, 2000, seed=3)
    o["multiplier"][:] = 1
    base = score_batch(v, **o)
    game = o["kind"] != RASPASY
    for m in (2, 3, 16):
        o["multiplier"][game] = m  # (a raspasy's multiplier is its bomb's rate: below)
        scaled = score_batch(v, **o)
        for a, b in zip(base, scaled, strict=True):
            np.testing.assert_array_equal(b[game], m * a[game])
            np.testing.assert_array_equal(b[~game], a[~game])


# ---- bomb raspasy (RULES.md §10.1, B:398) -------------------------------------------------


@pytest.mark.parametrize(("bomb", "rate"), [(2, 2), (4, 4), (8, 8)])
def test_b398_bomb_raspasy_is_2_4_8_a_trick_and_the_pass_price_into_the_pool(bomb, rate):
    """B:398: "one bomb is worth 2 points a trick, a double 4, a triple 8 (powers of 2);
    for taking no trick on bombs the player writes the pass price into the pool"."""
    s = sheet("classic")
    s.record_raspasy([0, 4, 6], multiplier=bomb)
    assert s.pool.tolist() == [rate, 0, 0] and s.mountain.tolist() == [0, 4 * rate, 6 * rate]
    four = sheet("classic", players=4)  # the dealer's talon took a trick: his mountain
    four.record_raspasy([0, 3, 6, 1], 3, multiplier=bomb)
    assert four.mountain.tolist() == [0, 3 * rate, 6 * rate, rate]
    assert four.pool.tolist() == [rate, 0, 0, 0]


def test_b398_bomb_raspasy_is_no_step_of_the_progression():
    """A bomb raspasy is priced by its bomb (B:398), not by the progression: the raspasy
    before it and the one after it are steps 1 and 2 (RULES.md §10.1)."""
    s = sheet("classic")
    s.record_raspasy([0, 4, 6])
    s.record_raspasy([0, 4, 6], multiplier=4)
    assert s.raspasy_step == 1
    s.record_raspasy([0, 4, 6])
    assert s.pool.tolist() == [1 + 4 + 2, 0, 0]
    assert s.mountain.tolist() == [0, 4 + 16 + 8, 6 + 24 + 12]
    records = sheet_from_records({"variant": "classic", "deals": [
        {"type": "raspasy", "tricks": [0, 4, 6], "multiplier": 8}]})
    assert records.mountain.tolist() == [0, 32, 48] and records.raspasy_step == 0


@pytest.mark.parametrize(("name", "options", "bomb", "message"), [
    ("sochi", {}, 2, "blind_pass"),
    ("classic", {"bomb_level": "passers"}, 2, "bomb_level"),
    ("classic", {}, 6, "power of two"),
    ("classic", {}, 0, "at least 1"),
])
def test_b398_a_raspasy_multiplier_only_on_a_bomb_raspasy(name, options, bomb, message):
    s = sheet(name, **options)
    with pytest.raises(ValueError, match=f"^multiplier:.*{message}"):
        s.record_raspasy([0, 4, 6], multiplier=bomb)
    assert s.deals == 0 and s.mountain.sum() == 0


# ---- underbid penalty -------------------------------------------------------------------------


def test_underbid_penalty_is_a_remise_of_the_extra_tricks():
    # 6♥ (price 2) with 8 tricks: remise of 2 -- mountain 4, consolation 4 from each
    # defender, no pool; the lone whister's 2 tricks bring 4 whists; shortfall 2 x 2.
    s = sheet(underbid_penalty=True)
    s.record_game(0, "6♥", [8, 2, 0], {1: "whist", 2: "pass"})
    assert s.pool.tolist() == [0, 0, 0]
    assert s.mountain.tolist() == [4, 4, 0]
    assert s.whists[:, 0].tolist() == [0, 4 + 4, 4]
    off = sheet()
    off.record_game(0, "6♥", [8, 2, 0], {1: "whist", 2: "pass"})
    assert off.pool.tolist() == [2, 0, 0] and off.whists[:, 0].tolist() == [0, 4, 0]
    exact = sheet(underbid_penalty=True)
    exact.record_game(0, "6♥", [6, 2, 2], {1: "whist", 2: "whist"})
    assert exact.pool.tolist() == [2, 0, 0] and exact.mountain.tolist() == [0, 0, 0]


def test_underbid_penalty_two_whisters_gentleman_dealer_and_credit():
    # two whisters: each his own trick whists plus consolation
    s = sheet(underbid_penalty=True)
    s.record_game(0, "7♠", [9, 1, 0], {1: "whist", 2: "whist"})  # 2 over at price 4
    assert s.mountain.tolist() == [8, 0, 4]  # remise 8; greedy: the second is 1 short
    assert s.whists[:, 0].tolist() == [0, 4 + 8, 8]
    # gentleman: the trick whists are the whister's, each writes his own consolation
    g = sheet(underbid_penalty=True, whist_split="gentleman")
    g.record_game(0, "7♠", [9, 0, 1], {1: "whist", 2: "pass"})
    assert g.whists[:, 0].tolist() == [0, 4 + 8, 8]
    # 4 players: the dealer writes consolation too
    f = sheet(players=4, underbid_penalty=True)
    f.record_game(0, "6♣", [7, 3, 0, 0], {1: "whist", 2: "pass"}, dealer=3)
    assert f.whists[:, 0].tolist() == [0, 6 + 2, 2, 2]
    # not played: credited, no penalty
    c = sheet(underbid_penalty=True)
    c.record_game(0, "6♣", None, {1: "pass", 2: "pass"})
    assert c.pool.tolist() == [2, 0, 0]


# ---- whist responsibility ---------------------------------------------------------------------


@pytest.mark.parametrize(("split", "quota_mountain"), [("greedy", [0, 6, 6]),
                                                        ("gentleman", [0, 0, 6])])
def test_full_responsibility_every_whister_answers_for_the_team(split, quota_mountain):
    # 8♥ (ob 1), declarer takes all ten; two whisters with none
    quota = sheet(whist_split=split)
    quota.record_game(0, "8♥", [10, 0, 0], {1: "whist", 2: "whist"})
    assert quota.mountain.tolist() == quota_mountain
    full = sheet(whist_split=split, whist_responsibility="full")
    full.record_game(0, "8♥", [10, 0, 0], {1: "whist", 2: "whist"})
    assert full.mountain.tolist() == [0, 6, 6]
    # 6♦ (ob 4, q 2): tricks 3 and 1 make the obligation: nobody pays under "full"
    full = sheet(whist_split=split, whist_responsibility="full")
    full.record_game(0, "6♦", [6, 3, 1], {1: "whist", 2: "whist"})
    assert full.mountain.tolist() == [0, 0, 0]
    greedy = sheet(whist_split="greedy")
    greedy.record_game(0, "6♦", [6, 3, 1], {1: "whist", 2: "whist"})
    assert greedy.mountain.tolist() == [0, 0, 2]  # below his personal quota
    # 6♦, tricks 2 and 1: team short by 1 -> each whister 1 at price 2
    full = sheet(whist_split=split, whist_responsibility="full")
    full.record_game(0, "6♦", [7, 2, 1], {1: "whist", 2: "whist"})
    assert full.mountain.tolist() == [0, 2, 2]
    # a lone whister: the whole shortfall either way
    lone = sheet(whist_split=split, whist_responsibility="full")
    lone.record_game(0, "6♦", [7, 2, 1], {1: "whist", 2: "pass"})
    assert lone.mountain.tolist() == [0, 2, 0]


def test_full_responsibility_ten_checked_has_no_obligation():
    s = sheet(ten_checked=True, whist_responsibility="full")
    s.record_game(0, "10♥", [10, 0, 0], None)
    assert s.mountain.tolist() == [0, 0, 0] and s.pool.tolist() == [10, 0, 0]


# ---- talon whists -------------------------------------------------------------------------------


@pytest.mark.parametrize(("talon", "honours"), [
    ("A♠ A♥", 3), ("A♦ K♦", 2), ("A♦ K♥", 1), ("A♣ 7♣", 1), ("K♣ Q♣", 1), ("K♣ Q♥", 0),
    ("10♠ J♠", 0), ("A♥ K♥", 2), ("Q♠ K♠", 1),
])  # fmt: skip
def test_talon_honours(talon, honours):
    assert talon_honours(parse_cards(talon)) == honours


def test_dealer_writes_talon_whists_on_every_game_with_the_talon():
    v = get_variant("classic", players=4)
    assert v.talon_whists
    for whist, tricks in [({1: "whist", 2: "pass"}, [7, 3, 0, 0]),
                          ({1: "pass", 2: "pass"}, None),
                          ({1: "pass", 2: "half"}, None),
                          ({1: "whist", 2: "whist"}, [4, 3, 3, 0])]:  # fmt: skip
        with_talon = entry_totals(game_entries(v, 0, "7♥", tricks, whist, 3, talon="A♠ A♥"), 4)
        without = entry_totals(game_entries(v, 0, "7♥", tricks, whist, 3), 4)
        extra = with_talon[2] - without[2]
        assert extra[3, 0] == 2 * 4 * 3  # whist rate c(7) = 4, three tricks, in halves
        assert extra.sum() == extra[3, 0]
    # a game scored without the talon shown (a bid without the talon), misère: nothing
    assert misere_entries(v, 0, 0, 3).tolist() == [[0, 0, -1, 20]]
    off = get_variant("classic", players=4, talon_whists=False)
    plain = game_entries(off, 0, "7♥", None, {1: "pass", 2: "pass"}, 3, talon="A♠ A♥")
    assert plain.tolist() == [[0, 0, -1, 8]]


def test_talon_whists_need_four_players():
    with pytest.raises(ValueError, match="talon_whists"):
        get_variant("classic", players=3, talon_whists=True)
    # a 3-player talon is accepted and changes nothing
    v = get_variant("classic")
    a = game_entries(v, 0, "7♥", None, {1: "pass", 2: "pass"}, talon="A♠ A♥")
    assert a.tolist() == game_entries(v, 0, "7♥", None, {1: "pass", 2: "pass"}).tolist()


# ---- two players (Gusarik) --------------------------------------------------------------------


def test_gusarik_lone_whister_with_the_dummy():
    s = sheet("gusarik")
    assert s.variant.players == 2
    s.record_game(0, "6♥", [6, 4], {1: "whist"})  # made; 4 defence tricks
    assert s.pool.tolist() == [2, 0] and s.whists.tolist() == [[0, 0], [8, 0]]
    s.record_game(1, "7♠", [5, 5], {0: "whist"})  # 5 of 7: remise 2, he takes 5 tricks
    assert s.mountain.tolist() == [0, 8]
    assert s.whists[0, 1] == 4 * 5 + 4 * 2
    short = sheet("gusarik")
    short.record_game(0, "6♦", [8, 2], {1: "whist"})  # ob 4: 2 short
    assert short.mountain.tolist() == [0, 4] and short.whists[1, 0] == 4


def test_gusarik_pass_and_leaving_the_obligatory_tricks():
    s = sheet("gusarik")
    s.record_game(1, "6♠", None, {0: "pass"})
    assert s.pool.tolist() == [0, 2] and s.whists.sum() == 0
    s.record_game(1, "6♠", None, {0: "half"})  # half the obligation: 2 tricks at 2
    assert s.pool.tolist() == [0, 4] and s.whists[0, 1] == 4
    s.record_game(0, "7♦", None, {1: "half"}, multiplier=2)  # 1 trick at 4, doubled
    assert s.pool.tolist() == [8, 4] and s.whists[1, 0] == 8
    with pytest.raises(ValueError, match="'half' is not open"):
        s.record_game(0, "8♦", None, {1: "half"})


def test_gusarik_misere_raspasy_and_sheet_settles_to_zero():
    s = sheet("gusarik", pool_target=10)
    s.record_misere(0, 0)
    s.record_misere(1, 2, multiplier=2)
    s.record_raspasy([3, 7])
    s.record_raspasy([0, 10])
    # misère; a closed player who takes no trick on a raspasy writes the step's 2 off his
    # own mountain and helps nobody (B:317)
    assert s.pool.tolist() == [10, 0] and s.whists.tolist() == [[0, 0], [0, 0]]
    assert s.mountain.tolist() == [3 - 2, 40 + 7 + 20]
    assert sum(s.value_exact()) == 0 and s.value().shape == (2,)
    # help (B:317): a defender who passed may be helped, 10 whists a point on him ...
    h = sheet("gusarik", pool_target=3)
    h.record_game(0, "8♠", None, {1: "pass"})
    assert h.pool.tolist() == [3, 3] and h.whists.tolist() == [[0, 30], [0, 0]]
    # ... one who whisted against the helper may not: nobody to help, so the points go
    # off the helper's mountain (already zero) and into every other player's mountain
    h = sheet("gusarik", pool_target=3)
    h.record_game(0, "8♠", [8, 2], {1: "whist"})
    assert h.pool.tolist() == [3, 0] and h.mountain.tolist() == [0, 3]


@pytest.mark.parametrize(("call", "message"), [
    (lambda s: s.record_game(0, "6♥", [6, 3, 1], {1: "whist"}), "expected 2 trick counts"),
    (lambda s: s.record_game(0, "6♥", [6, 3], {1: "whist"}), "sum to 9"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {1: "whist", 2: "pass"}), "map of the defender"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {0: "whist"}), "defender is seat 1"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {1: "double"}), "not one of"),
    (lambda s: s.record_game(2, "6♥", [6, 4], {1: "whist"}), "declarer: unknown seat 2"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {1: "whist"}, multiplier=0), "multiplier"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {1: "whist"}, multiplier=True), "multiplier"),
    (lambda s: s.record_misere(0, 0, multiplier=1.5), "multiplier"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {1: "whist"}, talon="A♠"), "two cards"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {1: "whist"}, talon=7), "two cards"),
    (lambda s: s.record_game(0, "6♥", [6, 4], {1: "whist"}, talon="Z♠ 7♥"), "talon: "),
    (lambda s: s.record_raspasy([3, 3, 4]), "expected 2 trick counts"),
])  # fmt: skip
def test_gusarik_bad_input_raises_and_changes_nothing(call, message):
    s = sheet("gusarik")
    s.record_game(0, "6♥", [6, 4], {1: "whist"})
    before = (s.pool, s.mountain, s.whists, list(s.log))
    with pytest.raises(ValueError, match=message):
        call(s)
    assert np.array_equal(before[0], s.pool) and np.array_equal(before[2], s.whists)
    assert before[3] == s.log and s.deals == 1


def test_gusarik_ten_checked_and_stalingrad_need_no_call():
    s = sheet("gusarik", ten_checked=True, stalingrad=True)
    s.record_game(0, "10♥", [9, 1], None)  # always played: consolation, no trick whists
    assert s.mountain.tolist() == [10, 0] and s.whists[1, 0] == 10
    s.record_game(1, "6♠", [3, 7], None)  # made; the defender is 1 short of 4
    assert s.mountain.tolist() == [12, 0] and s.pool.tolist() == [0, 2]
    assert s.whists[0, 1] == 2 * 3


def test_records_from_a_file_with_multipliers_and_talons():
    s = sheet_from_records({"variant": "gusarik", "deals": [
        {"type": "game", "declarer": 0, "contract": "8♥", "tricks": [8, 2],
         "whist": {"1": "whist"}, "multiplier": 8},
        {"type": "misere", "declarer": 1, "tricks": 0, "multiplier": 2}]})  # fmt: skip
    assert s.variant.players == 2
    assert s.pool.tolist() == [48, 20] and s.whists[1, 0] == 96
    four = sheet_from_records({"variant": "classic", "players": 4, "deals": [
        {"type": "game", "declarer": 0, "contract": "6♠", "whist": {"1": "pass", "2": "pass"},
         "dealer": 3, "talon": "A♠ K♠"}]})  # fmt: skip
    assert four.whists[3, 0] == 2 * 2


# ---- the compiled batch ----------------------------------------------------------------------

BATCH_VARIANTS = [
    ("classic", 3, {}),
    ("classic", 4, {}),
    ("classic", 4, {"underbid_penalty": True, "whist_split": "greedy"}),
    ("classic", 3, {"underbid_penalty": True, "whist_responsibility": "quota",
                    "ten_checked": True}),
    ("gusarik", 2, {}),
    ("gusarik", 2, {"ten_checked": True, "stalingrad": True, "whist_split": "gentleman",
                    "underbid_penalty": True}),
    ("gusarik", 2, {"half_whist": False, "raspasy_rates": [2], "raspasy_whists": 3}),
    ("sochi", 4, {"whist_responsibility": "full", "talon_whists": True}),
]


@pytest.mark.parametrize(("name", "players", "options"), BATCH_VARIANTS)
def test_score_batch_equals_the_entry_functions(name, players, options):
    variant = get_variant(name, players=players, **options)
    outcomes = random_outcomes(variant, 3000, seed=players + 7)
    assert set(outcomes) == set(OUTCOME_FIELDS)
    pool, mountain, whists = score_batch(variant, **outcomes)
    values = deal_values(variant, pool, mountain, whists)
    for i in range(len(pool)):
        one = [outcomes[f][i] for f in OUTCOME_FIELDS]
        entries = outcome_entries(variant, *one)
        totals = entry_totals(entries, players)
        assert [t.tolist() for t in totals] == [pool[i].tolist(), mountain[i].tolist(),
                                               whists[i].tolist()], one  # fmt: skip
        assert values[i].tolist() == pytest.approx(deal_value(variant, entries).tolist())


def test_score_batch_checks_multiplier_and_talon():
    v = get_variant("classic", players=4)
    ok = {"kind": GAME, "declarer": 0, "contract": 3, "tricks": [[6, 2, 2, 0]], "first": 1,
          "second": 1, "dealer": 3}  # fmt: skip
    score_batch(v, **ok, multiplier=4, talon=parse_cards("A♠ K♥"))
    for change, message in [({"multiplier": 0}, "multiplier: values outside 1"),
                            ({"talon": 1}, "talon: each value"),
                            ({"talon": -1}, "talon: values outside"),
                            ({"talon": 7}, "talon: each value"),
                            ({"multiplier": [1, 2]}, "multiplier: expected 1 values")]:
        with pytest.raises(ValueError, match=message):
            score_batch(v, **ok, **change)
    g = get_variant("gusarik")
    pool, mountain, whists = score_batch(g, GAME, 1, 3, [[4, 6]], W_WHIST, W_PASS)
    assert pool.tolist() == [[0, 4]] and mountain.tolist() == [[0, 0]]  # half points
    assert whists[0].tolist() == [[0, 2 * 2 * 4], [0, 0]]
    with pytest.raises(ValueError, match=r"declarer: values outside 0\.\.1"):
        score_batch(g, GAME, 2, 3, [[4, 6]], W_WHIST, W_PASS)
    half = score_batch(g, GAME, 0, 0, [[0, 0]], W_HALF, W_PASS)[2]
    assert half[0].tolist() == [[0, 0], [2 * 2 * 2, 0]]


def _state_entries(variant, st):
    """A state's entries through the entry functions, mapped by hand."""
    n = variant.players
    kind = int(st["kind"])
    tricks = [int(t) for t in st["tricks"][:n]]
    dealer = 3 if n == 4 else None
    mult = int(st["multiplier"])
    if kind == engine.RASPASY:
        return raspasy_entries(variant, tricks, int(st["raspasy_step"]), dealer,
                               multiplier=mult)  # fmt: skip
    d = int(st["declarer"])
    if n == 2:
        tricks[1 - d] += int(st["tricks"][2])
    if kind == engine.MISERE_GAME:
        return misere_entries(variant, d, tricks[d], dealer, multiplier=mult)
    if n == 2:
        role = st["second"] if (d + 1) % 3 == 2 else st["first"]
        whist = {1 - d: ("pass", "whist", "half")[role]}
    else:
        whist = {(d + 1) % 3: ("pass", "whist", "half")[st["first"]],
                 (d + 2) % 3: ("pass", "whist", "half")[st["second"]]}  # fmt: skip
    talon = None if st["no_talon"] else int(st["talon"])
    return game_entries(variant, d, int(st["contract"]), tricks, whist, dealer,
                        multiplier=mult, talon=talon)  # fmt: skip


@pytest.mark.parametrize(("name", "players"), [("classic", 3), ("classic", 4), ("gusarik", 2)])
def test_score_states_maps_engine_states(name, players):
    v = get_variant(name, players=players)
    states = play_batch(deal(300, seed=players), v, key=5)
    rng = np.random.default_rng(players)
    raspasy = states["kind"] == engine.RASPASY
    if v.blind_pass:  # a blind passer's raspasy is a single bomb's (B:398)
        assert (states["multiplier"][raspasy] == np.where(states["blind"][raspasy], 2, 1)).all()
    states["multiplier"] = np.where(raspasy, states["multiplier"],
                                    rng.choice([1, 2, 4, 8, 16], len(states)))  # fmt: skip
    pool, mountain, whists = score_states(v, states)
    kinds = set()
    for i, s in enumerate(states):
        kinds.add(int(s["kind"]))
        totals = entry_totals(_state_entries(v, s), players)
        assert [t.tolist() for t in totals] == [pool[i].tolist(), mountain[i].tolist(),
                                               whists[i].tolist()], i  # fmt: skip
    assert {engine.GAME, engine.RASPASY} <= kinds


# ---- properties ---------------------------------------------------------------------------------


@st.composite
def variants(draw):
    name, players = draw(st.sampled_from([("classic", 3), ("classic", 4), ("gusarik", 2)]))
    options = draw(st.fixed_dictionaries({}, optional={
        "whist_split": st.sampled_from(["greedy", "gentleman"]),
        "whist_responsibility": st.sampled_from(["quota", "full"]),
        "underbid_penalty": st.booleans(),
        "ten_checked": st.booleans(),
        "stalingrad": st.booleans(),
        "half_whist": st.booleans(),
        "bomb_level": st.sampled_from(["round", "passers"]),
    }))  # fmt: skip
    return get_variant(name, players=players, **options)


@st.composite
def deals(draw, variant):
    """One legal deal for ``variant`` as (method name, args, kwargs)."""
    n = variant.players
    dealer = draw(st.integers(0, n - 1)) if n == 4 else None
    active = [p for p in range(n) if p != dealer]

    def split_tricks(players):
        cuts = sorted(draw(st.lists(st.integers(0, 10), min_size=len(players) - 1,
                                    max_size=len(players) - 1)))  # fmt: skip
        counts = [0] * n
        for p, a, b in zip(players, [0, *cuts], [*cuts, 10], strict=True):
            counts[p] = b - a
        return counts

    kind = draw(st.sampled_from(["game", "game", "misere", "raspasy"]))
    if kind == "raspasy":
        takers = [*active, dealer] if variant.raspasy_talon == "dealer" else active
        bombs = [1, 2, 4, 8] if variant.blind_pass and variant.bomb_level == "round" else [1]
        return "record_raspasy", (split_tricks(takers),), {
            "dealer": dealer, "multiplier": draw(st.sampled_from(bombs))}
    declarer = draw(st.sampled_from(active))
    multiplier = draw(st.sampled_from([1, 2, 4, 8, 16]))
    if kind == "misere":
        return ("record_misere", (declarer, draw(st.integers(0, 10))),
                {"dealer": dealer, "multiplier": multiplier})  # fmt: skip
    code = draw(st.sampled_from([c for c in range(26) if c != MISERE]))
    cards = draw(st.lists(st.integers(0, 31), min_size=2, max_size=2, unique=True))
    talon = draw(st.sampled_from([None, (1 << cards[0]) | (1 << cards[1])]))
    kwargs = {"dealer": dealer, "multiplier": multiplier, "talon": talon}
    if n == 2:
        call = draw(st.sampled_from(legal_whist_calls(code, [], variant, declarer)))
        whist = {1 - declarer: ("pass", "whist", "half")[call]}
    else:
        defenders = draw(st.permutations([p for p in active if p != declarer]))
        calls = []
        while legal := legal_whist_calls(code, calls, variant):
            calls.append(draw(st.sampled_from(legal)))
        whist = dict(zip(defenders, whist_outcome(code, calls, variant), strict=True))
    return "record_game", (declarer, code, split_tricks(active), whist), kwargs


@st.composite
def pulkas(draw, max_deals=8):
    variant = draw(variants())
    return variant, draw(st.lists(deals(variant), min_size=1, max_size=max_deals))


PROPERTY = settings(derandomize=True, max_examples=250, deadline=None)


@PROPERTY
@given(pulkas(), st.sampled_from([None, 3, 10]))
def test_settlement_sums_to_zero(pulka, pool_target):
    assert_settles_to_zero(*pulka, pool_target)


@PROPERTY
@given(pulkas())
def test_deal_values_add_up_without_help(pulka):
    assert_deal_values_add_up(*pulka)


@PROPERTY
@given(pulkas(), st.data())
def test_relabelling_players_permutes_the_scores(pulka, data):
    variant, history = pulka
    perm = data.draw(st.permutations(range(variant.players)))
    assert_relabelling_permutes_the_scores(variant, history, perm)


@PROPERTY
@given(pulkas(max_deals=1), st.sampled_from([2, 3, 5]))
def test_a_deal_at_multiplier_m_is_m_times_the_deal(pulka, m):
    variant, ((method, args, kwargs),) = pulka
    if method == "record_raspasy":
        return
    entries = game_entries if method == "record_game" else misere_entries
    one = entries(variant, *args, **{**kwargs, "multiplier": 1})
    scaled = entries(variant, *args, **{**kwargs, "multiplier": m})
    assert scaled[:, 3].tolist() == (m * one[:, 3]).tolist()
    assert scaled[:, :3].tolist() == one[:, :3].tolist()


@PROPERTY
@given(pulkas(max_deals=3), st.data())
def test_bad_multipliers_talons_and_counts_raise_and_change_nothing(pulka, data):
    variant, history = pulka
    s = play(variant, history)
    before = (s.pool, s.mountain, s.whists, list(s.log), s.raspasy_step, s.deals)
    method, args, kwargs = data.draw(deals(variant).filter(lambda d: d[0] != "record_raspasy"))
    breakage = data.draw(st.sampled_from(["multiplier", "talon", "tricks"]))
    if breakage == "multiplier":
        kwargs = {**kwargs, "multiplier": data.draw(st.sampled_from([0, -2, True, 2.0]))}
    elif breakage == "talon" and method == "record_game":
        kwargs = {**kwargs, "talon": data.draw(st.sampled_from([1, 0b111, -3, 1 << 33, "A♠"]))}
    elif method == "record_game":
        args = (args[0], args[1], [*args[2], 0], dict.fromkeys(args[3], "whist"))
    else:
        args = (args[0], 11)
    with pytest.raises(ValueError):
        getattr(s, method)(*args, **kwargs)
    after = (s.pool, s.mountain, s.whists, list(s.log), s.raspasy_step, s.deals)
    for a, b in zip(before, after, strict=True):
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
