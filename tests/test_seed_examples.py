"""The seed texts' worked examples not checked elsewhere, the two readings of B:247, the
rules the texts name with their amounts left to the table (B:189-201, B:361, B:422,
B:426), and who leads in the built-in Gusarik decisions and the analysis (B:382). Each
test names its seed line; docs/RULES.md §11 lists them."""

import json
from itertools import combinations

import numpy as np
import pytest

from prefstats.analysis.analyze import _discard_row, parse_record, replay
from prefstats.game import engine
from prefstats.game.auction import PASS, W_WHIST
from prefstats.game.cards import card_name, cards_of, format_cards, parse_cards
from prefstats.game.contracts import parse_contract
from prefstats.game.deal import deal
from prefstats.game.scoring import ScoreSheet, misere_entries
from prefstats.game.variants import contract_price, get_variant, load_variant_text
from prefstats.players import bidding
from prefstats.players.builtin import default_tables
from prefstats.players.params import heuristic_params
from prefstats.sim.play import new_state
from prefstats.solver import solve_batch

SIX_SPADES = parse_contract("6♠").code


# ---- B:247: the nine example against its own premise -------------------------------------


def test_b247_nine_default_follows_the_premise_nobody_pays():
    """B:247 says the whisters write mountain "if together they took fewer than
    required", then that on a nine B taking one trick and C none, C writes mountain. One
    trick is a nine's obligation, so the two sentences disagree. The default follows the
    premise: the defence is not short, nobody writes mountain (gentleman whist)."""
    s = ScoreSheet(get_variant("leningrad"))
    s.record_game(0, "9♠", [9, 1, 0], {1: "whist", 2: "whist"})
    assert s.mountain.tolist() == [0, 0, 0]


def test_b247_nine_the_example_s_reading_is_greedy_whist():
    """B:247's example read as written -- C, the second whister, writes mountain for his
    missing trick though the defence has its one -- is what greedy whist does (B:253:
    each whister answers for his quota even when the defence is not short): Sochi's
    preset. The default elsewhere follows the premise (the test above)."""
    s = ScoreSheet(get_variant("sochi"))
    s.record_game(0, "9♠", [9, 1, 0], {1: "whist", 2: "whist"})
    assert s.mountain.tolist() == [0, 0, 8]  # one trick at c = 8


# ---- worked examples not yet tested ------------------------------------------------------


@pytest.mark.parametrize(("rates", "line", "expected"), [
    ((1, 2, 3), "B:597", [0, 24, 36]),  # arithmetic: 1, 2, 3 a trick
    ((1, 2, 4), "B:599", [0, 28, 42]),  # geometric: 1, 2, 4 a trick
])
def test_b597_b599_raspasy_progressions(rates, line, expected):
    """B:597 "on the first pass one a trick, the second two, the third three"; B:599
    "one, two, four": three raspasy in a row, tricks 0, 4 and 6."""
    s = ScoreSheet(get_variant("sochi", raspasy_rates=list(rates)))
    for _ in range(3):
        s.record_raspasy([0, 4, 6])
    assert s.mountain.tolist() == expected, line
    assert s.pool.tolist() == [sum(rates), 0, 0]  # the zero-trick pool at each step's rate


def test_b376_rostov_help_a_six_is_two_points_twenty_whists():
    """B:376: a closed player's six helps with its 2 points, 20 whists on the helped."""
    s = ScoreSheet(get_variant("rostov"), pool_target=2)
    s.record_game(0, "6♠", None, {1: "pass", 2: "pass"}, dealer=2)  # closes
    s.record_game(0, "6♠", None, {1: "pass", 2: "pass"}, dealer=2)  # helps player 1
    assert s.pool.tolist() == [2, 2, 0] and s.whists[0, 1] == 20


def test_b448_bought_at_seven_diamonds():
    """B:448: a player who bought the talon at 7♦ may name 7♦, 7♥, 7NT or any eight and
    above, but no lower game and no misère."""
    v = get_variant("sochi")
    rules = engine.rules_array(v)
    hands = [parse_cards(h) for h in
             ("♠AKQJ1098 ♣AK ♥9", "♣QJ1098 ♦AKQJ10", "♠7 ♣7 ♦987 ♥AKQJ10")]
    st = new_state(hands, parse_cards("♥87"))[0]
    seven_diamonds = parse_contract("7♦").code
    for call in [*range(seven_diamonds + 1), PASS, PASS]:  # seats 0, 1, 2 in turn: 6♠ … 7♦
        assert engine.apply(st, rules, call) == 0
    assert st["phase"] == engine.DISCARD and st["declarer"] == 1
    assert engine.apply(st, rules, parse_cards("♥87")) == 0
    legal = int(engine.legal_mask(st, rules))
    misere = parse_contract("мизер").code
    assert [c for c in range(26) if legal >> c & 1] == [
        c for c in range(seven_diamonds, 26) if c != misere]


