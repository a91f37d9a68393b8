"""The heuristic player's decisions before the play, on hand-made positions, and the
same player through both drivers."""

import numpy as np
import pytest

from prefstats.game import engine
from prefstats.game.auction import PASS, W_PASS, W_WHIST
from prefstats.game.cards import FULL_DECK, parse_cards
from prefstats.game.contracts import LEVEL, MISERE, TRUMP, parse_contract
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players.builtin import HEURISTIC, decide, default_tables
from prefstats.players.params import heuristic_params
from prefstats.sim.play import new_state, play_batch, play_hands

SOCHI = get_variant("sochi")
RULES = engine.rules_array(SOCHI)
PARAMS = heuristic_params()
TABLES = default_tables("heuristic", SOCHI)


def _deal(*hands: str, talon: str | None = None):
    """Hands given per seat (text); the rest of the deck fills the empty ones in order
    (the talon last unless given)."""
    masks = [parse_cards(h) if h else 0 for h in hands]
    fixed_talon = parse_cards(talon) if talon else 0
    rest = FULL_DECK & ~(masks[0] | masks[1] | masks[2] | fixed_talon)
    cards = [c for c in range(32) if rest >> c & 1]
    for s in range(3):
        while bin(masks[s]).count("1") < 10:
            masks[s] |= 1 << cards.pop(0)
    return masks, fixed_talon or sum(1 << c for c in cards)


def _decision(masks, talon, actions=()):
    """The heuristic's decision after the scripted ``actions`` (the engine's own forced
    steps in between)."""
    st = new_state(masks, talon)[0]
    engine.advance_forced(st, RULES)
    for action in actions:
        assert engine.apply(st, RULES, action) == 0
        engine.advance_forced(st, RULES)
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    engine.observe(st, RULES, obs)
    return int(decide(HEURISTIC, obs, RULES, PARAMS, TABLES, np.uint64(0))), st


def test_strong_spades_and_side_aces_bid():
    call, _ = _decision(*_deal("♠AKQJ10 ♣A ♦A ♥A 8 7", "", ""))
    assert call != PASS


def test_senior_player_holds_the_bid():
    """First hand bid 6♠, second 6♣, third passed: the first says "here" (6♣ again)."""
    calls = [parse_contract("6♠").code, parse_contract("6♣").code, PASS]
    call, _ = _decision(*_deal("♠AKQJ10 ♣A ♦A ♥A 8 7", "", ""), actions=calls)
    assert call == parse_contract("6♣").code


def test_weak_hand_passes():
    call, _ = _decision(*_deal("♠J109 ♣Q10 ♦J10 ♥Q109", "", ""))
    assert call == PASS


def test_safe_misere_hand_bids_misere():
    call, _ = _decision(*_deal("", "♠79J ♣79 ♦79J ♥78", ""), actions=[PASS])
    assert call == MISERE


def test_declarer_discards_low_and_names_a_spade_game():
    masks, talon = _deal("♠AKQJ10 ♣A ♦A ♥A 8 7", "", "", talon="♣7 ♦7")
    bid = parse_contract("6♠").code
    discard, _ = _decision(masks, talon, [bid, PASS, PASS])
    assert bin(discard).count("1") == 2
    assert discard & parse_cards("♠AKQJ10 ♣A ♦A ♥A") == 0
    contract, _ = _decision(masks, talon, [bid, PASS, PASS, discard])
    assert TRUMP[contract] == 0 and LEVEL[contract] >= 8  # raises: ten tricks are likely


# The declarer (first hand) plays 6♠; the second hand speaks first on whist.
DECLARER = "♠AKQJ87 ♣AK ♦7 ♥7"
SIX = parse_contract("6♠").code


@pytest.mark.parametrize("defender, expected", [
    ("♦AKQJ ♥AKQJ ♣QJ", W_WHIST),
    ("♦1098 ♥1098 ♣1098 ♠9", W_PASS),
])
def test_whist_on_strength_and_pass_with_nothing(defender, expected):
    masks, talon = _deal(DECLARER, defender, "", talon="♠10 9" if "♠9" not in defender
                         else "♠10 ♥J")
    discard = parse_cards("♦7 ♥7")
    call, st = _decision(masks, talon, [SIX, PASS, PASS, discard, SIX])
    assert st["phase"] == engine.WHIST and st["to_act"] == 1
    assert call == expected


@pytest.mark.parametrize("name", ["sochi", "leningrad", "rostov"])
def test_heuristic_decides_alike_through_both_drivers(name):
    """1,000 deals per preset: identical final states from the batch and Python paths."""
    variant = get_variant(name)
    d = deal(1000, seed=31)
    states = play_batch(d, variant, key=5)
    assert play_hands(d, variant, key=5).tobytes() == states.tobytes()
    kinds = np.bincount(states["kind"], minlength=4)
    assert kinds[engine.GAME] > 300 and kinds[engine.RASPASY] > 100
