"""Classic and Gusarik rules of the auction and the hand engine (RULES.md §10):
the ladder with bids without the talon, misère over the nines, blind passes, dark bids,
and the open dummy of Gusarik."""

import json

import numpy as np
import pytest
from engine_steps import observe, run

from prefstats.analysis.analyze import parse_record, replay
from prefstats.analysis.game import record_of_state
from prefstats.game import engine
from prefstats.game.auction import (
    BLIND_PASS,
    DARK,
    MISERE,
    NO_TALON_BID,
    PASS,
    W_HALF,
    W_PASS,
    W_WHIST,
    auction_result,
    call_name,
    ladder_rank,
    legal_calls,
    legal_contracts,
    legal_whist_calls,
    parse_call,
)
from prefstats.game.cards import lowest_card, parse_cards
from prefstats.game.contracts import N_CONTRACTS, parse_contract
from prefstats.game.deal import deal
from prefstats.game.scoring import score_states
from prefstats.game.variants import PRESETS, get_variant
from prefstats.sim.play import new_state

# The engine tests below jump up the ladder: the house option (RULES.md §2).
CLASSIC = get_variant("classic", jump_bids=True)
GUSARIK = get_variant("gusarik", jump_bids=True)
SOCHI = get_variant("sochi")

HANDS = (
    parse_cards("♠AKQJ1098 ♣AK ♥9"),
    parse_cards("♣QJ1098 ♦AKQJ10"),
    parse_cards("♠7 ♣7 ♦987 ♥AKQJ10"),
)
TALON = parse_cards("♥87")


def calls(*names):
    return [parse_call(n) for n in names]


def names(codes):
    return [call_name(c) for c in codes]


# ---- the ladder ---------------------------------------------------------------------------


def test_first_presets_keep_the_ladder_of_contract_codes():
    rank = ladder_rank()
    assert rank[:N_CONTRACTS].tolist() == list(range(N_CONTRACTS))
    assert (rank[N_CONTRACTS:] == -1).all()
    for name in ("sochi", "leningrad", "rostov"):
        assert not get_variant(name).no_talon_bids


def test_a_bid_without_the_talon_ranks_above_the_same_with_it():
    rank = ladder_rank(True, "over_nine")
    for code in range(N_CONTRACTS):
        assert rank[code + NO_TALON_BID] > rank[code]
    # A level's bids with the talon all come first, then its bids without it.
    assert rank[parse_call("6NT")] < rank[parse_call("6♠ nt")] < rank[parse_call("7♠")]


def test_classic_misere_places_on_the_ladder():
    """B:418, B:185: a nine overcalls plain misère; misère without the talon is
    overcalled by a nine without the talon or a ten with it."""
    rank = ladder_rank(True)
    order = ["8NT nt", "misère", "9♠", "9NT", "misère nt", "9♠ nt", "9NT nt", "10♠"]
    assert [rank[parse_call(c)] for c in order] == sorted(rank[parse_call(c)] for c in order)
    assert rank[parse_call("9NT")] + 1 == rank[parse_call("misère nt")]
    assert rank[parse_call("8NT nt")] + 1 == rank[MISERE]


def test_misere_over_nine_without_bids_without_talon():
    rank = ladder_rank(False, "over_nine")
    assert rank[parse_call("9NT")] < rank[MISERE] < rank[parse_call("10♠")]


@pytest.mark.parametrize(("place", "order"), [
    # B:185, B:418: a nine overcalls misère, a nine without the talon misère without it
    ("over_eight", ["8NT", "8NT nt", "misère", "9♠", "9NT", "misère nt", "9♠ nt", "9NT nt",
                    "10♠", "10NT nt"]),
    # B:187: "between nine and ten"; then "a player who announces all ten tricks" stops it
    ("over_nine", ["8NT nt", "9♠", "9NT nt", "misère", "misère nt", "10♠", "10NT nt"]),
    # B:187: "misère higher than all other bids"
    ("top", ["8NT nt", "9NT nt", "10♠", "10NT", "10♠ nt", "10NT nt", "misère", "misère nt"]),
])
def test_b187_misere_place_on_classics_ladder_with_bids_without_the_talon(place, order):
    """B:185, B:187, B:418: ``misere_place`` on the ladder with bids without the talon:
    these calls rank in this order."""
    rank = ladder_rank(True, place)
    ranks = [rank[parse_call(c)] for c in order]
    assert ranks == sorted(ranks)
    misere = rank[[MISERE, MISERE + NO_TALON_BID]]
    assert (misere == [ranks[order.index("misère")], ranks[order.index("misère nt")]]).all()
    assert sorted(rank[rank >= 0].tolist()) == list(range(2 * N_CONTRACTS))
    plain = ladder_rank(False, place)  # without bids without the talon
    assert plain[MISERE] == {"over_eight": 15, "over_nine": 20, "top": 25}[place]


