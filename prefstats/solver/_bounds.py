"""Bounds on the declarer's remaining tricks at a trick boundary: quick tricks and sure
trumps for trick contracts, the misère rules (private).

The helpers the search calls at every node are inlined into it (``inline="always"``):
numba does not inline calls between compiled functions by itself, and those calls
took about a fifth of the solver's time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.cards import popcount

#: Highest set bit of an 8-bit holding (-1 for none).
HIGH8 = np.array([-1] + [h.bit_length() - 1 for h in range(1, 256)], dtype=np.int64)
#: Lowest set bit of an 8-bit holding (8 for none).
LOW8 = np.array([8] + [(h & -h).bit_length() - 1 for h in range(1, 256)], dtype=np.int64)


def _ducks_table() -> np.ndarray:
    """``DUCKS[d, o]``: how many leads of a suit in a row a misère declarer holding
    ``d`` of it surely ducks, the defenders holding ``o`` (9: every lead), however they
    lead it: he plays his highest card under theirs. Their best is their lowest card
    each time (checked on every holding against any card, whichever defender holds
    it); once they hold none, it is not led again. A table: the search asks for it at
    every new position, in every suit."""
    d = np.arange(256)[:, None].repeat(256, axis=1)
    o = np.arange(256)[None, :].repeat(256, axis=0)
    ducks = np.full((256, 256), 9, dtype=np.int64)
    going = np.ones((256, 256), dtype=bool)
    for k in range(8):
        under = d & ((1 << LOW8[o]) - 1)
        stop = going & (d != 0) & (o != 0) & (under == 0)
        ducks[stop] = k
        going &= (d != 0) & (o != 0) & (under != 0)
        d = np.where(going, d ^ (1 << np.maximum(HIGH8[under], 0)), d)
        o = np.where(going, o & (o - 1), o)
    return ducks.astype(np.int8)  # 64 KiB: stays in cache


DUCKS = _ducks_table()

#: ``SPREAD[x]``: the bits of the 8-bit holding ``x`` spread to the even bits of 16, so
#: that ``SPREAD[d | b] | SPREAD[a | b] << 1`` numbers a suit's split between a misère
#: declarer (``d``) and the defenders (``a``, ``b``): two bits a rank (see ``SUIT_FACTS``).
SPREAD = np.array([sum(((x >> k) & 1) << (2 * k) for k in range(8)) for x in range(256)],
                  dtype=np.int64)


def _suit_facts_table() -> np.ndarray:
    """``SUIT_FACTS[SPREAD[d | b] | SPREAD[a | b] << 1]``: what the misère bounds need of
    a suit (``_misere_bounds``; the declarer holds ``d``, the defender after him ``a``
    and the other ``b``), packed in 18 bits: ``DUCKS[d, a | b]`` (bits 0-3);
    ``_forced_leads(d, a, b)`` (4-7); the sure escapes (8-10): over the defenders
    holding some, the fewest of his cards below all of one's and half of that one's
    cards; whether some defender's card tops his lowest (11); whether the defender
    on lead can force him, when ``a`` leads (12, the partner second) and when ``b``
    leads (13, the partner third); and the tricks in a row he surely loses by an exit,
    a card below the lowest of each defender holding the suit (14-17: that trick and
    the ducks after it, ``DUCKS`` of the rest, at best; 0 with no such card). One
    look-up a suit at every new position in place of loops."""
    idx = np.arange(1 << 16)
    code = (idx[:, None] >> (2 * np.arange(8))) & 3  # a rank's holder: 1 d, 2 a, 3 b
    weight = 1 << np.arange(8)
    d, a, b = (((code == k) * weight).sum(axis=1) for k in (1, 2, 3))
    low = LOW8[d]
    # _forced_leads: leading his lowest, each defender going under it with his highest
    # card below, until a defender holds only higher cards (9: his cards run out first).
    chain = np.full(idx.shape, 9)
    dd, x, y = d.copy(), a.copy(), b.copy()
    going = np.ones(idx.shape, dtype=bool)
    for k in range(8):
        going &= dd != 0
        lo = LOW8[dd]
        stop = going & (((x != 0) & (LOW8[x] > lo)) | ((y != 0) & (LOW8[y] > lo)))
        chain[stop] = k
        going &= ~stop
        below = (1 << np.minimum(lo, 8)) - 1
        dd = np.where(going, dd & (dd - 1), dd)
        x = np.where(going & (x != 0), x ^ (1 << np.maximum(HIGH8[x & below], 0)), x)
        y = np.where(going & (y != 0), y ^ (1 << np.maximum(HIGH8[y & below], 0)), y)
    count = np.array([bin(v).count("1") for v in range(256)])
    escapes = np.zeros(idx.shape, dtype=np.int64)
    for o in (a, b):
        sure = np.minimum(count[d & ((1 << np.minimum(LOW8[o], 8)) - 1)], count[o] // 2)
        escapes = np.maximum(escapes, np.where(o != 0, sure, 0))
    low_a = np.where(a == 0, -1, LOW8[a])
    low_b = np.where(b == 0, -1, LOW8[b])
    forced_by_a = (a != 0) & (low > np.maximum(LOW8[a], low_b))
    forced_by_b = (b != 0) & (low > LOW8[b]) & ((a == 0) | (low_a < low))
    # The exits: his cards below every defender's lowest that holds the suit, each of
    # which some defender must overtake; the best for him leaves the most ducks.
    exits = d & ((1 << np.maximum(np.maximum(low_a, low_b), 0)) - 1)
    ducks_after = np.full(idx.shape, -1)
    for r in range(8):
        ducks_after = np.where(exits >> r & 1,
                               np.maximum(ducks_after, DUCKS[d ^ (1 << r), a | b]), ducks_after)
    facts = (DUCKS[d, a | b] | chain << 4 | escapes << 8 | (HIGH8[a | b] > low) << 11
             | forced_by_a << 12 | forced_by_b << 13 | (1 + ducks_after) << 14)
    return facts.astype(np.int32)  # 256 KiB


SUIT_FACTS = _suit_facts_table()


def _beaten_table() -> np.ndarray:
    """``BEATEN[x, y]``: the most cards of the holding ``x`` that can each meet a
    different higher card of the holding ``y`` (matched greedily from the top, which
    gives the most). Of a player's trumps, all but these win: see ``_bounds``."""
    beaten = np.zeros((256, 256), dtype=np.int8)
    for x in range(256):
        for y in range(256):
            free = 0
            k = 0
            for r in range(7, -1, -1):
                if x >> r & 1 and free:
                    free -= 1
                    k += 1
                free += y >> r & 1
            beaten[x, y] = k
    return beaten


