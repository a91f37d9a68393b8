from prefstats.cards import format_cards, parse_cards


def test_placeholder_roundtrip():
    assert parse_cards(format_cards(0x1234)) == 0x1234