# ---- B:382: who leads trick 1 in the built-in decisions and the analysis ------------------


def test_b382_built_in_decisions_know_the_dummy_leads():
    """In Gusarik the dummy, the first hand, leads trick 1, so a declarer never leads:
    the built-in players read the first hand from the rules, not from seat 0."""
    gusarik = engine.rules_array(get_variant("gusarik"))
    sochi = engine.rules_array(get_variant("sochi"))
    assert bidding._leads(0, gusarik) == 0.0 and bidding._leads(2, gusarik) == 1.0
    assert bidding._leads(0, sochi) == 1.0 and bidding._leads(1, sochi) == 0.0


def test_b382_gusarik_defender_whists_knowing_he_leads():
    """Seat 0 declares 6♠ in Gusarik: the defender (seat 1) leads from the dummy, and on
    some deals that changes his whist call against the old seat, where the declarer led."""
    variant = get_variant("gusarik")
    rules = engine.rules_array(variant)
    old = engine.rules_array(get_variant("gusarik", dummy_hand="third"))
    params, tables = heuristic_params(), default_tables("heuristic", variant)
    deals = deal(200, seed=3)
    changed = 0
    for hands, talon in zip(deals.hands.tolist(), deals.talon.tolist(), strict=True):
        st = new_state(hands, talon)[0]
        for action in (SIX_SPADES, PASS, talon, SIX_SPADES):
            assert engine.apply(st, rules, action) == 0
        obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
        engine.observe(st, rules, obs)
        changed += (bidding.whist_decision(obs, rules, params, tables)
                     != bidding.whist_decision(obs, old, params, tables))
    assert changed > 0


#: A deal where the leader of trick 1 matters: discarding the talon, the declarer takes
#: five tricks double dummy when he leads, four when the dummy does.
GUSARIK_HANDS = ["♠AJ10 ♣107 ♦K ♥AJ97", "♠97 ♣Q98 ♦Q97 ♥108", "♠K8 ♣KJ ♦AJ108 ♥KQ"]
GUSARIK_TALON = "♠Q ♣A"


def _gusarik_record(discard):
    """Seat 0 buys 6♠ in Gusarik, discards ``discard``, seat 1 whists; the play is any
    legal one (the lowest card each time)."""
    v = get_variant("gusarik")
    rules = engine.rules_array(v)
    st = new_state([parse_cards(h) for h in GUSARIK_HANDS], parse_cards(GUSARIK_TALON))[0]
    for action in (SIX_SPADES, PASS, parse_cards(discard), SIX_SPADES, W_WHIST):
        assert engine.apply(st, rules, action) == 0
    cards = []
    while st["phase"] != engine.DONE:
        card = int(engine.legal_mask(st, rules)).bit_length() - 1
        cards.append(card_name(card))
        engine.apply(st, rules, card)
    data = {"variant": "gusarik", "hands": GUSARIK_HANDS, "talon": GUSARIK_TALON,
            "calls": ["6♠", "pass"], "discard": discard, "contract": "6♠", "whist": ["whist"],
            "play": [cards[i:i + 3] for i in range(0, len(cards), 3)]}
    return parse_record(json.dumps(data, ensure_ascii=False), "gusarik.json"), v


def test_b382_analysis_solves_a_gusarik_discard_with_the_dummy_leading():
    """The discard's double-dummy values: trick 1 is led by the dummy (seat 2)."""
    record, v = _gusarik_record(GUSARIK_TALON)
    steps, final = replay(record, v)
    (step,) = [s for s in steps if s.phase == engine.DISCARD]
    row = _discard_row(steps, steps.index(step), record, v, final, seed=0,
                       policy="heuristic", never={})
    hand = int(step.state[0]["hands"][0])
    pairs = [(1 << a) | (1 << b) for a, b in combinations(cards_of(hand), 2)]
    hands = np.repeat(step.state[0]["hands"][None, :3].astype(np.int64), len(pairs), axis=0)
    hands[:, 0] = [hand & ~p for p in pairs]
    by_leader = {lead: dict(zip(map(format_cards, pairs),
                                solve_batch(hands, 0, lead, 0, False, threads=1).tolist(),
                                strict=True)) for lead in (0, 2)}
    tricks = {a["option"]: a["tricks"] for a in row["alternatives"]}
    assert tricks == by_leader[2]
    assert (by_leader[0][GUSARIK_TALON], by_leader[2][GUSARIK_TALON]) == (5, 4)
    assert row["tricks_done"] == 4


# ---- rules with their amounts left to the table ------------------------------------------


