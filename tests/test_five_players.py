"""Five at the table (B:474): "with five players two do not take part: the dealer and the
one next in line to deal". Each test names its seed line; docs/RULES.md §10.6 and §11
list them."""

import numpy as np
import polars as pl
import pytest

from prefstats.errors import RecordError, VariantError
from prefstats.game import engine
from prefstats.game.scoring import ScoreSheet, game_entries, misere_entries, raspasy_entries
from prefstats.game.variants import get_variant
from prefstats.sim.pulka import play_pulkas, seat_places

FIVE_PRESETS = ("sochi", "leningrad", "rostov", "classic")


def _rows(entries):
    return sorted(map(tuple, entries.tolist()))


def test_b474_the_dealer_and_the_next_to_deal_sit_out():
    """B:474: the two who sit out are the dealer and the next to deal -- the player on
    the dealer's left, who deals next (B:223). The three hands sit from his left."""
    place = np.zeros(5, dtype=np.int64)
    for dealer in range(5):
        seat_places(5, dealer, place)
        hands = place[:3].tolist()
        assert place[3] == dealer and place[4] == (dealer + 1) % 5
        assert hands == [(dealer + 2 + s) % 5 for s in range(3)]
        assert sorted(place.tolist()) == list(range(5))


@pytest.mark.parametrize("name", FIVE_PRESETS)
def test_b474_five_player_pulkas_rotate_the_two_who_sit_out_and_sum_to_zero(name):
    """B:474 in a whole pulka: each deal's dealer and the next to deal sit out, the deal
    passes to the left, and the settlement sums to zero."""
    variant = get_variant(name, players=5)
    r = play_pulkas(variant, [0, 1], seed=4, pool_target=4, with_deals=True)
    assert r["finished"].all()
    assert np.abs(r["result"].sum(axis=1)).max() < 1e-9
    rows, dealers = r["deal_places"][:, 0], r["deal_places"][:, 2]
    for row in range(2):
        d = dealers[rows == row]
        kinds = r["deal_states"]["kind"][rows == row]
        assert d[0] == 4  # the first dealer is place N-1
        moved = d[1:] != d[:-1]
        assert (d[1:][moved] == (d[:-1][moved] + 1) % 5).all()
        assert (kinds[:-1][~moved] == engine.RASPASY).all()  # only dealer_stays keeps him
    # nobody sitting out takes a trick (seat 3's count is the talon's, on raspasy only)
    states = r["deal_states"]
    assert (states["tricks"][states["kind"] != engine.RASPASY, 3] == 0).all()


def test_b474_five_players_is_a_dealer_out_table_for_every_preset_but_gusarik():
    """Five players: the four-player table with a second player out (B:474 is in the
    general rules); Gusarik is two players' game (B:380)."""
    for name in FIVE_PRESETS:
        v = get_variant(name, players=5)
        assert v.table == "dealer_out" and v.dealer_sits_out
        assert v.raspasy_talon == get_variant(name, players=4).raspasy_talon
    with pytest.raises(VariantError, match="gusarik is played by 2"):
        get_variant("gusarik", players=5)
    with pytest.raises(VariantError, match=r"table: 'three' seats 3 players, not players = 5"):
        get_variant("sochi", players=5, table="three")
    with pytest.raises(VariantError, match=r"players: 6 is not one of"):
        get_variant("sochi", players=6)


def test_b474_the_next_to_deal_writes_and_is_written_nothing():
    """The entries of a five-player deal are the four-player deal's: the sitting-out
    dealer keeps his consolation and talon whists (B:233, B:273), the next to deal has
    none (every line on the sitting-out player's entries names the dealer)."""
    four, five = get_variant("sochi", players=4), get_variant("sochi", players=5)
    deal = (0, "6♦", [4, 4, 2, 0], {1: "whist", 2: "whist"}, 3)
    expected = _rows(game_entries(four, *deal, talon="A♠ K♠"))
    got = game_entries(five, 0, "6♦", [4, 4, 2, 0, 0], {1: "whist", 2: "whist"}, 3,
                       talon="A♠ K♠")
    assert _rows(got) == expected
    assert not any(4 in (row[1], row[2]) for row in got.tolist())
    assert _rows(misere_entries(five, 1, 0, 3)) == _rows(misere_entries(four, 1, 0, 3))
    r4 = raspasy_entries(four, [3, 4, 2, 1], 0, 3)
    r5 = raspasy_entries(five, [3, 4, 2, 1, 0], 0, 3)
    assert _rows(r5) == _rows(r4)


def test_b474_a_deal_naming_the_next_to_deal_is_refused():
    """With five, seat ``dealer + 1`` sits out: a deal giving him a whist call or a
    trick is refused with the reason."""
    five = get_variant("sochi", players=5)
    with pytest.raises(RecordError, match="next to deal"):
        game_entries(five, 0, "6♦", [4, 4, 2, 0, 0], {1: "whist", 4: "whist"}, 3)
    with pytest.raises(RecordError, match="next to deal"):
        raspasy_entries(five, [3, 4, 2, 0, 1], 0, 3)
    with pytest.raises(RecordError, match="name the dealer's seat"):
        raspasy_entries(five, [3, 4, 3, 0, 0])


def test_b474_a_five_player_sheet_finds_the_dealer_and_helps_the_next_to_deal():
    """A five-player sheet infers the dealer from the two free seats (the dealer and the
    one on his left, B:474) and bars only the dealer from help (B:317)."""
    sheet = ScoreSheet(get_variant("sochi", players=5), pool_target=2)
    sheet.record_game(2, "8♠", None, {0: "pass", 1: "pass"})  # dealer 3, next to deal 4
    # 6 points: 2 kept, 4 over the target, clockwise past the dealer: places 4, then 0
    assert sheet.pool.tolist() == [2, 0, 2, 0, 2]


def test_b474_the_deal_dataset_says_who_sat_out(tmp_path):
    """The deal dataset's ``sat_out``: the places that sat each deal out -- the dealer
    and the next to deal with five (B:474), the dealer with four, nobody with three."""
    from prefstats.sim.simulate import simulate
    from prefstats.sim.storage import load

    for players in (3, 4, 5):
        out = tmp_path / str(players)
        simulate(get_variant("sochi", players=players), hands=60, seed=2, out=out,
                 chunk_size=60, workers=1, progress=False)
        df = load(out).collect()
        dealer = df["dealer"].to_numpy().astype(int)
        expected = {3: 0 * dealer, 4: 1 << dealer,
                    5: (1 << dealer) | (1 << (dealer + 1) % 5)}[players]
        assert df["sat_out"].to_numpy().tolist() == expected.tolist()
        if players == 5:
            assert df.select(pl.col("tricks_4").max()).item() == 0
            assert df.select(pl.col("pool_4").abs().max()).item() == 0
            values = df.select(pl.sum_horizontal(f"value_{s}" for s in range(5))).to_series()
            assert values.abs().max() < 1e-3
