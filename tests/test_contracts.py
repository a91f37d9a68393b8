"""The ladder, parsing and the vectorised contract tables."""

import itertools

import numpy as np
import pytest

from prefstats.game.contracts import (
    LADDER,
    LEVEL,
    MISERE,
    OBLIGATION,
    PRICE,
    QUOTA,
    TRUMP,
    Contract,
    contract_code,
    parse_contract,
)

LADDER_TEXT = [
    *("6♠", "6♣", "6♦", "6♥", "6NT", "7♠", "7♣", "7♦", "7♥", "7NT", "8♠", "8♣", "8♦", "8♥"),
    *("8NT", "misère", "9♠", "9♣", "9♦", "9♥", "9NT", "10♠", "10♣", "10♦", "10♥", "10NT"),
]


def test_ladder_order_and_names():
    assert [str(c) for c in LADDER] == LADDER_TEXT
    parsed = [parse_contract(t) for t in LADDER_TEXT]
    assert parsed == sorted(parsed) == list(LADDER)
    assert all(a < b for a, b in itertools.pairwise(parsed))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("6♠", 0),
        ("6S", 0),
        ("6s", 0),
        ("7NT", 9),
        ("7БК", 9),
        ("7бк", 9),
        ("8 h", 13),
        ("misere", MISERE),
        ("Misère", MISERE),
        ("мизер", MISERE),
        ("9C", 17),
        ("10NT", 25),
        ("10♥", 24),
        ("10T", None),
        ("5♠", None),
        ("11NT", None),
        ("6", None),
        ("", None),
        ("mis", None),
        ("6♠♠", None),
    ],
)
def test_parse_contract(text, code):
    if code is None:
        with pytest.raises(ValueError, match="bad contract"):
            parse_contract(text)
    else:
        assert parse_contract(text).code == code


def test_contract_facts():
    six = parse_contract("6♦")
    assert (six.level, six.trump, six.strain, six.price, six.obligation, six.quota) == (
        6,
        2,
        2,
        2,
        4,
        2,
    )
    nt = parse_contract("9NT")
    assert (nt.level, nt.trump, nt.price, nt.obligation, nt.quota) == (9, None, 8, 1, 1)
    m = Contract(MISERE)
    assert (m.level, m.trump, m.price, m.is_misere) == (None, None, 10, True)
    prices = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
    obligations = {6: 4, 7: 2, 8: 1, 9: 1, 10: 0}  # a ten: "without whists" (B:211)
    for c in LADDER:
        if not c.is_misere:
            assert c.price == prices[c.level]
            assert c.obligation == obligations[c.level]
            assert c.quota == min(2 if c.level == 6 else 1, c.obligation)
            assert contract_code(c.level, c.strain) == c.code


def test_vectorised_tables_agree_with_contracts():
    codes = np.arange(26, dtype=np.uint8)
    assert LEVEL[codes].tolist() == [c.level or 0 for c in LADDER]
    assert TRUMP[codes].tolist() == [-1 if c.trump is None else c.trump for c in LADDER]
    assert PRICE[codes].tolist() == [c.price for c in LADDER]
    assert OBLIGATION[codes].tolist() == [c.obligation for c in LADDER]
    assert QUOTA[codes].tolist() == [c.quota for c in LADDER]
    with pytest.raises(ValueError):
        PRICE[0] = 3


def test_bad_codes():
    for code in (-1, 26, "6♠"):
        with pytest.raises(ValueError):
            Contract(code)
