"""Misère catchers who cannot see the declarer's discard, against double dummy."""

import numpy as np
import pytest

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.auction import PASS
from prefstats.game.cards import cards_of
from prefstats.game.cards import parse_cards as p
from prefstats.game.contracts import MISERE
from prefstats.game.tricks import legal_cards
from prefstats.game.variants import get_variant
from prefstats.players.misere import catchers_code, misere_worlds
from prefstats.reports.hand_charts import hole_pattern, sample_cells
from prefstats.sim.play import play_batch
from prefstats.sim.rollout import hand_deals, play_forced_hands, rollout, rollout_states
from prefstats.solver import card_values, card_values_batch, new_table
from tests.engine_steps import run
from tests.misere_reference import discard_worlds, play_card, reference_catcher_card

SOCHI = get_variant("sochi")
#: Misère hands of seat 0: one short hole (a lone nine), two holes.
ONE_HOLE = p("♠789 ♣789 ♦78 ♥7 ♥9")
TWO_HOLES = p("♠789 ♣79 ♦78 ♥78 ♥10")


def _misere_deals(hand, n):
    deals = hand_deals(hand, 0, 1, seed=3)
    return deals[np.linspace(0, len(deals) - 1, n).astype(int)]


def _holed_deals(patterns, n, seed=4):
    """The first ``n`` deals where seat 0 holds a misère of each hole pattern of
    ``patterns``."""
    targets = np.zeros(12, dtype=np.int64)
    targets[patterns] = n
    return sample_cells(seed, lambda d: hole_pattern(d.hands[:, 0]), targets)[0]


def _card(name):
    return cards_of(p(name))[0]


def test_the_worlds_are_the_discards_the_catchers_cannot_tell_apart():
    hands = (ONE_HOLE, p("♠10JQ ♣JQ ♥8 10JQA"), p("♠KA ♣KA ♦9 10JQKA"))
    talon = p("♥K ♣10")
    st, _ = run(SOCHI, [MISERE, PASS, PASS, talon], hands, talon)
    assert st["phase"] == engine.PLAY and st["kind"] == engine.MISERE_GAME and st["open"]
    worlds = misere_worlds(st)
    assert len(worlds) == 66  # any two of his twelve cards
    assert (worlds[:, 1] == hands[1]).all() and (worlds[:, 2] == hands[2]).all()
    assert len({int(w) for w in worlds[:, 0]}) == 66
    assert ONE_HOLE in worlds[:, 0].tolist()  # the true one among them
    # He leads the ♥7: it was not discarded.
    st, _ = run(SOCHI, [_card("♥7"), _card("♥8"), _card("♦9")], hands, talon, state=st)
    assert len(misere_worlds(st)) == 55
    # The ♥9 follows the ♥10; on the ♥J he shows out: the ♥K he may have kept is gone.
    st, _ = run(SOCHI, [_card("♥10"), _card("♦10"), _card("♥9"),
                        _card("♥J"), _card("♦J"), _card("♠7")], hands, talon, state=st)
    worlds = misere_worlds(st)
    assert len(worlds) == 8  # the ♥K and one of his eight other unseen cards
    assert not (worlds[:, 0] & p("♥K")).any()
    assert p("♠89 ♣789 ♦78") in worlds[:, 0].tolist()


def test_hidden_catchers_never_catch_more_than_double_dummy():
    """On the same deal and discard (the declarer plays double dummy in both), the
    catchers who cannot see the discard take at most the double-dummy tricks, which the
    one solver call of the double-dummy model gives."""
    caught = {"hidden": 0, "double_dummy": 0}
    for pattern in (9, 10):  # one long hole, two holes: mostly caught double dummy
        deals = _holed_deals(pattern, 12)
        tricks = {}
        for model in caught:
            states, legal = rollout_states(SOCHI, deals, seat=0, decision="first_call",
                                           options=["misere"], misere_catchers=model)
            st = states[:, 0]
            assert legal.all()
            mis = (st["kind"] == engine.MISERE_GAME) & (st["declarer"] == 0)
            assert mis.sum() >= 8
            tricks[model] = np.where(mis, st["tricks"][:, 0].astype(int), -1)
            caught[model] += int((tricks[model] > 0).sum())
            if model == "hidden":  # played card by card, every catcher's card chosen
                assert not st[mis]["double_dummy"].any() and (st[mis]["n_played"] == 30).all()
            else:
                assert st[mis]["double_dummy"].all()
        both = (tricks["hidden"] >= 0) & (tricks["double_dummy"] >= 0)
        assert both.sum() >= 8
        assert (tricks["hidden"][both] <= tricks["double_dummy"][both]).all()
    assert caught["hidden"] <= caught["double_dummy"]
    assert caught["hidden"] > 0


def _catchers_choice(worlds, trick, leader, declarer, taken, mover):
    """The hidden catchers' card from first principles: each card valued by the solver
    in every world."""
    values = card_values_batch(worlds, trick=trick, trump=None, leader=leader,
                               declarer=declarer, misere=True)
    legal = [c for c in range(32) if values[0, c] >= 0 and worlds[0][mover] >> c & 1]
    score = {c: (int((taken + values[:, c] > 0).sum()), int(values[:, c].sum())) for c in legal}
    return min(legal, key=lambda c: (-score[c][0], -score[c][1], c))