def test_b187_misere_above_everything_takes_the_talon_at_once():
    """B:187: "one can agree that misère is above all other bids, and the player who
    declared it at once owns the talon": nobody may overcall it, only pass."""
    top = get_variant("sochi", misere_place="top", jump_bids=True)
    assert names(legal_calls(calls("misere"), top)) == ["pass"]
    assert auction_result(calls("misere", "pass", "pass"), top) == (0, MISERE)
    assert "misère" in names(legal_calls(calls("10NT"), top))  # still a first call only
    assert "misère" not in names(legal_calls(calls("6♠", "7♠", "8♠"), top))
    strict = get_variant("classic", misere_place="top", dark_misere_high=False)
    assert names(legal_calls(calls("misere"), strict)) == ["pass", "dark", "misère nt"]
    assert names(legal_calls(calls("misere nt"), strict)) == ["pass"]
    nine = get_variant("sochi", misere_place="over_nine")
    assert names(legal_calls(calls("misere"), nine)) == ["pass", "10♠"]


def test_b187_the_old_misere_over_nine_key_still_loads():
    from prefstats.game.variants import load_variant_text

    assert get_variant("sochi", misere_over_nine=True).misere_place == "over_nine"
    old = load_variant_text('base = "classic"\nmisere_over_nine = false\n')
    assert old == get_variant("classic")
    assert "misere_over_nine" not in get_variant("classic").to_toml()


def test_classic_auction_offers_both_kinds_of_bid():
    legal = legal_calls(calls("7♠"), CLASSIC)
    assert "7♠ nt" in names(legal) and "7♣" in names(legal) and "7♠" not in names(legal)
    # Without jumps (B:95, B:418): the next step with the talon and the next without it;
    # after plain misère a nine with the talon, or misère without it as a first call.
    strict = get_variant("classic")
    assert names(legal_calls([], strict)) == ["pass", "blind pass", "dark", "6♠", "misère",
                                              "6♠ nt", "misère nt"]
    assert names(legal_calls(calls("6♠"), strict)) == ["pass", "dark", "6♣", "misère",
                                                       "6♠ nt", "misère nt"]
    assert names(legal_calls(calls("6♠ nt"), strict)) == ["pass", "dark", "7♠", "misère",
                                                          "6♣ nt", "misère nt"]
    legal = legal_calls(calls("misere"), strict)
    assert names(legal) == ["pass", "dark", "9♠", "misère nt", "9♠ nt"]


def test_call_names_round_trip():
    for c in (*range(N_CONTRACTS), *range(NO_TALON_BID, NO_TALON_BID + N_CONTRACTS), PASS,
              BLIND_PASS, DARK):
        assert parse_call(call_name(c)) == c
    assert parse_call("8♦ without talon") == parse_call("8♦ nt") == NO_TALON_BID + 12


# ---- blind passes and dark bids -----------------------------------------------------------


def test_blind_pass_only_as_a_first_call_before_any_bid():
    assert BLIND_PASS in legal_calls([], CLASSIC)
    assert BLIND_PASS not in legal_calls([], SOCHI)
    assert BLIND_PASS not in legal_calls(calls("6♠"), CLASSIC)
    assert BLIND_PASS in legal_calls([BLIND_PASS], CLASSIC)  # the second hand too


def test_after_a_blind_pass_only_sevens_and_up_or_dark_bids():
    after = legal_calls([BLIND_PASS], CLASSIC)
    assert not [c for c in after if c % NO_TALON_BID < 5 and c not in (PASS, BLIND_PASS, DARK)]
    assert parse_call("7♠") in after and MISERE in after and DARK in after
    dark = legal_calls([BLIND_PASS, DARK], CLASSIC)
    assert parse_call("6♠") in dark and PASS not in dark


