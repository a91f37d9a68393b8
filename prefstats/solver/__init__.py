"""Double-dummy solver: tricks the declarer takes when all cards are known.

Exact minimax for three hands of equal size (1-10 cards): the declarer maximises his
tricks against two cooperating defenders, or, on misère (no trumps), minimises them.
Seats 0, 1, 2 play clockwise in that order; ``trump`` is a suit index or ``None``. How
the search works (bounds, transposition and endgame tables, memory) is in the docs,
"Counterfactual advice and the solver".

The checked functions here validate every argument and raise a ``PrefstatsError``
naming it; the compiled layer, which trusts its inputs, is in private modules. The
kernels numba code calls (``solve_kernel``, ``solve_position``, ``card_values_kernel``,
``card_values_batch_kernel``, ``best_card_kernel``, ``best_card_among``,
``catching_card``) are re-exported here.

>>> from prefstats.game.cards import parse_cards as p
>>> solve([p("♠AK"), p("♠QJ"), p("♠87")], trump=None, leader=0, declarer=0)
2
>>> solve([p("♠A7"), p("♠KQ"), p("♥87")], trump=3, leader=1, declarer=0)
0
>>> solve([p("♠A7"), p("♠KQ"), p("♥87")], trump=None, leader=0, declarer=0, misere=True)
1
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
import numpy.typing as npt

from prefstats.errors import CardError, IllegalActionError, OptionError
from prefstats.game.cards import N_CARDS, format_cards
from prefstats.game.tricks import legal_cards
from prefstats.solver._batch import _batch_kernel, _leads_one
from prefstats.solver._records import Decision, Game, decision_of, game_of
from prefstats.solver._search import (
    card_values_batch_kernel,
    card_values_kernel,
    compile_search,
    solve_kernel,
    solve_position,
)
from prefstats.solver._table import TT_BITS, TT_ENTRY_BYTES, TT_SIZE, Table, new_table
from prefstats.solver._worlds import best_card_among, best_card_kernel, catching_card

# The checked functions, the table and its size, then the compiled layer (trusts its
# inputs; for callers in numba code): solve_kernel, solve_position, card_values_kernel,
# card_values_batch_kernel, best_card_kernel, best_card_among, catching_card, and the
# records they take (Table, Game, Decision; game_of and decision_of make the last two).
__all__ = ["best_card", "card_values", "card_values_batch", "solve", "solve_batch", "solve_leads"]

_table: Table | None = None


def _single_table() -> Table:
    """The table of single-position calls, made once and kept (entries stay valid)."""
    global _table
    if _table is None:
        _table = new_table(1).thread(0)
    return _table


def _check_hands(hands: np.ndarray) -> None:
    """Raise ``CardError`` unless every row is three disjoint equal-size masks of 1-10 cards."""
    def where(i: int) -> str:
        return "hands" if len(hands) == 1 else f"hands of row {i}"

    sizes = np.bitwise_count(hands)
    bad = np.flatnonzero((sizes != sizes[:, :1]).any(axis=1))
    if bad.size:
        i = bad[0]
        raise CardError(f"{where(i)} have unequal sizes {sizes[i].tolist()}")
    bad = np.flatnonzero((sizes[:, 0] < 1) | (sizes[:, 0] > 10))
    if bad.size:
        raise CardError(f"{where(bad[0])} hold {sizes[bad[0], 0]} cards each, not 1 to 10")
    h0, h1, h2 = hands.T
    overlap = (h0 & h1) | (h0 & h2) | (h1 & h2)
    bad = np.flatnonzero(overlap)
    if bad.size:
        i = bad[0]
        raise CardError(f"{where(i)} overlap in {format_cards(int(overlap[i]))}")


def _broadcast(col: np.ndarray, n: int, name: str) -> np.ndarray:
    """``col`` as a contiguous length-n column, or ``OptionError`` naming the argument."""
    if col.ndim > 1 or (col.ndim == 1 and len(col) not in (1, n)):
        raise OptionError(f"{name} must be a scalar or have length {n}, got shape {col.shape}")
    return np.ascontiguousarray(np.broadcast_to(col, (n,)))


def _column(value, n: int, name: str, low: int, high: int) -> np.ndarray:
    """A scalar or length-n integer argument as an int64 column checked to lie in low..high."""
    if value is None and name == "trump":
        value = -1
    col = np.asarray(value)
    if col.dtype == object:
        col = np.where(col == None, -1, col).astype(np.int64)  # noqa: E711 - elementwise
    if col.dtype.kind not in "iub":
        raise OptionError(f"{name} must be integers, got {col.dtype}")
    col = _broadcast(col.astype(np.int64), n, name)
    if col.size and (col.min() < low or col.max() > high):
        bad = col[(col < low) | (col > high)][0]
        raise OptionError(f"{name} must lie in {low}..{high}, got {bad}")
    return col


def _mask_rows(hands, dtype, rows: str = "n") -> np.ndarray:
    """``hands`` as a contiguous (rows, 3) array of 32-bit card masks, or a ``PrefstatsError``."""
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise OptionError(f"hands must have shape ({rows}, 3), got {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 0xFFFFFFFF):
        raise CardError("hands must be 32-bit card masks")
    return np.ascontiguousarray(arr, dtype=dtype)


def _prepare(hands, trump, leader, declarer, misere):
    arr = _mask_rows(hands, np.uint32)
    n = len(arr)
    if n:
        _check_hands(arr)
    mis = _broadcast(np.asarray(misere, dtype=np.bool_), n, "misere")
    tr = np.where(mis, -1, _column(trump, n, "trump", -1, 3))  # misère has no trumps
    return (arr, _column(leader, n, "leader", 0, 2), _column(declarer, n, "declarer", 0, 2),
            tr, mis)


def _run_batch(hands, trump, leader, declarer, misere, *, leads: bool, threads: int | None):
    arr, lead, decl, tr, mis = _prepare(hands, trump, leader, declarer, misere)
    n_threads = max(1, min(threads or numba.get_num_threads(), len(arr) or 1))
    out = np.full((len(arr), N_CARDS if leads else 1), -1, dtype=np.int8)
    if len(arr):
        tables = new_table(n_threads)
        _batch_kernel(arr, lead, decl, tr, mis, leads, tables._replace(endgame=tables.endgame[0]),
                      out)
    return out


def solve_batch(hands: npt.ArrayLike, trump: int | Sequence[int | None] | np.ndarray | None,
                leader: int | npt.ArrayLike, declarer: int | npt.ArrayLike,
                misere: bool | npt.ArrayLike = False, *, threads: int | None = None
                ) -> np.ndarray:
    """Declarer's tricks for each row of ``hands`` (shape (n, 3)), as an int8 array.

    ``trump`` (-1 or ``None`` for no trumps), ``leader``, ``declarer`` and ``misere`` are
    scalars or length-n arrays. Rows are spread over ``threads`` cores (default: all),
    each thread with its own transposition table.

    >>> from prefstats.game.cards import parse_cards as p
    >>> solve_batch([[p("♠A"), p("♠K"), p("♥7")]] * 2, [3, None], 1, 0).tolist()
    [0, 1]
    """
    return _run_batch(hands, trump, leader, declarer, misere, leads=False, threads=threads)[:, 0]


def solve_leads_batch(hands, trump, leader, declarer, misere=False, *,
                      threads: int | None = None) -> np.ndarray:
    """Declarer's tricks after each first card of the leader: (n, 32) int8, -1 if not held."""
    return _run_batch(hands, trump, leader, declarer, misere, leads=True, threads=threads)


