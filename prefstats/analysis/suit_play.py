"""One suit played alone, double dummy, over every layout of the cards the declarer
lacks: the tricks a holding takes, exactly.

The books' tables of a holding's tricks (Lesnoi's Table 2, the first hand's sure
tricks) speak of one suit. Here the suit is played by itself: three seats in turn from
the declarer (seat 0), each trick won by its highest card, a void seat discarding
elsewhere. Who leads each trick is the one thing the other suits would decide; here the
defence picks the leader of every trick (good defence: the defenders open the suit only
when that costs the declarer, so the figure is a lower bound on his tricks; were he
to choose, he would endplay them into nearly every finesse). The missing cards
lie with the two defenders, ten cards each of the twenty the declarer does not see
(after his discard), so a layout's weight is hypergeometric (:func:`layout_weights`).

>>> dist = trick_distribution(holding("AQ7"))
>>> round(sum(p for t, p in dist.items() if t >= 2), 4)
0.3328
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from math import comb

from prefstats.errors import CardError

#: Cards the two defenders hold between them, ten each, after the declarer's discard.
UNSEEN, DEFENDER = 20, 10
_RANKS = "789TJQKA"


def holding(text: str) -> int:
    """The rank bits of a holding like ``"AQ10"`` or ``"KJ9"`` (``x`` not allowed: name
    the small cards).

    >>> bin(holding("AQ7"))
    '0b10100001'
    """
    bits = 0
    for ch in text.upper().replace("10", "T"):
        if ch not in _RANKS:
            raise CardError(f"holding: {ch!r} is not a rank 7 8 9 10 J Q K A")
        bits |= 1 << _RANKS.index(ch)
    return bits


def _cards(bits: int) -> list[int]:
    return [r for r in range(8) if bits >> r & 1]


@cache
def _tricks(hands: tuple[int, int, int]) -> int:
    """Declarer's (seat 0's) tricks with ``hands`` left, the defence choosing each
    trick's leader among the seats still holding the suit."""
    if not hands[0]:
        return 0  # nothing left that could win him a trick
    return min(_trick(hands, s, ()) for s in range(3) if hands[s])


def _trick(hands: tuple[int, int, int], seat: int, played: tuple) -> int:
    """The value of the trick in progress: ``played`` is ((seat, rank), ...) so far,
    ``seat`` to play next; the declarer maximises, the defenders minimise."""
    if len(played) == 3:
        winner = max((r, s) for s, r in played if r >= 0)[1]
        return (winner == 0) + _tricks(hands)
    nxt = (seat + 1) % 3
    options = _cards(hands[seat]) or [-1]  # a void seat discards another suit
    values = []
    for r in options:
        left = list(hands)
        if r >= 0:
            left[seat] &= ~(1 << r)
        values.append(_trick(tuple(left), nxt, (*played, (seat, r))))
    return max(values) if seat == 0 else min(values)


def layout_weights(missing: int):
    """Each way the ``missing`` rank bits lie between the two defenders, as
    ``(left, right, probability)`` (ten of twenty unseen cards each)."""
    cards = _cards(missing)
    m = len(cards)
    total = comb(UNSEEN, DEFENDER)
    for a in range(m + 1):
        weight = comb(UNSEEN - m, DEFENDER - a) / total
        for chosen in combinations(cards, a):
            left = sum(1 << r for r in chosen)
            yield left, missing & ~left, weight


def trick_distribution(bits: int) -> dict[int, float]:
    """P(the declarer's holding ``bits`` takes t tricks), t by t, over every layout of the
    missing cards (exact)."""
    out: dict[int, float] = {}
    for left, right, p in layout_weights(0xFF & ~bits):
        t = _tricks((bits, left, right))
        out[t] = out.get(t, 0.0) + p
    return dict(sorted(out.items()))


def sure_tricks(bits: int) -> int:
    """Tricks the holding takes on every layout against good defence."""
    return min(trick_distribution(bits))


def at_least(bits: int, tricks: int) -> float:
    """P(the holding takes ``tricks`` or more)."""
    return sum(p for t, p in trick_distribution(bits).items() if t >= tricks)
