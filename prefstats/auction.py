"""Auction and whist calls (RULES.md §2–§4) as pure functions on compact integer calls.

A bid is its contract code 0..25 (see :mod:`prefstats.contracts`), ``PASS`` is 26, and
taking the current bid ("here", the hold) is written as the same code again. The three
active seats bid in order 0, 1, 2 from the dealer's left; a pass is final, so a history
of calls alone tells who made each call.

>>> from prefstats.variants import get_variant
>>> sochi = get_variant("sochi")
>>> h = [parse_call(c) for c in ("6♠", "7♠")]
>>> [call_name(c) for c in legal_calls(h, sochi)][:4]  # the third hand must outbid 7♠
['pass', '7♣', '7♦', '7♥']
>>> h += [PASS]
>>> call_name(legal_calls(h, sochi)[1])  # first hand is senior to the 7♠ bidder: "here"
'7♠'
>>> auction_result(h + [PASS], sochi)
(1, 5)

Whist calls are ``W_PASS``, ``W_WHIST`` and ``W_HALF`` in speaking order (the declarer's
left-hand defender first; a third call is the first defender's return of whist after a
half-whist).

The rules live once, in the compiled :func:`auction_state`, which the simulator calls
on int64 call arrays; the functions here wrap it and raise ``ValueError`` on bad input.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from prefstats.cards import popcount
from prefstats.contracts import LEVEL, MISERE, N_CONTRACTS, Contract, parse_contract
from prefstats.variants import Variant

PASS = N_CONTRACTS
N_BIDDERS = 3


def call_name(call: int) -> str:
    """``"pass"`` or the contract's name."""
    return "pass" if call == PASS else str(Contract(call))


def parse_call(text: str) -> int:
    """A call from text: ``"pass"`` (``"пас"``) or a contract such as ``"7♥"``."""
    return PASS if text.strip().lower() in ("pass", "пас") else parse_contract(text).code


HOLD_MODES = ("senior", "first_hand", "none")
HOLD_SENIOR, HOLD_FIRST_HAND, HOLD_NONE = range(3)
_LEVEL = np.asarray(LEVEL, dtype=np.int64)


@njit(cache=True)
def _legal_mask(speaker, high, high_bidder, spoken, misere_bidder, hold, jump_bids, min_level):
    """Bit ``c`` set for each call ``c`` open to ``speaker`` (see :func:`legal_calls`)."""
    mask = 1 << PASS
    if speaker == misere_bidder:
        return mask  # the misère bidder may not bid again
    senior = speaker < high_bidder if hold == HOLD_SENIOR else speaker == 0
    if high >= 0 and high != MISERE and hold != HOLD_NONE and senior:
        mask |= 1 << high  # "here": a senior player takes the current bid
    first_call = not (spoken >> speaker) & 1
    if first_call and high < MISERE:
        mask |= 1 << MISERE
    low = high + 1
    top = N_CONTRACTS
    if not (jump_bids or first_call or high < 0):
        low = high + 2 if high + 1 == MISERE else high + 1  # next trick step only
        top = min(low + 1, N_CONTRACTS)
    for bid in range(low, top):
        if bid != MISERE and _LEVEL[bid] >= min_level:
            mask |= 1 << bid
    return mask


@njit(cache=True)
def _next_speaker(speaker, passed, high_bidder):
    """The next seat clockwise still in, -1 when the auction is over."""
    left = N_BIDDERS - popcount(passed)
    if left == 0 or (left == 1 and high_bidder >= 0 and not (passed >> high_bidder) & 1):
        return -1
    for step in range(1, N_BIDDERS + 1):
        seat = (speaker + step) % N_BIDDERS
        if not (passed >> seat) & 1:
            return seat
    return -1


@njit(cache=True)
def auction_state(history, hold, jump_bids, min_level):
    """Replay ``history`` (int64 array of calls) and return the auction's state.

    Returns ``(speaker, high, high_bidder, passed, legal, bad)``: the seat to speak (-1
    when over), the high bid and its bidder (-1 if none), a bit mask of seats that
    passed, the bit mask of legal next calls (0 when over) and the index of the first
    illegal call in ``history`` (-1 if none; the state is then the one before it).
    ``hold`` indexes ``HOLD_MODES``. Compiled: the simulator calls it directly.
    """
    speaker, high, high_bidder, passed, spoken, misere_bidder = 0, -1, -1, 0, 0, -1
    for i in range(len(history)):
        call = history[i]
        legal = 0
        if speaker >= 0:
            legal = _legal_mask(
                speaker, high, high_bidder, spoken, misere_bidder, hold, jump_bids, min_level
            )
        if call < 0 or call > PASS or not (legal >> call) & 1:
            return speaker, high, high_bidder, passed, legal, i
        spoken |= 1 << speaker
        if call == PASS:
            passed |= 1 << speaker
        else:
            high, high_bidder = call, speaker
            if call == MISERE:
                misere_bidder = speaker
        speaker = _next_speaker(speaker, passed, high_bidder)
    legal = 0
    if speaker >= 0:
        legal = _legal_mask(
            speaker, high, high_bidder, spoken, misere_bidder, hold, jump_bids, min_level
        )
    return speaker, high, high_bidder, passed, legal, -1


