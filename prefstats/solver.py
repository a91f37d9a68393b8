"""Double-dummy solver: tricks the declarer takes when all cards are known.

Exact minimax for three hands of equal size (1-10 cards): the declarer maximises his
tricks against two cooperating defenders, or, on misère (no trumps), minimises them.
Seats 0, 1, 2 play clockwise in that order; ``trump`` is a suit index or ``None``.

The search is a numba-compiled alpha-beta reduced to boolean questions ("does the
declarer take at least t tricks?", zero-window searches) asked around a guess, MTD(f)
style; each answer comes with the bound it proved (fail-soft: "at least t + 2" when the
proof showed that much), so the next question skips what is settled, and the table
keeps the stronger bounds. It uses an explicit stack (recursive numba functions loaded
from numba's on-disk cache can crash, numba issue #6061) and, as the bridge and Skat
solvers do:

- a transposition table at trick boundaries storing bounds on the declarer's remaining
  tricks, keyed on ranks relative to the cards still in play, so positions that differ
  only in which small cards are gone share an entry; entries hold the whole position,
  so they stay valid across deals and the table never needs clearing;
- one card searched per run of rank-adjacent cards in a hand (no other card in play
  between them);
- cut-offs from bounds at trick boundaries: quick tricks (top cards the leader can
  cash), top trumps, and for misère a declarer who can duck everything, must win the
  next trick, can escape it, can exit safely, or keeps low cards under a defender's
  long suit (tricks he surely loses); the last two tricks are solved directly;
- move ordering by card-play heuristics, the table's best lead first, then the lead
  that last cut the search off at the same depth with the same leader ("killer"); for
  trick contracts the first guess is a playout along that ordering.

Memory: one table of ``TT_SIZE`` entries of 16 bytes (256 KiB) per solver thread, plus
a search stack of a few kilobytes.

>>> from prefstats.cards import parse_cards as p
>>> solve([p("♠AK"), p("♠QJ"), p("♠87")], trump=None, leader=0, declarer=0)
2
>>> solve([p("♠A7"), p("♠KQ"), p("♥87")], trump=3, leader=1, declarer=0)
0
>>> solve([p("♠A7"), p("♠KQ"), p("♥87")], trump=None, leader=0, declarer=0, misere=True)
1
"""

from __future__ import annotations

from collections.abc import Sequence

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from prefstats.cards import N_CARDS, format_cards, lowest_card, popcount
from prefstats.tricks import beats, legal_cards, trick_winner

#: log2 of the number of transposition-table entries per solver thread. 2**14 entries
#: (256 KiB) stay in the core's cache better than 2**15: faster median and mean solves
#: though the largest trees take a few more nodes; 2**16 is slower still.
TT_BITS = 14
TT_SIZE = 1 << TT_BITS
#: Bytes per table entry: two 64-bit words (see ``new_table``).
TT_ENTRY_BYTES = 16
_MAX_PLIES = 31  # 30 cards plus the final node


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


def _bmi2_intrinsic(name):
    @intrinsic
    def op(typingctx, x, m):
        if not (isinstance(x, types.Integer) and isinstance(m, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i32, [i32, i32]), name)
            a = context.cast(builder, args[0], x, types.int64)
            b = context.cast(builder, args[1], m, types.int64)
            r = builder.call(fn, [builder.trunc(a, i32), builder.trunc(b, i32)])
            return builder.zext(r, ir.IntType(64))

        return types.int64(x, m), codegen

    return op


_pext_bmi2 = _bmi2_intrinsic("llvm.x86.bmi.pext.32")
_pdep_bmi2 = _bmi2_intrinsic("llvm.x86.bmi.pdep.32")


@njit(cache=True, inline="always", error_model="numpy")
def _pext_hw(x, m):
    return _pext_bmi2(x, m)


@njit(cache=True, inline="always", error_model="numpy")
def _pdep_hw(x, m):
    return _pdep_bmi2(x, m)


@njit(cache=True, inline="always", error_model="numpy")
def _pext_tables(x, m):
    r = 0
    k = 0
    for sh in range(0, 32, 8):
        mb = (m >> sh) & 0xFF
        r |= np.int64(PEXT[mb, (x >> sh) & 0xFF]) << k
        k += popcount(mb)
    return r


@njit(cache=True, inline="always", error_model="numpy")
def _pdep_tables(x, m):
    r = 0
    k = 0
    for sh in range(0, 32, 8):
        mb = (m >> sh) & 0xFF
        r |= np.int64(PDEP[mb, (x >> k) & 0xFF]) << sh
        k += popcount(mb)
    return r


#: ``pext(x, m)`` packs the bits of the 32-bit ``x`` selected by ``m`` down; ``pdep`` is
#: its inverse: one instruction each where they are fast, else four table look-ups.
pext = _pext_hw if FAST_BMI2 else _pext_tables
pdep = _pdep_hw if FAST_BMI2 else _pdep_tables