def test_b189_the_preference_ends_the_pulka_with_its_settlement():
    """B:189-199: A K Q of all four suits; "the game stops and is considered finished";
    the holder's mountain is written off, everyone's pool is filled to the target and he
    is compensated with whists for what he fills in (pool_value a point)."""
    v = get_variant("sochi", preference=True)
    s = ScoreSheet(v, pool_target=10)
    s.record_game(0, "6♠", [4, 4, 2], {1: "whist", 2: "whist"})  # 0: mountain 4
    s.record_game(1, "7♠", None, {2: "pass", 0: "pass"})  # 1: pool 4
    s.record_preference(0)
    assert s.finished
    assert s.pool.tolist() == [10, 10, 10] and s.mountain.tolist() == [0, 0, 0]
    assert s.whists[0, 1] == 10 * 6 and s.whists[0, 2] == 10 * 10
    assert abs(s.settle().sum()) < 1e-9
    with pytest.raises(ValueError, match="over"):
        s.record_raspasy([4, 3, 3])


def test_b201_the_preference_is_agreed_in_advance():
    s = ScoreSheet(get_variant("sochi"), pool_target=10)
    with pytest.raises(ValueError, match="preference"):
        s.record_preference(0)
    assert s.deals == 0 and not s.finished
    with pytest.raises(ValueError, match="pool_target"):
        ScoreSheet(get_variant("sochi", preference=True)).record_preference(0)


@pytest.mark.parametrize("players", [3, 4])
def test_b361_rostov_misere_prize(players):
    """B:361: in Rostov misère "is awarded a prize"; the amount is the table's. Each
    catcher writes it on a declarer who takes no trick (not the sitting-out dealer)."""
    plain = get_variant("rostov", players=players)
    assert plain.misere_prize == 0
    v = get_variant("rostov", players=players, misere_prize=15)
    dealer = 3 if players == 4 else None
    s = ScoreSheet(v)
    s.record_misere(1, 0, dealer=dealer)
    expected = np.zeros((players, players))
    expected[0, 1] = expected[2, 1] = 15
    assert s.whists.tolist() == expected.tolist() and s.pool[1] == 10
    failed = ScoreSheet(v)
    failed.record_misere(1, 2, dealer=dealer)
    assert failed.whists.sum() == 0
    assert misere_entries(get_variant("gusarik", misere_prize=5), 0, 0).tolist()[-1] == [
        2, 1, 0, 10]  # Gusarik: the other player writes it (halves)


def test_b426_race_bonuses_for_the_first_closed_pool_and_the_smallest_mountain():
    """B:426: "a game with bonuses (for who first closes his pool, who has the fewest
    points on the mountain); the fact and size are agreed before the game"."""
    v = get_variant("leningrad", race_first_closed=50, race_smallest_mountain=30)
    s = ScoreSheet(v, pool_target=2)
    s.record_game(1, "6♠", [2, 6, 2], {2: "whist", 0: "whist"})  # 1 made: pool 2, closed
    s.record_game(0, "6♠", [5, 5, 0], {1: "whist", 2: "pass"})  # 0 down one: mountain
    s.record_game(0, "6♠", None, {1: "pass", 2: "pass"})
    assert not s.finished and s.first_closed == [1]
    s.record_game(2, "6♠", None, {0: "pass", 1: "pass"})
    assert s.finished and s.mountain.tolist() == [4, 0, 0]
    bonus = s.race_bonuses()
    assert bonus.tolist() == [-50 - 30, 100 + 15, -50 + 15]  # players 1 and 2 share the 30 x 1
    assert np.allclose(s.settle(), s.value() + bonus) and abs(s.settle().sum()) < 1e-9
    assert not ScoreSheet(v, pool_target=2).race_bonuses().any()  # only at the end


def test_b422_old_price_hierarchy_by_suit():
    """B:422: "others use the old hierarchy: spades cheapest, no trump dearest"; the
    steps are the table's: with 1 a point per strain, 7♠ 4, 7♥ 7, 7NT 8."""
    v = get_variant("sochi", suit_price_step=1)
    assert [contract_price(v, parse_contract(c).code) for c in ("7♠", "7♥", "7NT", "мизер")] \
        == [4, 7, 8, 10]
    s = ScoreSheet(v)
    s.record_game(0, "7♥", [7, 2, 1], {1: "whist", 2: "whist"})
    assert s.pool[0] == 7 and s.whists[1, 0] == 14 and s.whists[2, 0] == 7
    assert get_variant("sochi").suit_price_step == 0


@pytest.mark.parametrize(("text", "key"), [
    ('base = "rostov"\nmisere_prize = -5\n', "misere_prize"),
    ('base = "sochi"\nsuit_price_step = "two"\n', "suit_price_step"),
    ('base = "sochi"\npreference = 1\n', "preference"),
    ('base = "gusarik"\nrace_first_closed = 10\n', "race_first_closed"),
])
def test_the_new_amounts_are_validated_naming_the_key(text, key):
    with pytest.raises(ValueError, match=key):
        load_variant_text(text)


def test_the_new_options_round_trip():
    v = get_variant("rostov", preference=True, misere_prize=20, race_first_closed=5,
                    race_smallest_mountain=5, suit_price_step=2)
    assert load_variant_text(v.to_toml()) == v
