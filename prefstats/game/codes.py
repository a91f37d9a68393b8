"""The game's codes, each named once: deal kinds, strains, whist calls, seats, the
raspasy talon's modes, and the type aliases of card masks.

Every other module imports its codes from here, so a value means one thing everywhere
(a dataset's ``kind`` column, the engine's state, the scoring kernels). Each code is
defined once, in an ``IntEnum`` (Python code and users print it by name); the module
constants beside each enum (``RASPASY``, ``W_HALF`` ...) are its members' plain ``int``
values, which compiled code reads: numba types an enum member as its own type, which
does not unify with a narrower integer (``x = RASPASY if ... else st.kind`` with an
``int8`` field fails to compile), while an ``int`` global is a constant like any other.

>>> Kind(3), Kind.GAME == 1
(<Kind.RASPASY: 3>, True)
>>> Strain.NO_TRUMP, NO_TRUMP, NO_TRUMP_SUIT
(<Strain.NO_TRUMP: 4>, 4, -1)
>>> SEAT_NAMES[Seat.DEALER], WHIST_CALL_NAMES[WhistCall.HALF]
('dealer', 'half')
"""

from __future__ import annotations

from enum import IntEnum
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["Kind", "RaspasyTalon", "Seat", "Strain", "TableFormat", "WhistCall"]

#: A set of cards as a 32-bit mask: bit ``8 * suit + rank`` per card (python-chess's
#: ``Bitboard``); a Python ``int`` or a numpy unsigned integer.
CardMask: TypeAlias = int
#: An array of card masks, ``uint32`` (a dataset's hand columns, ``Deals.hands``).
CardMasks: TypeAlias = npt.NDArray[np.uint32]


class Kind(IntEnum):
    """What a deal became: the engine's ``kind`` and a dataset's ``kind`` column.

    >>> Kind(2).name, int(Kind.RASPASY)
    ('MISERE', 3)
    """

    UNDECIDED = 0  # still in the auction, or a pulka's deal stopped by the preference
    GAME = 1  # a trick contract
    MISERE = 2  # misère: the declarer must take no trick
    RASPASY = 3  # all passed: everybody plays to take few tricks


UNDECIDED, GAME, MISERE_GAME, RASPASY = (int(k) for k in Kind)
#: ``Kind``'s names as the data spells them, by code.
KINDS = tuple(k.name.lower() for k in Kind)


class Strain(IntEnum):
    """The five strains of a contract, in ladder order (a contract's ``strain``).

    >>> [s.name for s in Strain]
    ['SPADES', 'CLUBS', 'DIAMONDS', 'HEARTS', 'NO_TRUMP']
    """

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3
    NO_TRUMP = 4  # the fifth strain, above the four suits


NO_TRUMP = int(Strain.NO_TRUMP)
#: The trump *suit* argument of the trick kernels when no suit is trump (no-trumps,
#: misère, raspasy): not a strain, as no card's suit is -1.
NO_TRUMP_SUIT = -1


class WhistCall(IntEnum):
    """A defender's call after the contract (RULES.md §5).

    >>> WhistCall(1).name
    'WHIST'
    """

    PASS = 0
    WHIST = 1
    HALF = 2  # the second defender "goes for his own" on a 6 or 7 (B:241)


W_PASS, W_WHIST, W_HALF = (int(c) for c in WhistCall)
#: The calls as the data, the score files and the command line spell them.
WHIST_CALL_NAMES = tuple(c.name.lower() for c in WhistCall)


class Seat(IntEnum):
    """Seats from the dealer's left; the 4-player dealer sits out as seat 3, and with 5
    players the next to deal as seat 4 (B:474).

    >>> Seat.FIRST_HAND < Seat.DEALER == 3
    True
    """

    FIRST_HAND = 0
    SECOND_HAND = 1
    THIRD_HAND = 2
    DEALER = 3
    NEXT_TO_DEAL = 4


#: Seat names by seat (``SEAT_NAMES[:3]`` for a 3-player table).
SEAT_NAMES = tuple(s.name.lower().replace("_", " ") for s in Seat)


class TableFormat(IntEnum):
    """How the table is seated: the variant's ``table``, by its index in
    ``TABLE_FORMATS``. Every rule that depends on the table reads this, never the
    number of players.

    >>> TableFormat.DUMMY.value
    1
    """

    THREE = 0  # three players, each dealing in turn and playing every deal
    DUMMY = 1  # Gusarik: two players and a dummy dealt the third hand (B:380-386)
    DEALER_OUT = 2  # four or five players, the dealer (and with five the next to deal) out


THREE_HANDED, WITH_DUMMY, DEALER_SITS_OUT = (int(t) for t in TableFormat)
#: ``table`` option values, by code.
TABLE_FORMATS = tuple(t.name.lower() for t in TableFormat)
#: The numbers of players each table format seats (seats 0..2 always hold hands: the
#: dummy is seat 2); five at a ``dealer_out`` table (B:474): the next to deal sits out too.
TABLE_PLAYERS = ((3,), (2,), (4, 5))


class RaspasyTalon(IntEnum):
    """What the talon does on a raspasy: the variant's ``raspasy_talon``, by its index in
    ``RASPASY_TALON_MODES``. Not to be confused with a bid *without the talon*
    (``auction.NO_TALON_BID``), where the declarer forgoes the talon.

    >>> RaspasyTalon(1).name
    'DEALER'
    """

    SUIT_LEAD = 0  # its cards set the first hand's lead on tricks 1-2
    DEALER = 1  # its cards are led for the 4-player dealer, who may take the tricks
    NONE = 2  # it is not used


SUIT_LEAD, DEALER_TALON, TALON_UNUSED = (int(m) for m in RaspasyTalon)
#: ``raspasy_talon`` option values, by code.
RASPASY_TALON_MODES = tuple(m.name.lower() for m in RaspasyTalon)
