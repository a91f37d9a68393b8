"""Whole pulkas: the compiled pulka loop against a replay on the Python score sheet."""

import numpy as np
import pytest

from prefstats.game import engine
from prefstats.game.auction import WHIST_CALL_NAMES
from prefstats.game.cards import lowest_card, parse_cards
from prefstats.game.deal import Deals
from prefstats.game.scoring import ScoreSheet, score_states
from prefstats.game.variants import get_variant
from prefstats.sim.play import play_batch
from prefstats.sim.pulka import STRIDE, play_pulkas, pulka_deals


def _replay(variant, pulka_id, seed, target, policy, key, stop=None):
    """Pulka ``pulka_id`` played deal by deal and recorded on a :class:`ScoreSheet`
    (its first ``stop`` deals only, if given)."""
    n = variant.players
    sheet = ScoreSheet(variant, pool_target=target)
    min_level = 6
    k = 0
    while not sheet.finished and k != stop:
        d = pulka_deals(1, seed=seed, start=pulka_id * STRIDE + k)
        st = play_batch(d, variant, policy=policy, key=key, min_level=min_level,
                        raspasy_step=sheet.raspasy_step)[0]
        dealer = (n - 1 + k) % n
        place = [(dealer + 1 + s) % n for s in range(3)]
        tricks = [0] * n
        for s in range(3):
            tricks[place[s]] = int(st["tricks"][s])
        four = dealer if n == 4 else None
        if n == 4:
            tricks[dealer] = int(st["tricks"][engine.TALON_SLOT])
        kind = int(st["kind"])
        if kind == engine.RASPASY:
            sheet.record_raspasy(tricks, four)
        else:
            declarer = int(st["declarer"])
            if kind == engine.MISERE_GAME:
                sheet.record_misere(place[declarer], int(st["tricks"][declarer]), four)
            else:
                first, second = place[(declarer + 1) % 3], place[(declarer + 2) % 3]
                roles = {first: WHIST_CALL_NAMES[st["first"]],
                         second: WHIST_CALL_NAMES[st["second"]]}
                talon = None if st["no_talon"] else int(st["talon"])  # talon whists
                sheet.record_game(place[declarer], int(st["contract"]), tricks, roles, four,
                                  talon=talon)
        min_level = variant.raspasy_exit if kind == engine.RASPASY else 6
        k += 1
    return sheet, k


@pytest.mark.parametrize(("name", "players", "policy"), [
    ("sochi", 3, "heuristic"), ("leningrad", 3, "heuristic"), ("rostov", 3, "heuristic"),
    ("sochi", 4, "heuristic"), ("rostov", 4, "random"),
    pytest.param("sochi", 3, "random", marks=pytest.mark.slow),
])
def test_pulka_loop_equals_sheet_replay(name, players, policy):
    """The compiled loop keeps the sheet's pool, mountain, whists and settlement (slow:
    Sochi with the random policy, whose pulka loop ``rostov-4-random`` runs in a fast run)."""
    variant = get_variant(name, players=players)
    ids = [0, 5, 9]
    result = play_pulkas(variant, ids, seed=4, pool_target=6, policy=policy, player_key=3)
    for row, pid in enumerate(ids):
        sheet, deals = _replay(variant, pid, 4, 6, policy, 3)
        assert result["deals"][row] == deals
        assert result["finished"][row]
        np.testing.assert_array_equal(result["pool"][row], sheet.pool)
        np.testing.assert_array_equal(result["mountain"][row], sheet.mountain)
        np.testing.assert_array_equal(result["whists"][row], sheet.whists)
        np.testing.assert_allclose(result["result"][row], sheet.settle(), atol=1e-9)


def test_pulkas_are_reproducible_by_number():
    v = get_variant("sochi")
    a = play_pulkas(v, [3, 4], seed=2, pool_target=5)
    b = play_pulkas(v, [4], seed=2, pool_target=5)
    np.testing.assert_array_equal(a["result"][1], b["result"][0])
    assert abs(a["result"].sum(axis=1)).max() < 1e-9