def auction_options(variant: Variant, after_raspasy: bool = False) -> tuple[int, bool, int]:
    """``(hold, jump_bids, min_level)`` of ``variant`` as :func:`auction_state` takes them."""
    min_level = variant.raspasy_exit if after_raspasy else 6
    return HOLD_MODES.index(variant.hold), variant.jump_bids, min_level


def _replay(history: Sequence[int], variant: Variant, after_raspasy: bool) -> tuple:
    calls = np.asarray(history, dtype=np.int64).reshape(-1)
    state = auction_state(calls, *auction_options(variant, after_raspasy))
    bad = state[-1]
    if bad >= 0:
        call = int(calls[bad])
        name = call_name(call) if 0 <= call <= PASS else repr(call)
        over = ": the auction is over" if state[0] < 0 else ""
        raise ValueError(f"illegal call {name} by seat {state[0]}{over}")
    return state


def legal_calls(
    history: Sequence[int], variant: Variant, *, after_raspasy: bool = False
) -> list[int]:
    """Calls the next player may make, ascending with ``PASS`` first; ``[]`` when over.

    Rules: a bid is above the current one (any jump when ``jump_bids``, else the next
    trick step, except a player's first bid); ``hold`` lets a senior player take the
    current bid; misère only as a player's first call, never held, and its bidder may
    only pass afterwards; after a raspasy no bid below ``raspasy_exit`` (``min_bid``).
    An illegal history raises ``ValueError``.

    >>> from prefstats.variants import get_variant
    >>> v = get_variant("leningrad")
    >>> call_name(legal_calls([], v, after_raspasy=True)[1])
    '7♠'
    """
    legal = _replay(history, variant, after_raspasy)[4]
    return [c for c in (PASS, *range(N_CONTRACTS)) if legal >> c & 1]


def next_speaker(
    history: Sequence[int], variant: Variant, *, after_raspasy: bool = False
) -> int | None:
    """Seat (0..2 from the dealer's left) to call next, ``None`` when the auction is over."""
    speaker = _replay(history, variant, after_raspasy)[0]
    return None if speaker < 0 else speaker


def auction_result(
    history: Sequence[int], variant: Variant, *, after_raspasy: bool = False
) -> tuple[int, int] | None:
    """``(declarer, bid)`` of a finished auction, ``None`` for raspasy (all passed).

    An illegal or unfinished history raises ``ValueError``.
    """
    speaker, high, high_bidder, passed = _replay(history, variant, after_raspasy)[:4]
    if speaker >= 0:
        raise ValueError("the auction is not over")
    return None if passed == 0b111 else (high_bidder, high)


def legal_contracts(bid: int) -> list[int]:
    """Contracts the declarer may name after winning with ``bid`` (RULES.md §3).

    >>> [str(Contract(c)) for c in legal_contracts(parse_call("10♥"))]
    ['10♥', '10NT']
    """
    if bid == MISERE:
        return [MISERE]
    return [c for c in range(bid, N_CONTRACTS) if c != MISERE]


# ---- whist -----------------------------------------------------------------------------

W_PASS, W_WHIST, W_HALF = 0, 1, 2
WHIST_CALL_NAMES = ("pass", "whist", "half")