def test_dark_bid_must_follow_dark_and_the_bidder_stays_in():
    assert DARK in legal_calls([], CLASSIC) and DARK not in legal_calls([], SOCHI)
    history = [DARK, parse_call("6♠")]
    assert DARK in legal_calls(history, CLASSIC)  # the second hand's first call
    assert auction_result([*history, PASS, PASS], CLASSIC) == (0, parse_call("6♠"))
    with pytest.raises(ValueError, match="illegal call pass"):
        legal_calls([DARK, PASS], CLASSIC)
    # No dark call when no bid could follow it.
    top = [parse_call("10NT nt")]
    assert DARK not in legal_calls(top, CLASSIC)


def _run(variant, actions, state=None):
    return run(variant, actions, HANDS, TALON, state)


_observe = observe


def test_dark_bidder_is_blind_in_the_auction_and_doubles_the_game():
    st = new_state(HANDS, TALON)[0]
    st["bombs"][:] = [4, 1, 1]  # seat 0 holds a double bomb
    st, rules = _run(CLASSIC, [DARK], st)
    obs = _observe(st, rules)
    assert obs["seat"] == 0 and obs["hand"] == 0 and obs["visible"][0] == 0
    st, rules = _run(CLASSIC, [parse_call("6♠"), PASS, PASS], st)
    assert st["dark"] == 1 and st["declarer"] == 0 and st["multiplier"] == 8
    assert st["phase"] == engine.SWITCH
    assert _observe(st, rules)["hand"] == int(HANDS[0])  # he looks now (B:414)
    st, rules = _run(CLASSIC, [engine.KEEP_DARK], st)
    assert st["phase"] == engine.DISCARD and st["multiplier"] == 8
    assert _observe(st, rules)["hand"] == int(HANDS[0]) | TALON


def test_blind_passes_are_recorded_and_raspasy_follows():
    st, _ = _run(CLASSIC, [BLIND_PASS, BLIND_PASS, PASS])
    # B:398, B:402: "if all say 'dark pass' or 'pass', the bomb is played": a single bomb's
    assert st["blind"] == 0b011 and st["kind"] == engine.RASPASY and st["multiplier"] == 2
    st, _ = _run(get_variant("classic", bomb_level="passers"), [BLIND_PASS, BLIND_PASS, PASS])
    assert st["kind"] == engine.RASPASY and st["multiplier"] == 1  # scored as any raspasy
    st, _ = _run(CLASSIC, [PASS, PASS, PASS])
    assert st["kind"] == engine.RASPASY and st["multiplier"] == 1


# ---- contracts without the talon ----------------------------------------------------------


def test_no_talon_game_skips_talon_and_discard():
    bid = parse_call("7♠ nt")
    st, rules = _run(CLASSIC, [bid, PASS, PASS])
    assert st["no_talon"] and st["phase"] == engine.CONTRACT
    assert int(st["hands"][0]) == HANDS[0]  # the talon stays face down
    legal = [c for c in range(N_CONTRACTS) if engine.legal_mask(st, rules) >> c & 1]
    assert legal == legal_contracts(bid, CLASSIC)
    assert names(legal)[:3] == ["7♠", "7♣", "7♦"]  # played without the talon
    assert _observe(st, rules)["talon"] == 0
    st, rules = _run(CLASSIC, [parse_call("7♠"), W_WHIST, W_WHIST], st)
    assert st["contract"] == parse_call("7♠") and st["phase"] == engine.PLAY
    assert _observe(st, rules)["talon"] == 0


def test_misere_without_the_talon_starts_play_at_once():
    st, _ = _run(CLASSIC, [MISERE + NO_TALON_BID, PASS, PASS])
    assert st["kind"] == engine.MISERE_GAME and st["no_talon"] and st["phase"] == engine.PLAY
    assert st["discard"] == 0 and int(st["hands"][0]) == HANDS[0]


def test_legal_contracts_after_a_bid_with_the_talon_never_go_without_it():
    assert legal_contracts(parse_call("9♥"), CLASSIC) == [19, 20, 21, 22, 23, 24, 25]
    assert legal_contracts(parse_call("misere nt"), CLASSIC) == [MISERE]


