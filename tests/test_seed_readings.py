"""The seed readings of the third audit round: Gusarik's dummy is the first hand (B:382),
a ten owes no defence tricks (B:211) and Classic's pulka closes only when everyone has
the target (B:400). Each test names its seed line; docs/RULES.md §11 lists them by row."""

import pytest
from engine_steps import observe, run

from prefstats.game import engine
from prefstats.game.auction import MISERE, PASS, W_PASS, W_WHIST, legal_whist_calls, parse_call
from prefstats.game.cards import parse_cards
from prefstats.game.contracts import parse_contract
from prefstats.game.deal import deal
from prefstats.game.scoring import ScoreSheet
from prefstats.game.variants import get_variant, load_variant_text
from prefstats.sim.play import play_hands
from prefstats.sim.pulka import play_pulkas

HANDS = (
    parse_cards("♠AKQJ1098 ♣AK ♥9"),
    parse_cards("♣QJ1098 ♦AKQJ10"),
    parse_cards("♠7 ♣7 ♦987 ♥AKQJ10"),  # Gusarik's dummy, seat 2
)
TALON = parse_cards("♥87")
SIX_SPADES = parse_contract("6♠").code


def _run(variant, actions, st=None):
    return run(variant, actions, HANDS, TALON, st)


_observe = observe


# ---- Gusarik: the dummy sits on the dealer's left, the first hand (B:382) ----------------


def _gusarik_six(declarer, **options):
    """Seat ``declarer`` buys the talon at 6♠, discards it, names 6♠; the other whists."""
    variant = get_variant("gusarik", **options)
    auction = [SIX_SPADES, PASS] if declarer == 0 else [PASS, SIX_SPADES]
    return _run(variant, [*auction, TALON, SIX_SPADES, W_WHIST])


@pytest.mark.parametrize("declarer", [0, 1])
def test_b382_gusarik_dummy_leads_trick_one_of_a_game(declarer):
    """B:382 "the dummy's cards are always on the dealer's left": the first hand (B:91,
    B:529), who leads trick 1 whatever the contract (B:257, B:456). The defending player
    leads from the dummy, then play goes on clockwise: seat 0, seat 1."""
    st, rules = _gusarik_six(declarer)
    defender = 1 - declarer
    assert st["phase"] == engine.PLAY and st["leader"] == 2 and st["to_act"] == 2
    assert st["controller"] == defender
    obs = _observe(st, rules)  # he sees his own hand and the turned dummy, not the declarer's
    assert obs["visible"][2] == HANDS[2] and obs["visible"][declarer] == 0
    card = engine.legal_mask(st, rules).bit_length() - 1
    engine.apply(st, rules, card)
    assert st["history_by"][0] == 2 and st["to_act"] == 0 and st["controller"] == 0


def test_b382_the_old_seat_is_an_option_and_seat_zero_leads():
    """``dummy_hand = "third"``: the reading before B:382 was checked."""
    st, _ = _gusarik_six(1, dummy_hand="third")
    assert st["leader"] == 0 and st["to_act"] == 0 and st["controller"] == 0


def test_b382_gusarik_misere_is_led_by_the_dummy_and_the_catchers_lie_open_at_once():
    """B:257/B:456 for misère too; the catchers lie open before the first card when they
    lead (B:229), so the declarer sees the dummy's and the defender's cards."""
    st, rules = _run(get_variant("gusarik"), [MISERE, PASS, TALON])
    assert st["kind"] == engine.MISERE_GAME and st["leader"] == 2
    assert st["controller"] == 1 and st["open"]
    assert engine._visible(st, rules, 0, 1) and engine._visible(st, rules, 0, 2)
    assert not engine._visible(st, rules, 1, 0)  # the declarer's hand stays closed


def test_b382_gusarik_raspasy_is_led_by_seat_zero_the_dummy_sitting_out():
    st, _ = _run(get_variant("gusarik"), [PASS, PASS])
    assert st["kind"] == engine.RASPASY and st["leader"] == 0


def test_b382_replayed_gusarik_deals_open_every_game_from_the_dummy():
    """Built-in players through the Python driver: every trick game or misère played
    card by card starts with a card of the dummy (seat 2)."""
    variant = get_variant("gusarik")
    states = play_hands(deal(60, seed=11), variant)
    played = [s for s in states if s["kind"] in (engine.GAME, engine.MISERE_GAME)
              and s["n_played"] > 0]
    assert played
    assert all(s["history_by"][0] == 2 for s in played)


# ---- the ten: "without whists" (B:211), played when whisted (B:567) ---------------------


def test_b211_a_lone_whister_against_a_ten_who_takes_nothing_writes_no_remise():
    v = get_variant("sochi")
    assert v.ten_obligation == 0 and parse_contract("10♠").obligation == 0
    s = ScoreSheet(v)
    s.record_game(0, "10♠", [10, 0, 0], {1: "whist", 2: "pass"})
    assert s.mountain.tolist() == [0, 0, 0] and s.pool.tolist() == [10, 0, 0]
    assert s.whists.sum() == 0


def test_b567_a_whisted_ten_is_still_played():
    v = get_variant("sochi")
    assert legal_whist_calls(parse_contract("10♠").code, [], v) == [W_PASS, W_WHIST]
    s = ScoreSheet(v)
    s.record_game(0, "10♠", [9, 1, 0], {1: "whist", 2: "pass"})  # set by one
    assert s.mountain.tolist() == [10, 0, 0]  # the remise is the declarer's
    assert s.whists[1, 0] == 10 + 10 and s.whists[2, 0] == 10  # trick whist + consolation


