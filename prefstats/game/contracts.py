"""Contracts and the bidding ladder of RULES.md §2, with prices, obligations and quotas.

A contract is a code 0..25 in ladder order (the simulator stores it as ``uint8``):
6♠ 6♣ 6♦ 6♥ 6NT = 0..4, 7♠..7NT = 5..9, 8♠..8NT = 10..14, misère = 15,
9♠..9NT = 16..20, 10♠..10NT = 21..25. :class:`Contract` wraps one code; the arrays
``LEVEL``, ``TRUMP``, ``STRAIN``, ``PRICE``, ``OBLIGATION`` and ``QUOTA`` give the same facts for
arrays of codes.

>>> c = parse_contract("7NT")
>>> c.code, c.level, c.trump, c.price, c.obligation, c.quota
(9, 7, None, 4, 2, 1)
>>> parse_contract("6S") < parse_contract("6♥") < parse_contract("мизер") < parse_contract("9♠")
True
>>> PRICE[np.array([0, 15, 25], dtype=np.uint8)].tolist()
[2, 10, 10]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from prefstats.errors import ContractError
from prefstats.game.cards import SUIT_LETTERS, SUITS
from prefstats.game.codes import NO_TRUMP, NO_TRUMP_SUIT

__all__ = ["Contract", "parse_contract"]

N_CONTRACTS = 26
MISERE = 15
STRAIN_NAMES = (*SUITS, "NT")

_PRICE_OF_LEVEL = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
#: B:209-211; a ten is "without whists" (a variant may oblige one trick: ``ten_obligation``).
_OBLIGATION_OF_LEVEL = {6: 4, 7: 2, 8: 1, 9: 1, 10: 0}
MISERE_PRICE = 10


def contract_code(level: int, strain: int) -> int:
    """Ladder code of a trick contract; ``strain`` is a suit 0..3 or ``NO_TRUMP``.

    >>> contract_code(8, NO_TRUMP), contract_code(9, 0)
    (14, 16)
    """
    if level not in _PRICE_OF_LEVEL or not 0 <= strain <= NO_TRUMP:
        raise ContractError(f"no contract of level {level} and strain {strain}")
    code = 5 * (level - 6) + strain
    return code + 1 if level >= 9 else code


def _ro(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _table(of_trick_contract, misere_value, dtype) -> np.ndarray:
    values = [of_trick_contract(lv, s) for lv in (6, 7, 8) for s in range(5)]
    values += [misere_value]
    values += [of_trick_contract(lv, s) for lv in (9, 10) for s in range(5)]
    return _ro(np.array(values, dtype=dtype))


#: Level of each code (misère: 0).
LEVEL = _table(lambda lv, s: lv, 0, np.uint8)
#: Trump suit of each code, ``NO_TRUMP_SUIT`` (-1) for no-trumps and misère.
TRUMP = _table(lambda lv, s: s if s < NO_TRUMP else NO_TRUMP_SUIT, NO_TRUMP_SUIT, np.int8)
#: Strain of each code, 0 (♠) to 4 (no trump) (misère: -1).
STRAIN = _table(lambda lv, s: s, -1, np.int8)
#: Price c(L) of each code (misère: 10).
PRICE = _table(lambda lv, s: _PRICE_OF_LEVEL[lv], MISERE_PRICE, np.uint8)
#: Tricks the defenders must take together, ob(L) (misère: 0).
OBLIGATION = _table(lambda lv, s: _OBLIGATION_OF_LEVEL[lv], 0, np.uint8)
#: Personal quota q(L) of each of two whisters (misère: 0).
QUOTA = _table(lambda lv, s: min(2 if lv == 6 else 1, _OBLIGATION_OF_LEVEL[lv]), 0, np.uint8)


@dataclass(frozen=True, order=True)
class Contract:
    """One contract, ordered by the ladder. ``Contract(code)`` or :func:`parse_contract`.

    >>> str(Contract(5)), parse_contract("7NT") > Contract(5)
    ('7♠', True)
    """

    code: int

    def __post_init__(self) -> None:
        if not (isinstance(self.code, int | np.integer) and 0 <= self.code < N_CONTRACTS):
            raise ContractError(f"contract code {self.code!r} is outside 0..25")
        object.__setattr__(self, "code", int(self.code))

    @property
    def is_misere(self) -> bool:
        return self.code == MISERE

    @property
    def level(self) -> int | None:
        """6..10, ``None`` for misère."""
        return None if self.is_misere else int(LEVEL[self.code])

    @property
    def trump(self) -> int | None:
        """Trump suit 0..3, ``None`` for no-trumps and misère."""
        t = int(TRUMP[self.code])
        return None if t < 0 else t

    @property
    def strain(self) -> int | None:
        """Suit 0..3 or ``NO_TRUMP``; ``None`` for misère."""
        if self.is_misere:
            return None
        return NO_TRUMP if self.trump is None else self.trump

    @property
    def price(self) -> int:
        """c(L): 6 → 2, 7 → 4, 8 → 6, 9 → 8, 10 → 10, misère → 10."""
        return int(PRICE[self.code])

    @property
    def obligation(self) -> int:
        """ob(L): tricks the two defenders must take together (0 for misère and, by
        B:211, for a ten)."""
        return int(OBLIGATION[self.code])

    @property
    def quota(self) -> int:
        """q(L): personal quota of each of two whisters (0 for misère)."""
        return int(QUOTA[self.code])

    def __str__(self) -> str:
        if self.is_misere:
            return "misère"
        return f"{self.level}{STRAIN_NAMES[self.strain]}"  # type: ignore[index]  # not misère


_STRAIN_OF_TEXT = {ch: i for i, ch in enumerate(SUITS)}
_STRAIN_OF_TEXT.update({ch: i for i, ch in enumerate(SUIT_LETTERS)})
_STRAIN_OF_TEXT.update({"NT": NO_TRUMP, "БК": NO_TRUMP})
_MISERE_NAMES = ("MISERE", "MISÈRE", "МИЗЕР")
_CONTRACT = re.compile(r"^(10|[6-9])(.+)$")


def parse_contract(text: str) -> Contract:
    """Parse ``"6♠"``, ``"6S"``, ``"7NT"``, ``"7БК"``, ``"misere"`` or ``"мизер"``.

    >>> str(parse_contract("10 h")), str(parse_contract("Misère"))
    ('10♥', 'misère')

    :param text: the contract; case and spaces are ignored.
    :returns: the contract.
    :raises ContractError: for anything else.
    """
    if isinstance(text, Contract):
        return text
    if not isinstance(text, str):
        raise ContractError(f"a contract is written as text like '6♠', got {text!r}")
    key = text.replace(" ", "").upper()
    if key in _MISERE_NAMES:
        return Contract(MISERE)
    m = _CONTRACT.match(key)
    if not m or m[2] not in _STRAIN_OF_TEXT:
        raise ContractError(f"bad contract {text!r}: expected a level 6..10 and ♠ ♣ ♦ ♥ or NT")
    return Contract(contract_code(int(m[1]), _STRAIN_OF_TEXT[m[2]]))


#: Every contract in ladder order.
LADDER = tuple(Contract(c) for c in range(N_CONTRACTS))