@intrinsic
def _data_pointer(typingctx, arr):
    """Pointer to the data of a C-contiguous array (others do not type)."""
    if not (isinstance(arr, types.Array) and arr.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(arr)(context, builder, value=args[0]).data

    return types.CPointer(arr.dtype)(arr), codegen


@njit(cache=True, inline="always", error_model="numpy")
def _borrowed(arr):
    """A view of the contiguous array ``arr`` that numba does not reference-count.

    Each array handed to an inlined helper costs an atomic increment and decrement of
    its reference count (about a fifth of the search's time, measured with perf); on
    such a view they are no-ops. The view must not outlive ``arr``.
    """
    return numba.carray(_data_pointer(arr), arr.shape)
#: Highest set bit of an 8-bit holding (-1 for none).
HIGH8 = np.array([-1] + [h.bit_length() - 1 for h in range(1, 256)], dtype=np.int64)
#: Lowest set bit of an 8-bit holding (8 for none).
LOW8 = np.array([8] + [(h & -h).bit_length() - 1 for h in range(1, 256)], dtype=np.int64)


def _duck_table() -> np.ndarray:
    """``DUCK[d, o]``: in a suit where a misère declarer holds ``d`` and the defenders
    ``o``, his i-th lowest card is below their i-th lowest for every i both have. Then
    he can duck every lead of the suit, playing his highest card under the card led (or
    the higher of theirs), which keeps the condition."""
    ranks_d = np.full((256, 8), -1)  # missing cards: below anything
    ranks_o = np.full((256, 8), 8)  # missing cards: above anything
    for m in range(256):
        held = [r for r in range(8) if m >> r & 1]
        ranks_d[m, : len(held)] = held
        ranks_o[m, : len(held)] = held
    return (ranks_d[:, None, :] < ranks_o[None, :, :]).all(axis=2)


DUCK = _duck_table()


# ---- transposition table --------------------------------------------------------------


def new_table(threads: int = 1, bits: int = TT_BITS) -> tuple[np.ndarray, ...]:
    """Empty transposition tables for ``threads`` solver threads, as a tuple of arrays
    indexed by thread first: thread ``k`` uses ``tuple(t[k] for t in tables)``.

    It holds one array of shape (threads, 2**bits, 2). An entry is two words, so one
    memory access reads it: the first key word, then the second key word (40 bits) with
    the bounds on the declarer's remaining tricks (4 bits each) and, plus one, the lead
    that last cut the search off there (on relative ranks, tried first next time).
    Empty entries have all bits set, which no key has.
    """
    return (np.full((threads, 1 << bits, 2), -1, dtype=np.int64),)


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


# ---- bounds and move ordering ---------------------------------------------------------
#
# The helpers the search calls at every node are inlined into it (``inline="always"``):
# numba does not inline calls between compiled functions by itself, and those calls
# took about a fifth of the solver's time.


@njit(cache=True, inline="always", error_model="numpy")
def _suit_len(hand, s):
    return popcount((hand >> (8 * s)) & 0xFF)


@njit(cache=True, inline="always", error_model="numpy")
def _bounds(hands, n, leader, declarer, trump, misere):
    """Bounds (low, high) on the declarer's remaining ``n`` tricks, ``leader`` to lead."""
    lo = 0
    hi = n
    if misere:
        return _misere_bounds(hands, n, leader, declarer)
    q = _quick_tricks(hands, leader, trump)
    if leader == declarer:
        lo = q
    else:
        hi = n - q
    if trump >= 0:
        # The highest trump wins the trick it falls in: so do its holder's trumps that
        # top everyone else's, as they fall in different tricks.
        sh = 8 * trump
        owner = -1
        for p in range(3):
            if (hands[p] >> sh) & 0xFF > (hands[(p + 1) % 3] | hands[(p + 2) % 3]) >> sh & 0xFF:
                owner = p
        if owner >= 0:
            others = (hands[(owner + 1) % 3] | hands[(owner + 2) % 3]) >> sh & 0xFF
            top = popcount((hands[owner] >> sh & 0xFF) >> (HIGH8[others] + 1))
            if owner == declarer:
                lo = max(lo, top)
            else:
                hi = min(hi, n - top)
    return lo, hi


@njit(cache=True, inline="always", error_model="numpy")
def _misere_bounds(hands, n, leader, declarer):
    """Bounds (low, high) on a misère declarer's remaining ``n`` tricks, in one pass
    over the suits he holds. The rules, per suit (his holding ``d``, the defenders'
    ``sa`` and ``sb``):

    - ducking: he can duck every lead of the suit if ``DUCK[d, sa | sb]``; when he can
      in every suit and is not on lead, he takes no more tricks;
    - on lead, his lowest card of the suit wins the trick if each defender can go
      under it or is void (a higher card wins too: the defenders go under it as well);
      if that holds in every suit he takes the trick; if moreover all his cards top
      the defenders', every remaining trick (so too when a defender leads a suit he
      holds: he wins that trick and is then on lead with cards that still top theirs).
      Otherwise he leads a card that a defender
      holding only higher cards of its suit must overtake: he loses the trick, and if
      after it he can duck everything, he takes no more tricks;
    - the defender on lead forces him in a suit where his lowest card tops the
      leader's lowest and the partner, playing second, cannot go above it either, or,
      playing third, can stay under it (or is void). Unless one can, he escapes the
      coming trick by going under or discarding;
    - sure escapes: holding ``j`` cards below all of a defender's ``m`` cards of the
      suit, he keeps them for it: when it is led he plays one under the defender's
      card, and after each trick he wins he leads one, which the defender must
      overtake. The defender sheds at most one card of the suit a trick, so he still
      holds one in each of the first ``m`` tricks: of each two of those the declarer
      loses at least one, up to ``j`` times.
    """
    a = (declarer + 1) % 3
    b = (declarer + 2) % 3
    partner = 3 - leader - declarer
    partner_second = partner == (leader + 1) % 3
    n_bad = 0  # suits he may not duck
    bad_suit = -1
    forced = True  # on lead: every lead wins the trick
    stuck = True  # every card of his tops the defenders' of its suit
    forces = False  # a defender on lead can make him win the coming trick
    escapes = 0
    for s in range(4):
        sh = 8 * s
        d = (hands[declarer] >> sh) & 0xFF
        if d == 0:
            continue
        sa = (hands[a] >> sh) & 0xFF
        sb = (hands[b] >> sh) & 0xFF
        if not DUCK[d, sa | sb]:
            n_bad += 1
            bad_suit = s
        low = LOW8[d]
        if (sa != 0 and LOW8[sa] > low) or (sb != 0 and LOW8[sb] > low):
            forced = False
        if HIGH8[sa | sb] > low:
            stuck = False
        if sa:
            escapes = max(escapes, min(popcount(d & ((1 << LOW8[sa]) - 1)), popcount(sa) // 2))
        if sb:
            escapes = max(escapes, min(popcount(d & ((1 << LOW8[sb]) - 1)), popcount(sb) // 2))
        if leader != declarer:
            mine = sa if leader == a else sb
            other = sb if leader == a else sa
            if mine:
                if partner_second:
                    forces |= low > max(LOW8[mine], -1 if other == 0 else LOW8[other])
                else:
                    forces |= low > LOW8[mine] and (other == 0 or LOW8[other] < low)
    lo = 0
    hi = n
    if leader != declarer:
        if n_bad == 0:
            return 0, 0
        if stuck and _shares_suit(hands[leader], hands[declarer]):
            return n, n
        if forces:
            lo = 1
        else:
            hi = n - 1
    elif stuck:
        return n, n
    elif forced:
        lo = 1
    else:
        hi = n - 1
        # A safe exit: a card some defender must overtake, leaving suits he can duck.
        for s in range(4):
            if n_bad > 1 or (n_bad == 1 and s != bad_suit):
                continue
            sh = 8 * s
            d = (hands[declarer] >> sh) & 0xFF
            sa = (hands[a] >> sh) & 0xFF
            sb = (hands[b] >> sh) & 0xFF
            top = max(-1 if sa == 0 else LOW8[sa], -1 if sb == 0 else LOW8[sb])
            exits = d & ((1 << top) - 1) if top > 0 else 0
            while exits:
                r = lowest_card(exits)
                exits &= exits - 1
                if DUCK[d ^ (1 << r), sa | sb]:
                    return 0, 0
    return lo, min(hi, n - min(escapes, n // 2))


@njit(cache=True, inline="always", error_model="numpy")
def _shares_suit(x, y):
    """Whether hands ``x`` and ``y`` both hold a card of some suit."""
    shared = False
    for s in range(4):
        shared |= (x >> (8 * s)) & 0xFF != 0 and (y >> (8 * s)) & 0xFF != 0
    return shared


@njit(cache=True, inline="always", error_model="numpy")
def _quick_tricks(hands, leader, trump):
    """Tricks the leader can cash at once with top cards, whatever the others do."""
    h = hands[leader]
    a = hands[(leader + 1) % 3]
    b = hands[(leader + 2) % 3]
    total = 0
    if trump >= 0:
        sh = 8 * trump
        others = ((a | b) >> sh) & 0xFF
        mine = (h >> sh) & 0xFF
        top = popcount(mine >> (HIGH8[others] + 1))
        ruff_a = _suit_len(a, trump) > 0
        ruff_b = _suit_len(b, trump) > 0
        if max(_suit_len(a, trump), _suit_len(b, trump)) > top:
            # Others can still ruff after his top trumps: he cashes side suits first, a
            # top card winning while each other player holding trumps must follow.
            for s in range(4):
                if s != trump:
                    sh = 8 * s
                    t = popcount(((h >> sh) & 0xFF) >> (HIGH8[((a | b) >> sh) & 0xFF] + 1))
                    if ruff_a:
                        t = min(t, _suit_len(a, s))
                    if ruff_b:
                        t = min(t, _suit_len(b, s))
                    top += t
            return top
    for s in range(4):
        sh = 8 * s
        others = ((a | b) >> sh) & 0xFF
        mine = (h >> sh) & 0xFF
        top = popcount(mine >> (HIGH8[others] + 1))
        if top >= max(_suit_len(a, s), _suit_len(b, s)):
            total += popcount(mine)  # the others run out: every card of the suit wins
        else:
            total += top
    return total


@njit(cache=True, inline="always", error_model="numpy")
def _order_moves(hands, trick, tlen, leader, player, declarer, trump, misere, hint, killer,
                 out, scores):
    """Write one card per run of equivalent legal cards into ``out``, best first.

    ``trick`` holds the ``tlen`` cards already played to this trick; ``hint`` is a card
    to try first if it is among them, ``killer`` one to try next (-1: none); ``scores``
    is scratch space. Returns the number of cards written.
    """
    led = -1 if tlen == 0 else trick[0] >> 3
    legal = legal_cards(hands[player], led, trump)
    in_play = hands[0] | hands[1] | hands[2]
    for i in range(tlen):
        in_play |= 1 << trick[i]
    # Top card of each run of legal cards with no other in-play card between them: on
    # the cards in play packed down, lowest first, a legal card whose next one is not
    # legal or is the lowest of the next suit.
    bottoms = 0
    for s in range(4):
        m = (in_play >> (8 * s)) & 0xFF
        bottoms |= (m & -m) << (8 * s)
    x = pext(legal, in_play)
    reps = pdep(x & ~((x & ~pext(bottoms, in_play)) >> 1), in_play)
    if reps & (reps - 1) == 0:  # one choice: nothing to order
        out[0] = lowest_card(reps)
        return 1
    wants_declarer = (player == declarer) != misere  # does he want the declarer to win?
    best = -1
    win_seat = -1
    for i in range(tlen):
        if best < 0 or beats(trick[i], best, trump):
            best = trick[i]
            win_seat = (leader + i) % 3
    third = (player + 1) % 3
    third_legal = legal_cards(hands[third], led, trump) if tlen == 1 else 0
    n = 0
    while reps:
        c = lowest_card(reps)
        reps &= reps - 1
        r = c & 7
        if tlen == 0:
            score = _lead_score(hands, c, player, declarer, trump, misere)
        else:
            wins = beats(c, best, trump)
            winner = player if wins else win_seat
            if tlen == 1:
                # The third hand overtakes when he can and likes to, or when he must.
                over = _beating(third_legal, c if wins else best, trump)
                third_likes = (winner == declarer) != ((third == declarer) != misere)
                if over != 0 and (third_likes or over == third_legal):
                    winner = third
            score = 100 if (winner == declarer) == wants_declarer else 0
            if misere and (player == declarer or (declarer - leader) % 3 < tlen):
                score += r  # shed high cards once the declarer's fate in the trick is set
            else:
                score -= r  # cheapest card first
        if c == hint:
            score += 1000
        elif c == killer:
            score += 500
        k = n
        while k > 0 and scores[k - 1] < score:
            scores[k] = scores[k - 1]
            out[k] = out[k - 1]
            k -= 1
        scores[k] = score
        out[k] = c
        n += 1
    return n


@njit(cache=True, inline="always", error_model="numpy")
def _beating(cards, best, trump):
    """The cards of ``cards`` that would beat ``best`` (as ``beats`` does, all at once)."""
    sh = best & ~7
    higher = cards & (0xFF << sh) & ~((2 << best) - 1)
    if trump >= 0 and sh != 8 * trump:
        higher |= cards & (0xFF << (8 * trump))
    return higher


@njit(cache=True, inline="always", error_model="numpy")
def _lead_score(hands, c, player, declarer, trump, misere):
    """Heuristic value of leading card ``c``: higher is tried first."""
    s = c >> 3
    r = c & 7
    sh = 8 * s
    a = (player + 1) % 3
    b = (player + 2) % 3
    sa = (hands[a] >> sh) & 0xFF
    sb = (hands[b] >> sh) & 0xFF
    if misere:
        if player == declarer:
            # Safe if a defender must follow with a higher card: all his cards are above it.
            if (sa and (sa & ((1 << (r + 1)) - 1)) == 0) or (
                sb and (sb & ((1 << (r + 1)) - 1)) == 0
            ):
                return 100 + r
            return r  # he takes this trick anyway: shed a high card
        partner = a if b == declarer else b
        sp = (hands[partner] >> sh) & 0xFF
        sd = (hands[declarer] >> sh) & 0xFF
        if sd == 0:
            return -10 - r
        low = r
        if sp:
            low = max(low, lowest_card(sp))
        ducks = popcount(sd & ((1 << low) - 1))
        # Forcing leads first, then those he has fewest cards to duck; within them the
        # highest card, keeping the low ones to force him later, and (when forcing) in
        # his shortest suit (measured: fewer nodes than the lowest card first).
        if ducks == 0:
            return 100 + r - 4 * popcount(sd)  # he has only higher cards: he must win it
        return 50 - 4 * ducks + r
    others = sa | sb
    if others == 0 or r > HIGH8[others]:
        ruff_threat = (
            trump >= 0
            and s != trump
            and ((sa == 0 and _suit_len(hands[a], trump) > 0) or (
                sb == 0 and _suit_len(hands[b], trump) > 0))
        )
        if not ruff_threat:
            return 100 + r
    if player != declarer:
        partner = a if b == declarer else b
        sp = (hands[partner] >> sh) & 0xFF
        sd = (hands[declarer] >> sh) & 0xFF
        if trump >= 0 and s != trump:
            if sd == 0 and _suit_len(hands[declarer], trump) > 0:
                return -30 - r  # the declarer ruffs
            if sp == 0 and _suit_len(hands[partner], trump) > 0:
                return 70 - r  # the partner ruffs
        if sp and HIGH8[sp] > HIGH8[sd]:
            return 60 - r  # lead low to the partner's top card
    elif trump >= 0 and s != trump and (
            (sa == 0 and _suit_len(hands[a], trump) > 0)
            or (sb == 0 and _suit_len(hands[b], trump) > 0)):
        return -30 - r  # a defender ruffs
    # Other leads: low cards of short side suits first (measured: fewer nodes than by
    # rank alone), trumps last.
    return -r - 3 * popcount((hands[player] >> sh) & 0xFF) - 8 * (s == trump)


@njit(cache=True, inline="always", error_model="numpy")
def _last_trick(hands, leader, declarer, trump):
    """1 if the declarer wins the last trick (one card a hand), else 0."""
    w = trick_winner(lowest_card(hands[leader]), lowest_card(hands[(leader + 1) % 3]),
                     lowest_card(hands[(leader + 2) % 3]), trump)
    return 1 if (leader + w) % 3 == declarer else 0


@njit(cache=True, inline="always", error_model="numpy")
def _last_two(hands, leader, declarer, trump, misere):
    """Declarer's tricks from the last two tricks (two cards a hand), by plain minimax
    on scalars (no scratch arrays: it runs at a good share of the search's leaves)."""
    p1 = (leader + 1) % 3
    p2 = (leader + 2) % 3
    h0 = hands[leader]
    h1 = hands[p1]
    h2 = hands[p2]
    # Each player's best: the most tricks for the declarer's side, the fewest otherwise.
    sign0 = 1 if (leader == declarer) != misere else -1
    sign1 = 1 if (p1 == declarer) != misere else -1
    sign2 = 1 if (p2 == declarer) != misere else -1
    best0 = -9
    m0 = h0
    while m0:
        c0 = lowest_card(m0)
        m0 &= m0 - 1
        r0 = lowest_card(h0 ^ (1 << c0))
        best1 = -9
        m1 = legal_cards(h1, c0 >> 3, trump)
        while m1:
            c1 = lowest_card(m1)
            m1 &= m1 - 1
            r1 = lowest_card(h1 ^ (1 << c1))
            best2 = -9
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
                best2 = max(best2, sign2 * v)
            best1 = max(best1, sign2 * sign1 * best2)
        best0 = max(best0, sign1 * sign0 * best1)
    return sign0 * best0


# ---- the search -----------------------------------------------------------------------


@njit(cache=True, error_model="numpy")
def _search(hands, seq, root_len, root_leader, declarer, trump, misere, target, table, stats):
    """Whether the declarer ends with at least ``target`` tricks from the root position,
    and the bound the search proved: a number of tricks he surely reaches (at least
    ``target``) if so, else one he surely stays within (below ``target``).

    ``hands`` (mutated, restored on return) are the three hands; ``seq[:root_len]`` the
    cards already played to the current trick, led by ``root_leader``. The search is an
    AND/OR tree walked with an explicit stack; ``val`` carries the proved bound up (on
    the declarer's tricks from the root): a node whose moves all fail to cut off takes
    the weakest of their bounds, a cut-off the bound of the move that made it.
    """
    words = table[0]
    mask = words.shape[0] - 1
    moves = np.empty((_MAX_PLIES, 10), np.int64)
    scores = np.empty(10, np.int64)
    n_moves = np.empty(_MAX_PLIES, np.int64)
    idx = np.empty(_MAX_PLIES, np.int64)
    is_or = np.empty(_MAX_PLIES, np.bool_)
    st_player = np.empty(_MAX_PLIES, np.int64)
    st_leader = np.empty(_MAX_PLIES, np.int64)
    st_tlen = np.empty(_MAX_PLIES, np.int64)
    st_taken = np.empty(_MAX_PLIES, np.int64)
    st_slot = np.full(_MAX_PLIES, -1, np.int64)
    st_k1 = np.empty(_MAX_PLIES, np.int64)
    st_k2 = np.empty(_MAX_PLIES, np.int64)
    st_lo = np.empty(_MAX_PLIES, np.int64)
    st_hi = np.empty(_MAX_PLIES, np.int64)
    st_acc = np.empty(_MAX_PLIES, np.int64)
    # The lead that last cut the search off at each depth, by leader: it often refutes
    # the sibling positions too (there most leads are tried first by heuristics alone).
    killer = np.full((_MAX_PLIES, 3), -1, np.int64)
    # Arrays handed to the inlined helpers, as views without reference counting.
    hands = _borrowed(hands)
    seq = _borrowed(seq)
    words = _borrowed(words)
    moves = _borrowed(moves)
    scores = _borrowed(scores)

    d = 0
    leader = root_leader
    tlen = root_len
    taken = 0
    res = False
    val = 0
    while True:
        # ---- enter node d: settle it at once if bounds allow, else expand it ----
        stats[0] += 1
        settled = False
        st_slot[d] = -1
        hint = -1
        if tlen == 0:
            n = popcount(hands[leader])
            need = target - taken
            if need <= 0:
                res = True
                val = taken
                settled = True
            elif need > n:
                res = False
                val = taken + n
                settled = True
            elif n <= 2:
                if n == 1:
                    v = _last_trick(hands, leader, declarer, trump)
                else:
                    v = _last_two(hands, leader, declarer, trump, misere)
                res = v >= need
                val = taken + v
                settled = True
            else:
                k1, k2 = _position_key(hands, leader, declarer, trump, misere)
                slot = _slot(k1, k2, mask)
                lo, hi, packed = _entry(words, slot, k1, k2, -1, n)
                if lo < 0:  # a new position: start from the static bounds
                    lo, hi = _bounds(hands, n, leader, declarer, trump, misere)
                    if lo >= need or hi < need:  # settled: next time a probe will do
                        _store(words, slot, k1, k2, lo, hi, -1)
                hint = _unpack_card(hands, packed)
                if lo >= need:
                    res = True
                    val = taken + lo
                    settled = True
                elif hi < need:
                    res = False
                    val = taken + hi
                    settled = True
                else:
                    st_lo[d] = lo
                    st_hi[d] = hi
                    st_slot[d] = slot
                    st_k1[d] = k1
                    st_k2[d] = k2
        if not settled:
            player = (leader + tlen) % 3
            trick = seq[root_len + d - tlen : root_len + d]
            n_moves[d] = _order_moves(
                hands, trick, tlen, leader, player, declarer, trump, misere, hint,
                killer[d, leader] if tlen == 0 else -1, moves[d], scores,
            )
            idx[d] = 0
            is_or[d] = (player == declarer) != misere
            st_acc[d] = -1 if is_or[d] else 99
            st_player[d] = player
            st_leader[d] = leader
            st_tlen[d] = tlen
            st_taken[d] = taken
        else:
            # ---- back up settled values until a node has another move to try ----
            while True:
                if d == 0:
                    return res, val
                d -= 1
                hands[st_player[d]] |= 1 << seq[root_len + d]
                cut = res == is_or[d]
                if cut:
                    killer[d, st_leader[d]] = seq[root_len + d]
                if not cut:
                    if is_or[d]:
                        st_acc[d] = max(st_acc[d], val)
                    else:
                        st_acc[d] = min(st_acc[d], val)
                    idx[d] += 1
                    if idx[d] < n_moves[d]:
                        break
                    res = not is_or[d]  # no move reached the cut-off
                    val = st_acc[d]
                slot = st_slot[d]
                if slot >= 0:
                    k1 = st_k1[d]
                    k2 = st_k2[d]
                    lo, hi, packed = _entry(words, slot, k1, k2, st_lo[d], st_hi[d])
                    if cut:
                        packed = _pack_card(hands, seq[root_len + d])
                    if res:
                        lo = max(lo, val - st_taken[d])
                    else:
                        hi = min(hi, val - st_taken[d])
                    _store(words, slot, k1, k2, lo, hi, packed)
        # ---- play move idx[d] of node d ----
        player = st_player[d]
        c = moves[d, idx[d]]
        hands[player] &= ~(1 << c)
        seq[root_len + d] = c
        leader = st_leader[d]
        taken = st_taken[d]
        tlen = st_tlen[d] + 1
        if tlen == 3:
            base = root_len + d - 2
            leader = (leader + trick_winner(seq[base], seq[base + 1], c, trump)) % 3
            if leader == declarer:
                taken += 1
            tlen = 0
        d += 1


@njit(cache=True, error_model="numpy")
def _playout(hands, seq, root_len, leader, declarer, trump, misere):
    """Declarer's tricks when every player plays the first card of the move ordering."""
    h = hands.copy()
    trick = seq[:3].copy()
    moves = np.empty(10, np.int64)
    scores = np.empty(10, np.int64)
    taken = 0
    tlen = root_len
    while h[leader] | h[(leader + 1) % 3] | h[(leader + 2) % 3]:
        player = (leader + tlen) % 3
        _order_moves(h, trick, tlen, leader, player, declarer, trump, misere, -1, -1, moves,
                     scores)
        h[player] &= ~(1 << moves[0])
        trick[tlen] = moves[0]
        tlen += 1
        if tlen == 3:
            leader = (leader + trick_winner(trick[0], trick[1], trick[2], trump)) % 3
            taken += leader == declarer
            tlen = 0
    return taken


@njit(cache=True, error_model="numpy")
def solve_position(hands, seq, root_len, leader, declarer, trump, misere, table, stats):
    """Declarer's tricks from a position, by zero-window searches around a guess
    (compiled; callers in numba code may value positions inside a trick with it).

    For trick contracts the guess is the result of a playout along the move ordering:
    mostly within a trick of the answer, so two or three searches settle it. Misère
    searches count up from one trick: there proving "at least t" is cheap and refuting
    it dear, so it pays to refute only once.
    """
    guess = 1 if misere else _playout(hands, seq, root_len, leader, declarer, trump, misere)
    return _solve_from(hands, seq, root_len, leader, declarer, trump, misere, table, stats,
                       guess)


@njit(cache=True, error_model="numpy")
def _solve_from(hands, seq, root_len, leader, declarer, trump, misere, table, stats, guess):
    """:func:`solve_position` with the first guess given."""
    n_tricks = (popcount(hands[0] | hands[1] | hands[2]) + root_len) // 3
    lo = 0
    hi = n_tricks
    while lo < hi:
        t = min(max(guess, lo + 1), hi)
        res, val = _search(hands, seq, root_len, leader, declarer, trump, misere, target=t,
                           table=table, stats=stats)
        if res:
            lo = val
            guess = val + 1
        else:
            hi = val
            guess = val
    return lo


@njit(cache=True, error_model="numpy")
def solve_kernel(h0, h1, h2, leader, declarer, trump, misere, table, stats):
    """Compiled :func:`solve` of one deal for callers in numba code (the hand engine):
    hands as int64 masks, ``trump`` -1 for none, ``table`` one thread's table from
    :func:`new_table`, ``stats`` an int64 array counting nodes."""
    hands = np.array([h0, h1, h2], dtype=np.int64)
    seq = np.zeros(_MAX_PLIES + 3, np.int64)
    return solve_position(hands, seq, 0, leader, declarer, trump, misere, table, stats)


@njit(cache=True, error_model="numpy")
def card_values_kernel(hands, trick, tlen, leader, declarer, trump, misere, table, stats, out):
    """Fill ``out[c]`` (32 entries) with the declarer's tricks from the current trick on
    after the seat to move plays card ``c``; -1 for the cards it may not play.

    Compiled form of :func:`card_values`: ``hands`` (three int64 masks) are the cards
    the seats still hold, ``trick[:tlen]`` the cards already on the table, led by
    ``leader``; the seat to move is ``(leader + tlen) % 3``; ``trump`` -1 for none.
    Legal cards with no other card in play between them (in a hand or on the table)
    have the same value, so one card of each such run is searched; each search starts
    from the value found for the last one.
    """
    out[:] = -1
    h = hands.copy()
    seq = np.zeros(_MAX_PLIES + 3, np.int64)
    player = (leader + tlen) % 3
    legal = legal_cards(h[player], -1 if tlen == 0 else trick[0] >> 3, trump)
    in_play = h[0] | h[1] | h[2]
    for i in range(tlen):
        in_play |= 1 << trick[i]
    guess = -1
    prev = -1
    while legal:
        c = lowest_card(legal)
        legal &= legal - 1
        if prev >= 0 and prev >> 3 == c >> 3 and in_play & ((1 << c) - (2 << prev)) == 0:
            out[c] = out[prev]  # no card in play between them: the same card
            prev = c
            continue
        prev = c
        for i in range(tlen):
            seq[i] = trick[i]
        seq[tlen] = c
        h[player] &= ~(1 << c)
        if tlen == 2:  # the card closes the trick: search on from the next lead
            lead = (leader + trick_winner(seq[0], seq[1], c, trump)) % 3
            won = 1 if lead == declarer else 0
            root = 0
        else:
            lead = leader
            won = 0
            root = tlen + 1
        if guess < 0:
            guess = won + (1 if misere else _playout(h, seq, root, lead, declarer, trump,
                                                      misere))
        v = won + _solve_from(h, seq, root, lead, declarer, trump, misere, table, stats,
                              guess - won)
        h[player] |= 1 << c
        out[c] = v
        guess = v


@njit(cache=True, error_model="numpy")
def card_values_batch_kernel(worlds, trick, tlen, leader, declarer, trump, misere, table,
                             stats, out):
    """:func:`card_values_kernel` for each row of ``worlds`` ((K, 3) int64 hands: sampled
    worlds of one decision) into the rows of ``out`` ((K, 32) int8), with one table:
    the worlds share most positions a few tricks on, so later worlds find them there."""
    for i in range(worlds.shape[0]):
        card_values_kernel(worlds[i], trick, tlen, leader, declarer, trump, misere, table,
                           stats, out[i])


@njit(cache=True, error_model="numpy")
def _leads_one(h0, h1, h2, leader, declarer, trump, misere, table, stats, out):
    """Fill ``out[c]`` with the declarer's tricks after ``leader`` leads card ``c``."""
    trick = np.zeros(3, np.int64)
    card_values_kernel(np.array([h0, h1, h2], dtype=np.int64), trick, 0, leader, declarer,
                       trump, misere, table, stats, out)


@njit(cache=True, parallel=True, error_model="numpy")
def _batch_kernel(hands, leader, declarer, trump, misere, leads, tables, stats, out):
    """Solve rows of ``hands``; thread ``k`` takes rows k, k + T, ... with table ``k``."""
    n_threads = tables[0].shape[0]
    n = hands.shape[0]
    for k in prange(n_threads):
        table = (tables[0][k],)
        for i in range(k, n, n_threads):
            h0 = np.int64(hands[i, 0])
            h1 = np.int64(hands[i, 1])
            h2 = np.int64(hands[i, 2])
            if leads:
                _leads_one(h0, h1, h2, leader[i], declarer[i], trump[i], misere[i],
                           table, stats[k], out[i])
            else:
                out[i, 0] = solve_kernel(h0, h1, h2, leader[i], declarer[i], trump[i],
                                       misere[i], table, stats[k])


# ---- Python API -----------------------------------------------------------------------

_table: tuple[np.ndarray, ...] | None = None


def _single_table() -> tuple[np.ndarray, ...]:
    """The table of single-position calls, made once and kept (entries stay valid)."""
    global _table
    if _table is None:
        _table = tuple(t[0] for t in new_table(1))
    return _table


def _check_hands(hands: np.ndarray) -> None:
    """Raise ``ValueError`` unless every row is three disjoint equal-size masks of 1-10 cards."""
    def where(i: int) -> str:
        return "hands" if len(hands) == 1 else f"hands of row {i}"

    sizes = np.bitwise_count(hands)
    bad = np.flatnonzero((sizes != sizes[:, :1]).any(axis=1))
    if bad.size:
        i = bad[0]
        raise ValueError(f"{where(i)} have unequal sizes {sizes[i].tolist()}")
    bad = np.flatnonzero((sizes[:, 0] < 1) | (sizes[:, 0] > 10))
    if bad.size:
        raise ValueError(f"{where(bad[0])} hold {sizes[bad[0], 0]} cards each, not 1 to 10")
    h0, h1, h2 = hands.T
    overlap = (h0 & h1) | (h0 & h2) | (h1 & h2)
    bad = np.flatnonzero(overlap)
    if bad.size:
        i = bad[0]
        raise ValueError(f"{where(i)} overlap in {format_cards(int(overlap[i]))}")


def _broadcast(col: np.ndarray, n: int, name: str) -> np.ndarray:
    """``col`` as a contiguous length-n column, or ``ValueError`` naming the argument."""
    if col.ndim > 1 or (col.ndim == 1 and len(col) not in (1, n)):
        raise ValueError(f"{name} must be a scalar or have length {n}, got shape {col.shape}")
    return np.ascontiguousarray(np.broadcast_to(col, (n,)))


def _column(value, n: int, name: str, low: int, high: int) -> np.ndarray:
    """A scalar or length-n integer argument as an int64 column checked to lie in low..high."""
    if value is None and name == "trump":
        value = -1
    col = np.asarray(value)
    if col.dtype == object:
        col = np.where(col == None, -1, col).astype(np.int64)  # noqa: E711 - elementwise
    if col.dtype.kind not in "iub":
        raise ValueError(f"{name} must be integers, got {col.dtype}")
    col = _broadcast(col.astype(np.int64), n, name)
    if col.size and (col.min() < low or col.max() > high):
        bad = col[(col < low) | (col > high)][0]
        raise ValueError(f"{name} must lie in {low}..{high}, got {bad}")
    return col


def _mask_rows(hands, dtype, rows: str = "n") -> np.ndarray:
    """``hands`` as a contiguous (rows, 3) array of 32-bit card masks, or ``ValueError``."""
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(f"hands must have shape ({rows}, 3), got {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 0xFFFFFFFF):
        raise ValueError("hands must be 32-bit card masks")
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
        stats = np.zeros((n_threads, 8), dtype=np.int64)  # a cache line a thread
        _batch_kernel(arr, lead, decl, tr, mis, leads, new_table(n_threads), stats, out)
    return out


def solve_batch(hands, trump, leader, declarer, misere=False, *, threads: int | None = None
                ) -> np.ndarray:
    """Declarer's tricks for each row of ``hands`` (shape (n, 3)), as an int8 array.

    ``trump`` (-1 or ``None`` for no trumps), ``leader``, ``declarer`` and ``misere`` are
    scalars or length-n arrays. Rows are spread over ``threads`` cores (default: all),
    each thread with its own transposition table.

    >>> from prefstats.cards import parse_cards as p
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
        raise ValueError(f"expected three hands, got {len(hands)}")
    return np.array([[int(h) for h in hands]], dtype=np.int64)


def solve(hands: Sequence[int], *, trump: int | None, leader: int, declarer: int,
          misere: bool = False) -> int:
    """Tricks the declarer takes under perfect play by all (see the module docstring)."""
    arr, lead, decl, tr, mis = _prepare(_one_row(hands), trump, leader, declarer, misere)
    h = arr[0].astype(np.int64)
    stats = np.zeros(1, dtype=np.int64)
    return int(solve_kernel(h[0], h[1], h[2], lead[0], decl[0], tr[0], mis[0],
                          _single_table(), stats))


def solve_leads(hands: Sequence[int], *, trump: int | None, leader: int, declarer: int,
                misere: bool = False) -> dict[int, int]:
    """Declarer's tricks after each card the leader may lead: ``{card index: tricks}``.

    >>> from prefstats.cards import card_name, parse_cards as p
    >>> leads = solve_leads([p("♠AK"), p("♠Q ♥A"), p("♠8 ♥7")], trump=None, leader=0, declarer=0)
    >>> {card_name(c): t for c, t in leads.items()}
    {'K♠': 2, 'A♠': 2}
    """
    arr, lead, decl, tr, mis = _prepare(_one_row(hands), trump, leader, declarer, misere)
    h = arr[0].astype(np.int64)
    out = np.empty(N_CARDS, dtype=np.int8)
    stats = np.zeros(1, dtype=np.int64)
    _leads_one(h[0], h[1], h[2], lead[0], decl[0], tr[0], mis[0], _single_table(), stats, out)
    return {c: int(out[c]) for c in range(N_CARDS) if out[c] >= 0}


# ---- values of every card, inside a trick too (for search players) -----------------------


def _prepare_position(hands, trick: Sequence[int], trump, leader: int, declarer: int,
                      misere: bool) -> tuple[np.ndarray, np.ndarray, int, int, int, int]:
    """Checked int64 worlds (K, 3), the trick as int64 (3,), and trump, leader,
    declarer, misère as compiled arguments; ``ValueError`` naming what is wrong."""
    arr = _mask_rows(hands, np.int64, "k")
    cards = [int(c) for c in trick]
    if len(cards) > 2:
        raise ValueError(f"a trick on the table holds 0 to 2 cards, got {len(cards)}")
    if any(not 0 <= c < N_CARDS for c in cards) or len(set(cards)) != len(cards):
        raise ValueError(f"trick cards must be distinct card indices 0..31, got {cards}")
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
            raise ValueError(f"{where} hold {size.tolist()} cards: with {len(cards)} on the "
                             f"table led by seat {lead}, the seat to move holds 1 to 10 and "
                             "those who played one fewer")
        overlap = (row[0] & row[1]) | (row[0] & row[2]) | (row[1] & row[2]) | (
            on_table & (row[0] | row[1] | row[2]))
        if overlap:
            raise ValueError(f"{where} overlap the other hands or the trick in "
                             f"{format_cards(int(overlap))}")
        for k in range(1, len(cards)):
            seat = (lead + k) % 3
            allowed = legal_cards(int(row[seat]) | 1 << cards[k], cards[0] >> 3, tr)
            if not allowed >> cards[k] & 1:
                raise ValueError(f"{where}: seat {seat} could not play "
                                 f"{format_cards(1 << cards[k])} to this trick")
    padded = np.zeros(3, dtype=np.int64)
    padded[: len(cards)] = cards
    return arr, padded, tr, lead, decl, bool(misere)


def card_values_batch(hands, *, trump: int | None, leader: int, declarer: int,
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

    >>> from prefstats.cards import card_name, cards_of, parse_cards as p
    >>> v = card_values_batch([[p("♠A9"), p("♠7 ♥7"), p("♥8")]], trump=None, leader=2,
    ...                       declarer=0, trick=cards_of(p("♠K")))  # K♠ led: seat 0 to play
    >>> {card_name(c): int(v[0, c]) for c in range(32) if v[0, c] >= 0}
    {'9♠': 0, 'A♠': 2}
    """
    arr, padded, tr, lead, decl, mis = _prepare_position(hands, trick, trump, leader,
                                                         declarer, misere)
    out = np.full((len(arr), N_CARDS), -1, dtype=np.int8)
    if len(arr):
        stats = np.zeros(1, dtype=np.int64)
        card_values_batch_kernel(arr, padded, len(trick), lead, decl, tr, mis,
                                 _single_table(), stats, out)
    return out


def card_values(hands: Sequence[int], *, trump: int | None, leader: int, declarer: int,
                trick: Sequence[int] = (), misere: bool = False) -> dict[int, int]:
    """Declarer's tricks from the current trick on after each card the seat to move may
    play, ``{card index: tricks}``, in a position inside a trick too: ``hands`` are the
    cards the three seats still hold, ``trick`` the cards on the table, led by
    ``leader`` (see :func:`card_values_batch`). The declarer's side plays the card of
    the highest value (on misère the lowest), the defence the other extreme.

    >>> from prefstats.cards import card_name, parse_cards as p
    >>> v = card_values([p("♠AK"), p("♠Q ♥A"), p("♠8 ♥7")], trump=None, leader=0, declarer=0)
    >>> {card_name(c): t for c, t in v.items()}
    {'K♠': 2, 'A♠': 2}
    """
    out = card_values_batch(_one_row(hands), trump=trump, leader=leader, declarer=declarer,
                            trick=trick, misere=misere)[0]
    return {c: int(out[c]) for c in range(N_CARDS) if out[c] >= 0}
