"""Tests of the knowledge record and its sampler against brute-force enumeration."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from prefstats.game.cards import SUIT_MASKS, parse_cards
from prefstats.game.deal import seed_keys
from prefstats.game.tricks import legal_cards, trick_winner
from prefstats.players.knowledge import Knowledge, count_worlds, sample_worlds, voids_shown


def _bits(cards) -> int:
    return sum(1 << int(c) for c in cards)


def _played_deal(seed: int, plies: int):
    """A random deal played at random (legally) for ``plies`` cards, seat 0 the declarer
    who took the shown talon and discarded two cards: (hands now, discard, talon, played,
    voids, trump)."""
    rng = np.random.default_rng(seed)
    cards = rng.permutation(32)
    hands = [_bits(cards[10 * i: 10 * i + 10]) for i in range(3)]
    talon = _bits(cards[30:])
    trump = int(rng.integers(-1, 4))
    hands[0] |= talon
    discard = _bits(rng.choice([c for c in range(32) if hands[0] >> c & 1], 2, replace=False))
    hands[0] &= ~discard
    voids = [0, 0, 0]
    played = 0
    leader = int(rng.integers(3))
    trick: list[int] = []
    for _ in range(plies):
        seat = (leader + len(trick)) % 3
        legal = legal_cards(hands[seat], trick[0] >> 3 if trick else -1, trump)
        c = int(rng.choice([c for c in range(32) if legal >> c & 1]))
        hands[seat] ^= 1 << c
        played |= 1 << c
        trick.append(c)
        voids = [v | w for v, w in zip(voids, voids_shown(trick, leader, trump), strict=True)]
        if len(trick) == 3:
            leader = (leader + trick_winner(*trick, trump)) % 3
            trick = []
    return hands, discard, talon, played, tuple(voids), trump


def _knowledge(seed: int, plies: int, seat: int) -> tuple[Knowledge, list[int]]:
    hands, discard, talon, played, voids, _ = _played_deal(seed, plies)
    held = tuple(hands[s] if s == seat else 0 for s in range(3))
    k = Knowledge(seat=seat, held=held, counts=tuple(h.bit_count() for h in hands),
                  played=played, out=discard if seat == 0 else 0, voids=voids, talon=talon,
                  talon_holder=0)
    return k, hands


def _enumerate(k: Knowledge) -> list[tuple[int, int]]:
    """Every placement of the unseen cards consistent with ``k``, by brute force: the
    two other seats' hands."""
    a, b = k.others()
    unseen = [c for c in range(32) if k.unseen() >> c & 1]
    need_a = k.counts[a] - k.held[a].bit_count()
    need_b = k.counts[b] - k.held[b].bit_count()

    def fits(seat: int, cards: int) -> bool:
        void = any(k.voids[seat] >> s & 1 and cards & SUIT_MASKS[s] for s in range(4))
        talon_elsewhere = seat != k.talon_holder and cards & k.talon
        return not void and not talon_elsewhere

    worlds = []
    for ca in itertools.combinations(unseen, need_a):
        rest = [c for c in unseen if c not in ca]
        for cb in itertools.combinations(rest, need_b):
            ha, hb = _bits(ca), _bits(cb)
            if fits(a, ha) and fits(b, hb):
                worlds.append((k.held[a] | ha, k.held[b] | hb))
    return worlds


CASES = [(seed, plies, seat) for seed in range(6) for plies, seat in
         ((19, 0), (20, 1), (22, 2), (24, 1), (25, 0), (21, 2))]


