"""Positions near the end of play settled at once, without the search's stack: minimax on
scalars over the last tricks, and a table of the exact value of every misère position of
up to ``ENDGAME_CARDS`` cards a hand and every trick-contract position of up to
``TRICK_CARDS`` (private).

A position's value depends only on the cards' ranks among the cards in play, the trump
suit, which seat declares and which leads; and not on the order of the other suits. So
the table indexes a position by its kind of game (a row of ``ORDER``: misère, no trumps,
trumps), its suits in order (the trump suit first, then the others longest first), the
seat on lead counted from the declarer, and which of the cards in play, lowest first,
the declarer and the next seat hold (the third holds the rest). It is built up from the
empty position, each value the minimax of one trick over the values a trick shorter,
once for each version of the source (about 56 s of CPU, 31 s on two idle cores, 1.1 GB at peak; 385
million entries, two a byte, 192 MB, kept with the compiled functions). The search looks
up the positions it covers, solves one a trick larger (six cards a hand) by the minimax
of one trick over it, and one two tricks larger by the minimax of one trick over those
(``_search._two_tricks``), so from a larger position it never goes below them.

The look-ups mostly miss the cache, so the entries are packed two a byte (twice as many
in the shared cache as at a byte an entry) and the index comes from look-up tables
(``COLEX``, ``ORDER``) rather than loops over the cards.
"""

from __future__ import annotations

import itertools
import math
import mmap
import os
import threading
import zlib
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from prefstats.game.cards import highest_card, lowest_card, pdep, pext, popcount
from prefstats.game.tricks import beats, legal_cards, trick_winner
from prefstats.solver._order import _beating, _run_tops
from prefstats.solver._records import Game

#: Largest hands (cards each) the table covers for misère: 73 million positions at five
#: cards (2.9 million at four); six would take about 1.8 billion.
ENDGAME_CARDS = 5
#: Largest hands it covers for trick contracts (with trumps or without): 311 million
#: positions more (11.7 million at four). At five, PIMC's searches of 9-10 cards a hand
#: take 2.6 times fewer nodes and a quarter to a third less time than at four
#: (``scripts/pimc_profile.py``), for a table 4.6 times larger.
TRICK_CARDS = 5


@njit(cache=True, inline="always", error_model="numpy")
def _last_trick(hands, leader, declarer, trump):
    """1 if the declarer wins the last trick (one card a hand), else 0."""
    w = trick_winner(lowest_card(hands[leader]), lowest_card(hands[(leader + 1) % 3]),
                     lowest_card(hands[(leader + 2) % 3]), trump)
    return 1 if (leader + w) % 3 == declarer else 0


@njit(cache=True, inline="always", error_model="numpy")
def _last_two(hands, leader, declarer, trump, misere, need):
    """Declarer's tricks from the last two tricks (two cards a hand), by minimax on
    scalars (no scratch arrays: it runs at a good share of the search's leaves) with
    cut-offs at ``need``: a number of tricks he surely reaches if it is at least
    ``need``, else one he surely stays within (as the search)."""
    p1 = (leader + 1) % 3
    p2 = (leader + 2) % 3
    h0 = hands[leader]
    h1 = hands[p1]
    h2 = hands[p2]
    # Whether each player wants the declarer to win tricks.
    or0 = (leader == declarer) != misere
    or1 = (p1 == declarer) != misere
    or2 = (p2 == declarer) != misere
    best0 = -1 if or0 else 9
    m0 = h0
    while m0:
        c0 = lowest_card(m0)
        m0 &= m0 - 1
        r0 = lowest_card(h0 ^ (1 << c0))
        best1 = -1 if or1 else 9
        m1 = legal_cards(h1, c0 >> 3, trump)
        while m1:
            c1 = lowest_card(m1)
            m1 &= m1 - 1
            r1 = lowest_card(h1 ^ (1 << c1))
            best2 = -1 if or2 else 9
            m2 = legal_cards(h2, c0 >> 3, trump)
            while m2:
                c2 = lowest_card(m2)
                m2 &= m2 - 1
                r2 = lowest_card(h2 ^ (1 << c2))
                w = trick_winner(c0, c1, c2, trump)  # 0, 1, 2: leader, p1, p2
                # The last trick, led by the winner w: the cards in seat order from w.
                if w == 0:
                    last = trick_winner(r0, r1, r2, trump)
                elif w == 1:
                    last = (1 + trick_winner(r1, r2, r0, trump)) % 3
                else:
                    last = (2 + trick_winner(r2, r0, r1, trump)) % 3
                v = ((leader + w) % 3 == declarer) + ((leader + last) % 3 == declarer)
                best2 = max(best2, v) if or2 else min(best2, v)
                if (best2 >= need) == or2:
                    break
            best1 = max(best1, best2) if or1 else min(best1, best2)
            if (best1 >= need) == or1:
                break
        best0 = max(best0, best1) if or0 else min(best0, best1)
        if (best0 >= need) == or0:
            break
    return best0