def _one_row(hands: Sequence[int]) -> np.ndarray:
    if len(hands) != 3:
        raise CardError(f"expected three hands, got {len(hands)}")
    return np.array([[int(h) for h in hands]], dtype=np.int64)


def solve(hands: Sequence[int], *, trump: int | None, leader: int, declarer: int,
          misere: bool = False) -> int:
    """Count the tricks the declarer takes under perfect play by all (see the module text).

    >>> from prefstats.game.cards import parse_cards as p
    >>> solve([p("♠A ♥7"), p("♠K ♥8"), p("♠7 ♥A")], trump=None, leader=0, declarer=0)
    1

    :param hands: the three seats' cards (masks).
    :param trump: the trump suit, or None for no trump.
    :param leader: the seat on lead.
    :param declarer: the declarer's seat.
    :param misere: the contract is a misère (the declarer takes as few tricks as he can).
    :returns: the declarer's tricks.
    :raises PrefstatsError: naming what is wrong with the position (a ``CardError`` for the
        cards).
    """
    arr, lead, decl, tr, mis = _prepare(_one_row(hands), trump, leader, declarer, misere)
    h = arr[0].astype(np.int64)
    return int(solve_kernel(h[0], h[1], h[2], lead[0], decl[0], tr[0], mis[0],
                            _single_table()))


