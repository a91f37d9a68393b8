"""Trick rules shared by the solver, the players and the hand engine.

Compiled with numba so the search loops call them directly; plain Python can call
them too. Cards and hands use the layout of :mod:`prefstats.cards`.

>>> from prefstats.cards import parse_cards
>>> legal_cards(parse_cards("♠A7 ♥K"), 3, -1) == parse_cards("♥K")
True
>>> trick_winner(30, 7, 24, -1)  # K♥ led, A♠ and 7♥ follow: K♥ wins
0
"""

from __future__ import annotations

from numba import njit

NO_TRUMP = -1


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