@pytest.mark.parametrize("name", ["sochi", "leningrad", "rostov", "classic"])
def test_ten_obligation_one_is_the_old_reading(name):
    """``ten_obligation = 1``: the lone whister owes one trick, as on an eight or nine."""
    s = ScoreSheet(get_variant(name, ten_obligation=1))
    s.record_game(0, "10♥", [10, 0, 0], {1: "whist", 2: "pass"})
    shortfall = {"rostov": 5}.get(name, 10)  # Rostov's half-responsible whist (B:367)
    assert s.mountain.tolist() == [0, shortfall, 0]


def test_ten_obligation_in_gusarik_too():
    s = ScoreSheet(get_variant("gusarik"))
    s.record_game(0, "10♦", [10, 0], {1: "whist"})
    assert s.mountain.tolist() == [0, 0]
    s = ScoreSheet(get_variant("gusarik", ten_obligation=1))
    s.record_game(0, "10♦", [10, 0], {1: "whist"})
    assert s.mountain.tolist() == [0, 10]


# ---- Classic: "to close the pulka everyone must gather 50" (B:400) ----------------------


def test_b400_classic_pulka_is_not_over_while_one_player_is_short():
    v = get_variant("classic", bomb_rounds=0)  # the opening bombs aside
    assert get_variant("classic").pulka_end == "each"
    s = ScoreSheet(v, pool_target=2)
    s.record_game(0, "8♠", None, {1: "pass", 2: "pass"})  # 6 points: the total is 3 x 2
    assert s.pool.sum() >= 2 * 3 and not s.finished
    s.record_game(1, "6♠", None, {2: "pass", 0: "pass"})
    assert not s.finished  # player 2 is still short
    s.record_game(2, "6♠", None, {0: "pass", 1: "pass"})
    assert s.finished and s.pool.tolist() == [6, 2, 2]  # no help: the 4 extra stay


def test_b400_simulated_classic_pulkas_end_with_every_pool_at_the_target():
    result = play_pulkas(get_variant("classic"), [0, 1, 2], seed=5, pool_target=4)
    assert result["finished"].all()
    assert (result["pool"].min(axis=1) >= 4).all()
    assert abs(result["result"].sum(axis=1)).max() < 1e-9


# ---- readings the texts leave open (RULES.md §10.8) ----------------------------------------


def test_b595_a_contract_nobody_whists_ends_the_raspasy_run():
    """B:595 prices raspasy "several times in a row": a game credited unplayed breaks it."""
    s = ScoreSheet(get_variant("sochi"))
    s.record_raspasy([4, 3, 3])
    s.record_raspasy([4, 3, 3])
    assert s.raspasy_step == 2
    s.record_game(0, "6♠", None, {1: "pass", 2: "pass"})
    assert s.raspasy_step == 0
    s.record_raspasy([4, 3, 3])
    assert s.mountain.tolist() == [4 + 8 + 4, 3 + 6 + 3, 3 + 6 + 3]  # steps 1, 2, then 1


def test_returned_half_whist_keeps_each_defender_s_consolation():
    """B:241 "all whists are written by the one who returned it" -- the trick whists; the
    consolation stays each defender's (B:273, B:302)."""
    s = ScoreSheet(get_variant("leningrad"))  # gentleman whist with the half-whist
    s.record_game(0, "6♠", [5, 5, 0], {1: "whist", 2: "half"})  # half-whist, returned
    assert s.whists[1, 0] == 4 * 5 + 2 and s.whists[2, 0] == 2  # 2c a trick, c consolation


def test_the_lone_whister_lies_open_by_default():
    """A:S3: the lone whister plays open; B:215's choice is ``lone_whist_play``."""
    from prefstats.game.variants import PRESETS
    assert {get_variant(name).lone_whist_play for name in PRESETS} == {"open"}


# ---- bad input: options the spec forbids together name both keys ------------------------


@pytest.mark.parametrize(("text", "keys"), [
    ('base = "sochi"\nten_checked = true\nten_obligation = 1\n',
     ("ten_checked", "ten_obligation")),
    ('base = "sochi"\ndummy_hand = "third"\n', ("dummy_hand", "table")),
    ('base = "sochi"\ndark_overcall = "seven"\n', ("dark_overcall", "dark_bids")),
    ('base = "sochi"\nblind_pass = true\nbomb_rounds = 1\nbomb_level = "tree"\n',
     ("bomb_circles", "bomb_level")),
    ('base = "sochi"\nblind_pass = true\nbomb_rounds = 3\nbomb_level = "tree"\n'
     'bomb_circles = "circle"\n', ("bomb_rounds", "bomb_level")),
    ('base = "sochi"\nplayers = 5\ntable = "three"\n', ("table", "players")),
])
def test_forbidden_combinations_name_both_keys(text, keys):
    with pytest.raises(ValueError) as err:
        load_variant_text(text)
    assert all(key in str(err.value) for key in keys)


def test_the_new_options_round_trip():
    for v in (get_variant("gusarik", dummy_hand="third"), get_variant("rostov", ten_obligation=1)):
        assert load_variant_text(v.to_toml()) == v
    assert parse_call("6♠") == SIX_SPADES