BEATEN = _beaten_table()


@njit(cache=True, inline="always", error_model="numpy")
def _suit_len(hand, s):
    return popcount((hand >> (8 * s)) & 0xFF)


@njit(cache=True, inline="always", error_model="numpy")
def _bounds(hands, n, leader, declarer, trump, misere, need=0):
    """Bounds (low, high) on the declarer's remaining ``n`` tricks, ``leader`` to lead;
    given ``need`` > 0, the first that show whether he takes ``need`` (cheapest rules
    first: the search needs no more)."""
    if misere:
        return _misere_bounds(hands, n, leader, declarer)
    lo = 0
    hi = n
    sure = 0
    if trump >= 0:
        # Sure trumps: a player's trumps fall in different tricks, and each wins its
        # trick unless a higher trump falls in it, so all but ``BEATEN`` of them win
        # (against a defender only the declarer's count: his partner's trump over his
        # still wins the trick for the defence).
        sh = 8 * trump
        dt = (hands[declarer] >> sh) & 0xFF
        at = (hands[(declarer + 1) % 3] >> sh) & 0xFF
        bt = (hands[(declarer + 2) % 3] >> sh) & 0xFF
        sure = popcount(dt) - BEATEN[dt, at | bt]
        lo = sure
        hi = n - max(popcount(at) - BEATEN[at, dt], popcount(bt) - BEATEN[bt, dt])
        if need > 0 and (lo >= need or hi < need):
            return lo, hi
    q = _quick_tricks(hands, leader, declarer, trump)
    if leader == declarer:
        lo = max(lo, q)
    else:
        hi = min(hi, n - q)
    if trump < 0 or (need > 0 and (lo >= need or hi < need)):
        return lo, hi
    if sure > 0 and leader != declarer:
        # Not on lead, he still takes his top side cards of ``_side_cashes``: one may
        # not discard while holding trumps, and a trump of his wins a trick, so until
        # he first wins one he discards nothing and plays a top card only to the first
        # tricks of its suit, which it wins; then he cashes them.
        lo = max(lo, sure + _side_cashes(hands[declarer], hands[(declarer + 1) % 3],
                                         hands[(declarer + 2) % 3], trump, 0))
    # The only player left with trumps takes his quick tricks wherever the lead is:
    # until he is in he wins each trick of a suit he has top cards in, or ruffs (so
    # never discards), and once in he cashes them, none ruffed.
    if (dt != 0) + (at != 0) + (bt != 0) == 1:
        p = declarer if dt else ((declarer + 1) % 3 if at else (declarer + 2) % 3)
        if p != leader:
            q = _quick_tricks(hands, p, declarer, trump)
            if p == declarer:
                lo = max(lo, q)
            else:
                hi = min(hi, n - q)
    return lo, hi


