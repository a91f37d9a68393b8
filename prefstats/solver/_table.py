"""The transposition table: keys on ranks relative to the cards in play, buckets of
one cache line, and the cards stored in entries in the same relative form (private).

Entries are for one position each. Entries that also hold for the positions differing
only in small cards (the partition search of bridge's double-dummy solvers: each entry
keeps the cards its bounds rest on, found from the tricks won by rank below it) were
built and measured on PIMC's decisions (``scripts/pimc_profile.py``): with 8 cards a
suit nearly every card is relevant, so they saved few nodes and cost more time a node
than they saved.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.game.cards import lowest_card, pdep, pext, popcount
from prefstats.solver._endgame import endgame_table

#: log2 of the number of transposition-table entries per solver thread. 2**14 entries
#: (256 KiB) stay in the core's cache better than 2**15: faster median and mean solves
#: though the largest trees take a few more nodes; 2**16 is slower still.
TT_BITS = 14
TT_SIZE = 1 << TT_BITS
#: Bytes per table entry: two 64-bit words (see ``new_table``).
TT_ENTRY_BYTES = 16


class Table(NamedTuple):
    """The solver's memory, one record the compiled callers hand on whole: the
    transposition table's ``words``, the ``history`` of leads, the ``endgame`` values and
    the ``nodes`` counter (``nodes[0]``: positions searched), by thread first as
    :func:`new_table` makes them, or one thread's (:meth:`thread`)."""

    words: np.ndarray
    history: np.ndarray
    endgame: np.ndarray
    nodes: np.ndarray

    def thread(self, k: int = 0) -> Table:
        """Thread ``k``'s table."""
        return Table(*(a[k] for a in self))


def new_table(threads: int = 1, bits: int = TT_BITS) -> Table:
    """Empty transposition tables for ``threads`` solver threads, as a :class:`Table` of
    arrays indexed by thread first: thread ``k`` uses ``new_table(...).thread(k)``.

    The entries, of shape (threads, 2**bits, 2): an entry is two
    words, so one memory access reads it: the first key word, then the second key word
    (40 bits) with the bounds on the declarer's remaining tricks (4 bits each) and, plus
    one, the lead that last cut the search off there (on relative ranks, tried first
    next time). Empty entries have all bits set, which no key has. The history of
    leads, of shape (threads, 3, 32): points by leader and card that order leads within
    one solve (cleared at its start). The endgames' values (``_endgame``;
    192 MB): one read-only table of the process, a row of it for each thread (a
    broadcast view, no copies). Its look-ups mostly miss the cache; with a copy a
    thread, two threads of a rollout ran 1.57 times one, with one shared copy 1.83-1.97.
    And the node counters, (threads, 8): a cache line a thread.
    """
    end = endgame_table()
    return Table(np.full((threads, 1 << bits, 2), -1, dtype=np.int64),
                 np.zeros((threads, 3, 32), dtype=np.int64),
                 np.broadcast_to(end, (threads, end.size)),
                 np.zeros((threads, 8), dtype=np.int64))


_KEY2 = (1 << 40) - 1
_BUCKET = 4  # entries a bucket: 64 bytes, one cache line


@njit(cache=True, inline="always", error_model="numpy")
def _entry(words, slot, k1, k2, lo, hi):
    """Bounds and best lead stored for a key in the bucket at ``slot`` (``_BUCKET``
    entries in one cache line), or (lo, hi, -1) when it is not stored."""
    for i in range(slot, slot + _BUCKET):
        word = words[i, 1]
        if words[i, 0] == k1 and word & _KEY2 == k2:
            return (word >> 40) & 15, (word >> 44) & 15, ((word >> 48) & 63) - 1
    return lo, hi, -1


@njit(cache=True, inline="always", error_model="numpy")
def _store(words, slot, k1, k2, lo, hi, packed):
    """Store an entry in its bucket: over its old one, else first, older ones moving
    down and the oldest dropping out."""
    i = slot + _BUCKET - 1
    while i > slot and not (words[i, 0] == k1 and words[i, 1] & _KEY2 == k2):
        i -= 1
    if not (words[i, 0] == k1 and words[i, 1] & _KEY2 == k2):
        for j in range(slot + _BUCKET - 1, slot, -1):
            words[j, 0] = words[j - 1, 0]
            words[j, 1] = words[j - 1, 1]
    words[i, 0] = k1
    words[i, 1] = k2 | lo << 40 | hi << 44 | (packed + 1) << 48


@njit(cache=True, inline="always", error_model="numpy")
def _position_key(hands, leader, declarer, trump, misere):
    """Key of a trick-boundary position, on ranks relative to the cards in play: which
    of the cards in play, lowest first, the first two hands hold (the third holds the
    rest) and how many cards of each suit are in play."""
    all_cards = hands[0] | hands[1] | hands[2]
    counts = 0
    for s in range(4):
        counts |= popcount((all_cards >> (8 * s)) & 0xFF) << (4 * s)
    meta = leader | (trump + 1) << 2 | declarer << 5 | misere << 7
    return pext(hands[0], all_cards) | pext(hands[1], all_cards) << 32, counts | meta << 16


@njit(cache=True, inline="always", error_model="numpy")
def _slot(k1, k2, mask):
    h = k1 * -7046029254386353131 ^ k2 * -4417276706812531889  # 64-bit wrap-around
    return (h >> 29) & mask & -_BUCKET


@njit(cache=True, inline="always", error_model="numpy")
def _pack_card(hands, c):
    """Card ``c`` on ranks relative to the cards in ``hands`` (as in table keys)."""
    sh = c & ~7
    m = ((hands[0] | hands[1] | hands[2]) >> sh) & 0xFF
    return sh + popcount(m & ((1 << (c & 7)) - 1))


@njit(cache=True, inline="always", error_model="numpy")
def _unpack_card(hands, packed):
    """Inverse of ``_pack_card``; -1 stays -1."""
    if packed < 0:
        return -1
    sh = packed & ~7
    m = ((hands[0] | hands[1] | hands[2]) >> sh) & 0xFF
    return sh + lowest_card(pdep(1 << (packed & 7), m))