def _decisions(states):
    """Each card played with a choice in the open misères of seat 0 among ``states``:
    (card, seat, hands, gone, trick, leader, tricks taken by the declarer, his voids)."""
    for st in states:
        if st["kind"] != engine.MISERE_GAME or st["declarer"] != 0 or not st["open"]:
            continue
        hands = [int(h) for h in st["dealt"]]
        hands[0] = (hands[0] | int(st["talon"])) & ~int(st["discard"])
        gone, trick, leader, taken, voids = 0, [], 0, 0, set()
        for i in range(int(st["n_played"])):
            card, seat = int(st["history"][i]), int(st["history_by"][i])
            legal = legal_cards(hands[seat], trick[0] >> 3 if trick else -1, -1)
            if legal & (legal - 1):
                yield card, seat, list(hands), gone, list(trick), leader, taken, set(voids)
            leader = play_card(hands, trick, voids, seat, card, leader)
            gone |= 1 << card
            taken += not trick and leader == 0  # a trick complete, won by the declarer


def test_the_catchers_cards_are_those_of_every_discard_solved_apart():
    """Each card a catcher chose (with a choice) in hidden-catcher misères is the card
    that catches in the most worlds, then takes the most tricks over them, found here
    by enumerating the discards and valuing every card in each with the solver."""
    deals = _misere_deals(TWO_HOLES, 4)
    states, _ = rollout_states(SOCHI, deals, seat=0, decision="first_call",
                               options=["misere"])
    checked = 0
    sizes = set()
    for card, seat, hands, gone, trick, leader, taken, voids in _decisions(states[:, 0]):
        if seat == 0:
            continue
        worlds = discard_worlds(hands, gone, 0, voids)
        assert card == _catchers_choice(worlds, trick, leader, 0, taken, seat)
        sizes.add(len(worlds))
        checked += 1
    assert checked >= 20 and 55 in sizes and len(sizes) > 3  # he led the first card


@pytest.mark.parametrize("count", [12, pytest.param(30, marks=pytest.mark.slow)])
def test_every_card_of_hidden_misere_is_the_references(count):
    """On a thousand decisions and more (thousands under slow) of misères of every hole
    pattern, at every trick, the catchers' card is the reference's
    (``tests/misere_reference.py``: each card searched in every discard apart, no worlds
    merged, no bounds carried over) and the declarer's the lowest of his fewest
    double-dummy tricks."""
    deals = _holed_deals([0, 2, 3, 9, 10, 11], count, seed=7)
    states, _ = rollout_states(SOCHI, deals, seat=0, decision="first_call",
                               options=["misere"], key=7)
    table = new_table(1).thread(0)
    checked = np.zeros((2, 10), dtype=int)  # by side and trick
    for card, seat, hands, gone, trick, leader, taken, voids in _decisions(states[:, 0]):
        on_table = np.zeros(3, dtype=np.int64)
        on_table[: len(trick)] = trick
        if seat == 0:
            values = card_values(hands, trump=None, leader=leader, declarer=0, trick=trick,
                                 misere=True)
            assert card == min(values, key=lambda c: (values[c], c))
        else:
            worlds = np.array(discard_worlds(hands, gone, 0, voids), dtype=np.int64)
            legal = legal_cards(hands[seat], trick[0] >> 3 if trick else -1, -1)
            assert card == reference_catcher_card(worlds, on_table, len(trick), leader, 0,
                                                  taken > 0, legal, table)
        checked[int(seat > 0), gone.bit_count() // 3] += 1
    assert checked[1].sum() >= 66 * count and checked[0].sum() >= 33 * count, checked
    assert (checked[1, :9] > 0).all(), checked


def test_both_drivers_play_the_hidden_catchers_alike():
    deals = _misere_deals(ONE_HOLE, 3)
    fast, fast_legal = rollout_states(SOCHI, deals, seat=0, decision="first_call",
                                      options=["misere"], key=5)
    slow, slow_legal = play_forced_hands(SOCHI, deals, seat=0, decision="first_call",
                                         options=["misere"], key=5)
    assert np.array_equal(fast_legal, slow_legal)
    for field in ("tricks", "history", "discard", "kind"):
        assert np.array_equal(fast[field], slow[field]), field
    assert (fast["kind"] == engine.MISERE_GAME).any()


def test_the_model_is_an_option_and_a_wrong_name_is_refused():
    with pytest.raises(OptionError, match="misère catchers"):
        catchers_code("blind")
    with pytest.raises(OptionError, match="misère catchers"):
        rollout(SOCHI, _misere_deals(ONE_HOLE, 1), seat=0, decision="first_call",
                options=["misere"], misere_catchers="open")
    with pytest.raises(OptionError, match="misère catchers"):
        play_batch(_misere_deals(ONE_HOLE, 1), SOCHI, misere_catchers="seen")
