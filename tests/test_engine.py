"""The hand engine: flows of RULES.md §2–§6, information, and the two drivers."""

import numpy as np
import pytest

from prefstats.game import engine
from prefstats.game.auction import PASS, W_HALF, W_PASS, W_WHIST, parse_call
from prefstats.game.cards import parse_cards
from prefstats.game.contracts import MISERE, parse_contract
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players.base import BasePlayer, RandomLegalPlayer
from prefstats.sim.play import new_state, play_batch, play_hand, play_hands

PRESETS = ("sochi", "leningrad", "rostov")

# A fixed deal for scripted scenarios.
HANDS = (
    parse_cards("♠AKQJ1098 ♣AK ♥9"),
    parse_cards("♣QJ1098 ♦AKQJ10"),
    parse_cards("♠7 ♣7 ♦987 ♥AKQJ10"),
)
TALON = parse_cards("♥87")


class Scripted(BasePlayer):
    """Plays a script of decisions in order, then the lowest legal one."""

    def __init__(self, script=()):
        self.script = list(script)
        self.seen = []

    def act(self, obs):
        self.seen.append(obs)
        if self.script:
            return self.script.pop(0)
        if obs.phase_name == "discard":
            legal = obs.legal
            return (1 << legal[0]) | (1 << legal[1])
        return obs.legal[0]


def _check_finished(st, variant):
    assert st["phase"] == engine.DONE
    if st["played"]:
        assert int(st["tricks"].sum()) == 10
        if not st["double_dummy"]:
            assert not st["hands"].any()
            played = st["played_by"][:3]
            assert int(np.bitwise_or.reduce(played)) & int(st["discard"]) == 0
    else:
        assert st["kind"] == engine.GAME
        assert st["first"] == W_PASS and st["second"] in (W_PASS, W_HALF)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("name", PRESETS)
def test_random_players_finish_every_deal(name, players):
    variant = get_variant(name, players=players)
    d = deal(150, seed=11)
    for i in range(len(d)):
        seats = [RandomLegalPlayer(seed=10 * i + s) for s in range(3)]
        st = play_hand(d.hands[i], d.talon[i], seats, variant, talon_first=d.talon_first[i])
        _check_finished(st, variant)