# ---- Gusarik --------------------------------------------------------------------------------


def test_gusarik_dummy_never_bids():
    assert GUSARIK.players == 2
    st, _ = _run(GUSARIK, [parse_call("6♥")])
    assert st["to_act"] == 1  # the dealer answers; the dummy (seat 2) is skipped
    st, _ = _run(GUSARIK, [PASS], st)
    assert st["declarer"] == 0 and st["phase"] == engine.DISCARD
    assert auction_result(calls("pass", "7♦"), GUSARIK) == (1, parse_call("7♦"))
    assert auction_result(calls("pass", "pass"), GUSARIK) is None


def test_gusarik_raspasy_has_two_card_tricks_and_the_dummy_keeps_its_cards():
    st, rules = _run(GUSARIK, [PASS, PASS])
    assert st["kind"] == engine.RASPASY
    while st["phase"] != engine.DONE:
        assert st["to_act"] != 2
        engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    assert st["tricks"][2] == 0 and int(st["tricks"][:2].sum()) == 10
    assert st["hands"][2] == HANDS[2] and st["played_by"][2] == 0


def _gusarik_game(declarer, contract):
    code = parse_contract(contract).code
    history = [code, PASS] if declarer == 0 else [PASS, code]
    st, _ = _run(GUSARIK, history)
    return _run(GUSARIK, [TALON, code], st)


def test_b384_gusarik_dummy_is_turned_after_the_whist_call_and_the_defender_stays_hidden():
    """B:384: the dummy's cards are turned "after ordering the game and the wish to
    whist"; the defender plays his own hand closed and the dummy's, so the deal is not
    an open (double-dummy) one."""
    st, rules = _gusarik_game(0, "6♠")
    # Seat 1 defends with the dummy (seat 2); he may whist, pass or leave the tricks.
    assert st["phase"] == engine.WHIST and st["controller"] == 1
    assert legal_whist_calls(0, [], GUSARIK, declarer=0) == [W_PASS, W_WHIST, W_HALF]
    obs = _observe(st, rules)
    assert obs["visible"][2] == 0 and obs["hand"] == HANDS[1]  # he calls without the dummy
    st, rules = _run(GUSARIK, [W_WHIST], st)
    assert (st["first"], st["second"]) == (W_WHIST, W_PASS) and not st["open"]
    obs = _observe(st, rules)  # the dummy, the first hand, leads (B:382): its player decides
    assert obs["seat"] == 1 and obs["playing_for"] == 2 and obs["visible"][0] == 0
    engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    assert st["to_act"] == 0 and st["controller"] == 0
    obs = _observe(st, rules)  # the declarer sees the dummy, not the whister
    assert obs["visible"][2] == st["hands"][2] != 0 and obs["visible"][1] == 0
    engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    assert st["to_act"] == 1 and st["controller"] == 1


def test_gusarik_leaving_the_tricks_is_not_played():
    st, _ = _gusarik_game(1, "7♦")  # declarer seat 1: the dummy is his left-hand defender
    st, _ = _run(GUSARIK, [W_HALF], st)
    assert not st["played"] and (st["first"], st["second"]) == (W_PASS, W_HALF)
    st, _ = _gusarik_game(0, "8♦")
    rules = engine.rules_array(GUSARIK)
    assert not engine.legal_mask(st, rules) >> W_HALF & 1  # only on a 6 or 7


def test_b384_nobody_sees_the_dummy_before_the_whist_call():
    st, rules = _run(GUSARIK, [parse_call("6♥"), PASS])
    assert _observe(st, rules)["visible"][2] == 0
    st, rules = _run(GUSARIK, [TALON, parse_call("6♥")], st)
    assert st["phase"] == engine.WHIST and _observe(st, rules)["visible"][2] == 0
    st, rules = _run(GUSARIK, [W_WHIST], st)
    assert st["phase"] == engine.PLAY and _observe(st, rules)["visible"][2] == HANDS[2]