@njit(cache=True)
def whist_state(contract, calls, half_whist, ten_checked, stalingrad):
    """Replay the defenders' whist ``calls`` (int64 array) on ``contract``.

    Returns ``(legal, speaker, first, second, bad)``: the bit mask of the ``W_*`` calls
    open to the next caller (0 when whisting is over), who calls next (0 the first
    defender, 1 the second, -1 when over), the final roles of the first and second
    defender as ``W_*`` codes once over (-1 before, and for misère), and the index of the
    first illegal call (-1 if none; the state is then the one before it). A returned
    half-whist gives roles ``(W_WHIST, W_HALF)``; a ``ten_checked`` 10 and Stalingrad's
    6♠ give ``(W_WHIST, W_WHIST)``. Compiled: the simulator calls it directly.
    """
    level = _LEVEL[contract]
    both = 1 << W_PASS | 1 << W_WHIST
    if contract == MISERE:
        legal, speaker, first, second = 0, -1, -1, -1
    elif ten_checked and level == 10:  # always played by both, no calls
        legal, speaker, first, second = 0, -1, W_WHIST, W_WHIST
    else:
        legal, speaker, first, second = both, 0, -1, -1
        if stalingrad and contract == 0:
            legal = 1 << W_WHIST  # 6♠ must be whisted by both
    for i in range(len(calls)):
        call = calls[i]
        if call < 0 or call > W_HALF or not (legal >> call) & 1:
            return legal, speaker, first, second, i
        if i == 0:
            legal, speaker = both, 1
            if stalingrad and contract == 0:
                legal = 1 << W_WHIST
            elif call == W_PASS and level <= 7 and half_whist:
                legal |= 1 << W_HALF
        elif i == 1 and call == W_HALF:
            legal, speaker = both, 0  # the first defender may return the whist
        else:
            first = calls[2] if i == 2 else calls[0]
            legal, speaker, second = 0, -1, calls[1]
    return legal, speaker, first, second, -1


@njit(cache=True)
def game_played(first, second):
    """Whether a trick game whose defenders' roles are ``first``, ``second`` (``W_*``) is
    played: not when both pass or a half-whist stands (the declarer is credited)."""
    return not (first == W_PASS and second in (W_PASS, W_HALF))


def whist_options(variant: Variant) -> tuple[bool, bool, bool]:
    """``(half_whist, ten_checked, stalingrad)`` of ``variant`` as :func:`whist_state`
    takes them."""
    return variant.half_whist, variant.ten_checked, variant.stalingrad


def _replay_whist(contract: int, calls: Sequence[int], variant: Variant) -> tuple:
    """:func:`whist_state` of ``calls``; an illegal call raises ``ValueError``."""
    code = Contract(contract).code
    # anything but a whist call becomes -1, which the kernel reports as illegal
    array = np.array(
        [int(c) if isinstance(c, int | np.integer) and 0 <= c <= W_HALF else -1 for c in calls],
        dtype=np.int64,
    )
    state = whist_state(code, array, *whist_options(variant))
    bad = state[-1]
    if bad >= 0:
        raise ValueError(f"illegal whist call {calls[bad]!r} at position {bad}")
    return state


def legal_whist_calls(contract: int, calls: Sequence[int], variant: Variant) -> list[int]:
    """Whist calls open to the next defender, ``[]`` when whisting is over.

    ``calls`` are the defenders' calls so far in speaking order. Misère has no whist;
    with ``ten_checked`` a 10-level game is always played by both (no calls); with
    ``stalingrad`` 6♠ must be whisted by both. ``half`` is open to the second defender
    after the first passed, on a 6 or 7, when ``half_whist`` is on; the first may then
    return the whist. An illegal sequence raises ``ValueError``.

    >>> from prefstats.variants import get_variant
    >>> legal_whist_calls(parse_call("7♦"), [W_PASS], get_variant("sochi"))
    [0, 1, 2]
    """
    legal = _replay_whist(contract, calls, variant)[0]
    return [c for c in (W_PASS, W_WHIST, W_HALF) if legal >> c & 1]


def whist_outcome(contract: int, calls: Sequence[int], variant: Variant) -> tuple[str, str]:
    """What each defender (first, second) does, as :meth:`ScoreSheet.record_game` takes it.

    ``("whist", "half")`` is a half-whist whose whist the first defender returned: he
    whists alone and the half-whister counts as a passer. Games without whist calls
    (``ten_checked`` 10s) give ``("whist", "whist")``. An illegal or unfinished sequence
    raises ``ValueError``.

    >>> from prefstats.variants import get_variant
    >>> whist_outcome(parse_call("6♥"), [W_PASS, W_HALF, W_PASS], get_variant("sochi"))
    ('pass', 'half')
    """
    legal, _, first, second, _ = _replay_whist(contract, calls, variant)
    if legal:
        raise ValueError("whisting is not over")
    if first < 0:
        raise ValueError("misère has no whist")
    return WHIST_CALL_NAMES[first], WHIST_CALL_NAMES[second]
