"""Auction and whist calls (RULES.md §2–§4) as pure functions on compact integer calls.

A bid is its contract code 0..25 (see :mod:`prefstats.game.contracts`), ``PASS`` is 26, and
taking the current bid ("here", the hold) is written as the same code again. The three
active seats bid in order 0, 1, 2 from the dealer's left; a pass is final, so a history
of calls alone tells who made each call.

>>> from prefstats.game.variants import get_variant
>>> sochi = get_variant("sochi")
>>> h = [parse_call(c) for c in ("6♠", "6♣")]
>>> [call_name(c) for c in legal_calls(h, sochi)]  # the third hand: the next step only
['pass', '6♦', 'misère']
>>> h += [PASS]
>>> [call_name(c) for c in legal_calls(h, sochi)]  # first hand, senior: "here" or 6♦
['pass', '6♣', '6♦']
>>> auction_result(h + [PASS], sochi)
(1, 1)

Whist calls are ``W_PASS``, ``W_WHIST`` and ``W_HALF`` in speaking order (the declarer's
left-hand defender first; a third call is the first defender's return of whist after a
half-whist).

The rules live once, in the compiled :func:`_auction_state`, which the simulator calls
on int64 call arrays; the functions here wrap it and raise a ``PrefstatsError`` on bad input.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.errors import IllegalActionError, OptionError, VariantError
from prefstats.game.cards import popcount
from prefstats.game.codes import W_HALF, W_PASS, W_WHIST, WHIST_CALL_NAMES
from prefstats.game.contracts import (
    LEVEL,
    MISERE,
    N_CONTRACTS,
    Contract,
    contract_code,
    parse_contract,
)
from prefstats.game.variants import Variant

PASS = N_CONTRACTS
#: A pass in the dark (``blind_pass``): a first call made before anyone bids.
BLIND_PASS = PASS + 1
#: "I bid in the dark" (``dark_bids``): said at a first call before looking at one's
#: cards; the same player then makes his (dark) bid.
DARK = PASS + 2
#: A bid without the talon (``no_talon_bids``) is its contract's code plus this.
NO_TALON_BID = 32
#: Calls are 0 .. N_CALLS - 1 (a bit each in the legal masks).
N_CALLS = NO_TALON_BID + N_CONTRACTS
N_BIDDERS = 3
_SPECIAL_NAMES = {PASS: "pass", BLIND_PASS: "blind pass", DARK: "dark"}


def call_name(call: int) -> str:
    """``"pass"``, ``"blind pass"``, ``"dark"`` or the contract's name (``"7♥ nt"`` for a
    bid without the talon).

    >>> call_name(parse_call("7♥ without talon")), call_name(BLIND_PASS)
    ('7♥ nt', 'blind pass')
    """
    if call in _SPECIAL_NAMES:
        return _SPECIAL_NAMES[call]
    if call >= NO_TALON_BID:
        return f"{Contract(call - NO_TALON_BID)} nt"
    return str(Contract(call))


_NO_TALON_SUFFIXES = (" without talon", " nt", " без прикупа")


def parse_call(text: str) -> int:
    """A call from text: ``"pass"`` (``"пас"``), ``"blind pass"``, ``"dark"``, or a
    contract such as ``"7♥"``, with ``" nt"`` / ``" without talon"`` for a bid without
    the talon."""
    key = " ".join(text.strip().lower().split())
    for code, name in _SPECIAL_NAMES.items():
        if key == name:
            return code
    if key == "пас":
        return PASS
    for suffix in _NO_TALON_SUFFIXES:
        if key.endswith(suffix):
            return NO_TALON_BID + parse_contract(key.removesuffix(suffix)).code
    return parse_contract(text).code


#: Misère's places on the ladder (``misere_place``, RULES.md §2): above the eights
#: (B:185, B:418), above the nines (B:187 "between nine and ten"), above everything
#: (B:187 "higher than all other bids").
MISERE_PLACES = ("over_eight", "over_nine", "top")


@functools.cache  # read-only, shared by every call
def ladder_rank(no_talon_bids: bool = False, misere_place: str = "over_eight") -> np.ndarray:
    """Rank of every call on the bidding ladder (-1: not a bid of this ladder), int64.

    A level's bids without the talon rank above all its bids with it and below the next
    level with it (B:418). ``misere_place``: ``"over_eight"``, misère sits above the
    eights, so a nine overcalls it, and misère without the talon above the nines with
    the talon, so only a nine without the talon or a ten overcalls it (B:418, B:185);
    ``"over_nine"`` (B:187, by agreement "between nine and ten"): both misères above
    every nine and below the tens; ``"top"`` (B:187, by agreement "higher than all other
    bids"): both above every trick bid, misère without the talon above misère with it.

    >>> r = ladder_rank(True)
    >>> names = sorted((c for c in range(N_CALLS) if r[c] >= 0), key=lambda c: r[c])
    >>> [call_name(c) for c in names[29:32]] + [call_name(c) for c in names[35:37]]
    ['8NT nt', 'misère', '9♠', '9NT', 'misère nt']
    >>> top = ladder_rank(True, "top")
    >>> [call_name(c) for c in sorted(range(N_CALLS), key=lambda c: top[c])[-3:]]
    ['10NT nt', 'misère', 'misère nt']
    """
    if misere_place not in MISERE_PLACES:
        raise VariantError(f"misere_place: {misere_place!r} is not one of {MISERE_PLACES}")

    def level(lv: int, no_talon: bool) -> list[int]:
        base = [c for c in range(N_CONTRACTS) if LEVEL[c] == lv]
        return [c + NO_TALON_BID for c in base] if no_talon else base

    talons = (False, True) if no_talon_bids else (False,)
    misere, misere_nt = [MISERE], [MISERE + NO_TALON_BID] if no_talon_bids else []
    over_eight = misere_place == "over_eight"
    order: list[int] = []
    for lv in (6, 7, 8, 9, 10):
        if lv == 9 and over_eight:
            order += misere
        if lv == 10 and misere_place == "over_nine":
            order += misere + misere_nt
        for nt in talons:
            order += level(lv, nt)
            if lv == 9 and not nt and over_eight:
                order += misere_nt
    if misere_place == "top":
        order += misere + misere_nt
    rank = np.full(N_CALLS, -1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    rank.flags.writeable = False
    return rank


def variant_ladder(variant: Variant) -> np.ndarray:
    """:func:`ladder_rank` of ``variant``."""
    return ladder_rank(variant.no_talon_bids, variant.misere_place)


def dark_misere_floor(variant: Variant) -> int:
    """With ``dark_misere_high`` (B:105: a dark misère "can be stopped only by a dark nine
    or a light ten"), the ladder rank a bid made in the light must exceed over a dark
    misère: the rank just below 10♠; -1 without the option."""
    if not variant.dark_misere_high:
        return -1
    return int(variant_ladder(variant)[contract_code(10, 0)]) - 1


HOLD_MODES = ("senior", "first_hand", "none")
HOLD_SENIOR, HOLD_FIRST_HAND, HOLD_NONE = range(3)
_LEVEL = np.asarray(LEVEL, dtype=np.int64)


@njit(cache=True)
def _is_misere(call):
    return call == MISERE or call == MISERE + NO_TALON_BID


@njit(cache=True)
def _bids(floor, first_call, low_level, jump_bids, rank):
    """Bit mask of the bids ranked above ``floor`` (misère only as a first call), of
    level ``low_level`` or more. Without ``jump_bids`` (B:95, B:541) only the next step: the
    lowest such bid with the talon and the lowest without it (B:418), the opening bid
    included -- misère stays a first call wherever it is above the high bid."""
    step, step_nt = N_CALLS, N_CALLS  # the next step with the talon, without it
    mask = 0
    for c in range(N_CALLS):
        if rank[c] <= floor:
            continue
        if _is_misere(c):
            if first_call:
                mask |= 1 << c
        elif _LEVEL[c % NO_TALON_BID] >= low_level:
            if jump_bids:
                mask |= 1 << c
            elif c < NO_TALON_BID:
                if step == N_CALLS or rank[c] < rank[step]:
                    step = c
            elif step_nt == N_CALLS or rank[c] < rank[step_nt]:
                step_nt = c
    if step < N_CALLS:
        mask |= 1 << step
    if step_nt < N_CALLS:
        mask |= 1 << step_nt
    return mask


class AuctionRules(NamedTuple):
    """A variant's auction as :func:`_auction_state` takes it (:func:`auction_options`):
    ``hold`` indexes ``HOLD_MODES``, ``rank`` is :func:`ladder_rank`, ``dummy`` the
    Gusarik dummy's seat (-1: none), which never bids, ``dark_misere``
    :func:`dark_misere_floor`, ``dark_seven`` whether only a seven or more overcalls a
    trick bid made in the dark (``dark_overcall = "seven"``, B:422); ``min_level`` is
    the deal's lowest bid level (raised after a raspasy)."""

    hold: int
    jump_bids: bool
    min_level: int
    rank: np.ndarray
    dummy: int
    dark_bids: bool
    blind_pass: bool
    dark_misere: int
    dark_seven: bool


@njit(cache=True)
def _legal_mask(speaker, high, high_bidder, spoken, misere_bidder, dark, blind, options):
    """Bit ``c`` set for each call ``c`` open to ``speaker`` (see :func:`legal_calls`)
    under ``options`` (an :class:`AuctionRules`)."""
    hold, jump_bids, min_level, rank, _, dark_bids, blind_pass, dark_misere, dark_seven = (
        options)
    if speaker == misere_bidder:
        return 1 << PASS  # the misère bidder may not bid again
    first_call = not (spoken >> speaker) & 1
    senior = speaker < high_bidder if hold == HOLD_SENIOR else speaker == 0
    over_dark = high >= 0 and not _is_misere(high) and (dark >> high_bidder) & 1
    low_level = max(min_level, 7) if dark_seven and over_dark else min_level
    hold_bit = 0
    if high >= 0 and not _is_misere(high) and hold != HOLD_NONE and senior and \
            _LEVEL[high % NO_TALON_BID] >= low_level:
        hold_bit = 1 << high  # "here": a senior player takes the current bid
    going_dark = first_call and (dark >> speaker) & 1  # he said "dark": now he bids
    floor = -1 if high < 0 else rank[high]
    dark_floor = floor  # what a bid in the dark must beat
    if dark_misere >= 0 and _is_misere(high) and (dark >> high_bidder) & 1:
        floor = max(floor, dark_misere)  # B:105: only a dark nine or a light ten
    if going_dark:
        return hold_bit | _bids(dark_floor, True, low_level, jump_bids, rank)
    # after a blind pass, only a bid of 7 or more (misère included) or a dark one
    light_level = max(low_level, 7) if blind else low_level
    bids = hold_bit | _bids(floor, first_call, light_level, jump_bids, rank)
    mask = 1 << PASS | bids
    if first_call and dark_bids:  # "dark" only if a bid can follow it
        dark_calls = hold_bit | _bids(dark_floor, True, low_level, jump_bids, rank)
        if dark_calls:
            mask |= 1 << DARK
    if first_call and blind_pass and high < 0:
        mask |= 1 << BLIND_PASS
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
def _auction_state(history, options, trusted=0):
    """Replay ``history`` (int64 array of calls) under ``options`` (an
    :class:`AuctionRules`) and return the auction's state.

    Returns ``(speaker, high, high_bidder, passed, legal, bad, dark, blind)``: the seat to
    speak (-1 when over), the high bid and its bidder (-1 if none), a bit mask of seats
    that passed, the bit mask of legal next calls (0 when over), the index of the first
    illegal call in ``history`` (-1 if none; the state is then the one before it), and
    bit masks of the seats that bid in the dark and that passed blind. The first
    ``trusted`` calls are known legal (a history the engine built): they are replayed
    without checking, which saves computing the legal calls at every step. Compiled:
    the simulator calls it directly.
    """
    speaker, high, high_bidder, passed, spoken, misere_bidder = 0, -1, -1, 0, 0, -1
    dark, blind = 0, 0
    dummy = options.dummy
    if dummy >= 0:
        passed = 1 << dummy
        speaker = _next_speaker(dummy, passed, -1)
    for i in range(len(history)):
        call = history[i]
        legal = 0
        if i < trusted:
            legal = 1 << call
        elif speaker >= 0:
            legal = _legal_mask(speaker, high, high_bidder, spoken, misere_bidder, dark, blind,
                                options)
        if call < 0 or call >= N_CALLS or not (legal >> call) & 1:
            return speaker, high, high_bidder, passed, legal, i, dark, blind
        if call == DARK:
            dark |= 1 << speaker
            continue  # the same player now makes his bid
        spoken |= 1 << speaker
        if call == PASS or call == BLIND_PASS:  # noqa: SIM109 (numba: mixed int types)
            passed |= 1 << speaker
            if call == BLIND_PASS:
                blind |= 1 << speaker
        else:
            high, high_bidder = call, speaker
            if _is_misere(call):
                misere_bidder = speaker
        speaker = _next_speaker(speaker, passed, high_bidder)
    legal = 0
    if speaker >= 0:
        legal = _legal_mask(speaker, high, high_bidder, spoken, misere_bidder, dark, blind,
                            options)
    return speaker, high, high_bidder, passed, legal, -1, dark, blind


def auction_options(variant: Variant, after_raspasy: bool = False) -> AuctionRules:
    """``variant``'s auction as :func:`_auction_state` takes it."""
    min_level = variant.raspasy_exit if after_raspasy else 6
    return AuctionRules(HOLD_MODES.index(variant.hold), bool(variant.jump_bids), min_level,
                        variant_ladder(variant), dummy_seat(variant), bool(variant.dark_bids),
                        bool(variant.blind_pass), dark_misere_floor(variant),
                        variant.dark_overcall == "seven")


def dummy_seat(variant: Variant) -> int:
    """Seat of Gusarik's open dummy (the third hand, seat 2) or -1 without one."""
    return 2 if variant.has_dummy else -1


def _replay(history: Sequence[int], variant: Variant, after_raspasy: bool) -> tuple:
    calls = np.asarray(history, dtype=np.int64).reshape(-1)
    state = _auction_state(calls, auction_options(variant, after_raspasy))
    bad = state[5]
    if bad >= 0:
        call = int(calls[bad])
        known = 0 <= call <= DARK or NO_TALON_BID <= call < N_CALLS
        name = call_name(call) if known else repr(call)
        over = ": the auction is over" if state[0] < 0 else ""
        raise IllegalActionError(f"illegal call {name} by seat {state[0]}{over}")
    return state


_CALL_ORDER = (PASS, BLIND_PASS, DARK, *range(N_CONTRACTS), *range(NO_TALON_BID, N_CALLS))


def legal_calls(
    history: Sequence[int], variant: Variant, *, after_raspasy: bool = False
) -> list[int]:
    """Calls the next player may make, ascending with ``PASS`` first; ``[]`` when over.

    Rules: a bid is above the current one (any jump when ``jump_bids``, else only the
    next step of the ladder, the opening bid included: 6♠, or 7♠ after a Leningrad
    raspasy; with ``no_talon_bids`` also the next bid without the talon); ``hold`` lets
    a senior player take the current bid; misère only as a player's first call, never
    held, and its bidder may only pass afterwards; after a raspasy no bid below
    ``raspasy_exit`` (``min_bid``).
    An illegal history raises ``IllegalActionError``.

    >>> from prefstats.game.variants import get_variant
    >>> v = get_variant("leningrad")
    >>> call_name(legal_calls([], v, after_raspasy=True)[1])
    '7♠'
    """
    legal = _replay(history, variant, after_raspasy)[4]
    return [c for c in _CALL_ORDER if legal >> c & 1]


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

    An illegal or unfinished history raises ``IllegalActionError``.
    """
    speaker, high, high_bidder, passed = _replay(history, variant, after_raspasy)[:4]
    if speaker >= 0:
        raise IllegalActionError("the auction is not over")
    return None if passed == 0b111 else (high_bidder, high)


def legal_contracts(bid: int, variant: Variant | None = None) -> list[int]:
    """Contract codes the declarer may name after winning with ``bid`` (RULES.md §3):
    misère after misère, else a trick contract not below the bid on ``variant``'s
    ladder, without the talon if the bid was.

    >>> [str(Contract(c)) for c in legal_contracts(parse_call("10♥"))]
    ['10♥', '10NT']
    """
    no_talon = bid >= NO_TALON_BID
    if bid % NO_TALON_BID == MISERE:
        return [MISERE]
    rank = ladder_rank(no_talon) if variant is None else variant_ladder(variant)
    shift = NO_TALON_BID if no_talon else 0
    return [c for c in range(N_CONTRACTS) if c != MISERE and rank[c + shift] >= rank[bid]]


# ---- whist -----------------------------------------------------------------------------



@njit(cache=True)
def whist_state(contract, calls, half_whist, ten_checked, stalingrad, dummy):
    """Replay the defenders' whist ``calls`` (int64 array) on ``contract``.

    Returns ``(legal, speaker, first, second, bad)``: the bit mask of the ``W_*`` calls
    open to the next caller (0 when whisting is over), who calls next (0 the first
    defender, 1 the second, -1 when over), the final roles of the first and second
    defender as ``W_*`` codes once over (-1 before, and for misère), and the index of the
    first illegal call (-1 if none; the state is then the one before it). A returned
    half-whist gives roles ``(W_WHIST, W_HALF)``; a ``ten_checked`` 10 and Stalingrad's
    6♠ give ``(W_WHIST, W_WHIST)``. ``dummy`` is the Gusarik dummy's place among the
    defenders (0 first, 1 second, -1 none): the dummy's role is always ``W_PASS`` and
    the other defender makes one call -- whist (with the dummy), pass, or on a 6 or 7
    with ``half_whist`` half (he leaves the obligatory tricks). Compiled: the simulator
    calls it directly.
    """
    level = _LEVEL[contract]
    both = 1 << W_PASS | 1 << W_WHIST
    if contract == MISERE:
        return 0, -1, -1, -1, 0 if len(calls) else -1
    if dummy >= 0:
        player = 1 - dummy
        legal = both
        if (ten_checked and level == 10) or (stalingrad and contract == 0):
            legal = 1 << W_WHIST
        elif half_whist and level <= 7:
            legal |= 1 << W_HALF
        if len(calls) == 0:
            return legal, player, -1, -1, -1
        call = calls[0]
        if call < 0 or call > W_HALF or not (legal >> call) & 1:
            return legal, player, -1, -1, 0
        if len(calls) > 1:
            return 0, -1, -1, -1, 1
        roles = (call, W_PASS) if player == 0 else (W_PASS, call)
        return 0, -1, roles[0], roles[1], -1
    if ten_checked and level == 10:  # always played by both, no calls
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
    played: only when someone whists (after both pass or a standing half-whist the
    declarer is credited)."""
    return first == W_WHIST or second == W_WHIST


def whist_options(variant: Variant, declarer: int | None = None) -> tuple[bool, bool, bool, int]:
    """``(half_whist, ten_checked, stalingrad, dummy)`` of ``variant`` as
    :func:`whist_state` takes them; ``dummy`` (Gusarik) depends on the ``declarer``."""
    dummy = dummy_seat(variant)
    if dummy >= 0:
        if declarer is None or declarer == dummy:
            raise OptionError(f"declarer: with a dummy name the declaring player, got {declarer!r}")
        dummy = 0 if (declarer + 1) % 3 == dummy else 1
    return variant.half_whist, variant.ten_checked, variant.stalingrad, dummy


def _replay_whist(contract: int, calls: Sequence[int], variant: Variant,
                  declarer: int | None = None) -> tuple:
    """:func:`whist_state` of ``calls``; an illegal call raises ``IllegalActionError``."""
    code = Contract(contract).code
    # anything but a whist call becomes -1, which the kernel reports as illegal
    array = np.array(
        [int(c) if isinstance(c, int | np.integer) and 0 <= c <= W_HALF else -1 for c in calls],
        dtype=np.int64,
    )
    state = whist_state(code, array, *whist_options(variant, declarer))
    bad = state[-1]
    if bad >= 0:
        raise IllegalActionError(f"illegal whist call {calls[bad]!r} at position {bad}")
    return state


def legal_whist_calls(contract: int, calls: Sequence[int], variant: Variant,
                      declarer: int | None = None) -> list[int]:
    """Whist calls open to the next defender, ``[]`` when whisting is over.

    ``calls`` are the defenders' calls so far in speaking order. Misère has no whist;
    with ``ten_checked`` a 10-level game is always played by both (no calls); with
    ``stalingrad`` 6♠ must be whisted by both. ``half`` is open to the second defender
    after the first passed, on a 6 or 7, when ``half_whist`` is on; the first may then
    return the whist. With Gusarik's dummy (``declarer`` then needed) the other defender
    makes the one call. An illegal sequence raises ``IllegalActionError``.

    >>> from prefstats.game.variants import get_variant
    >>> legal_whist_calls(parse_call("7♦"), [W_PASS], get_variant("leningrad"))
    [0, 1, 2]
    """
    legal = _replay_whist(contract, calls, variant, declarer)[0]
    return [int(c) for c in (W_PASS, W_WHIST, W_HALF) if legal >> c & 1]


def whist_outcome(contract: int, calls: Sequence[int], variant: Variant,
                  declarer: int | None = None) -> tuple[str, str]:
    """What each defender (first, second) does, as :meth:`ScoreSheet.record_game` takes it.

    ``("whist", "half")`` is a half-whist whose whist the first defender returned: he
    whists alone and the half-whister counts as a passer. Games without whist calls
    (``ten_checked`` 10s) give ``("whist", "whist")``. An illegal or unfinished sequence
    raises ``IllegalActionError``.

    >>> from prefstats.game.variants import get_variant
    >>> whist_outcome(parse_call("6♥"), [W_PASS, W_HALF, W_PASS], get_variant("leningrad"))
    ('pass', 'half')
    """
    legal, _, first, second, _ = _replay_whist(contract, calls, variant, declarer)
    if legal:
        raise IllegalActionError("whisting is not over")
    if first < 0:
        raise IllegalActionError("misère has no whist")
    return WHIST_CALL_NAMES[first], WHIST_CALL_NAMES[second]