def test_a_s5_gusarik_raspasy_keeps_the_talon_closed():
    """A:S5: "when playing for two, the talon is not opened": the first hand leads any
    card and nobody sees a talon card."""
    assert GUSARIK.raspasy_talon == "none"
    st, rules = _run(GUSARIK, [PASS, PASS])
    assert engine.legal_mask(st, rules) == HANDS[0]
    while st["phase"] != engine.DONE:
        assert _observe(st, rules)["talon"] == 0
        engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    assert st["played_by"][engine.TALON_SLOT] == 0


# ---- every preset plays out under random legal decisions ----------------------------------


@pytest.mark.parametrize("players", [None, 4])
@pytest.mark.parametrize("name", PRESETS)
def test_random_legal_decisions_finish_every_deal(name, players):
    if name == "gusarik" and players == 4:
        return
    variant = get_variant(name, players=players)
    rules = engine.rules_array(variant)
    d = deal(400, seed=21)
    rng = np.random.default_rng(5)
    for i in range(len(d)):
        st = new_state(d.hands[i], d.talon[i], talon_first=d.talon_first[i])[0]
        st["bombs"][:] = rng.choice([1, 2, 4], size=3)
        while st["phase"] != engine.DONE:
            legal = engine.legal_mask(st, rules)
            if st["phase"] == engine.DISCARD:
                cards = [c for c in range(32) if legal >> c & 1]
                action = (1 << cards[0]) | (1 << cards[-1])
            else:
                action = int(rng.choice([a for a in range(63) if legal >> a & 1]))
            assert engine.apply(st, rules, action) == 0
        if st["played"]:
            assert int(st["tricks"].sum()) == 10
        if variant.players == 2:
            assert st["declarer"] != 2 and (st["kind"] != engine.RASPASY or st["tricks"][2] == 0)
        dark = (int(st["dark"]) >> max(int(st["declarer"]), 0)) & 1
        if st["kind"] in (engine.GAME, engine.MISERE_GAME):
            bomb = int(st["bombs"][st["declarer"]])
            assert st["multiplier"] == bomb * (2 if dark else 1)


# ---- raspasy leads (B:125, B:227) ----------------------------------------------------------


def _raspasy_leaders(variant, n=150, seed=31):
    """Each all-pass deal's first four tricks as ``(leader, winner of the trick before)``
    (``TALON`` = -1 for a talon card led for the dealer, or for the talon winning)."""
    rules = engine.rules_array(variant)
    d = deal(n, seed=seed)
    out = []
    for i in range(n):
        st = new_state(d.hands[i], d.talon[i], talon_first=d.talon_first[i])[0]
        while st["phase"] == engine.AUCTION:
            engine.apply(st, rules, PASS)
        leads, before = [], st["tricks"].copy()
        while len(leads) < 4:
            if st["trick"] == len(leads):  # a trick has just started
                gained = np.flatnonzero(st["tricks"] != before)
                winner = None if not len(gained) else int(gained[0]) if gained[0] < 3 else -1
                leads.append((int(st["leader"]), winner))
                before = st["tricks"].copy()
            engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
        out.append(leads)
    return out


def test_b227_first_hand_may_lead_the_first_three_raspasy_tricks():
    """B:227: with the talon opened "he [the first hand] makes the first three leads
    regardless of who took the trick"; seed A (A:S5) and every preset: two."""
    three = _raspasy_leaders(get_variant("sochi", raspasy_first_hand_leads=3))
    two = _raspasy_leaders(SOCHI)
    assert all([lead for lead, _ in d[:3]] == [0, 0, 0] for d in three)
    assert all(d[3][0] == d[3][1] for d in three)  # then the winner
    assert all(d[2][0] == d[2][1] for d in two) and any(d[2][0] != 0 for d in two)
    with pytest.raises(ValueError, match=r"raspasy_first_hand_leads.*raspasy_talon"):
        get_variant("rostov", raspasy_first_hand_leads=3)


def test_b125_four_player_raspasy_trick_three_is_led_left_of_the_dealer():
    """B:125: two talon cards lead for the dealer, "the third move is made by the player
    to the dealer's left" (seat 0) whoever won trick 2."""
    leaders = _raspasy_leaders(get_variant("sochi", players=4))
    assert all([lead for lead, _ in d[:3]] == [-1, -1, 0] for d in leaders)
    old = _raspasy_leaders(get_variant("sochi", players=4, raspasy_third_lead="winner"))
    assert any(d[2][0] != 0 for d in old)
    assert all(d[2][0] == max(d[2][1], 0) for d in old)


