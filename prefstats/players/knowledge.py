"""What one seat knows of a deal in play, and an exactly uniform sampler of the deals
consistent with it (the worlds a search player such as PIMC solves double dummy).

A :class:`Knowledge` record says which cards the seat knows where: its own hand (and
any open hand), the cards played so far, the cards it knows are out of play (the
declarer's own discard), the suits each seat has shown void in, how many cards each
seat still holds, and the talon cards that were shown and went to the declarer. Every
other card lies with one of the two other seats or among the cards out of play that
the seat has not seen (a defender does not see the declarer's discard). A shown talon
card that is not played lies with the seat that took the talon or in his discard.

:func:`sample_worlds` draws those deals exactly uniformly: the unseen cards fall into at
most eight classes (suit × shown talon card or not), each with the set of places it may
go; a table of the number of completions by class and cards still to place gives each
class's split its exact weight, and within a class the cards are shuffled uniformly.
Every draw is keyed by the seed and the world's number, so results do not depend on
how many worlds a call asks for.

>>> from prefstats.game.cards import FULL_DECK, parse_cards as p
>>> gone = FULL_DECK & ~p("♠AKQJ ♥AK")  # 26 cards played or known out; 6 left
>>> k = Knowledge(seat=0, held=(p("♠AK"), 0, 0), counts=(2, 2, 2), played=gone)
>>> count_worlds(k)  # ♠QJ ♥AK: any two to seat 1
6
>>> count_worlds(Knowledge(seat=0, held=(p("♠AK"), 0, 0), counts=(2, 2, 2), played=gone,
...                        voids=(0, 1, 0)))  # seat 1 showed out of spades: ♥AK his
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.errors import CardError, OptionError
from prefstats.game import engine
from prefstats.game.cards import (
    FULL_DECK,
    GOLDEN_GAMMA,
    SUIT_MASKS,
    format_cards,
    lowest_card,
    popcount,
    splitmix64,
)
from prefstats.game.deal import seed_keys

#: The places an unseen card may lie: the two other seats, in seat order after the
#: knowing seat, and the cards out of play it has not seen.
N_PLACES = 3
OUT = 2
_MAX_HOLD = 12  # cards a hand may hold (the declarer with the talon)


@dataclass(frozen=True)
class Knowledge:
    """What ``seat`` knows of a deal in play, with masks of cards (see the module).

    ``held[s]``: cards seat ``s`` is known to hold now (``held[seat]`` is the seat's own
    hand; an open hand is known whole); ``counts[s]``: how many cards seat ``s`` holds
    now; ``played``: every card played so far, the current trick's included; ``out``:
    other cards the seat knows are out of play (its own discard, a talon it saw put
    aside); ``voids[s]``: bits ``1 << suit`` of the suits seat ``s`` has shown void
    in; ``talon``: talon cards shown, taken by ``talon_holder`` (-1: nobody).
    """

    seat: int
    held: tuple[int, int, int]
    counts: tuple[int, int, int]
    played: int = 0
    out: int = 0
    voids: tuple[int, int, int] = (0, 0, 0)
    talon: int = 0
    talon_holder: int = -1

    def others(self) -> tuple[int, int]:
        """The two other seats, in the order the sampler's places use."""
        return (self.seat + 1) % 3, (self.seat + 2) % 3

    def unseen(self) -> int:
        """Cards whose place the seat does not know."""
        known = self.held[0] | self.held[1] | self.held[2] | self.played | self.out
        return FULL_DECK & ~known

    def check(self) -> None:
        """``CardError`` or ``OptionError`` naming the first inconsistency; none for a
        consistent record."""
        if self.seat not in (0, 1, 2):
            raise OptionError(f"seat must be 0, 1 or 2, got {self.seat}")
        if self.talon_holder not in (-1, 0, 1, 2):
            raise OptionError(f"talon_holder must be -1, 0, 1 or 2, got {self.talon_holder}")
        if len(self.held) != 3 or len(self.counts) != 3 or len(self.voids) != 3:
            raise OptionError("held, counts and voids need one entry per seat")
        parts = {"played": self.played, "out": self.out,
                 **{f"held[{s}]": self.held[s] for s in range(3)}}
        for name, mask in parts.items():
            if not 0 <= mask <= FULL_DECK:
                raise CardError(f"{name} must be a 32-bit card mask, got {mask}")
        names = list(parts)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if parts[a] & parts[b]:
                    raise CardError(f"{a} and {b} share {format_cards(parts[a] & parts[b])}")
        for s in range(3):
            n = self.counts[s]
            if not 0 <= n <= _MAX_HOLD:
                raise CardError(f"counts[{s}] must lie in 0..{_MAX_HOLD}, got {n}")
            have = self.held[s].bit_count()
            if have > n or (s == self.seat and have != n):
                raise CardError(f"seat {s} holds {n} cards but {have} are given as held")
            if not 0 <= self.voids[s] <= 15:
                raise CardError(f"voids[{s}] must be suit bits 0..15, got {self.voids[s]}")
            for suit in range(4):
                if self.voids[s] >> suit & 1 and self.held[s] & SUIT_MASKS[suit]:
                    raise CardError(f"seat {s} is void in suit {suit} but holds "
                                    f"{format_cards(self.held[s] & SUIT_MASKS[suit])}")
        if self.talon and self.talon_holder < 0:
            raise CardError("a shown talon needs its talon_holder")
        if self.talon & ~FULL_DECK or self.talon.bit_count() > 2:
            raise CardError(f"talon holds at most two cards, got {self.talon}")
        if _out_unseen(self) < 0:
            raise CardError("counts and the known cards add up to more than 32 cards")


