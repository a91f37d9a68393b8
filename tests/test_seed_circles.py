"""The obligatory raspasy circles and their "trees" (B:263-267) on the bombs' mechanism,
and "once in the dark" (B:103, B:105, B:414, B:422). Each test names its seed line;
docs/RULES.md §10.1 and §11 list them."""

import numpy as np
import pytest

from prefstats.errors import VariantError
from prefstats.game import engine
from prefstats.game.auction import DARK, PASS, call_name, legal_calls, parse_call
from prefstats.game.variants import get_variant, opening_bombs
from prefstats.sim.pulka import play_pulkas


def _trees(name="sochi", players=3, rounds=2, **options):
    return get_variant(name, players=players, blind_pass=True, bomb_level="tree",
                       bomb_rounds=rounds, bomb_circles="circle", **options)


# ---- obligatory raspasy and trees (B:263-267) ---------------------------------------------


@pytest.mark.parametrize(("players", "rounds"), [(3, 1), (3, 2), (4, 2), (5, 1)])
def test_b263_one_or_two_full_circles_of_obligatory_raspasy_open_the_pulka(players, rounds):
    """B:263: "before the regular game they play one or 2 rounds (a full circle) of
    passes"; B:265: "each of them brings every participant a tree" -- a bomb of x2 for
    every player, whoever deals (those sitting out too, as B:406 counts)."""
    variant = _trees(players=players, rounds=rounds)
    opening = opening_bombs(variant)
    assert opening == [((players - 1 + i) % players, 2) for i in range(players)] * rounds
    r = play_pulkas(variant, [0, 1], seed=6, pool_target=4, with_deals=True)
    numbers = r["deal_places"][:, 1]
    first = r["deal_states"][numbers < len(opening)]
    assert (first["kind"] == engine.RASPASY).all()
    assert (first["multiplier"] == 2).all()  # "the same trick is worth 2, not 1" (B:265)
    assert (r["bombs_earned"] >= players * len(opening)).all()
    after = r["deal_states"][numbers == len(opening)]
    assert (after["bombs"][:, :3] == 2).all()  # every hand holds a tree
    assert (after["raspasy_step"] == 0).all()  # the circles are no step of the progression
    assert np.abs(r["result"].sum(axis=1)).max() < 1e-9


def test_b265_a_tree_doubles_the_next_game_and_is_spent_on_a_made_game():
    """B:265: "a tree means the player's next game is scored at the double rate"; spent
    as a bomb is, on a made game (B:406), so every game after the circles is at x2 (x4
    bid in the dark) while its declarer has trees left."""
    variant = _trees(rounds=1)
    r = play_pulkas(variant, range(4), seed=2, pool_target=6, with_deals=True)
    states, numbers = r["deal_states"], r["deal_places"][:, 1]
    games = states[(numbers >= 3) & (states["kind"] != engine.RASPASY)]
    assert len(games)
    for st in games:
        bomb = int(st["bombs"][st["declarer"]])
        dark = 2 if int(st["dark"]) >> int(st["declarer"]) & 1 else 1
        assert bomb in (1, 2) and int(st["multiplier"]) == bomb * dark
    assert (r["bombs_spent"] > 0).any()


def test_b263_trees_are_one_or_two_full_circles():
    """B:263 names one or two full circles: more are refused, and so is the dealer-by-
    dealer order of Classic's opening, naming both keys."""
    with pytest.raises(VariantError, match=r"bomb_rounds: bomb_level = 'tree'.*B:263"):
        _trees(rounds=3)
    with pytest.raises(VariantError, match=r"bomb_circles: .*bomb_level = 'tree'"):
        get_variant("sochi", blind_pass=True, bomb_level="tree", bomb_rounds=1)
    with pytest.raises(VariantError, match=r"bomb_rounds.*blind_pass"):
        get_variant("sochi", bomb_level="tree", bomb_rounds=1, bomb_circles="circle")


def test_b400_classic_bombs_are_the_same_mechanism_with_rising_levels():
    """Classic's opening (B:400, B:406) and the trees (B:263) differ only in the level of
    each circle's bomb: x2, x4 ... against a tree (x2) every time."""
    classic = get_variant("classic", bomb_circles="circle")
    trees = get_variant("classic", bomb_level="tree", bomb_circles="circle")
    assert [d for d, _ in opening_bombs(classic)] == [d for d, _ in opening_bombs(trees)]
    assert [b for _, b in opening_bombs(classic)] == [2] * 3 + [4] * 3
    assert [b for _, b in opening_bombs(trees)] == [2] * 6


# ---- "once in the dark" (B:103, B:105, B:414, B:422) --------------------------------------


def _names(codes):
    return [call_name(c) for c in codes]


def test_b422_once_in_the_dark_is_overcalled_only_by_a_seven_with_the_option():
    """B:422: "to kill 'once in the dark' some allow only a seven game, others in the
    usual order". The usual order is the default (the next step, 6♣ over a dark 6♠);
    ``dark_overcall = "seven"`` allows only a seven or more (misère, ranked above the
    eights, stays open), in the light or in the dark, and no "here" of the dark six."""
    once = [DARK, parse_call("6♠")]  # "one, in the dark" (B:412)
    usual = get_variant("classic")
    seven = get_variant("classic", dark_overcall="seven")
    assert parse_call("6♣") in legal_calls(once, usual)
    after = legal_calls(once, seven)
    assert _names(after) == ["pass", "dark", "7♠", "misère", "7♠ nt", "misère nt"]
    assert parse_call("7♠") in legal_calls([*once, DARK], seven)
    assert parse_call("6♣") not in legal_calls([*once, DARK], seven)
    # a light six is overcalled in the usual order under either option
    light = [parse_call("6♠")]
    assert parse_call("6♣") in legal_calls(light, seven)
    # the third hand after a pass: still only sevens over the dark six
    assert min(c for c in legal_calls([*once, PASS], seven) if c not in (PASS, DARK)) == \
        parse_call("7♠")


def test_b422_dark_overcall_needs_dark_bids():
    with pytest.raises(VariantError, match=r"dark_overcall: 'seven'.*needs dark_bids"):
        get_variant("sochi", dark_overcall="seven")