# ---- the lone whister stands or lies (B:215, B:259) ------------------------------------------


def _lone_whist(choice):
    variant = get_variant("sochi", lone_whist_play="whister_chooses")
    st, rules = _run(variant, [parse_call("6♠"), PASS, PASS, TALON, parse_call("6♠"),
                               W_WHIST, W_PASS])
    assert st["phase"] == engine.LAY and st["controller"] == 1  # the whister decides
    assert engine.legal_mask(st, rules) == 0b11
    obs = _observe(st, rules)
    assert obs["hand"] == HANDS[1] and (obs["visible"][[0, 2]] == 0).all()
    return _run(variant, [choice], st)


def test_b215_lone_whister_stands_closed_each_defender_plays_his_own_cards():
    """B:215: the lone whister decides: "dark (standing), without showing any player's
    cards"; B:259: advice is then forbidden -- the passer plays his own cards."""
    st, rules = _lone_whist(engine.LAY_CLOSED)
    assert st["phase"] == engine.PLAY and not st["open"]
    while st["phase"] != engine.DONE:
        seat = int(st["to_act"])
        assert st["controller"] == seat  # the passer (seat 2) plays his own cards
        obs = _observe(st, rules)
        assert [int(v) for v in obs["visible"]] == [int(st["hands"][seat]) if s == seat else 0
                                                    for s in range(3)]
        engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    assert int(st["tricks"].sum()) == 10


def test_b215_lone_whister_lies_open_and_plays_the_passers_cards():
    """B:215 ("light, lying") and B:259: the whister plays his own and the passer's
    cards, the declarer sees both."""
    st, rules = _lone_whist(engine.LAY_OPEN)
    assert st["open"] and st["phase"] == engine.PLAY
    obs = _observe(st, rules)  # the declarer leads
    assert obs["visible"][1] == HANDS[1] and obs["visible"][2] == HANDS[2]
    with pytest.raises(ValueError, match=r"lone_whist_play.*table"):
        get_variant("gusarik", lone_whist_play="whister_chooses")
    assert all(get_variant(n).lone_whist_play == "open" for n in PRESETS)


# ---- dark play (B:103, B:105, B:412, B:414) ---------------------------------------------


def test_b412_dark_declarer_takes_the_talon_showing_nobody():
    st, rules = _run(CLASSIC, [DARK, parse_call("6♠"), PASS, PASS, engine.KEEP_DARK])
    assert _observe(st, rules)["talon"] == TALON  # the declarer sees what he takes
    st, rules = _run(CLASSIC, [TALON, parse_call("7♠")], st)
    obs = _observe(st, rules)
    assert obs["seat"] == 1 and obs["talon"] == 0
    light, rules = _run(CLASSIC, [parse_call("6♠"), PASS, PASS, TALON, parse_call("7♠")])
    assert _observe(light, rules)["talon"] == TALON


def test_b414_dark_six_is_whisted_by_both_closed():
    """B:414: "a six ordered blind forces both defenders and is played dark"."""
    dark_six = [DARK, parse_call("6♠"), PASS, PASS, engine.KEEP_DARK, TALON]
    st, _ = _run(CLASSIC, [*dark_six, parse_call("6♥")])
    assert st["phase"] == engine.PLAY and st["n_whist"] == 0
    assert (st["first"], st["second"]) == (W_WHIST, W_WHIST) and not st["open"]
    seven, _ = _run(CLASSIC, [*dark_six, parse_call("7♥")])
    assert seven["phase"] == engine.WHIST


def test_b105_dark_misere_is_caught_in_the_dark():
    """B:105: a dark misère takes the talon showing nobody, "i.e. the misère is caught
    in the dark": the catchers do not lay their hands down."""
    st, rules = _run(CLASSIC, [DARK, MISERE, PASS, PASS, TALON])
    assert st["kind"] == engine.MISERE_GAME and not st["open"]
    engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    obs = _observe(st, rules)
    assert obs["seat"] == 1 and obs["visible"][2] == 0 and obs["talon"] == 0
    light, _ = _run(CLASSIC, [MISERE, PASS, PASS, TALON])
    assert light["open"]