class Known(NamedTuple):
    """A :class:`Knowledge` as the compiled sampler takes it (:func:`known_of`): the
    same fields, ``held``, ``counts`` and ``voids`` as int64 arrays of 3."""

    seat: int
    held: np.ndarray
    counts: np.ndarray
    played: int
    out: int
    voids: np.ndarray
    talon: int
    talon_holder: int


class Draws(NamedTuple):
    """The stream worlds are drawn from: the two keys of a seed (:func:`seed_keys`) and
    the number of the first world drawn (:func:`draws_of`)."""

    key0: np.uint64
    key1: np.uint64
    start: int


@njit(cache=True, error_model="numpy")
def known_of(seat, held, counts, played, out, voids, talon, talon_holder):
    """The :class:`Known` of these fields, typed as the sampler is compiled for them."""
    return Known(np.int64(seat), held, counts, np.int64(played), np.int64(out), voids,
                 np.int64(talon), np.int64(talon_holder))


@njit(cache=True, error_model="numpy")
def draws_of(key0, key1, start):
    """The :class:`Draws` of these fields, typed as the sampler is compiled for them."""
    return Draws(np.uint64(key0), np.uint64(key1), np.int64(start))


@njit(cache=True)
def observation_knowledge(obs, held, counts, voids):
    """What the seat whose card it is knows in play, from its observation ``obs`` (an
    :data:`~prefstats.game.engine.OBSERVATION` in phase ``PLAY``): fills ``held``, ``counts``
    and ``voids`` (3 int64 each) and returns ``(played, out, talon, talon_holder)``, the
    rest of a :class:`Knowledge`. The seat is ``obs.playing_for``: its cards are in view
    of the deciding seat (its own, or the open hand it plays). A shown talon card not
    played lies with the declarer or in his discard; on a raspasy a turned one is out of
    play."""
    for s in range(3):
        held[s] = np.int64(obs.visible[s])
        counts[s] = 10 - popcount(np.int64(obs.played_by[s]))  # ten after any discard
        voids[s] = np.int64(obs.voids[s])
    played = np.int64(obs.gone)
    talon = np.int64(obs.talon) & ~played
    out = np.int64(obs.discard)
    if obs.kind == engine.RASPASY:
        return played, out | talon, np.int64(0), np.int64(-1)
    return played, out, talon, np.int64(obs.declarer if talon else -1)


def knowledge_of(obs) -> Knowledge:
    """The :class:`Knowledge` of the seat to play from an observation in play (a
    :class:`~prefstats.players.base.Observation` or its record).

    >>> from prefstats.game.deal import deal
    >>> from prefstats.sim.play import new_state
    >>> from prefstats.game.variants import get_variant
    >>> rules = engine.rules_array(get_variant("sochi"))
    >>> d = deal(1, seed=2)
    >>> st = new_state(d.hands[0], d.talon[0])[0]
    >>> from prefstats.game.auction import PASS
    >>> for _ in range(3):  # all pass: a raspasy, seat 0 leads, one talon card turned
    ...     _ = engine.apply(st, rules, PASS)
    >>> obs = np.zeros(1, engine.OBSERVATION)[0]
    >>> engine.observe(st, rules, obs)
    >>> k = knowledge_of(obs)
    >>> k.seat, k.counts, k.out == 1 << int(obs["talon_order"][0])
    (0, (10, 10, 10), True)
    >>> count_worlds(k)  # 21 unseen cards: ten to each other seat, one in the talon
    3879876
    """
    record = getattr(obs, "record", obs)
    if int(record["phase"]) != engine.PLAY:
        raise OptionError(f"knowledge_of needs an observation in play, not in phase "
                          f"{engine.PHASES[int(record['phase'])]!r}")
    held, counts, voids = (np.zeros(3, np.int64) for _ in range(3))
    played, out, talon, holder = observation_knowledge(record, held, counts, voids)
    k = Knowledge(seat=int(record["playing_for"]), held=tuple(int(h) for h in held),
                  counts=tuple(int(c) for c in counts), played=int(played), out=int(out),
                  voids=tuple(int(v) for v in voids), talon=int(talon),
                  talon_holder=int(holder))
    k.check()
    return k