def trick_minimax(leaf):
    """A compiled minimax of one trick (inlined where it is called) over ``leaf``, which
    values the positions a trick on: ``leaf(hands, n, leader, game, need, ctx)`` gives
    the declarer's tricks from one (``n`` cards a hand, ``leader`` on lead; ``game`` a
    :class:`~prefstats.solver.Game`), a bound as the search answers.

    The minimax ``f(hands, n, leader, game, need, leads, n_leads, ctx)`` tries the leads
    ``leads[:n_leads]`` in that order (``n_leads`` -1: every lead, highest first) and the
    followers' cards highest first (misère solves sooner than lowest first), but for the
    last hand of a trick contract first the cards that win the trick for his side, lowest
    first (measured: 5-10% less time a PIMC decision), one card of each run of equal
    ones. It cuts off at ``need`` and returns a bound as the search answers and the lead
    that reached ``need`` (-1 if none); ``hands`` is mutated and restored. One body for
    each leaf: numba cannot inline a minimax whose leaf runs the same minimax again."""

    @njit(inline="always", error_model="numpy")
    def minimax(hands, n, leader, game, need, leads, n_leads, ctx):
        declarer, trump, misere = game
        p1 = (leader + 1) % 3
        p2 = (leader + 2) % 3
        or0 = (leader == declarer) != misere
        or1 = (p1 == declarer) != misere
        or2 = (p2 == declarer) != misere
        h0 = hands[leader]
        h1 = hands[p1]
        h2 = hands[p2]
        # One card of each run of equivalent ones (no card in play between them).
        in_play = h0 | h1 | h2
        t1 = _run_tops(h1, in_play)
        t2 = _run_tops(h2, in_play)
        best0 = -1 if or0 else 9
        m0 = _run_tops(h0, in_play)
        i = 0
        while i < n_leads or (n_leads < 0 and m0):
            if n_leads < 0:
                c0 = highest_card(m0)
                m0 ^= 1 << c0
            else:
                c0 = leads[i]
                i += 1
            hands[leader] = h0 ^ (1 << c0)
            best1 = -1 if or1 else 9
            m1 = legal_cards(h1, c0 >> 3, trump) & t1
            while m1:
                c1 = highest_card(m1)
                m1 ^= 1 << c1
                hands[p1] = h1 ^ (1 << c1)
                best2 = -1 if or2 else 9
                # In trick contracts the last hand's cards that win the trick for his side
                # first, each group lowest first: the likeliest to cut off.
                m2 = legal_cards(h2, c0 >> 3, trump) & t2
                rest2 = 0
                if not misere:
                    top = c1 if beats(c1, c0, trump) else c0
                    if ((leader if top == c0 else p1) == declarer) != (p2 == declarer):
                        rest2 = m2 & ~_beating(m2, top, trump)
                        m2 ^= rest2
                while m2 | rest2:
                    if m2:
                        c2 = highest_card(m2) if misere else lowest_card(m2)
                        m2 ^= 1 << c2
                    else:
                        c2 = lowest_card(rest2)
                        rest2 ^= 1 << c2
                    hands[p2] = h2 ^ (1 << c2)
                    w = (leader + trick_winner(c0, c1, c2, trump)) % 3
                    won = 1 if w == declarer else 0
                    v = won + leaf(hands, n - 1, w, game, need - won, ctx)
                    best2 = max(best2, v) if or2 else min(best2, v)
                    if (best2 >= need) == or2:
                        break
                hands[p2] = h2
                best1 = max(best1, best2) if or1 else min(best1, best2)
                if (best1 >= need) == or1:
                    break
            hands[p1] = h1
            best0 = max(best0, best1) if or0 else min(best0, best1)
            if (best0 >= need) == or0:
                hands[leader] = h0
                return best0, c0
        hands[leader] = h0
        return best0, -1

    return minimax