def solve_leads(hands: Sequence[int], *, trump: int | None, leader: int, declarer: int,
                misere: bool = False) -> dict[int, int]:
    """Declarer's tricks after each card the leader may lead: ``{card index: tricks}``.

    >>> from prefstats.game.cards import card_name, parse_cards as p
    >>> leads = solve_leads([p("♠AK"), p("♠Q ♥A"), p("♠8 ♥7")], trump=None, leader=0, declarer=0)
    >>> {card_name(c): t for c, t in leads.items()}
    {'K♠': 2, 'A♠': 2}
    """
    arr, lead, decl, tr, mis = _prepare(_one_row(hands), trump, leader, declarer, misere)
    h = arr[0].astype(np.int64)
    out = np.empty(N_CARDS, dtype=np.int8)
    _leads_one(h, lead[0], decl[0], tr[0], mis[0], _single_table(), out)
    return {c: int(out[c]) for c in range(N_CARDS) if out[c] >= 0}


# ---- values of every card, inside a trick too (for search players) -----------------------


def _prepare_position(hands, trick: Sequence[int], trump, leader: int, declarer: int,
                      misere: bool) -> tuple[np.ndarray, np.ndarray, int, int, int, int]:
    """Checked int64 worlds (K, 3), the trick as int64 (3,), and trump, leader,
    declarer, misère as compiled arguments; a ``PrefstatsError`` naming what is wrong."""
    arr = _mask_rows(hands, np.int64, "k")
    cards = [int(c) for c in trick]
    if len(cards) > 2:
        raise CardError(f"a trick on the table holds 0 to 2 cards, got {len(cards)}")
    if any(not 0 <= c < N_CARDS for c in cards) or len(set(cards)) != len(cards):
        raise CardError(f"trick cards must be distinct card indices 0..31, got {cards}")
    lead, decl = (int(_column(v, 1, name, 0, 2)[0])
                  for v, name in ((leader, "leader"), (declarer, "declarer")))
    tr = -1 if misere else int(_column(trump, 1, "trump", -1, 3)[0])
    on_table = sum(1 << c for c in cards)
    sizes = np.bitwise_count(arr.astype(np.uint32))
    # The seats that played to the trick hold a card fewer than the seat to move.
    played = np.array([(s - lead) % 3 < len(cards) for s in range(3)])
    for i, (row, size) in enumerate(zip(arr, sizes, strict=True)):
        where = "hands" if len(arr) == 1 else f"hands of row {i}"
        n = int(size[(lead + len(cards)) % 3])
        if not 1 <= n <= 10 or (size != np.where(played, n - 1, n)).any():
            raise CardError(f"{where} hold {size.tolist()} cards: with {len(cards)} on the "
                            f"table led by seat {lead}, the seat to move holds 1 to 10 and "
                            "those who played one fewer")
        overlap = (row[0] & row[1]) | (row[0] & row[2]) | (row[1] & row[2]) | (
            on_table & (row[0] | row[1] | row[2]))
        if overlap:
            raise CardError(f"{where} overlap the other hands or the trick in "
                            f"{format_cards(int(overlap))}")
        for k in range(1, len(cards)):
            seat = (lead + k) % 3
            allowed = legal_cards(int(row[seat]) | 1 << cards[k], cards[0] >> 3, tr)
            if not allowed >> cards[k] & 1:
                raise IllegalActionError(f"{where}: seat {seat} could not play "
                                         f"{format_cards(1 << cards[k])} to this trick")
    padded = np.zeros(3, dtype=np.int64)
    padded[: len(cards)] = cards
    return arr, padded, tr, lead, decl, bool(misere)


