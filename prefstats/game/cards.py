"""Cards and sets of cards as 32-bit masks.

A card's index is ``8 * suit + rank``: suits 0..3 are ♠ ♣ ♦ ♥ (their bidding order),
ranks 0..7 are 7 8 9 10 J Q K A. A set of cards -- a hand, the talon (прикуп), a
discard -- is a ``uint32`` with bit ``c`` set for each card ``c``. The same layout is
the on-disk format of hand columns.

>>> hand = parse_cards("♠AKQ ♣7 ♥10 9 8")
>>> format_cards(hand)
'♠AKQ ♣7 ♥1098'
>>> int(suit_lengths(np.array([hand], dtype=np.uint32))[0, 0])
3
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from prefstats.errors import CardError

__all__ = ["card_index", "card_name", "cards_of", "format_cards", "parse_cards", "suit_lengths"]

SUITS = "♠♣♦♥"
SUIT_LETTERS = "SCDH"
SUIT_NAMES = ("spades", "clubs", "diamonds", "hearts")
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")

SPADES, CLUBS, DIAMONDS, HEARTS = range(4)
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)

N_CARDS = 32
FULL_DECK = 0xFFFFFFFF
#: Mask of all eight cards of each suit.
SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))
#: Mask of the four cards of each rank.
RANK_MASKS = tuple(sum(1 << (8 * s + r) for s in range(4)) for r in range(8))

_SUIT_OF_CHAR = {ch: i for i, ch in enumerate(SUITS)}
_SUIT_OF_CHAR.update({ch: i for i, ch in enumerate(SUIT_LETTERS)})
_SUIT_OF_CHAR.update({ch.lower(): i for i, ch in enumerate(SUIT_LETTERS)})
_RANK_OF_CHAR = {"7": 0, "8": 1, "9": 2, "T": 3, "J": 4, "Q": 5, "K": 6, "A": 7}
_SEPARATORS = re.compile(r"[\s,;]+")


def card_index(rank: int, suit: int) -> int:
    """Index of the card of ``rank`` (0 = seven .. 7 = ace) in ``suit``.

    >>> card_index(7, 0), card_index(0, 3)  # the ace of spades, the seven of hearts
    (7, 24)
    """
    return 8 * suit + rank


def card_name(card: int) -> str:
    """Name of one card index.

    >>> card_name(31), card_name(3)
    ('A♥', '10♠')
    """
    if not 0 <= card < N_CARDS:
        raise CardError(f"card index {card} is outside 0..31")
    return RANKS[card & 7] + SUITS[card >> 3]


def cards_of(mask: int) -> list[int]:
    """Indices of the cards in ``mask``, ascending.

    >>> cards_of(parse_cards("♠A ♥7"))
    [7, 24]
    """
    mask = int(mask)
    return [c for c in range(N_CARDS) if mask >> c & 1]


def _parse_ranks(text: str, token: str) -> list[int]:
    """Ranks in a run such as ``AKQ``, ``T98`` or ``109``; ``-`` is a void."""
    ranks = []
    i = 0
    text = text.upper()
    while i < len(text):
        if text.startswith("10", i):
            ranks.append(TEN)
            i += 2
        elif text[i] in _RANK_OF_CHAR:
            ranks.append(_RANK_OF_CHAR[text[i]])
            i += 1
        elif text[i] == "-" and len(text) == 1:
            i += 1
        else:
            raise CardError(f"bad card token {token!r}: {text[i]!r} is not a rank")
    return ranks


def parse_cards(text: str) -> int:
    """Parse a set of cards into a mask.

    Suit groups with symbols or letters (``"♠AKQ ♣7 ♥10 9 8"``, ``"S:AKQ C:7 H:T98"``,
    ``-`` or nothing for a void) and single cards written rank first (``"As 10d Q♥"``).
    Ranks are ``7 8 9 10|T J Q K A``, case-insensitive.

    >>> parse_cards("S:A") == parse_cards("As") == 1 << 7
    True

    :param text: the cards.
    :returns: the mask of the cards.
    :raises CardError: naming the token for anything else, and for a card named twice.
    """
    if not isinstance(text, str):
        raise CardError(f"parse_cards expects a string, got {type(text).__name__}")
    mask = 0
    suit: int | None = None
    for token in _SEPARATORS.split(text.strip()):
        if not token or token == "-":  # "-" alone: an empty set or a void
            continue
        if token[0] in _SUIT_OF_CHAR:
            suit = _SUIT_OF_CHAR[token[0]]
            ranks = _parse_ranks(token[1:].lstrip(":"), token)
            cards = [card_index(r, suit) for r in ranks]
        elif token[-1] in _SUIT_OF_CHAR and len(token) > 1:
            ranks = _parse_ranks(token[:-1], token)
            if len(ranks) != 1:
                raise CardError(f"bad card token {token!r}: expected one rank before the suit")
            cards = [card_index(ranks[0], _SUIT_OF_CHAR[token[-1]])]
            suit = None
        elif suit is not None:
            cards = [card_index(r, suit) for r in _parse_ranks(token, token)]
        else:
            raise CardError(f"bad card token {token!r}: no suit given for these ranks")
        for c in cards:
            if mask >> c & 1:
                raise CardError(f"bad card token {token!r}: {card_name(c)} is named twice")
            mask |= 1 << c
    return mask


def format_cards(mask: int, *, voids: bool = False) -> str:
    """Write a mask as suit groups, highest rank first: ``'♠AKQ ♣7 ♥1098'``.

    The empty set is ``'-'``; ``parse_cards(format_cards(m)) == m`` for every mask.

    >>> format_cards(parse_cards("S:AKQ H:T9"))
    '♠AKQ ♥109'
    >>> format_cards(parse_cards("♠AKQ"), voids=True)
    '♠AKQ ♣- ♦- ♥-'

    :param mask: the cards.
    :param voids: show void suits too (as ``♦-``); by default they are left out.
    :returns: the cards as text.
    """
    mask = int(mask)
    if not 0 <= mask <= FULL_DECK:
        raise CardError(f"{mask} is not a 32-bit card mask")
    groups = []
    for s in range(4):
        holding = mask >> (8 * s) & 0xFF
        if holding or voids:
            ranks = "".join(RANKS[r] for r in range(7, -1, -1) if holding >> r & 1)
            groups.append(SUITS[s] + (ranks or "-"))
    return " ".join(groups) if groups else "-"


# ---- bit helpers for compiled code (one copy for the solver, engine and players) -------


def _low32(builder, x, mask):
    """LLVM code: the low 32 bits of the integer ``x`` of numba type ``mask``."""
    width = mask.bitwidth
    if width > 32:
        return builder.trunc(x, ir.IntType(32))
    if width < 32:
        extend = builder.sext if mask.signed else builder.zext
        return extend(x, ir.IntType(32))
    return x


def _bit_intrinsic(emit, doc: str, arity: int = 1):
    """A numba intrinsic applying the LLVM instruction ``emit(builder, *x32)`` to the
    low 32 bits of ``arity`` (1 or 2) integers, returning an int64."""

    def typed(*masks):
        if not all(isinstance(m, types.Integer) for m in masks):
            return None

        def codegen(context, builder, signature, args):
            low = [_low32(builder, x, m) for x, m in zip(args, masks, strict=True)]
            return builder.zext(emit(builder, *low), ir.IntType(64))

        return types.int64(*masks), codegen

    # numba's intrinsics take no *args: one typer per arity.
    if arity == 1:
        def typer(typingctx, x):
            return typed(x)
    else:
        def typer(typingctx, x, m):  # type: ignore[misc]
            return typed(x, m)

    typer.__doc__ = doc
    return intrinsic(typer)


def _llvm_function(name: str, arity: int):
    """``emit`` for :func:`_bit_intrinsic`: a call of the 32-bit LLVM intrinsic ``name``."""

    def emit(builder, *x32):
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module,
                                            ir.FunctionType(i32, [i32] * arity), name)
        return builder.call(fn, list(x32))

    return emit


_ctpop32 = _bit_intrinsic(lambda b, x: b.ctpop(x),
                          "Bits set in the low 32 bits: LLVM's ``ctpop`` (one POPCNT).")
_cttz32 = _bit_intrinsic(lambda b, x: b.cttz(x, ir.Constant(ir.IntType(1), 0)),
                         "Trailing zeros of the low 32 bits (32 when all are zero): "
                         "LLVM's ``cttz`` (one TZCNT/BSF).")
_ctlz32 = _bit_intrinsic(lambda b, x: b.ctlz(x, ir.Constant(ir.IntType(1), 0)),
                         "Leading zeros of the low 32 bits (32 when all are zero): "
                         "LLVM's ``ctlz`` (one LZCNT/BSR).")
_pext32 = _bit_intrinsic(_llvm_function("llvm.x86.bmi.pext.32", 2),
                         "BMI2's PEXT of the low 32 bits of ``x`` by those of ``m``.", arity=2)
_pdep32 = _bit_intrinsic(_llvm_function("llvm.x86.bmi.pdep.32", 2),
                         "BMI2's PDEP of the low 32 bits of ``x`` by those of ``m``.", arity=2)


@njit(cache=True, inline="always")
def popcount(mask: int) -> int:
    """Number of cards in a 32-bit mask (bits above the 32nd are not counted); one
    POPCNT instruction in compiled code.

    >>> popcount(0b1011)
    3
    """
    return _ctpop32(mask)


@njit(cache=True, inline="always")
def lowest_card(mask: int) -> int:
    """Index of the lowest card of a non-empty mask (32 for an empty one).

    >>> lowest_card(0b1000)
    3
    """
    return _cttz32(mask)


@njit(cache=True, inline="always")
def highest_card(mask: int) -> int:
    """Index of the highest card of a non-empty mask (-1 for an empty one).

    >>> highest_card(0b1010)
    3
    """
    return 31 - _ctlz32(mask)


@njit(cache=True)
def nth_card(mask: int, n: int) -> int:
    """Index of the ``n``-th lowest card of ``mask`` (0-based; ``n`` < its size).

    >>> nth_card(0b10110, 1)
    2
    """
    for _ in range(n):
        mask &= mask - 1
    return lowest_card(mask)


#: SplitMix64's increment (2^64 / golden ratio): the step of every counter-based stream.
GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def splitmix64(z):
    """SplitMix64's finaliser of a ``uint64``: a bijection on 64 bits with full
    avalanche, the one mixer of the deal streams, the samplers and the players' keys.

    >>> int(splitmix64(np.uint64(0)))
    0
    >>> hex(splitmix64(GOLDEN_GAMMA))
    '0xe220a8397b1dcdaf'
    """
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


_LOW32 = np.int64(0xFFFFFFFF)


@njit(cache=True)
def popcount64(mask: int) -> int:
    """Bits set in a 64-bit mask (the players' masks of calls reach bit 57).

    >>> popcount64((1 << 40) | 0b11)
    3
    """
    return popcount(mask & _LOW32) + popcount(mask >> 32)


@njit(cache=True)
def nth_bit64(mask: int, n: int) -> int:
    """Index of the ``n``-th lowest set bit of a 64-bit mask (0-based; ``n`` < its count).

    >>> nth_bit64((1 << 40) | 0b11, 2)
    40
    """
    low = popcount(mask & _LOW32)
    if n < low:
        return nth_card(mask & _LOW32, n)
    return 32 + nth_card(mask >> 32, n - low)
def _bit_tables() -> tuple[np.ndarray, np.ndarray]:
    """``PEXT[m, x]`` packs the bits of ``x`` selected by ``m`` down; ``PDEP`` is its inverse."""
    m = np.arange(256)[:, None]
    x = np.arange(256)[None, :]
    pext = np.zeros((256, 256), dtype=np.int64)
    pdep = np.zeros((256, 256), dtype=np.int64)
    k = np.zeros((256, 1), dtype=np.int64)
    for b in range(8):
        mb = (m >> b) & 1
        pext |= ((x >> b) & 1) * mb << k
        pdep |= ((x >> k) & 1) * mb << b
        k = k + mb
    return pext.astype(np.uint8), pdep.astype(np.uint8)


PEXT, PDEP = _bit_tables()


def _fast_bmi2() -> bool:
    """Whether numba compiles for a CPU with fast PEXT / PDEP instructions (BMI2; on
    AMD from Zen 3 on, earlier ones run them in microcode)."""
    if numba.config.CPU_NAME or numba.config.CPU_FEATURES:  # a portable target
        return False
    try:
        name = llvm.get_host_cpu_name()
        bmi2 = bool(llvm.get_host_cpu_features().get("bmi2"))
    except RuntimeError:
        return False
    return bmi2 and not name.startswith(("znver1", "znver2", "bdver", "btver"))


FAST_BMI2 = _fast_bmi2()


@njit(cache=True, inline="always", error_model="numpy")
def _pext_hw(x, m):
    return _pext32(x, m)


@njit(cache=True, inline="always", error_model="numpy")
def _pdep_hw(x, m):
    return _pdep32(x, m)


@njit(cache=True, inline="always", error_model="numpy")
def _pext_tables(x, m):
    r = 0
    k = 0
    for sh in range(0, 32, 8):
        mb = (m >> sh) & 0xFF
        r |= np.int64(PEXT[mb, (x >> sh) & 0xFF]) << k  # type: ignore[assignment]
        k += popcount(mb)
    return r


@njit(cache=True, inline="always", error_model="numpy")
def _pdep_tables(x, m):
    r = 0
    k = 0
    for sh in range(0, 32, 8):
        mb = (m >> sh) & 0xFF
        r |= np.int64(PDEP[mb, (x >> k) & 0xFF]) << sh  # type: ignore[assignment]
        k += popcount(mb)
    return r


#: ``pext(x, m)`` packs the bits of the 32-bit ``x`` selected by ``m`` down; ``pdep`` is
#: its inverse: one instruction each where they are fast, else four table look-ups.
pext = _pext_hw if FAST_BMI2 else _pext_tables
pdep = _pdep_hw if FAST_BMI2 else _pdep_tables


# ---- vectorised helpers over uint32 arrays -------------------------------------------

_SHIFTS = np.array([0, 8, 16, 24], dtype=np.uint32)
#: HIGHEST_RANK[h] is the highest rank in an 8-bit suit holding ``h`` (-1 when void).
HIGHEST_RANK = np.array([-1] + [int(h).bit_length() - 1 for h in range(1, 256)], dtype=np.int8)
#: LOWEST_RANK[h] is the lowest rank in holding ``h`` (-1 when void).
LOWEST_RANK = np.array([-1] + [(h & -h).bit_length() - 1 for h in range(1, 256)], dtype=np.int8)


def as_masks(masks) -> np.ndarray:
    """``masks`` as a uint32 array (no copy when it already is one)."""
    return np.asarray(masks, dtype=np.uint32)


def card_counts(masks) -> np.ndarray:
    """Number of cards in each mask (uint8, same shape)."""
    return np.bitwise_count(as_masks(masks))


def suit_holdings(masks) -> np.ndarray:
    """The 8-bit holding of each suit: shape ``(..., 4)``, uint8, bit r = rank r."""
    m = as_masks(masks)
    return ((m[..., None] >> _SHIFTS) & 0xFF).astype(np.uint8)


def suit_lengths(masks: int | npt.ArrayLike) -> np.ndarray:
    """Count the cards held in each suit.

    >>> suit_lengths(parse_cards("♠AKQ ♥10 9")).tolist()
    [3, 0, 0, 2]

    :param masks: one mask or an array of masks.
    :returns: the lengths, shape ``(..., 4)``, uint8, in the order ♠ ♣ ♦ ♥.
    """
    return np.bitwise_count(suit_holdings(masks))


def highest_in_suit(masks, suit: int) -> np.ndarray:
    """Highest rank held in ``suit`` (0 = seven .. 7 = ace), -1 where void; int8."""
    return HIGHEST_RANK[(as_masks(masks) >> (8 * suit)) & 0xFF]


def count_rank(masks, rank: int) -> np.ndarray:
    """How many cards of ``rank`` (e.g. ``ACE``) each mask holds; uint8."""
    return np.bitwise_count(as_masks(masks) & np.uint32(RANK_MASKS[rank]))


def honours(masks, ranks: tuple[int, ...] = (ACE, KING)) -> np.ndarray:
    """Number of honour cards of the given ranks (default aces and kings); uint8."""
    sel = 0
    for r in ranks:
        sel |= RANK_MASKS[r]
    return np.bitwise_count(as_masks(masks) & np.uint32(sel))


def top_sequence(masks, suit: int) -> np.ndarray:
    """Length of the unbroken run of top cards (A, AK, AKQ, …) held in ``suit``; uint8."""
    h = ((as_masks(masks) >> (8 * suit)) & 0xFF).astype(np.uint16)
    # Count leading ones of the 8-bit holding: complement, then the highest zero bit.
    inv = (~h) & 0xFF
    return (7 - HIGHEST_RANK[inv]).astype(np.uint8)