def test_b105_dark_misere_is_overcalled_only_by_a_dark_nine_or_a_light_ten():
    """B:105: a dark misère "can be stopped only by a dark nine or a light ten"."""
    strict = get_variant("classic")
    assert strict.dark_misere_high
    light = names(legal_calls([DARK, MISERE], strict))
    assert light == ["pass", "dark", "10♠", "10♠ nt"]  # a ten in the light, not a nine
    dark = names(legal_calls([DARK, MISERE, DARK], strict))
    assert dark == ["9♠", "misère nt", "9♠ nt"]  # a nine in the dark
    assert auction_result([DARK, MISERE, DARK, parse_call("9♠"), PASS, PASS],
                          strict) == (1, parse_call("9♠"))  # fmt: skip
    # a misère in the light is overcalled by any nine (B:185)
    assert names(legal_calls([MISERE], strict)) == ["pass", "dark", "9♠", "misère nt", "9♠ nt"]
    # after a dark misère without the talon a light ten too; in the dark its next step
    assert names(legal_calls([DARK, MISERE + NO_TALON_BID], strict)) == [
        "pass", "dark", "10♠", "10♠ nt"]
    assert names(legal_calls([DARK, MISERE + NO_TALON_BID, DARK], strict)) == ["10♠", "9♠ nt"]
    # without the option a dark misère is overcalled like a light one
    off = get_variant("classic", dark_misere_high=False)
    assert names(legal_calls([DARK, MISERE], off)) == names(legal_calls([MISERE], off))
    # the engine's auction reads the same rule
    rules = engine.rules_array(strict)
    st = new_state(HANDS, TALON)[0]
    for call in (DARK, MISERE):
        assert engine.apply(st, rules, call) == 0
    legal = engine.legal_mask(st, rules)
    assert not legal >> parse_call("9♠") & 1 and legal >> parse_call("10♠") & 1


# A perfect misère for seat 0 (the lowest three of three suits and ♥7), the rest high.
MISERE_HANDS = (
    parse_cards("♠987 ♣987 ♦987 ♥7"),
    parse_cards("♠AKQJ10 ♣AKQJ10"),
    parse_cards("♦AKQJ10 ♥QJ1098"),
)
MISERE_TALON = parse_cards("♥AK")


def _dark_six(variant=CLASSIC, hands=HANDS, talon=TALON, bombs=(1, 1, 1)):
    """Seat 0 wins 6♠ bid in the dark, the others pass."""
    st = new_state(hands, talon, bombs=bombs)[0]
    return run(variant, [DARK, parse_call("6♠"), PASS, PASS], hands, talon, st)


def test_b414_dark_declarer_may_switch_to_a_light_misere():
    """B:414: for "once in the dark", "after looking at his cards, but before the
    talon, the player may change his order and order a misère", counted as an ordinary
    one; B:105: "then the talon is opened and the double stake disappears"."""
    st, rules = _dark_six(bombs=(4, 1, 1))
    assert st["phase"] == engine.SWITCH and st["to_act"] == 0 and st["multiplier"] == 8
    assert engine.legal_mask(st, rules) == 1 << engine.KEEP_DARK | 1 << engine.LIGHT_MISERE
    obs = _observe(st, rules)
    assert obs["hand"] == HANDS[0] and obs["talon"] == 0  # his cards, not the talon yet
    assert engine.apply(st, rules, 2) == -1 and st["phase"] == engine.SWITCH
    st, rules = run(CLASSIC, [engine.LIGHT_MISERE], HANDS, TALON, st)
    assert st["phase"] == engine.DISCARD and st["contract"] == MISERE
    assert st["bid"] == 0 and st["dark"] == 0 and st["multiplier"] == 4  # his bomb, not doubled
    assert _observe(st, rules)["hand"] == int(HANDS[0]) | TALON
    st, rules = run(CLASSIC, [TALON], HANDS, TALON, st)
    assert st["kind"] == engine.MISERE_GAME and st["contract"] == MISERE
    assert st["open"]  # caught in the light: the catchers lay their hands down
    engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    obs = _observe(st, rules)
    assert obs["seat"] == 1 and obs["talon"] == TALON  # the talon is opened