def card_values_batch(hands: npt.ArrayLike, *, trump: int | None, leader: int, declarer: int,
                      trick: Sequence[int] = (), misere: bool = False) -> np.ndarray:
    """Values of every card of one decision in each of many worlds: ``(k, 32)`` int8,
    the declarer's tricks from the current trick on after the seat to move plays that
    card, -1 for the cards it may not play there.

    ``hands`` (shape (k, 3)) are the cards each seat still holds in each world (say,
    deals sampled from what the seat to move knows); ``trick`` the cards already played
    to the current trick (0 to 2, in order), led by ``leader``: the seat to move is
    ``(leader + len(trick)) % 3``. The worlds are solved on one core with one
    transposition table, which they share: positions a few tricks on recur across
    worlds. ``trump`` (``None`` for no trumps) is ignored on misère.

    >>> from prefstats.game.cards import card_name, cards_of, parse_cards as p
    >>> v = card_values_batch([[p("♠A9"), p("♠7 ♥7"), p("♥8")]], trump=None, leader=2,
    ...                       declarer=0, trick=cards_of(p("♠K")))  # K♠ led: seat 0 to play
    >>> {card_name(c): int(v[0, c]) for c in range(32) if v[0, c] >= 0}
    {'9♠': 0, 'A♠': 2}
    """
    arr, padded, tr, lead, decl, mis = _prepare_position(hands, trick, trump, leader,
                                                         declarer, misere)
    out = np.full((len(arr), N_CARDS), -1, dtype=np.int8)
    if len(arr):
        card_values_batch_kernel(arr, decision_of(padded, len(trick), lead, decl, tr, mis),
                                 _single_table(), out)
    return out


def card_values(hands: Sequence[int], *, trump: int | None, leader: int, declarer: int,
                trick: Sequence[int] = (), misere: bool = False) -> dict[int, int]:
    """Give the declarer's tricks after each card the seat to move may play.

    The position may be inside a trick (see :func:`card_values_batch`). The declarer's side
    plays the card of the highest value (on misère the lowest), the defence the other
    extreme.

    >>> from prefstats.game.cards import card_name, parse_cards as p
    >>> v = card_values([p("♠AK"), p("♠Q ♥A"), p("♠8 ♥7")], trump=None, leader=0, declarer=0)
    >>> {card_name(c): t for c, t in v.items()}
    {'K♠': 2, 'A♠': 2}

    :param hands: the cards the three seats still hold (masks).
    :param trump: the trump suit, or None for no trump.
    :param leader: the seat that led the current trick.
    :param declarer: the declarer's seat.
    :param trick: the cards on the table, in the order played.
    :param misere: the contract is a misère (the declarer takes as few tricks as he can).
    :returns: ``{card index: tricks}``, the declarer's tricks from the current trick on.
    """
    out = card_values_batch(_one_row(hands), trump=trump, leader=leader, declarer=declarer,
                            trick=trick, misere=misere)[0]
    return {c: int(out[c]) for c in range(N_CARDS) if out[c] >= 0}


def best_card(hands: npt.ArrayLike, *, trump: int | None, leader: int, declarer: int,
              trick: Sequence[int] = (), misere: bool = False) -> int:
    """The card of the seat to move with the best total value over the worlds ``hands``
    (as in :func:`card_values_batch`): the most tricks for the declarer's side, on
    misère the fewest, the other way for the defence; ties go to the lowest card. The
    card the totals of :func:`card_values_batch` pick, found with fewer searches: each
    value is bounded only as far as the choice needs (PIMC's decision).

    >>> from prefstats.game.cards import card_name, cards_of, parse_cards as p
    >>> card_name(best_card([[p("♠A9"), p("♠7 ♥7"), p("♥8")]], trump=None, leader=2,
    ...                     declarer=0, trick=cards_of(p("♠K"))))
    'A♠'
    """
    arr, padded, tr, lead, decl, mis = _prepare_position(hands, trick, trump, leader,
                                                         declarer, misere)
    if not len(arr):
        raise OptionError("hands must hold at least one world")
    return int(best_card_kernel(arr, decision_of(padded, len(trick), lead, decl, tr, mis),
                                _single_table()))
