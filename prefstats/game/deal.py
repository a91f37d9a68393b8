"""Dealing: uniform, reproducible, chunkable and constrained deals.

Deal ``i`` of a run depends only on the seed and ``i``: a counter-based stream
(SplitMix64 keyed by numpy's ``SeedSequence``) drives an exactly uniform partial
Fisher–Yates shuffle per deal, so a run split into chunks, workers or machines holds
the same deals as a run made in one piece.

>>> d = deal(3, seed=1)
>>> d.hands.shape, d.talon.shape
((3, 3), (3,))
>>> bool((deal(2, seed=1, start=1).hands == d.hands[1:]).all())
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.errors import CardError, OptionError
from prefstats.game.cards import (
    FULL_DECK,
    GOLDEN_GAMMA,
    card_counts,
    format_cards,
    lowest_card,
    parse_cards,
    splitmix64,
)
from prefstats.game.codes import SEAT_NAMES

__all__ = ["Deals", "deal"]

HAND_SIZE = 10
TALON_SIZE = 2
#: One past the last deal number of a seed's stream (deal numbers are int64).
MAX_DEALS = 2**63 - 1
#: Deals a ``where`` is tried on before a constraint nothing passed is refused: with no
#: match in a million, its rate is below 3 in a million (95 % bound), as good as none.
FIRST_BLOCK = 1_000_000

_LOW16 = np.uint64(0xFFFF)
_ONE16 = np.uint64(1 << 16)


@njit(cache=True, inline="always")
def _store(perm, sizes, fixed, hands, talon, i):
    """Write the shuffled free cards ``perm`` into the four slots of deal ``i``."""
    pos = 0
    for slot in range(4):
        mask = fixed[slot]
        for _ in range(sizes[slot]):
            mask |= np.uint32(1) << np.uint32(perm[pos])
            pos += 1
        if slot < 3:
            hands[i, slot] = mask
        else:
            talon[i] = mask


@njit(cache=True)
def _shuffle_one(key0, key1, index, free_cards, draws, thresholds, perm):
    """The reference definition of deal ``index``: a partial Fisher–Yates shuffle of
    ``free_cards`` whose draw ``j`` takes the next 16-bit piece of the deal's SplitMix64
    stream (four pieces a word) and maps it to ``[0, span)`` by Lemire's multiply;
    a piece whose low product part is below ``thresholds[j]`` would be biased and is
    replaced by the next piece. Exactly uniform. Returns the next piece's top bit: a
    fair coin for the order in which the talon cards are turned."""
    k = free_cards.shape[0]
    for j in range(k):
        perm[j] = free_cards[j]
    state = splitmix64(key1 + np.uint64(index) * GOLDEN_GAMMA) ^ key0
    word = np.uint64(0)
    have = 0
    for j in range(draws):
        span = np.uint64(k - j)
        while True:
            if have == 0:
                state += GOLDEN_GAMMA
                word = splitmix64(state)
                have = 4
            prod = (word & _LOW16) * span
            word >>= np.uint64(16)
            have -= 1
            if (prod & _LOW16) >= thresholds[j]:
                break
        r = j + np.int64(prod >> np.uint64(16))
        tmp = perm[j]
        perm[j] = perm[r]
        perm[r] = tmp
    if have == 0:
        state += GOLDEN_GAMMA
        word = splitmix64(state)
    return np.int64((word >> np.uint64(15)) & np.uint64(1))


@njit(cache=True, inline="always")
def _turned_first(talon_mask, coin):
    """The talon card turned first: the lower card on heads (0), the higher on tails."""
    mask = np.int64(talon_mask)
    return lowest_card(mask if coin == 0 else mask & (mask - 1))


_BLOCK = 128  # deals whose draws are made together (vectorised across deals)
_LANES = 4  # deals shuffled side by side: independent chains overlap in the CPU


class Stream(NamedTuple):
    """A stream of deals, as :func:`_deal_kernel` takes it: the two keys of
    :func:`seed_keys`, the ``free_cards`` dealt into the slots seat 0, 1, 2, talon
    (``sizes`` free places each, on top of the ``fixed`` masks; :func:`free_slots`)."""

    key0: np.uint64
    key1: np.uint64
    free_cards: np.ndarray
    sizes: np.ndarray
    fixed: np.ndarray


@njit(cache=True)
def _deal_kernel(stream, start, n, hands, talon, first_turned):
    """Deal deals ``start .. start + n - 1`` of ``stream`` (a :class:`Stream`).

    Compiled code that deals on demand (the pulka simulator) calls it with a stream of
    the slots of :func:`free_slots`. Same result as
    ``_shuffle_one`` per deal, computed a block at a time: the draws
    vectorise across deals and the shuffles run four deals abreast. The rare deal
    whose draws need a redraw is dealt again by ``_shuffle_one``."""
    key0, key1, free_cards, sizes, fixed = stream
    k = free_cards.shape[0]
    draws = k - sizes[3]  # the talon takes what is left: no draws for it
    n_words = (draws + 4) // 4  # the draws and the talon-order coin
    thresholds = np.empty(max(draws, 1), dtype=np.uint64)
    for j in range(draws):
        span = np.uint64(k - j)
        thresholds[j] = (_ONE16 - span) % span  # 2**16 mod span
    words = np.empty((n_words, _BLOCK), dtype=np.uint64)
    picks = np.empty((max(draws, 1), _BLOCK), dtype=np.uint8)
    biased = np.empty(_BLOCK, dtype=np.uint8)
    perms = np.empty((_LANES, k), dtype=np.uint8)
    masks = np.empty(_LANES, dtype=np.uint32)
    for first in range(0, n, _BLOCK):
        m = min(_BLOCK, n - first)
        for b in range(_BLOCK):
            state = splitmix64(key1 + np.uint64(start + first + b) * GOLDEN_GAMMA) ^ key0
            for w in range(n_words):
                state += GOLDEN_GAMMA
                words[w, b] = splitmix64(state)
            biased[b] = 0
        for j in range(draws):
            span = np.uint64(k - j)
            shift = np.uint64(16 * (j & 3))
            for b in range(_BLOCK):
                prod = ((words[j >> 2, b] >> shift) & _LOW16) * span
                picks[j, b] = np.uint8(j + (prod >> np.uint64(16)))
                biased[b] |= np.uint8((prod & _LOW16) < thresholds[j])
        for lane0 in range(0, m, _LANES):
            for lane in range(_LANES):
                for j in range(k):
                    perms[lane, j] = free_cards[j]
            # Position j is final once step j has swapped into it: fill the masks as
            # the shuffle goes (position j is never read again, so it is not written).
            j = 0
            for slot in range(3):
                for lane in range(_LANES):
                    masks[lane] = fixed[slot]
                for _ in range(sizes[slot]):
                    for lane in range(_LANES):
                        r = picks[j, lane0 + lane]
                        masks[lane] |= np.uint32(1) << np.uint32(perms[lane, r])
                        perms[lane, r] = perms[lane, j]
                    j += 1
                for lane in range(min(_LANES, m - lane0)):
                    hands[first + lane0 + lane, slot] = masks[lane]
            for lane in range(min(_LANES, m - lane0)):
                mask = fixed[3]
                for j in range(draws, k):
                    mask |= np.uint32(1) << np.uint32(perms[lane, j])
                talon[first + lane0 + lane] = mask
        coin_shift = np.uint64(16 * (draws & 3) + 15)
        for b in range(m):
            i = first + b
            if biased[b]:
                coin = _shuffle_one(key0, key1, start + i, free_cards, draws, thresholds,
                                    perms[0])
                _store(perms[0], sizes, fixed, hands, talon, i)
            else:
                coin = np.int64((words[draws >> 2, b] >> coin_shift) & np.uint64(1))
            first_turned[i] = _turned_first(talon[i], coin)


@dataclass(frozen=True)
class Deals:
    """A batch of deals: ``hands`` (n, 3) uint32 in seat order from the dealer's left,
    ``talon`` (n,) uint32, where they come from -- the ``seed`` entropy and each deal's
    number ``index`` in that seed's stream -- and ``talon_first`` (n,) int8, the talon
    card turned first on a raspasy (either card with probability ½).

    >>> deals = deal(3, seed=1)
    >>> deals.hands.shape, deals.talon.shape, deals.index.tolist()
    ((3, 3), (3,), [0, 1, 2])
    >>> len(deals[1:])
    2
    """

    hands: np.ndarray
    talon: np.ndarray
    seed: int
    index: np.ndarray
    talon_first: np.ndarray

    def __len__(self) -> int:
        return self.talon.shape[0]

    def __getitem__(self, key) -> Deals:
        if isinstance(key, int | np.integer):
            key = slice(key, key + 1 if key != -1 else None)
        return Deals(self.hands[key], self.talon[key], self.seed, self.index[key],
                     self.talon_first[key])

    def format(self, i: int) -> str:
        """Deal ``i`` as readable text, one seat a line."""
        lines = [f"deal {int(self.index[i])}"]
        for seat, name in enumerate(SEAT_NAMES[:3]):
            lines.append(f"  {name:<12} {format_cards(self.hands[i, seat], voids=True)}")
        lines.append(f"  {'talon':<12} {format_cards(self.talon[i])}")
        return "\n".join(lines)


def seed_keys(seed: int | None) -> tuple[int, np.uint64, np.uint64]:
    """The entropy and the two 64-bit keys of a seed (fresh entropy when ``None``)."""
    seq = np.random.SeedSequence(seed)
    k0, k1 = seq.generate_state(2, dtype=np.uint64)
    return int(seq.entropy), k0, k1  # type: ignore[arg-type]  # one int here


def free_slots() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The slots of an unconstrained deal, as :func:`_deal_kernel` takes them."""
    return _slots((None, None, None), None)