def _out_unseen(k: Knowledge) -> int:
    """Cards out of play that ``k.seat`` has not seen."""
    return 32 - sum(k.counts) - (k.played | k.out).bit_count()


def voids_shown(trick: list[int], leader: int, trump: int | None) -> tuple[int, int, int]:
    """The voids (suit bits by seat) a trick's cards show: who did not follow the suit led
    is void in it, and in a trump contract also in trumps if he did not ruff.

    >>> from prefstats.game.cards import cards_of, parse_cards as p
    >>> voids_shown(cards_of(p("♠A")) + cards_of(p("♥7")) + cards_of(p("♦8")), 0, 3)
    (0, 1, 9)
    """
    voids = [0, 0, 0]
    led = trick[0] >> 3
    for i, c in enumerate(trick[1:], start=1):
        if c >> 3 != led:
            seat = (leader + i) % 3
            voids[seat] |= 1 << led
            if trump is not None and trump >= 0 and c >> 3 != trump:
                voids[seat] |= 1 << trump
    return voids[0], voids[1], voids[2]


@njit(cache=True, error_model="numpy")
def classes_kernel(seat, held, counts, played, out, voids, talon, talon_holder):
    """Compiled core of the sampler's set-up, on a :class:`Knowledge` as arrays: the
    unseen cards by class (suit × shown talon card), the places each class may go
    (bits over the places) and the cards each place still needs."""
    a = (seat + 1) % 3
    b = (seat + 2) % 3
    need = np.empty(N_PLACES, np.int64)
    need[0] = counts[a] - popcount(held[a])
    need[1] = counts[b] - popcount(held[b])
    need[OUT] = 32 - counts[0] - counts[1] - counts[2] - popcount(played | out)
    masks = np.zeros(8, np.int64)
    places = np.zeros(8, np.int64)
    unseen = FULL_DECK & ~(held[0] | held[1] | held[2] | played | out)
    for suit in range(4):
        for shown in range(2):
            cls = unseen & (0xFF << (8 * suit)) & (talon if shown else ~talon)
            ok = 1 << OUT
            for p in range(2):
                other = a if p == 0 else b
                if not (voids[other] >> suit) & 1 and (shown == 0 or other == talon_holder):
                    ok |= 1 << p
            masks[2 * suit + shown] = cls
            places[2 * suit + shown] = ok
    return masks, places, need


_CHOOSE = np.array([[int(np.prod(range(n - r + 1, n + 1))) // int(np.prod(range(1, r + 1)))
                     if r <= n else 0 for r in range(33)] for n in range(33)], dtype=np.int64)


@njit(cache=True, error_model="numpy")
def _split_ways(u, ok, ka, kb):
    """Ways to give ``ka`` of a class's ``u`` cards to place 0, ``kb`` to place 1 and the
    rest out of play, or 0 where the class may not go."""
    ko = u - ka - kb
    if ko < 0 or (ka and not ok & 1) or (kb and not ok & 2) or (ko and not ok & 4):
        return 0
    return _CHOOSE[u, ka] * _CHOOSE[u - ka, kb]


@njit(cache=True, error_model="numpy")
def _completions(sizes, places, need):
    """``W[i, ra, rb]``: ways to place classes i.. when places 0 and 1 still need ``ra``
    and ``rb`` cards (out of play takes the rest of them)."""
    n = sizes.shape[0]
    rest = np.zeros(n + 1, np.int64)
    for i in range(n - 1, -1, -1):
        rest[i] = rest[i + 1] + sizes[i]
    w = np.zeros((n + 1, need[0] + 1, need[1] + 1), np.int64)
    w[n, 0, 0] = 1
    for i in range(n - 1, -1, -1):
        u = sizes[i]
        for ra in range(need[0] + 1):
            for rb in range(need[1] + 1):
                if ra + rb > rest[i]:
                    continue
                total = 0
                for ka in range(min(u, ra) + 1):
                    for kb in range(min(u - ka, rb) + 1):
                        ways = _split_ways(u, places[i], ka, kb)
                        if ways:
                            total += ways * w[i + 1, ra - ka, rb - kb]
                w[i, ra, rb] = total
    return w


