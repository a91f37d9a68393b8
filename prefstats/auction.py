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
"""

from __future__ import annotations

from collections.abc import Sequence

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


def _next_trick_bid(high: int) -> int | None:
    """The lowest trick contract above ``high`` (skipping misère), ``None`` above 10NT."""
    nxt = high + 1 if high + 1 != MISERE else high + 2
    return nxt if nxt < N_CONTRACTS else None


class _Auction:
    """State of an auction after some calls; every call is checked as it is replayed."""

    def __init__(self, variant: Variant, min_level: int) -> None:
        self.variant = variant
        self.min_level = min_level
        self.passed = [False] * N_BIDDERS
        self.spoken = [False] * N_BIDDERS
        self.misere_bidder: int | None = None
        self.high: int | None = None
        self.high_bidder: int | None = None
        self.speaker: int | None = 0

    def legal(self) -> list[int]:
        """Legal calls of the player to speak: ``PASS`` first, then bids ascending."""
        i = self.speaker
        if i is None:
            return []
        calls = [PASS]
        if self.misere_bidder == i:
            return calls  # the misère bidder may not bid again
        v = self.variant
        high = -1 if self.high is None else self.high
        if high >= 0 and high != MISERE:
            may_hold = {"senior": i < self.high_bidder, "first_hand": i == 0, "none": False}
            if may_hold[v.hold]:
                calls.append(high)
        if not self.spoken[i] and high < MISERE:
            calls.append(MISERE)
        first_bid = not self.spoken[i]
        if v.jump_bids or first_bid or high < 0:
            above = range(high + 1, N_CONTRACTS)
        else:
            nxt = _next_trick_bid(high)
            above = [] if nxt is None else [nxt]
        calls += [b for b in above if b != MISERE and LEVEL[b] >= self.min_level]
        return sorted(calls, key=lambda c: -1 if c == PASS else c)

    def play(self, call: int) -> None:
        if call not in self.legal():
            name = call_name(call) if 0 <= call <= PASS else repr(call)
            over = ": the auction is over" if self.speaker is None else ""
            raise ValueError(f"illegal call {name} by seat {self.speaker}{over}")
        i = self.speaker
        self.spoken[i] = True
        if call == PASS:
            self.passed[i] = True
        else:
            self.high, self.high_bidder = call, i
            if call == MISERE:
                self.misere_bidder = i
        self.speaker = self._next_speaker(i)

    def _next_speaker(self, i: int) -> int | None:
        left = [s for s in range(N_BIDDERS) if not self.passed[s]]
        if not left or left == [self.high_bidder]:
            return None
        for step in range(1, N_BIDDERS + 1):
            s = (i + step) % N_BIDDERS
            if not self.passed[s]:
                return s
        raise AssertionError("unreachable: someone has not passed")


def _replay(history: Sequence[int], variant: Variant, after_raspasy: bool) -> _Auction:
    state = _Auction(variant, variant.raspasy_exit if after_raspasy else 6)
    for call in history:
        state.play(int(call))
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
    return _replay(history, variant, after_raspasy).legal()


def next_speaker(
    history: Sequence[int], variant: Variant, *, after_raspasy: bool = False
) -> int | None:
    """Seat (0..2 from the dealer's left) to call next, ``None`` when the auction is over."""
    return _replay(history, variant, after_raspasy).speaker


def auction_result(
    history: Sequence[int], variant: Variant, *, after_raspasy: bool = False
) -> tuple[int, int] | None:
    """``(declarer, bid)`` of a finished auction, ``None`` for raspasy (all passed).

    An illegal or unfinished history raises ``ValueError``.
    """
    state = _replay(history, variant, after_raspasy)
    if state.speaker is not None:
        raise ValueError("the auction is not over")
    return None if all(state.passed) else (state.high_bidder, state.high)


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


def legal_whist_calls(contract: int, calls: Sequence[int], variant: Variant) -> list[int]:
    """Whist calls open to the next defender, ``[]`` when whisting is over.

    ``calls`` are the defenders' calls so far in speaking order. Misère has no whist;
    with ``ten_checked`` a 10-level game is always played by both (no calls); with
    ``stalingrad`` 6♠ must be whisted by both. ``half`` is open to the second defender
    after the first passed, on a 6 or 7, when ``half_whist`` is on; the first may then
    return the whist.

    >>> from prefstats.variants import get_variant
    >>> legal_whist_calls(parse_call("7♦"), [W_PASS], get_variant("sochi"))
    [0, 1, 2]
    """
    level = int(LEVEL[contract])
    if contract == MISERE or (variant.ten_checked and level == 10):
        return []
    if variant.stalingrad and contract == 0:
        return [W_WHIST] if len(calls) < 2 else []
    if len(calls) == 0:
        return [W_PASS, W_WHIST]
    if len(calls) == 1:
        half = calls[0] == W_PASS and level <= 7 and variant.half_whist
        return [W_PASS, W_WHIST, W_HALF] if half else [W_PASS, W_WHIST]
    if len(calls) == 2 and calls[1] == W_HALF:
        return [W_PASS, W_WHIST]
    return []


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
    for i, call in enumerate(calls):
        if call not in legal_whist_calls(contract, calls[:i], variant):
            raise ValueError(f"illegal whist call {call!r} at position {i}")
    if legal_whist_calls(contract, calls, variant):
        raise ValueError("whisting is not over")
    if contract == MISERE:
        raise ValueError("misère has no whist")
    if not calls:
        return ("whist", "whist")
    first, second = (WHIST_CALL_NAMES[c] for c in calls[:2])
    if second == "half":
        first = WHIST_CALL_NAMES[calls[2]]
    return first, second