def _as_mask(cards: int | str | None) -> int:
    if cards is None:
        return 0
    return parse_cards(cards) if isinstance(cards, str) else int(cards)


def _slots(fixed_hands: Sequence, fixed_talon) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Check fixed cards and return (free cards, free places per slot, fixed masks)."""
    if len(fixed_hands) != 3:
        raise OptionError(f"fixed_hands needs one entry per seat (3), got {len(fixed_hands)}")
    masks = [_as_mask(h) for h in fixed_hands] + [_as_mask(fixed_talon)]
    names = [*SEAT_NAMES[:3], "talon"]
    capacity = [HAND_SIZE] * 3 + [TALON_SIZE]
    used = 0
    for mask, name, cap in zip(masks, names, capacity, strict=True):
        if not 0 <= mask <= FULL_DECK:
            raise CardError(f"{name}: {mask} is not a 32-bit card mask")
        if used & mask:
            raise CardError(
                f"impossible deal: {format_cards(used & mask)} fixed in two places ({name})"
            )
        if int(card_counts(mask)) > cap:
            raise CardError(f"impossible deal: {name} fixed with more than {cap} cards")
        used |= mask
    free = np.array([c for c in range(32) if not used >> c & 1], dtype=np.uint8)
    sizes = np.array([cap - int(card_counts(m)) for m, cap in zip(masks, capacity, strict=True)])
    return free, sizes.astype(np.int64), np.array(masks, dtype=np.uint32)


def deal(
    n: int,
    *,
    seed: int | None = None,
    start: int = 0,
    fixed_hands: Sequence[int | str | None] = (None, None, None),
    fixed_talon: int | str | None = None,
    where: Callable[[Deals], np.ndarray] | None = None,
    max_tries: int = 50_000_000,
    first_block: int = FIRST_BLOCK,
) -> Deals:
    """Deal ``n`` uniformly random deals: 3 hands of 10 cards and a 2-card talon.

    ``deal(n, seed=s, start=k)`` equals rows ``k .. k+n-1`` of one long run of the seed.
    With ``where``, ``Deals.index`` holds the stream numbers of the kept deals.

    >>> d = deal(2, seed=7, fixed_talon="♥AK")
    >>> format_cards(d.talon[0])
    '♥AK'
    >>> from prefstats.game.cards import suit_lengths
    >>> d = deal(5, seed=7, where=lambda d: suit_lengths(d.hands[:, 0])[:, 0] >= 6)
    >>> bool((suit_lengths(d.hands[:, 0])[:, 0] >= 6).all())
    True

    :param n: how many deals.
    :param seed: makes the deals reproducible (default: fresh entropy, a new stream).
    :param start: the number of the first deal in the seed's stream.
    :param fixed_hands: cards fixed per seat (a mask or card text); a seat given fewer than
        10 cards gets the rest dealt at random.
    :param fixed_talon: cards fixed in the talon (a mask or card text).
    :param where: keeps only the deals for which it returns true; dealing goes on until
        ``n`` match.
    :param max_tries: deals dealt at most for a rare ``where`` that did pass, then
        ``OptionError``.
    :param first_block: deals tried before an impossible constraint is refused (pass a
        larger one for a very rare constraint).
    :returns: the deals, a :class:`Deals`.
    :raises OptionError: for an impossible or too rare constraint.
    :raises CardError: for card text that cannot be read or a card given twice.
    """
    if n < 0 or start < 0:
        raise OptionError(f"n and start must be non-negative, got n={n}, start={start}")
    if start + n > MAX_DEALS:
        raise OptionError(f"deal numbers end at 2**63 - 1 (they are int64): start + n = "
                          f"{start + n:,} is past it")
    if seed is not None and (not isinstance(seed, int | np.integer) or seed < 0):
        raise OptionError(f"seed must be a non-negative integer, got {seed!r}")
    entropy, key0, key1 = seed_keys(seed)
    stream = Stream(key0, key1, *_slots(fixed_hands, fixed_talon))

    def run(first: int, count: int) -> Deals:
        hands = np.empty((count, 3), dtype=np.uint32)
        talon = np.empty(count, dtype=np.uint32)
        turned = np.empty(count, dtype=np.int8)
        _deal_kernel(stream, first, count, hands, talon, turned)
        index = np.arange(first, first + count, dtype=np.int64)
        return Deals(hands, talon, entropy, index, turned)

    if where is None or n == 0:
        return run(start, n)

    kept: list[Deals] = []
    found = tried = 0
    batch = max(1024, min(n, 1_000_000))
    while found < n:
        if found == 0 and tried >= first_block:
            raise OptionError(
                f"no deal of the first {tried:,} matched the constraints: they are "
                f"impossible, or rarer than 3 in {tried:,} (raise first_block to deal on)"
            )
        if tried >= min(max_tries, MAX_DEALS - start):
            raise OptionError(
                f"only {found} of {n} deals matched the constraints in {tried:,} tries: "
                "they are impossible or too rare (raise max_tries to deal on)"
            )
        chunk = run(start + tried, min(batch, max_tries - tried, MAX_DEALS - start - tried))
        tried += len(chunk)
        ok = np.asarray(where(chunk), dtype=bool)
        if ok.shape != (len(chunk),):
            raise OptionError(f"where must return one bool per deal, got shape {ok.shape}")
        picked = np.flatnonzero(ok)[: n - found]
        kept.append(chunk[picked])
        found += len(picked)
        # Grow the batch to the observed acceptance rate to keep the calls few.
        batch = min(4_000_000, max(batch, int(1.2 * (n - found) * tried / max(found, 1))))
    return Deals(
        np.concatenate([k.hands for k in kept]),
        np.concatenate([k.talon for k in kept]),
        entropy,
        np.concatenate([k.index for k in kept]),
        np.concatenate([k.talon_first for k in kept]),
    )
