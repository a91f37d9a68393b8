"""Dealing: partitions, reproducibility, chunking, constraints and exact statistics."""

import numpy as np
import pytest
from scipy.stats import chisquare

from prefstats.game.cards import SPADES, card_counts, count_rank, parse_cards, suit_lengths
from prefstats.game.deal import deal
from prefstats.game.exact import suit_split_probabilities


def _assert_valid(d):
    h0, h1, h2 = d.hands.T
    assert (card_counts(d.hands) == 10).all()
    assert (card_counts(d.talon) == 2).all()
    assert ((h0 | h1 | h2 | d.talon) == 0xFFFFFFFF).all()
    assert not ((h0 & h1) | (h0 & h2) | (h1 & h2) | ((h0 | h1 | h2) & d.talon)).any()


def test_deals_are_partitions_of_the_deck():
    _assert_valid(deal(20_000, seed=11))


def test_same_seed_same_deals_and_stream_is_pinned():
    a, b = deal(100, seed=42), deal(100, seed=42)
    assert (a.hands == b.hands).all() and (a.talon == b.talon).all()
    assert not (deal(100, seed=43).hands == a.hands).all()
    # The stream is part of the data contract: a change here changes every dataset.
    assert a.hands[0].tolist() == [440666127, 555832528, 3290071840]
    assert int(a.talon[0]) == 8396800


def test_chunks_equal_one_run():
    whole = deal(5000, seed=9)
    parts = [deal(k, seed=9, start=s) for s, k in ((0, 1234), (1234, 1), (1235, 3765))]
    assert (np.concatenate([p.hands for p in parts]) == whole.hands).all()
    assert (np.concatenate([p.talon for p in parts]) == whole.talon).all()
    assert whole.index.tolist() == list(range(5000))


def test_seedless_deal_records_its_entropy():
    d = deal(10)
    again = deal(10, seed=d.seed)
    assert (again.hands == d.hands).all()


def test_suit_distribution_matches_hypergeometric():
    n = 1_000_000
    d = deal(n, seed=2024)
    lengths = np.stack(
        [suit_lengths(d.hands[:, s])[:, SPADES] for s in range(3)]
        + [suit_lengths(d.talon)[:, SPADES]],
        axis=1,
    ).astype(np.int64)
    probs = suit_split_probabilities()
    assert abs(sum(probs.values()) - 1) < 1e-12
    code = ((lengths[:, 0] * 9 + lengths[:, 1]) * 9 + lengths[:, 2]) * 3 + lengths[:, 3]
    counts = np.bincount(code, minlength=9 * 9 * 9 * 3)
    observed, expected = [], []
    rare_obs = rare_exp = 0.0
    for (a, b, c, t), p in probs.items():
        o = counts[((a * 9 + b) * 9 + c) * 3 + t]
        if p * n >= 5:
            observed.append(o)
            expected.append(p * n)
        else:  # pool the cells too rare for the chi-square approximation
            rare_obs += o
            rare_exp += p * n
    observed.append(rare_obs)
    expected.append(rare_exp)
    assert sum(observed) == n
    assert chisquare(observed, expected).pvalue > 0.001


def test_each_card_lands_in_each_place_uniformly():
    n = 200_000
    d = deal(n, seed=5)
    places = np.concatenate([d.hands, d.talon[:, None]], axis=1)
    bits = (places[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1
    counts = bits.sum(axis=0)  # (4 places, 32 cards)
    expected = np.array([10, 10, 10, 2]) / 32 * n
    for card in range(32):
        assert chisquare(counts[:, card], expected).pvalue > 1e-4


def test_fixed_cards_and_talon():
    d = deal(2000, seed=3, fixed_hands=("♠AKQJ", None, "♥7"), fixed_talon="♦A")
    _assert_valid(d)
    assert (d.hands[:, 0] & parse_cards("♠AKQJ") == parse_cards("♠AKQJ")).all()
    assert (d.hands[:, 2] & parse_cards("♥7") == parse_cards("♥7")).all()
    assert (d.talon & parse_cards("♦A") == parse_cards("♦A")).all()
    # The other talon card is uniform over the 26 free cards.
    other = d.talon & ~np.uint32(parse_cards("♦A"))
    assert len(np.unique(other)) == 26


def test_fully_fixed_deal():
    hands = ("♠7 8 9 10 J Q K A ♣78", "♣9 10 J Q K A ♦7 8 9 10", "♦JQKA ♥7 8 9 10 J Q")
    d = deal(3, seed=1, fixed_hands=hands)
    assert d.hands[0].tolist() == [parse_cards(h) for h in hands]
    assert int(d.talon[0]) == parse_cards("♥KA")


def test_where_filters_and_is_reproducible():
    def five_spades_two_aces(d):
        h = d.hands[:, 0]
        return (suit_lengths(h)[:, SPADES] >= 5) & (count_rank(h, 7) == 2)

    d = deal(300, seed=8, where=five_spades_two_aces)
    assert len(d) == 300
    assert five_spades_two_aces(d).all()
    again = deal(300, seed=8, where=five_spades_two_aces)
    assert (again.hands == d.hands).all()
    # The kept deals are the stream's own deals, found at their numbers.
    plain = deal(int(d.index[-1]) + 1, seed=8)
    assert (plain.hands[d.index] == d.hands).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fixed_hands": ("♠A", "♠A", None)}, "fixed in two places"),
        ({"fixed_hands": ("♠AKQJ1098 ♣AKQJ", None, None)}, "more than 10"),
        ({"fixed_talon": "♠AKQ"}, "more than 2"),
        ({"fixed_hands": ("♠AX", None, None)}, "'♠AX'"),
        ({"fixed_hands": (None, None)}, "one entry per seat"),
    ],
)
def test_impossible_fixed_cards_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        deal(5, seed=1, **kwargs)