def test_b414_switch_only_for_a_dark_trick_bid_with_the_talon_and_the_option_on():
    """The switch is offered to the dark declarer of a trick bid with the talon when
    ``dark_switch_to_misere`` is on (Classic): not to a light declarer, not to a dark
    misère (already one), not to a bid without the talon (no talon to come)."""
    assert get_variant("classic").dark_switch_to_misere
    assert not any(get_variant(n).dark_switch_to_misere for n in PRESETS if n != "classic")
    off = get_variant("classic", jump_bids=True, dark_switch_to_misere=False)
    st, _ = _dark_six(off)
    assert st["phase"] == engine.DISCARD and st["dark"] == 1 and st["multiplier"] == 2
    for actions, phase in (([parse_call("6♠"), PASS, PASS], engine.DISCARD),
                           ([DARK, MISERE, PASS, PASS], engine.DISCARD),
                           ([DARK, parse_call("6♠ nt"), PASS, PASS], engine.CONTRACT)):
        st, _ = _run(CLASSIC, actions)
        assert st["phase"] == phase
    kept, _ = _dark_six()
    kept, _ = run(CLASSIC, [engine.KEEP_DARK], HANDS, TALON, kept)
    assert kept["phase"] == engine.DISCARD and kept["contract"] == -1
    assert kept["bid"] == 0 and kept["multiplier"] == 2
    with pytest.raises(ValueError, match=r"dark_switch_to_misere.*needs dark_bids"):
        get_variant("sochi", dark_switch_to_misere=True)


def _lowest_cards(st, rules):
    """Play the deal out, each seat its lowest legal card."""
    while st["phase"] != engine.DONE:
        assert engine.apply(st, rules, lowest_card(engine.legal_mask(st, rules))) == 0
    return st


def test_b414_switched_misere_scores_as_an_ordinary_misere():
    """B:414: the switched misère "counts as an ordinary misère": the same entries as a
    misère bid in the light on the same cards, with the declarer's bomb and no dark
    double."""
    variant = get_variant("classic", jump_bids=True)
    for bombs in ((1, 1, 1), (2, 1, 1)):
        st, rules = _dark_six(variant, MISERE_HANDS, MISERE_TALON, bombs)
        st, _ = run(variant, [engine.LIGHT_MISERE, MISERE_TALON], MISERE_HANDS,
                    MISERE_TALON, st)
        switched = _lowest_cards(st, rules)
        light = new_state(MISERE_HANDS, MISERE_TALON, bombs=bombs)[0]
        light, _ = run(variant, [MISERE, PASS, PASS, MISERE_TALON], MISERE_HANDS,
                       MISERE_TALON, light)
        light = _lowest_cards(light, rules)
        assert switched["multiplier"] == light["multiplier"] == bombs[0]
        assert (switched["tricks"] == light["tricks"]).all() and switched["open"]
        for a, b in zip(score_states(variant, np.stack([switched])),
                        score_states(variant, np.stack([light])), strict=True):
            assert (a == b).all()
        pool = score_states(variant, np.stack([switched]))[0][0]
        assert pool[0] == 2 * variant.misere_made * bombs[0]  # halves: made, not doubled


def test_b414_records_replay_the_switch():
    """A record names B:414's switch as the contract, misère, after a dark trick bid;
    replaying it (and a kept dark game) gives the engine's own final state."""
    variant = get_variant("classic", jump_bids=True)
    st, rules = _dark_six(variant, MISERE_HANDS, MISERE_TALON)
    st, _ = run(variant, [engine.LIGHT_MISERE, MISERE_TALON], MISERE_HANDS, MISERE_TALON, st)
    switched = _lowest_cards(st, rules)
    kept, _ = _dark_six()
    kept, _ = run(variant, [engine.KEEP_DARK, TALON, parse_call("6♥")], HANDS, TALON, kept)
    kept = _lowest_cards(kept, rules)
    for final, choice in ((switched, engine.LIGHT_MISERE), (kept, engine.KEEP_DARK)):
        record = record_of_state(final)
        assert record["calls"] == ["dark", "6♠", "pass", "pass"]
        steps, replayed = replay(parse_record(json.dumps(record)), variant)
        assert replayed[0].tobytes() == final.tobytes()
        assert [s.action for s in steps if s.phase == engine.SWITCH] == [choice]
    assert record_of_state(switched)["contract"] == "misère"
