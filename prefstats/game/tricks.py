"""Trick rules shared by the solver, the players and the hand engine.

Compiled with numba so the search loops call them directly; plain Python can call
them too. Cards and hands use the layout of :mod:`prefstats.game.cards`.

>>> from prefstats.game.cards import parse_cards
>>> legal_cards(parse_cards("♠A7 ♥K"), 3, -1) == parse_cards("♥K")
True
>>> trick_winner(30, 7, 24, -1)  # K♥ led, A♠ and 7♥ follow: K♥ wins
0
"""

from __future__ import annotations

from numba import njit

from prefstats.game.codes import DEALER_TALON, NO_TRUMP_SUIT, SUIT_LEAD
from prefstats.game.codes import RASPASY_TALON_MODES as RASPASY_TALON_MODES  # for rules


@njit(cache=True, inline="always")
def legal_cards(hand: int, led_suit: int, trump: int) -> int:
    """Cards of ``hand`` that may be played to a trick led in ``led_suit``.

    Follow suit if able, otherwise trump if able (``trump`` = -1 for no trumps),
    otherwise any card. ``led_suit`` = -1 means the player leads: any card.
    """
    if led_suit < 0:
        return hand
    follow = hand & (0xFF << (8 * led_suit))
    if follow:
        return follow
    if trump >= 0:
        ruff = hand & (0xFF << (8 * trump))
        if ruff:
            return ruff
    return hand


@njit(cache=True, inline="always")
def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` beats the card ``best`` that currently wins the trick."""
    cs = card >> 3
    bs = best >> 3
    if cs == bs:
        return card > best
    return cs == trump


@njit(cache=True)
def trick_winner(first: int, second: int, third: int, trump: int) -> int:
    """Position (0, 1, 2 after the leader) of the card that wins the trick."""
    win = 0
    best = first
    if beats(second, best, trump):
        win = 1
        best = second
    if beats(third, best, trump):
        win = 2
    return win


# ---- raspasy: the talon's part in the first two tricks (RULES.md §6) ----------------------

# ``raspasy_talon``'s modes are ``codes.RaspasyTalon``; a numba caller passes the index.
#: The "seat" of a talon card led for the 4-player dealer.
TALON = -1


@njit(cache=True)
def raspasy_lead_cards(hand: int, talon_card: int) -> int:
    """Cards the first hand may lead to trick 1 or 2 under ``suit_lead``.

    He must lead the suit of the turned talon card if he holds it, any card otherwise:
    the same set as following that suit without trumps.

    >>> from prefstats.game.cards import parse_cards
    >>> raspasy_lead_cards(parse_cards("♠A7 ♥K"), 2) == parse_cards("♠A7")  # 9♠ turned
    True
    """
    return legal_cards(hand, talon_card >> 3, NO_TRUMP_SUIT)


@njit(cache=True)
def talon_trick_winner(talon_card: int, first: int, second: int, third: int) -> int:
    """Winner of a raspasy trick led by a talon card for the dealer (``dealer`` mode).

    The players follow the talon card's suit (:func:`legal_cards` with no trumps);
    returns ``TALON`` (-1) if the talon card stays highest (the dealer takes the trick),
    else the winner's seat 0..2 from the dealer's left.

    >>> talon_trick_winner(5, 4, 30, 3)  # Q♠ led for the dealer; J♠, K♥, 10♠: Q♠ holds
    -1
    """
    # The talon card leads a three-card trick with the first two players, then the third.
    win = trick_winner(talon_card, first, second, NO_TRUMP_SUIT)
    best = talon_card if win == 0 else (first if win == 1 else second)
    return 2 if beats(third, best, NO_TRUMP_SUIT) else win - 1


@njit(cache=True)
def raspasy_leader(trick: int, last_winner: int, talon_mode: int, first_hand_leads: int = 2,
                   third_by_first_hand: bool = True) -> int:
    """Who leads trick ``trick`` (0-based) of a raspasy: a seat 0..2 or ``TALON``.

    ``last_winner`` is the winner of the previous trick (``TALON`` for the dealer).
    ``suit_lead``: the first hand leads the first ``first_hand_leads`` tricks (2, A:S5;
    3, B:227), then the winner of the last trick. ``dealer``: the talon cards lead
    tricks 1 and 2; trick 3 is led by the player left of the dealer (B:125), or with
    ``third_by_first_hand`` false by the winner of trick 2 (the first hand if the talon
    won it). ``none``: the first hand, then the winner.

    >>> raspasy_leader(1, 2, SUIT_LEAD), raspasy_leader(2, 1, DEALER_TALON)
    (0, 0)
    >>> raspasy_leader(2, 2, SUIT_LEAD, 3), raspasy_leader(2, 1, DEALER_TALON, 2, False)
    (0, 1)
    """
    if talon_mode == DEALER_TALON:
        if trick < 2:
            return TALON
        if trick == 2 and third_by_first_hand:
            return 0
    elif trick == 0 or (talon_mode == SUIT_LEAD and trick < first_hand_leads):
        return 0
    return last_winner if last_winner >= 0 else 0
