"""Raspasy talon rules of RULES.md §6 in prefstats.game.tricks."""

import pytest

from prefstats.game.cards import parse_cards
from prefstats.game.codes import TALON_UNUSED
from prefstats.game.tricks import (
    DEALER_TALON,
    RASPASY_TALON_MODES,
    SUIT_LEAD,
    TALON,
    raspasy_lead_cards,
    raspasy_leader,
    talon_trick_winner,
)
from prefstats.game.variants import get_variant

HAND = parse_cards("♠A7 ♣Q ♥K98")


@pytest.mark.parametrize(
    ("turned", "allowed"),
    [("9♠", "♠A7"), ("A♣", "♣Q"), ("7♦", "♠A7 ♣Q ♥K98"), ("10♥", "♥K98")],
)
def test_first_hand_leads_the_turned_suit_if_he_can(turned, allowed):
    card = parse_cards(turned).bit_length() - 1
    assert raspasy_lead_cards(HAND, card) == parse_cards(allowed)


def winner(*names):
    return talon_trick_winner(*(parse_cards(n).bit_length() - 1 for n in names))


def test_talon_card_led_for_the_dealer():
    assert winner("Q♠", "J♠", "K♥", "10♠") == TALON
    assert winner("Q♠", "J♠", "A♠", "K♠") == 1
    assert winner("Q♠", "K♠", "7♥", "8♠") == 0
    # no trumps in raspasy: a void player's card never wins
    assert winner("Q♠", "A♥", "A♣", "7♠") == TALON


def test_leaders():
    # suit_lead: first hand leads tricks 1 and 2, then the winner
    assert [raspasy_leader(t, 2, SUIT_LEAD) for t in range(4)] == [0, 0, 2, 2]
    # B:227: the first hand makes the first three leads whoever wins
    assert [raspasy_leader(t, 2, SUIT_LEAD, 3) for t in range(4)] == [0, 0, 0, 2]
    # dealer: the talon leads tricks 1 and 2
    assert [raspasy_leader(t, TALON, DEALER_TALON) for t in range(3)] == [TALON, TALON, 0]
    # none: the first hand, then the winner
    assert [raspasy_leader(t, 1, TALON_UNUSED) for t in range(3)] == [0, 1, 1]


def test_b125_third_trick_of_a_four_player_raspasy_is_led_left_of_the_dealer():
    """B:125: the first talon card leads, the second leads, "the third move is made by
    the player to the dealer's left" -- whoever won trick 2; ``winner`` is the old
    house reading."""
    assert [raspasy_leader(2, w, DEALER_TALON) for w in (TALON, 0, 1, 2)] == [0, 0, 0, 0]
    assert [raspasy_leader(2, w, DEALER_TALON, 2, False) for w in (TALON, 0, 1, 2)] == [
        0, 0, 1, 2]
    assert raspasy_leader(3, 2, DEALER_TALON) == 2
    assert get_variant("sochi", players=4).raspasy_third_lead == "first_hand"


def test_modes_follow_the_variant_option():
    modes = {RASPASY_TALON_MODES.index(get_variant(n, players=p).raspasy_talon)
             for n in ("sochi", "rostov") for p in (3, 4)}  # fmt: skip
    assert modes == {SUIT_LEAD, DEALER_TALON, TALON_UNUSED}
