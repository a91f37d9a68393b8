"""Checks of one deal's inputs: each raises ``RecordError`` naming the field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from prefstats.errors import RecordError
from prefstats.game.auction import (
    legal_whist_calls,
    whist_options,
    whist_state,
)
from prefstats.game.cards import card_counts, parse_cards
from prefstats.game.codes import (
    W_HALF,
    W_PASS,
    W_WHIST,
    WHIST_CALL_NAMES,
)
from prefstats.game.contracts import Contract, parse_contract
from prefstats.game.scoring._kernels import idle_seat
from prefstats.game.variants import (
    Variant,
)


def _seat(value: object, n: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value < n:
        raise RecordError(f"{what}: unknown seat {value!r}; players are 0..{n - 1}")
    return int(value)


def _trick_counts(tricks: object, n: int) -> list[int]:
    if isinstance(tricks, str | bytes) or not isinstance(tricks, Sequence | np.ndarray):
        raise RecordError(f"tricks: expected a sequence of {n} trick counts, got {tricks!r}")
    counts = list(tricks)
    if len(counts) != n:
        raise RecordError(f"tricks: expected {n} trick counts, got {len(counts)}")
    for t in counts:
        if isinstance(t, bool) or not isinstance(t, int | np.integer) or not 0 <= t <= 10:
            raise RecordError(f"tricks: {t!r} is not a trick count 0..10")
    return [int(t) for t in counts]


def _dealer(variant: Variant, dealer: object, busy: Sequence[int]) -> int | None:
    """The sitting-out dealer of a ``dealer_out`` table (inferred from the seats in
    ``busy``). At any other table the dealer plays and changes nothing in scoring:
    ``None``.
    """
    n = variant.players
    if dealer is not None:
        dealer = _seat(dealer, n, "dealer")
    if not variant.dealer_sits_out:
        return None
    free = [s for s in range(n) if s not in busy]
    if dealer is None and len(free) == 1:
        return free[0]
    if dealer is None and len(free) == 2:  # five: the dealer has the next to deal on his left
        left = [s for s in free if (s + 1) % n in free]
        dealer = left[0] if len(left) == 1 else None
    if dealer is None or dealer in busy:
        raise RecordError(f"dealer: with {n} players name the dealer's seat, who sits out, "
                          f"got {dealer!r}")
    idle = idle_seat(n, dealer)
    if idle in busy:
        raise RecordError(f"dealer: with 5 players the next to deal (seat {idle}, the "
                          f"dealer's left) sits out too; seat {idle} is named in the deal")
    return dealer


def sitting_out(variant: Variant, dealer: int | None) -> list[int]:
    """The seats that sit the deal out: the dealer at a ``dealer_out`` table, with 5
    players the next to deal too (B:474)."""
    if dealer is None or not variant.dealer_sits_out:
        return []
    idle = idle_seat(variant.players, dealer)
    return [dealer] if idle < 0 else [dealer, idle]


def _whist_map(whist: object, declarer: int, n: int) -> tuple[list[int], list[str]]:
    """The defenders in speaking order and their calls."""
    if not isinstance(whist, Mapping) or len(whist) != 2:
        raise RecordError(f"whist: expected a map of the two defenders to calls, got {whist!r}")
    seats = [_seat(s, n, "whist") for s in whist]
    if declarer in seats:
        raise RecordError(f"whist: the map names the declarer (seat {declarer})")
    calls = list(whist.values())
    for call in calls:
        if call not in WHIST_CALL_NAMES:
            raise RecordError(f"whist: {call!r} is not one of 'whist', 'pass', 'half'")
    return seats, calls


def _contract(value: Contract | str | int) -> Contract:
    return Contract(value) if isinstance(value, int | np.integer) else parse_contract(value)


def _multiplier(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise RecordError(f"multiplier: expected an integer of at least 1, got {value!r}")
    return int(value)


def _talon(value: object) -> int:
    """A talon given as a card mask or as text (``"A♠ K♥"``): two cards, or ``None`` = 0."""
    if value is None:
        return 0
    if isinstance(value, str):
        try:
            value = parse_cards(value)
        except ValueError as exc:
            raise RecordError(f"talon: {exc}") from None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise RecordError(f"talon: expected a card mask or cards like 'A♠ K♥', got {value!r}")
    if not 0 <= value <= 0xFFFFFFFF or int(card_counts(int(value))) != 2:
        raise RecordError(f"talon: {value!r} is not two cards")
    return int(value)


def _duel_role(variant: Variant, declarer: int, code: int, whist: object) -> int:
    """Gusarik: the defending player's call (``W_*``), from ``{defender: call}``."""
    defender = 1 - declarer
    legal = legal_whist_calls(code, [], variant, declarer)
    if whist is None and legal == [W_WHIST]:  # a ten_checked 10 or Stalingrad's 6♠
        return W_WHIST
    if not isinstance(whist, Mapping) or len(whist) != 1:
        raise RecordError(
            f"whist: with 2 players expected a map of the defender (seat {defender}) to "
            f"his call, got {whist!r}"
        )
    ((seat, call),) = whist.items()
    if _seat(seat, 2, "whist") != defender:
        raise RecordError(f"whist: the defender is seat {defender}, not the declarer {declarer}")
    if call not in WHIST_CALL_NAMES:
        raise RecordError(f"whist: {call!r} is not one of 'whist', 'pass', 'half'")
    role = WHIST_CALL_NAMES.index(call)
    if role not in legal:
        open_to = ", ".join(repr(WHIST_CALL_NAMES[c]) for c in legal)
        raise RecordError(f"whist: {call!r} is not open on this contract (only {open_to})")
    return role


def _whist_roles(variant: Variant, contract: int, calls: Sequence[str]) -> tuple[int, int]:
    """The defenders' roles (``W_*``) of the outcome ``calls`` (first, second), checked
    by replaying the whist calls that lead to it."""
    codes = [WHIST_CALL_NAMES.index(call) for call in calls]
    if len(codes) == 2 and codes[1] == W_HALF:  # the first defender passed, then answered
        codes = [W_PASS, W_HALF, codes[0]]
    sequence = np.array(codes, dtype=np.int64)
    _, _, first, second, bad = whist_state(contract, sequence, *whist_options(variant))
    if bad >= 0 and codes[bad] == W_HALF:
        raise RecordError(
            "whist: 'half' is open only to the second defender, on a 6 or 7, with half_whist"
        )
    if bad >= 0:
        raise RecordError("whist: with stalingrad 6♠ must be whisted by both defenders")
    return first, second


def _bomb(variant: Variant, multiplier: object) -> int:
    """A raspasy's ``multiplier`` checked: 1, or a bomb raspasy's power of two."""
    bomb = _multiplier(multiplier)
    if bomb > 1 and not (variant.blind_pass and variant.bomb_level != "passers"):
        raise RecordError("multiplier: a raspasy has one only as a bomb raspasy, with "
                          "blind_pass and bomb_level = 'round' or 'tree'")
    if bomb & (bomb - 1):
        raise RecordError(f"multiplier: a bomb is a power of two (2, 4, 8 ...), got {bomb}")
    return bomb