@njit(cache=True, inline="always", error_model="numpy")
def _table_value(hands, n, leader, game, need, ctx):
    """The table's entry for a position (``ctx``: the table and the row of ``ORDER``)."""
    return endgame_value(ctx[0], _endgame_index(hands, n, leader, game.declarer, ctx[1]))


_trick_over_table = trick_minimax(_table_value)
_NO_LEADS = np.zeros(0, dtype=np.int64)  # every lead, highest first (``n_leads`` -1)


@njit(cache=True, inline="always", error_model="numpy")
def _one_trick(hands, n, leader, game, need, endgame, row):
    """:func:`_last_two` for a position ``n`` cards a hand whose positions a trick on
    the table ``endgame`` holds (``n`` up to one more than it covers for the kind of
    game, ``row`` of ``ORDER``): the minimax of one trick over it, leads highest first;
    ``hands`` is mutated and restored."""
    return _trick_over_table(hands, n, leader, game, need, _NO_LEADS, -1, (endgame, row))[0]


# ---- the table ------------------------------------------------------------------------

#: Rows of ``ORDER``, one for each kind of game: trick contracts with trumps of suit 0-3,
#: without trumps, misère.
NO_TRUMP_ROW = 4
MISERE_ROW = 5


@njit(cache=True, inline="always", error_model="numpy")
def table_row(trump, misere):
    """The row of ``ORDER`` for a kind of game (``trump`` -1 for none)."""
    return MISERE_ROW if misere else (trump if trump >= 0 else NO_TRUMP_ROW)


def _canonical(row: int, lengths: tuple[int, ...]) -> list[int]:
    """The suits in the table's order for a kind of game: the trump suit first, then the
    others longest first, ties in suit order."""
    rest = sorted((s for s in range(4) if s != row or row >= NO_TRUMP_ROW),
                  key=lambda s: (-lengths[s], s))
    return rest if row >= NO_TRUMP_ROW else [row, *rest]


