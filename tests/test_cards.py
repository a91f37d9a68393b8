"""Card text, masks and the vectorised helpers of prefstats.game.cards."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefstats.game.cards import (
    ACE,
    KING,
    RANK_MASKS,
    SUIT_MASKS,
    card_counts,
    card_index,
    card_name,
    cards_of,
    count_rank,
    format_cards,
    highest_in_suit,
    honours,
    parse_cards,
    suit_holdings,
    suit_lengths,
    top_sequence,
)

masks = st.integers(min_value=0, max_value=0xFFFFFFFF)


def test_layout_matches_api():
    assert card_index(0, 0) == 0  # 7♠
    assert card_index(7, 3) == 31  # A♥
    assert card_name(card_index(3, 2)) == "10♦"
    assert SUIT_MASKS[1] == 0xFF00
    assert RANK_MASKS[ACE] == (1 << 7) | (1 << 15) | (1 << 23) | (1 << 31)


@pytest.mark.parametrize(
    "text",
    [
        "♠AKQ ♣7 ♥10 9 8",
        "S:AKQ C:7 H:T98",
        "s:akq c:7 h:t98",
        "♠AKQ ♣7 ♦- ♥1098",
        "As Ks Qs 7c 10h 9h 8h",
        "A♠ K♠ Q♠ 7♣ T♥ 9♥ 8♥",
        "SAKQ, C7, H 10 9 8",
    ],
)
def test_parse_forms_agree(text):
    expected = sum(1 << c for c in (7, 6, 5, 8, 27, 26, 25))
    assert parse_cards(text) == expected


def test_format_is_readable():
    assert format_cards(parse_cards("♥10 9 8 ♠AKQ ♣7")) == "♠AKQ ♣7 ♥1098"
    assert format_cards(0) == "-"
    assert format_cards(parse_cards("♠A"), voids=True) == "♠A ♣- ♦- ♥-"


@given(masks)
@settings(max_examples=500, derandomize=True)
def test_roundtrip(mask):
    assert parse_cards(format_cards(mask)) == mask
    assert parse_cards(format_cards(mask, voids=True)) == mask
    assert parse_cards(" ".join(card_name(c) for c in cards_of(mask))) == mask


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("♠AKX", "♠AKX"),
        ("♠AK 1", "1"),
        ("AK", "AK"),
        ("♠AK ♠A", "♠A"),
        ("Zs", "Zs"),
        ("♠A K Q 11", "11"),
        ("AKs", "AKs"),
    ],
)
def test_bad_text_names_the_token(text, token):
    with pytest.raises(ValueError, match=repr(token).replace("\\", "\\\\")):
        parse_cards(text)


def test_format_rejects_non_masks():
    with pytest.raises(ValueError):
        format_cards(1 << 32)
    with pytest.raises(ValueError):
        card_name(32)


def _reference(mask):
    holdings = [(mask >> (8 * s)) & 0xFF for s in range(4)]
    return {
        "lengths": [bin(h).count("1") for h in holdings],
        "highest": [h.bit_length() - 1 for h in holdings],
        "count": bin(mask).count("1"),
        "aces": sum(mask >> (8 * s + 7) & 1 for s in range(4)),
        "honours": sum(mask >> (8 * s + r) & 1 for s in range(4) for r in (ACE, KING)),
        "top": [next((i for i in range(9) if not (h << i) & 0x80), 8) for h in holdings],
    }


@given(st.lists(masks, min_size=1, max_size=50))
@settings(max_examples=200, derandomize=True)
def test_vectorised_helpers_match_reference(values):
    arr = np.array(values, dtype=np.uint32)
    lengths = suit_lengths(arr)
    holdings = suit_holdings(arr)
    for i, mask in enumerate(values):
        ref = _reference(mask)
        assert lengths[i].tolist() == ref["lengths"]
        assert [int(highest_in_suit(arr, s)[i]) for s in range(4)] == ref["highest"]
        assert int(card_counts(arr)[i]) == ref["count"]
        assert int(count_rank(arr, ACE)[i]) == ref["aces"]
        assert int(honours(arr)[i]) == ref["honours"]
        assert [int(top_sequence(arr, s)[i]) for s in range(4)] == ref["top"]
        assert sum(int(h) << (8 * s) for s, h in enumerate(holdings[i])) == mask


def test_helpers_keep_shape():
    arr = np.zeros((4, 3), dtype=np.uint32)
    assert suit_lengths(arr).shape == (4, 3, 4)
    assert card_counts(arr).shape == (4, 3)


# ---- compiled bit helpers ------------------------------------------------------------


def _ref_popcount(m: int) -> int:
    return bin(int(m) & 0xFFFFFFFF).count("1")


def _ref_lowest(m: int) -> int:
    low = int(m) & 0xFFFFFFFF
    return (low & -low).bit_length() - 1 if low else 32


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_bit_helpers_match_reference(value):
    from prefstats.game.cards import lowest_card, nth_card, popcount

    for m in (value, np.int64(value), np.uint64(value % 2**64), np.uint32(value % 2**32),
              np.int32((value % 2**32) - 2**31)):
        assert popcount(m) == _ref_popcount(m)
        assert lowest_card(m) == _ref_lowest(m)
    low = value & 0xFFFFFFFF
    cards = [c for c in range(32) if low >> c & 1]
    for n, c in enumerate(cards[:4]):
        assert nth_card(low, n) == c


def test_bit_helpers_compiled_callers():
    from numba import njit

    from prefstats.game.cards import lowest_card, popcount

    @njit
    def both(a, b, c):
        return popcount(a) + 100 * lowest_card(b) + 10000 * popcount(c)

    assert both(np.uint8(255), np.uint16(1 << 9), np.int64(-1)) == 8 + 900 + 320000
    assert both(0, 0, np.uint64(1 << 40 | 5)) == 3200 + 20000