@pytest.mark.parametrize("count", [300, pytest.param(1000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", PRESETS)
def test_batch_driver_equals_python_driver(name, count):
    """The same built-in player decides alike through both drivers (1,000 deals under
    slow)."""
    variant = get_variant(name)
    d = deal(count, seed=5)
    states = play_batch(d, variant, policy="random", key=9)
    assert play_hands(d, variant, policy="random", key=9).tobytes() == states.tobytes()
    for st in states:
        _check_finished(st, variant)


def _all_cards_in(obs) -> int:
    r = obs.record
    mask = int(r["hand"]) | int(r["talon"]) | int(r["discard"]) | int(r["gone"])
    for v in r["visible"]:
        mask |= int(v)
    for v in r["played_by"]:
        mask |= int(v)
    return mask


class Spy(RandomLegalPlayer):
    def __init__(self, seed):
        super().__init__(seed)
        self.seen = []

    def act(self, obs):
        self.seen.append(obs)
        return super().act(obs)


@pytest.mark.parametrize("name", PRESETS)
def test_observation_holds_no_hidden_card(name):
    """A player sees its own cards, the shown talon, played cards and open hands only."""
    variant = get_variant(name)
    d = deal(300, seed=8)
    for i in range(len(d)):
        spies = [Spy(seed=3 * i + s) for s in range(3)]
        st = play_hand(d.hands[i], d.talon[i], spies, variant, talon_first=d.talon_first[i])
        dealt = [int(h) for h in st["dealt"]]
        declarer = int(st["declarer"])
        for seat, spy in enumerate(spies):
            for obs in spy.seen:
                r = obs.record
                gone = int(r["gone"])
                open_play = r["phase"] == engine.PLAY and r["open"]
                for other in range(3):
                    if other == seat:
                        continue
                    # What a seat may see of another: open defence or catchers' hands.
                    may_see = open_play and other != declarer and (
                        r["kind"] == engine.GAME or declarer != 0 or gone != 0
                    )
                    if may_see:
                        continue
                    hidden = dealt[other] & ~gone
                    if other == declarer and r["declarer"] >= 0:
                        hidden &= ~int(st["talon"])  # the shown talon is public
                    assert _all_cards_in(obs) & hidden == 0, (i, seat, other)
                    assert not hasattr(obs, "state")


def _play(variant, scripts, **kw):
    players = [Scripted(s) for s in scripts]
    st = play_hand(HANDS, TALON, players, variant, **kw)
    return st, players


def test_all_pass_is_raspasy_led_by_the_talon_suit():
    variant = get_variant("sochi")
    rules = engine.rules_array(variant)
    eight, seven = parse_cards("♥8").bit_length() - 1, parse_cards("♥7").bit_length() - 1
    st = new_state(HANDS, TALON, talon_first=eight)[0]
    for _ in range(3):
        assert engine.apply(st, rules, PASS) == 0
    assert st["kind"] == engine.RASPASY and st["phase"] == engine.PLAY
    # ♥8 is turned: the first hand must lead his only heart.
    assert engine.legal_mask(st, rules) == parse_cards("♥9")
    engine.advance_forced(st, rules)  # ♥9 is forced; seats 1 and 2 follow
    while st["trick"] == 0:
        engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    # Trick 2 is led by the first hand again; ♥7 is turned and he has no heart left.
    assert st["leader"] == 0 and st["to_act"] == 0
    assert engine.legal_mask(st, rules) == int(st["hands"][0])
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    engine.observe(st, rules, obs)
    assert obs["talon"] == (1 << eight) | (1 << seven)


def test_four_player_raspasy_leads_the_talon_for_the_dealer():
    variant = get_variant("sochi", players=4)
    rules = engine.rules_array(variant)
    st = new_state(HANDS, TALON)[0]
    for _ in range(3):
        engine.apply(st, rules, PASS)
    assert st["leader"] == engine.TALON and st["trick_cards"][0] == st["talon_first"]
    while st["phase"] != engine.DONE:
        engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    assert int(st["played_by"][engine.TALON_SLOT]) == TALON
    # ♥7 and ♥8 led for the dealer: seat 2's hearts beat them, so the talon took none.
    assert st["tricks"][engine.TALON_SLOT] == 0 and int(st["tricks"].sum()) == 10


def test_after_raspasy_min_level_bars_low_bids():
    variant = get_variant("leningrad")
    st = new_state(HANDS, TALON, min_level=7)[0]
    legal = engine.legal_mask(st, engine.rules_array(variant))
    assert not legal & 0b11111  # no 6-level bid
    assert legal >> parse_call("7♠") & 1 and legal >> MISERE & 1 and legal >> PASS & 1


def _game(variant, contract, whist_calls, bidder=0):
    """Seat ``bidder`` opens 6♠ and names ``contract``; the defenders call ``whist_calls``."""
    code = parse_contract(contract).code
    d1, d2 = (bidder + 1) % 3, (bidder + 2) % 3
    scripts = [[], [], []]
    calls = {bidder: [0], d1: [PASS], d2: [PASS]}  # 6♠ opens (no jumps, B:95)
    # Bidding order is seat 0, 1, 2: each seat's first call.
    for s in range(3):
        scripts[s].extend(calls[s])
    scripts[bidder].append(TALON)  # discard the talon again
    scripts[bidder].append(code)
    wc = list(whist_calls)
    order = [d1, d2, d1]
    for k, call in enumerate(wc):
        scripts[order[k]].append(call)
    return _play(variant, scripts)


def test_both_pass_is_not_played():
    st, _ = _game(get_variant("sochi"), "6♠", [W_PASS, W_PASS])
    assert not st["played"] and st["first"] == W_PASS and st["second"] == W_PASS


def test_standing_half_whist_is_not_played_and_returned_one_is_open():
    variant = get_variant("leningrad")  # Sochi's greedy whist has no half-whist (B:253)
    st, _ = _game(variant, "7♠", [W_PASS, W_HALF, W_PASS])
    assert not st["played"] and st["second"] == W_HALF
    st, players = _game(variant, "7♠", [W_PASS, W_HALF, W_WHIST])
    assert st["played"] and st["open"] and st["first"] == W_WHIST
    # The lone whister (seat 1) plays the passer's (seat 2) cards.
    plays = [o for o in players[1].seen if o.phase_name == "play"]
    assert any(o.playing_for == 2 for o in plays)
    assert not any(o.phase_name == "play" for o in players[2].seen)


def test_two_whisters_play_closed():
    st, players = _game(get_variant("sochi"), "6♠", [W_WHIST, W_WHIST])
    assert st["played"] and not st["open"]
    plays = [o for o in players[1].seen if o.phase_name == "play"]
    assert all(o.visible[2] == 0 and o.visible[0] == 0 for o in plays)


def test_ten_checked_is_played_closed_without_calls():
    variant = get_variant("sochi", ten_checked=True)
    st, _ = _game(variant, "10♠", [])
    assert st["played"] and not st["open"] and st["n_whist"] == 0
    assert st["first"] == W_WHIST and st["second"] == W_WHIST


def test_stalingrad_forces_both_whists():
    variant = get_variant("sochi", stalingrad=True)
    st, players = _game(variant, "6♠", [])
    assert st["played"] and not st["open"] and st["n_whist"] == 2
    assert not any(o.phase_name == "whist" for p in players for o in p.seen)


def test_misere_opens_the_catchers_after_the_first_lead():
    variant = get_variant("sochi")
    scripts = [[MISERE, parse_cards("♠AK")], [PASS], [PASS]]
    st, players = _play(variant, scripts)
    assert st["kind"] == engine.MISERE_GAME and st["open"]
    plays = [o for o in players[0].seen if o.phase_name == "play"]
    assert plays[0].visible[1] == 0  # the declarer leads before the catchers lie down
    assert all(o.visible[1] != 0 or o.trick == 9 for o in plays[1:])


def test_illegal_decision_raises_and_leaves_the_state():
    variant = get_variant("sochi")
    rules = engine.rules_array(variant)
    st = new_state(HANDS, TALON)[0]
    before = st.tobytes()
    assert engine.apply(st, rules, MISERE + 100) == -1
    assert st.tobytes() == before
    with pytest.raises(ValueError, match="illegal auction decision"):
        _play(variant, [[99], [], []])


def test_impossible_deals_raise():
    with pytest.raises(ValueError, match="impossible deal"):
        new_state(HANDS, TALON ^ 1)
    with pytest.raises(ValueError, match="talon_first"):
        new_state(HANDS, TALON, talon_first=0)


def test_talon_card_that_stays_highest_is_the_dealers_trick():
    hands = (
        parse_cards("♠AKQJ1098 ♣AK ♥7"),
        parse_cards("♣QJ1098 ♦AKQJ10"),
        parse_cards("♠7 ♣7 ♦987 ♥QJ1098"),
    )
    talon = parse_cards("♥AK")
    variant = get_variant("sochi", players=4)
    rules = engine.rules_array(variant)
    st = new_state(hands, talon)[0]
    for _ in range(3):
        engine.apply(st, rules, PASS)
    while st["phase"] != engine.DONE:
        engine.apply(st, rules, engine.legal_mask(st, rules).bit_length() - 1)
    assert st["tricks"][engine.TALON_SLOT] == 2