@njit(cache=True, inline="always", error_model="numpy")
def _below(state, n):
    """An exactly uniform integer in [0, n) from the stream ``state`` (one uint64 in an
    array), rejecting the draws that would bias it."""
    span = np.uint64(n)
    top = np.uint64(1) << np.uint64(63)
    limit = top - top % span
    while True:
        state[0] += GOLDEN_GAMMA
        x = splitmix64(state[0]) >> np.uint64(1)
        if x < limit:
            return np.int64(x % span)


@njit(cache=True, error_model="numpy")
def sample_kernel(draws, prepared, base, seat_a, seat_b, out):
    """Fill each row ``j`` of ``out`` ((k, 3) hands) with world ``start + j`` of
    ``draws`` (a :class:`Draws`): ``base`` (the known hands) plus the unseen cards of
    ``masks`` dealt by the counts ``w`` of :func:`_completions` to ``seat_a``,
    ``seat_b`` or out of play (``prepared``: :func:`prepare_kernel`'s masks, places,
    needs and ``w``)."""
    key0, key1, start = draws
    masks, places, need, w = prepared
    n = masks.shape[0]
    cards = np.empty(32, np.int64)
    state = np.zeros(1, np.uint64)
    for j in range(out.shape[0]):
        state[0] = splitmix64(key1 + np.uint64(start + j) * GOLDEN_GAMMA) ^ key0
        for s in range(3):
            out[j, s] = base[s]
        ra = need[0]
        rb = need[1]
        for i in range(n):
            u = popcount(masks[i])
            # The class's split, weighted by its ways times the completions after it.
            r = _below(state, w[i, ra, rb])
            ka = 0
            kb = 0
            done = False
            for a in range(min(u, ra) + 1):
                for b in range(min(u - a, rb) + 1):
                    weight = _split_ways(u, places[i], a, b) * w[i + 1, ra - a, rb - b]
                    if r < weight:
                        ka = a
                        kb = b
                        done = True
                        break
                    r -= weight
                if done:
                    break
            # Which cards: a uniform partial shuffle of the class.
            m = masks[i]
            for t in range(u):
                cards[t] = lowest_card(m)
                m &= m - 1
            for t in range(ka + kb):
                x = t + _below(state, u - t)
                tmp = cards[t]
                cards[t] = cards[x]
                cards[x] = tmp
                out[j, seat_a if t < ka else seat_b] |= 1 << cards[t]
            ra -= ka
            rb -= kb


@njit(cache=True, error_model="numpy")
def prepare_kernel(seat, held, counts, played, out, voids, talon, talon_holder):
    """Classes, places, needs and the completion counts ``W`` of a knowledge record."""
    masks, places, need = classes_kernel(seat, held, counts, played, out, voids, talon,
                                         talon_holder)
    sizes = np.empty(masks.shape[0], np.int64)
    for i in range(masks.shape[0]):
        sizes[i] = popcount(masks[i])
    return masks, places, need, _completions(sizes, places, need)


def _tables(k: Knowledge):
    k.check()
    held, counts, voids = (np.array(x, dtype=np.int64) for x in (k.held, k.counts, k.voids))
    return prepare_kernel(k.seat, held, counts, k.played, k.out, voids, k.talon,
                          k.talon_holder)


def count_worlds(k: Knowledge) -> int:
    """The number of deals consistent with ``k``: ways to place its unseen cards."""
    _, _, need, w = _tables(k)
    return int(w[0, need[0], need[1]])


def sample_worlds(k: Knowledge, n: int, seed: int | None = 0, *, start: int = 0) -> np.ndarray:
    """``n`` deals drawn exactly uniformly from those consistent with ``k``: (n, 3)
    int64 masks of the cards each seat holds now (the known ones included). World
    ``start + j`` depends only on the seed and its number.

    ``CardError`` if ``k`` is inconsistent or no deal fits it.
    """
    prepared = _tables(k)
    _, _, need, w = prepared
    if w[0, need[0], need[1]] == 0:
        raise CardError("no deal is consistent with this knowledge")
    _, key0, key1 = seed_keys(seed)
    a, b = k.others()
    out = np.zeros((n, 3), dtype=np.int64)
    # numpy scalars, not draws_of's boxed ints: a key past 2**63 would not convert back
    sample_kernel(Draws(np.uint64(key0), np.uint64(key1), np.int64(start)), prepared,
                  np.array(k.held, dtype=np.int64), a, b, out)
    return out