@pytest.mark.parametrize(("seed", "plies", "seat"), CASES)
def test_counts_and_uniformity_against_enumeration(seed, plies, seat):
    k, truth = _knowledge(seed, plies, seat)
    worlds = _enumerate(k)
    a, b = k.others()
    assert (truth[a], truth[b]) in worlds  # the real deal is consistent with the record
    assert count_worlds(k) == len(worlds)
    n = 60 * len(worlds) if len(worlds) <= 3000 else 20_000
    got = sample_worlds(k, n, seed=seed)
    assert (got[:, seat] == k.held[seat]).all()
    freq = Counter(zip(got[:, a].tolist(), got[:, b].tolist(), strict=True))
    assert set(freq) <= set(worlds)  # only consistent deals
    if len(worlds) > 1 and len(worlds) <= 3000:
        # Chi-square against uniform: df = m - 1, mean df, sd sqrt(2 df); 6 sd is a
        # bound a uniform sampler exceeds with probability far below 1e-6.
        expected = n / len(worlds)
        chi2 = sum((freq.get(w, 0) - expected) ** 2 / expected for w in worlds)
        df = len(worlds) - 1
        assert chi2 < df + 6 * np.sqrt(2 * df), (chi2, df)


def test_talon_cards_stay_with_the_declarer_or_his_discard():
    # A defender knows the talon went to seat 0: an unplayed talon card is seat 0's or
    # discarded, never the partner's.
    k, _ = _knowledge(3, 9, 1)
    got = sample_worlds(k, 2000, seed=1)
    assert not (got[:, 2] & k.talon).any()
    assert (got[:, 0] & k.talon).any()


def test_worlds_are_keyed_by_seed_and_number():
    k, _ = _knowledge(1, 12, 2)
    whole = sample_worlds(k, 50, seed=9)
    assert (sample_worlds(k, 20, seed=9, start=30) == whole[30:]).all()
    assert not (sample_worlds(k, 50, seed=10) == whole).all()


def test_full_deal_first_lead():
    # Before any card: a defender's 20 unseen cards (talon shown) split 10 / 10 minus
    # the two the declarer discarded: C(20, 10) * C(10, 8) * ... counted by hand.
    hands, _, talon, *_ = _played_deal(4, 0)
    k = Knowledge(seat=1, held=(0, hands[1], 0), counts=(10, 10, 10), talon=talon,
                  talon_holder=0)
    # Unseen: 22 cards minus the talon's 2 = 20 plain + 2 talon; the talon cards are the
    # declarer's or discarded; the rest fill the hands and the discard.
    from math import comb
    ways = sum(comb(2, t) * comb(20, 10 - t) * comb(10 + t, 10) for t in range(3))
    assert count_worlds(k) == ways
    got = sample_worlds(k, 100, seed=2)
    assert (np.bitwise_count(got.astype(np.uint64)) == 10).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 3}, "seat"),
        ({"held": (parse_cards("♠A"), parse_cards("♠A"), 0)}, "share"),
        ({"counts": (1, 11, 13)}, "counts"),
        ({"held": (parse_cards("♠AK"), 0, 0)}, "holds 1 cards but 2"),
        ({"voids": (1, 0, 0)}, "void in suit 0"),
        ({"talon": parse_cards("♥7")}, "talon_holder"),
        ({"counts": (1, 10, 10), "played": 0xFFFF0000}, "more than 32"),
        ({"played": parse_cards("♠A")}, "share"),
    ],
)
def test_bad_knowledge_raises(kwargs, message):
    args = {"seat": 0, "held": (parse_cards("♠A"), 0, 0), "counts": (1, 1, 1)} | kwargs
    with pytest.raises(ValueError, match=message):
        count_worlds(Knowledge(**args))


def test_no_consistent_deal_raises():
    # Seat 1 needs a card but is void in every suit.
    k = Knowledge(seat=0, held=(parse_cards("♠A"), 0, 0), counts=(1, 1, 1), voids=(0, 15, 0))
    assert count_worlds(k) == 0
    with pytest.raises(ValueError, match="no deal is consistent"):
        sample_worlds(k, 1)


def test_a_seed_whose_keys_pass_two_to_the_63_draws_after_one_whose_keys_do_not():
    k, _ = _knowledge(3, 9, 1)
    small = next(s for s in range(100) if max(seed_keys(s)[1:]) < 2**63)
    big = next(s for s in range(100) if min(seed_keys(s)[1:]) >= 2**63)
    for seed in (small, big):  # the keys typed as the compiled sampler takes them
        assert (sample_worlds(k, 4, seed=seed)[:, 1] == k.held[1]).all()