def _layout() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Where each hand size's block starts, the binomials, and each size's patterns
    in the table's order, as rows (the row of ``ORDER`` its values are read with, the
    suits' lengths in that order): misère, then without trumps and with trumps (up to
    ``TRICK_CARDS``; the trump suit is suit 0 there)."""
    offsets = np.zeros(ENDGAME_CARDS + 2, dtype=np.int64)
    patterns = []
    for n in range(ENDGAME_CARDS + 1):
        plain = sorted((c for c in itertools.product(range(9), repeat=4)
                        if sum(c) == 3 * n and list(c) == sorted(c, reverse=True)),
                       reverse=True)
        rows = [(MISERE_ROW, *c) for c in plain]
        if n <= TRICK_CARDS:
            rows += [(NO_TRUMP_ROW, *c) for c in plain]
            rows += sorted(((0, *c) for c in itertools.product(range(9), repeat=4)
                            if sum(c) == 3 * n and list(c[1:]) == sorted(c[1:], reverse=True)),
                           reverse=True)
        patterns.append(np.array(rows, dtype=np.int64))
        offsets[n + 1] = offsets[n] + len(rows) * 3 * math.comb(3 * n, n) * math.comb(2 * n, n)
    binom = np.array([[math.comb(a, b) for b in range(11)] for a in range(33)], np.int64)
    return offsets, binom, patterns


OFFSET, BINOM, _PATTERNS = _layout()


def _colex_table() -> np.ndarray:
    """``COLEX[x]``: the rank of the set ``x`` (below ``1 << 3 * ENDGAME_CARDS``) among
    the sets of as many elements, colexicographic: the sum over its elements, lowest
    first, of binomial(element, i) for the i-th (from 1). One look-up in place of a
    loop an element."""
    bits = 3 * ENDGAME_CARDS
    comb = np.array([[math.comb(b, i) for i in range(bits + 1)] for b in range(bits)])
    x = np.arange(1 << bits)
    rank = np.zeros(x.size, dtype=np.int64)
    count = np.zeros(x.size, dtype=np.int64)  # elements up to the current one
    for b in range(bits):
        has = (x >> b) & 1
        count += has
        rank += has * comb[b, count]
    return rank.astype(np.int32)


COLEX = _colex_table()


def _order_table() -> np.ndarray:
    """``ORDER[row, c]``, ``c`` the lengths of the four suits in play of a position ``n``
    cards a hand (``l0 + 9 * l1 + 81 * l2 + 729 * l3``, in suit order), for the kind of
    game ``row``: where its pattern's block of the table starts (bits 8 on) and its
    suits in the table's order (2 bits each); -1 where the table has no such positions.
    One look-up in place of sorting the suits at every entry read."""
    order = np.full((MISERE_ROW + 1, 9**4), -1, dtype=np.int64)
    block = {}
    for n, rows in enumerate(_PATTERNS):
        size = 3 * math.comb(3 * n, n) * math.comb(2 * n, n)
        for i, (row, *lengths) in enumerate(rows.tolist()):
            block[row, *lengths] = OFFSET[n] + i * size
    for lengths in itertools.product(range(9), repeat=4):
        c = lengths[0] + 9 * lengths[1] + 81 * lengths[2] + 729 * lengths[3]
        for row in range(MISERE_ROW + 1):
            suits = _canonical(row, lengths)
            start = block.get((0 if row < NO_TRUMP_ROW else row,
                               *(lengths[s] for s in suits)))
            if start is not None:
                order[row, c] = start << 8 | sum(s << (2 * i) for i, s in enumerate(suits))
    return order


ORDER = _order_table()


@njit(cache=True, inline="always", error_model="numpy")
def _in_suit_order(x, order):
    """The four suits' bytes of ``x`` rearranged into the order ``order`` (2 bits a
    suit, as in ``ORDER``)."""
    return (((x >> (8 * (order & 3))) & 0xFF) | ((x >> (8 * ((order >> 2) & 3))) & 0xFF) << 8
            | ((x >> (8 * ((order >> 4) & 3))) & 0xFF) << 16
            | ((x >> (8 * ((order >> 6) & 3))) & 0xFF) << 24)


@njit(cache=True, inline="always", error_model="numpy")
def _endgame_index(hands, n, leader, declarer, row):
    """Where the table holds the position ``n`` cards a hand at a trick's start, of the
    kind of game ``row``: the suits in the table's order, the cards in play packed down
    in that order, the declarer's among them and the next seat's among the rest (their
    ranks among sets of as many)."""
    d0 = hands[declarer]
    d1 = hands[(declarer + 1) % 3]
    in_play = d0 | d1 | hands[(declarer + 2) % 3]
    order = ORDER[row, popcount(in_play & 0xFF) + 9 * popcount((in_play >> 8) & 0xFF)
                  + 81 * popcount((in_play >> 16) & 0xFF) + 729 * popcount(in_play >> 24)]
    packed = _in_suit_order(in_play, order)
    x0 = pext(_in_suit_order(d0, order), packed)
    x1 = pext(_in_suit_order(d1, order), packed)
    r1 = COLEX[pext(x1, ((1 << (3 * n)) - 1) & ~x0)]
    lead = (leader - declarer) % 3
    return (order >> 8) + (lead * BINOM[3 * n, n] + COLEX[x0]) * BINOM[2 * n, n] + r1


@njit(cache=True, inline="always", error_model="numpy")
def endgame_value(endgame, i):
    """Entry ``i`` of the packed endgame table: two entries a byte, 4 bits each (the
    table at half the size stays in the shared cache twice as often)."""
    return (endgame[i >> 1] >> ((i & 1) << 2)) & 15


def _pack(values: np.ndarray) -> np.ndarray:
    """Entries of 0-15, two a byte, the first in the low half."""
    pairs = np.zeros(2 * ((values.size + 1) // 2), dtype=np.uint8)
    pairs[: values.size] = values
    return pairs[0::2] | pairs[1::2] << 4


@njit(cache=True, inline="always", error_model="numpy")
def _next_set(x):
    """The next larger number with as many bits set (Gosper's hack)."""
    c = x & -x
    r = x + c
    return (((r ^ x) >> 2) // c) | r


@njit(cache=True, parallel=True, error_model="numpy")
def _build_block(values, table, n, patterns):
    """Fill ``values`` (one byte an entry) at the positions ``n`` cards a hand, from the
    packed ``table`` of the smaller ones: each pattern's position (``_PATTERNS``: the
    kind of game, then its suits' lengths, the trump suit first), every lead and split
    of the cards (the declarer is seat 0: the index counts seats from him); each value
    exact, by :func:`_one_trick` at targets counting up until its bounds meet. The
    patterns are shared out over the threads: each writes its own entries and reads
    only the smaller block's."""
    for p in prange(patterns.shape[0]):
        row = patterns[p, 0]
        trump = 0 if row < NO_TRUMP_ROW else -1
        misere = row == MISERE_ROW
        game = Game(np.int64(0), np.int64(trump), misere)  # the declarer is seat 0
        hands = np.zeros(3, np.int64)
        in_play = 0
        for i in range(4):
            in_play |= ((1 << patterns[p, 1 + i]) - 1) << (8 * i)
        for lead in range(3):
            x0 = (1 << n) - 1
            while x0 < 1 << (3 * n):
                hands[0] = pdep(x0, in_play)
                rest = in_play & ~hands[0]
                x1 = (1 << n) - 1
                while x1 < 1 << (2 * n):
                    hands[1] = pdep(x1, rest)
                    hands[2] = rest & ~hands[1]
                    lo = 0
                    hi = n
                    while lo < hi:
                        v = _one_trick(hands, n, lead, game, lo + 1, table, row)
                        if v > lo:
                            lo = v
                        else:
                            hi = v
                    values[_endgame_index(hands, n, lead, 0, row)] = lo
                    x1 = _next_set(x1)
                x0 = _next_set(x0)


def _build_table(cards: int = ENDGAME_CARDS, progress=None) -> np.ndarray:
    """The packed table of the positions of up to ``cards`` cards a hand; entries the
    build missed would keep the mark 15, which no value has. ``progress(done, total)``
    is told of the entries settled: each size's patterns are built a few at a time (a
    few per thread) so that it moves through the largest size too."""
    values = np.full(OFFSET[cards + 1], 15, dtype=np.uint8)
    values[: OFFSET[1]] = 0  # the empty position
    total = int(OFFSET[cards + 1])
    step = 2 * numba.get_num_threads()
    for n in range(1, cards + 1):
        smaller = _pack(values[: OFFSET[n]])
        patterns = _PATTERNS[n]
        per_pattern = int(OFFSET[n + 1] - OFFSET[n]) // len(patterns)
        for start in range(0, len(patterns), step):
            _build_block(values, smaller, n, np.ascontiguousarray(patterns[start:start + step]))
            if progress is not None:
                done = OFFSET[n] + per_pattern * min(start + step, len(patterns))
                progress(int(done), total)
    return _pack(values)


def load_or_build(path: Path, cards: int = ENDGAME_CARDS, progress=None) -> np.ndarray:
    """The endgame table (of up to ``cards`` cards a hand) from ``path`` (its bytes and
    their CRC-32), or, when that file is missing, foreign or damaged, built and written
    there for the next process (by a rename, so a reader never sees half a file; a
    folder it cannot write to only costs the build each time). ``progress`` as in
    :func:`_build_table`."""
    size = (int(OFFSET[cards + 1]) + 1) // 2
    try:  # mapped, not copied: the processes of a run share one copy in memory
        with path.open("rb") as f:
            data = np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ),
                                 dtype=np.uint8)
    except (OSError, ValueError):
        data = np.zeros(0, dtype=np.uint8)
    if data.size == size + 4 and zlib.crc32(data[:size]) == int.from_bytes(data[size:], "little"):
        return data[:size]
    table = _build_table(cards, progress)
    part = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with part.open("wb") as f:
            f.write(table.data)
            f.write(zlib.crc32(table.data).to_bytes(4, "little"))
        os.replace(part, path)
    except OSError:
        part.unlink(missing_ok=True)
    return table


_BUILDING = threading.Lock()
_table: np.ndarray | None = None


def endgame_table(progress=None) -> np.ndarray:
    """The endgame table (tricks packed two a byte, read with :func:`endgame_value`;
    read-only; 192 MB), kept with the compiled functions of this source
    (:func:`prefstats._cache.folder`): built by the first process (about 31 s on two cores),
    mapped read-only by the next (about 0.1 s, mostly its checksum): one copy in memory
    for all processes, one reference a process shared by its threads. The first call
    builds or reads it under a lock, so threads starting together neither build it
    twice nor launch two parallel builds at once. A build tells
    ``progress(done, total)`` of the entries settled (commands show it: see
    :mod:`prefstats.cli._compile`)."""
    global _table
    with _BUILDING:
        if _table is None:
            from prefstats import _cache

            table = load_or_build(_cache.folder() / "endgames.bin", progress=progress)
            table.flags.writeable = False
            _table = table
        return _table