def test_impossible_predicate_raises():
    with pytest.raises(ValueError, match="impossible or too rare"):
        deal(1, seed=1, where=lambda d: suit_lengths(d.hands[:, 0])[:, 0] > 8, max_tries=10_000)


def test_impossible_predicate_is_refused_after_the_first_block():
    """Nine spades cannot be held (a suit has eight): refused once the first block of
    deals matched nothing, long before max_tries."""
    tried = []

    def nine_spades(d):
        tried.append(len(d))
        return suit_lengths(d.hands[:, 0])[:, 0] >= 9

    with pytest.raises(ValueError, match=r"no deal of the first .* impossible, or rarer"):
        deal(3, seed=1, where=nine_spades, first_block=20_000)
    assert 20_000 <= sum(tried) < 200_000


def test_rare_predicate_deals_on_past_the_first_block():
    """Seven spades in the first hand (about 1 deal in 3,900) matched in the first block,
    so dealing goes on to the four asked for."""
    d = deal(4, seed=3, where=lambda d: suit_lengths(d.hands[:, 0])[:, 0] >= 7,
             first_block=20_000)
    assert (suit_lengths(d.hands[:, 0])[:, 0] >= 7).all() and len(d) == 4


def test_bad_predicate_shape_raises():
    with pytest.raises(ValueError, match="one bool per deal"):
        deal(1, seed=1, where=lambda d: np.array([True]))


def test_block_kernel_equals_reference_shuffle():
    """The vectorised kernel deals exactly what the one-deal reference defines,
    including the deals whose draws needed a redraw."""
    from prefstats.game.deal import _shuffle_one, _slots, _store, seed_keys

    n = 20_000
    _, key0, key1 = seed_keys(77)
    free, sizes, fixed = _slots(("♠A", None, None), None)
    d = deal(n, seed=77, fixed_hands=("♠A", None, None))
    draws = len(free) - sizes[3]
    thresholds = np.array([(65536 - (len(free) - j)) % (len(free) - j) for j in range(draws)],
                          dtype=np.uint64)
    perm = np.empty(len(free), dtype=np.uint8)
    hands = np.empty((n, 3), dtype=np.uint32)
    talon = np.empty(n, dtype=np.uint32)
    coins = np.empty(n, dtype=np.int64)
    for i in range(n):
        coins[i] = _shuffle_one(key0, key1, i, free, draws, thresholds, perm)
        _store(perm, sizes, fixed, hands, talon, i)
    assert (hands == d.hands).all() and (talon == d.talon).all()
    low = np.array([(int(t) & -int(t)).bit_length() - 1 for t in talon])
    high = np.array([int(t).bit_length() - 1 for t in talon])
    assert (d.talon_first == np.where(coins == 0, low, high)).all()


def test_talon_order_is_a_fair_coin():
    d = deal(100_000, seed=21)
    assert ((d.talon >> d.talon_first.astype(np.uint32)) & 1).all()
    lower = d.talon_first == np.array([(int(t) & -int(t)).bit_length() - 1 for t in d.talon])
    # Binomial(100000, 1/2): 4.5 standard deviations is 711.
    assert abs(int(lower.sum()) - 50_000) < 711
    # Chunks agree on the order too.
    assert (deal(10, seed=21, start=5).talon_first == d.talon_first[5:15]).all()