@njit(cache=True, inline="always", error_model="numpy")
def _misere_bounds(hands, n, leader, declarer):
    """Bounds (low, high) on a misère declarer's remaining ``n`` tricks, in one pass
    over the suits he holds (one look-up of ``SUIT_FACTS`` each). The rules, per suit
    (his holding ``d``, the defenders' ``sa`` and ``sb``):

    - ducking: not on lead, he surely loses as many tricks in a row as he surely ducks
      leads of the suit that allows fewest (``DUCKS``; he discards on the
      others), so none if he can duck every lead of every suit;
    - on lead, his lowest card of the suit wins the trick if each defender can go
      under it or is void (a higher card wins too: the defenders go under it as well);
      if that holds in every suit he takes the trick and leads again. The defenders
      keep him there as long as they can: each goes under his card with his highest
      card below it, and a suit stops forcing him once a defender holds only higher
      cards of it (``_forced_leads``: his leads of his lowest card until then; a
      discard of theirs never brings that sooner). So he takes as many tricks in a
      row as the suit that stops forcing him first allows; if none does (all his
      cards top the defenders'), every remaining trick (so too when a defender leads
      a suit he holds: he wins that trick and is then on lead with cards that still
      top theirs). Otherwise he leads a card that a defender holding only higher
      cards of its suit must overtake: he loses the trick, and then as many in a row
      as he surely ducks after it (the best such card for him);
    - the defender on lead forces him in a suit where his lowest card tops the
      leader's lowest and the partner, playing second, cannot go above it either, or,
      playing third, can stay under it (or is void): the leader leads his lowest,
      the partner goes under with his highest card below, and then the declarer is
      on lead as above, with whichever card of the suit he won with. Unless one
      can, he escapes the coming trick by going under or discarding, and then
      ducks as above (``_escape_then_ducks``: the seats as they sit for that trick);
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
    # Not on lead: the tricks he surely loses in a row (9: all), and the suit that
    # allows fewest (``DUCKS``).
    ducks = 9
    ducks_suit = -1
    ducks_rest = 9  # the fewest over the other suits
    # On lead: the tricks he takes in a row (9: all), and the suit that allows fewest.
    chain = 9
    chain_suit = -1
    chain_rest = 9  # the fewest over the other suits
    stuck = True  # every card of his tops the defenders' of its suit
    forcing = 0  # suits in which a defender on lead can make him win the coming trick
    escapes = 0
    exits = 0  # by suit, 4 bits each: the tricks in a row his best exit loses (at most)
    forced_bit = 12 if leader == a else 13  # unused when he leads
    for s in range(4):
        sh = 8 * s
        d = (hands[declarer] >> sh) & 0xFF
        if d == 0:
            continue
        sa = (hands[a] >> sh) & 0xFF
        sb = (hands[b] >> sh) & 0xFF
        f = SUIT_FACTS[SPREAD[d | sb] | SPREAD[sa | sb] << 1]
        ducks, ducks_suit, ducks_rest = _two_least(f & 15, s, ducks, ducks_suit, ducks_rest)
        chain, chain_suit, chain_rest = _two_least((f >> 4) & 15, s, chain, chain_suit,
                                                   chain_rest)
        escapes = max(escapes, (f >> 8) & 7)
        stuck = stuck and (f >> 11) & 1 == 0
        forcing |= ((f >> forced_bit) & 1) << s
        exits |= ((f >> 14) & 15) << (4 * s)
    lo = 0
    hi = n
    if leader != declarer:
        if ducks == 9:
            return 0, 0
        hi = n - min(ducks, n)
        if stuck and _shares_suit(hands[leader], hands[declarer]):
            return n, n
        if forcing:
            lo = _forced_tricks(hands, leader, partner, declarer, forcing,
                                (chain, chain_suit, chain_rest), n)
        else:
            hi = min(hi, n - max(1, _escape_then_ducks(hands, leader, declarer, ducks,
                                                       ducks_suit, ducks_rest, exits, n)))
    elif stuck:
        return n, n
    elif chain > 0:
        lo = min(chain, n)
    else:
        # A safe exit: a card some defender must overtake; then he ducks as above.
        lost = 1
        for s in range(4):
            lost = max(lost, _exit_run(exits, s, ducks, ducks_suit, ducks_rest, n))
        if lost == n:
            return 0, 0
        hi = n - lost
    return lo, min(hi, n - min(escapes, n // 2))


@njit(cache=True, inline="always", error_model="numpy")
def _two_least(v, s, least, least_suit, rest):
    """The least of the values so far with ``v`` of suit ``s`` added, its suit, and the
    least over the other suits: a bound that holds the least suit out needs the next."""
    if v < least:
        return v, s, least
    return least, least_suit, min(rest, v)


@njit(cache=True, inline="always", error_model="numpy")
def _exit_run(exits, s, ducks, ducks_suit, ducks_rest, n):
    """The most tricks in a row a misère declarer surely loses by an exit in suit ``s``
    (its field of ``exits``, from ``SUIT_FACTS``: that trick and the ducks after it),
    the ducks of the other suits (``DUCKS`` counts, as in ``_escape_then_ducks``)
    allowing at most theirs; 0 with no exit."""
    rest = ducks_rest if s == ducks_suit else ducks
    return min(n, 1 + rest, (exits >> (4 * s)) & 15)


@njit(cache=True, inline="always", error_model="numpy")
def _escape_then_ducks(hands, leader, declarer, ducks, ducks_suit, ducks_rest, exits, n):
    """Tricks a misère declarer surely loses in a row from a defender's lead, which he
    escapes (``DUCKS`` from the next one on): the leader's worst suit for him. In a
    suit he holds he escapes by a card below the lowest of each defender holding it:
    under the card led, or one the partner must overtake (``exits``, by suit, from
    ``SUIT_FACTS``; lower cards led leave him no more escapes). In a suit he lacks he
    discards his highest card of the suit that allows fewest ducks. ``ducks`` (over
    all suits), ``ducks_suit`` and ``ducks_rest`` (over the others) are the counts of
    ``DUCKS``."""
    worst = n
    for s in range(4):
        sh = 8 * s
        if (hands[leader] >> sh) & 0xFF == 0:
            continue
        if (hands[declarer] >> sh) & 0xFF == 0:  # he discards
            t = ducks_suit
            dt = (hands[declarer] >> (8 * t)) & 0xFF if t >= 0 else 0
            after = 9
            if dt & (dt - 1):
                o = ((hands[(declarer + 1) % 3] | hands[(declarer + 2) % 3]) >> (8 * t)) & 0xFF
                after = DUCKS[dt ^ (1 << HIGH8[dt]), o]
            best = 1 + min(n - 1, ducks_rest, after)
        else:
            best = _exit_run(exits, s, ducks, ducks_suit, ducks_rest, n)
        worst = min(worst, best)
    return worst


@njit(cache=True, inline="always", error_model="numpy")
def _forced_leads(d, x, y):
    """How many times running a misère declarer on lead with ``d`` of a suit, the
    defenders holding ``x`` and ``y``, wins the trick by leading his lowest card, each
    defender going under it with his highest card below it or being void, before a
    defender holds only higher cards of it (9: his cards run out first). Leading his
    lowest strips their low cards fastest."""
    k = 0
    while d:
        low = LOW8[d]
        if (x != 0 and LOW8[x] > low) or (y != 0 and LOW8[y] > low):
            return k
        d &= d - 1
        if x:
            x ^= 1 << HIGH8[x & ((1 << low) - 1)]
        if y:
            y ^= 1 << HIGH8[y & ((1 << low) - 1)]
        k += 1
    return 9


@njit(cache=True, inline="always", error_model="numpy")
def _forced_tricks(hands, leader, partner, declarer, forcing, chains, n):
    """Tricks a misère declarer surely takes in a row when the defender on lead can
    force him in the suits of ``forcing``: the best such suit for the defenders, the
    worst card he can win with for him. ``chains``: ``chain`` (over all suits),
    ``chain_suit`` and ``chain_rest`` (over the others), the tricks in a row of
    ``_forced_leads``."""
    chain, chain_suit, chain_rest = chains
    partner_second = partner == (leader + 1) % 3
    best = 1
    for s in range(4):
        if not forcing >> s & 1:
            continue
        sh = 8 * s
        d = (hands[declarer] >> sh) & 0xFF
        mine = (hands[leader] >> sh) & 0xFF
        other = (hands[partner] >> sh) & 0xFF
        mine &= mine - 1  # the leader leads his lowest
        worst = chain_rest if s == chain_suit else chain
        cards = d
        while cards and worst > 0:
            r = LOW8[cards]
            cards &= cards - 1
            # Second, the partner goes under the declarer's lowest; third, under his card.
            under = LOW8[d] if partner_second else r
            rest = other ^ (1 << HIGH8[other & ((1 << under) - 1)]) if other else 0
            worst = min(worst, _forced_leads(d ^ (1 << r), mine, rest))
        best = max(best, 1 + worst)
    return min(best, n)


@njit(cache=True, inline="always", error_model="numpy")
def _shares_suit(x, y):
    """Whether hands ``x`` and ``y`` both hold a card of some suit."""
    shared = False
    for s in range(4):
        shared |= (x >> (8 * s)) & 0xFF != 0 and (y >> (8 * s)) & 0xFF != 0
    return shared


@njit(cache=True, inline="always", error_model="numpy")
def _drop_lowest(x, k):
    """The holding ``x`` without its ``k`` lowest cards."""
    for _ in range(k):
        x &= x - 1
    return x


@njit(cache=True, inline="always", error_model="numpy")
def _side_cashes(h, a, b, trump, drawn):
    """Top cards of side suits that hand ``h`` wins, played to the first tricks of their
    suit: as many in each as every other hand holding trumps has cards of it (holding
    trumps, one may not discard, so sheds cards of a suit only to its tricks and still
    follows then). ``drawn``: rounds of trumps he leads first, after which a hand with
    no more trumps than that has none."""
    ruff_a = _suit_len(a, trump) > drawn
    ruff_b = _suit_len(b, trump) > drawn
    total = 0
    for s in range(4):
        if s != trump:
            sh = 8 * s
            t = popcount(((h >> sh) & 0xFF) >> (HIGH8[((a | b) >> sh) & 0xFF] + 1))
            if ruff_a:
                t = min(t, _suit_len(a, s))
            if ruff_b:
                t = min(t, _suit_len(b, s))
            total += t
    return total


@njit(cache=True, inline="always", error_model="numpy")
def _quick_tricks(hands, leader, declarer, trump):
    """Tricks the leader surely takes: top cards he can cash at once, whatever the
    others do, and with trumps left against him his sure trumps (see ``_bounds``)."""
    h = hands[leader]
    a = hands[(leader + 1) % 3]
    b = hands[(leader + 2) % 3]
    total = 0
    if trump >= 0:
        sh = 8 * trump
        others = ((a | b) >> sh) & 0xFF
        mine = (h >> sh) & 0xFF
        top = popcount(mine >> (HIGH8[others] + 1))
        if max(_suit_len(a, trump), _suit_len(b, trump)) > top:
            # Others can still ruff after his top trumps. He leads those first, the
            # others following under them (shedding their lowest trumps, at worst);
            # then he cashes side suits, a top card winning while each other player
            # still holding trumps must follow (so their trumps stay); and of his
            # other trumps, the sure ones against the other side's win too.
            rest = mine & ((1 << (HIGH8[others] + 1)) - 1)
            if leader == declarer:
                left = _drop_lowest(a >> sh & 0xFF, top) | _drop_lowest(b >> sh & 0xFF, top)
            else:
                left = _drop_lowest((hands[declarer] >> sh) & 0xFF, top)
            return top + popcount(rest) - BEATEN[rest, left] + _side_cashes(h, a, b, trump, top)
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