def test_unfinished_pulka_is_flagged_and_bad_arguments_raise():
    v = get_variant("sochi")
    r = play_pulkas(v, [0], seed=1, pool_target=50, max_deals=3)
    assert r["deals"].tolist() == [3] and not r["finished"][0]
    with pytest.raises(ValueError, match="pool_target"):
        play_pulkas(v, [0], seed=1, pool_target=0)
    with pytest.raises(ValueError, match="max_deals"):
        play_pulkas(v, [0], seed=1, pool_target=5, max_deals=0)


def _with_preference(seed, pulka_id, k):
    """The first ``k`` deals of the pulka's stream, then a deal whose first hand holds
    A K Q of spades, clubs and diamonds and the ace of hearts, the talon ♥K Q."""
    stream = pulka_deals(k, seed=seed, start=pulka_id * STRIDE)
    hands = [parse_cards(h) for h in ("♠AKQ ♣AKQ ♦AKQ ♥A", "♠J10987 ♣J10987",
                                       "♦J10987 ♥J10987")]
    talon = parse_cards("♥KQ")
    return Deals(np.vstack([stream.hands, np.array([hands], dtype=np.uint32)]),
                 np.append(stream.talon, np.uint32(talon)), seed, np.arange(k + 1),
                 np.append(stream.talon_first, np.int8(lowest_card(talon))))


@pytest.mark.parametrize("players", [3, 4])
def test_b189_the_preference_ends_the_pulka_at_the_talon_with_the_sheets_settlement(players):
    """B:189-199: the first hand takes the talon and holds A K Q of all four suits: "the
    game stops and is considered finished" -- the deal stops at his discard and the pulka
    ends with the settlement ScoreSheet.record_preference writes on the same sheet."""
    v = get_variant("sochi", players=players, preference=True)
    k, target = 3, 10
    deals = _with_preference(4, 0, k)
    r = play_pulkas(v, [0], seed=4, pool_target=target, deals=deals, with_deals=True)
    assert r["preference"].tolist() == [True] and r["finished"][0]
    assert r["deals"].tolist() == [k + 1]
    last = r["deal_states"][-1]
    assert last["phase"] == engine.DISCARD and last["declarer"] == 0
    assert last["kind"] == engine.UNDECIDED and last["tricks"].sum() == 0
    assert all(not a.any() for a in score_states(v, r["deal_states"][-1:]))  # its deal row
    sheet, played = _replay(v, 0, 4, target, "heuristic", 0, stop=k)
    assert played == k and not sheet.finished
    dealer = (v.players - 1 + k) % v.players
    sheet.record_preference((dealer + 1) % v.players)  # seat 0's place
    np.testing.assert_array_equal(r["pool"][0], sheet.pool)
    np.testing.assert_array_equal(r["pool"][0], [target] * v.players)
    np.testing.assert_array_equal(r["mountain"][0], sheet.mountain)
    np.testing.assert_array_equal(r["whists"][0], sheet.whists)
    np.testing.assert_allclose(r["result"][0], sheet.settle(), atol=1e-9)
    assert abs(r["result"].sum()) < 1e-9

    # Off (B:201: agreed in advance): the same deals, the same first deals, then the
    # preference hand played out as a trick game and the pulka goes on.
    off = play_pulkas(get_variant("sochi", players=players), [0], seed=4, pool_target=target,
                      deals=deals,
                      with_deals=True, max_deals=k + 1)
    assert not off["preference"][0] and off["deals"].tolist() == [k + 1]
    np.testing.assert_array_equal(off["deal_states"][:k], r["deal_states"][:k])
    game = off["deal_states"][k]
    assert game["phase"] == engine.DONE and game["kind"] == engine.GAME
    assert game["declarer"] == 0 and not game["no_talon"]
