"""The hidden misère catchers' card against the reference (``tests/misere_reference.py``)
on random positions of open misère: every trick, both catchers, the declarer caught or
not."""

import numpy as np
import pytest

from prefstats.game.cards import cards_of
from prefstats.game.tricks import legal_cards
from prefstats.players.misere import distinct_worlds
from prefstats.solver import catching_card, decision_of, new_table
from tests.misere_reference import discard_worlds, play_card, reference_catcher_card

#: The declarer's twelve cards drawn low as a misère's are: a rank's weight (seven to ace).
_RANK_WEIGHT = np.tile(0.7 ** np.arange(8), 4)


def _mask(cards):
    return sum(1 << int(c) for c in cards)


def _positions(n, seed):
    """``n`` positions where a catcher has a choice: the declarer (seat 0) holds ten of
    twelve low-drawn cards, and random cards were played from a random leader up to a
    random point of the play. Each as (hands, gone, trick, leader, seat, legal, voids)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        twelve = rng.choice(32, 12, replace=False, p=_RANK_WEIGHT / _RANK_WEIGHT.sum())
        rest = rng.permutation(np.setdiff1d(np.arange(32), twelve))
        hands = [_mask(rng.choice(twelve, 10, replace=False)), _mask(rest[:10]),
                 _mask(rest[10:])]
        leader, trick, gone, voids = int(rng.integers(3)), [], 0, set()
        for _ in range(rng.integers(0, 28)):
            seat = (leader + len(trick)) % 3
            card = int(rng.choice(cards_of(legal_cards(hands[seat],
                                                       trick[0] >> 3 if trick else -1, -1))))
            leader = play_card(hands, trick, voids, seat, card, leader)
            gone |= 1 << card
        seat = (leader + len(trick)) % 3
        legal = legal_cards(hands[seat], trick[0] >> 3 if trick else -1, -1)
        if seat > 0 and legal & (legal - 1):
            out.append((hands, gone, trick, leader, seat, legal, voids))
    return out


def _check_positions(n, seed):
    """The catchers' card (its worlds merged as the player merges them) is the
    reference's (every discard apart) on ``n`` random positions, caught and not."""
    table = new_table(1).thread(0)
    checked = np.zeros((2, 2, 10), dtype=int)  # by caught, catcher and trick
    for hands, gone, trick, leader, seat, legal, voids in _positions(n, seed):
        worlds = np.array(discard_worlds(hands, gone, 0, voids), dtype=np.int64)
        seen = hands[1] | hands[2] | _mask(trick)
        merged, weight = distinct_worlds(worlds, np.int64(0), np.int64(seen), np.int64(gone))
        on_table = np.zeros(3, dtype=np.int64)
        on_table[: len(trick)] = trick
        at = decision_of(on_table, len(trick), leader, 0, -1, True)
        for caught in (False, True):
            card = catching_card(merged, weight, at, caught, np.int64(legal), table)
            assert card == reference_catcher_card(worlds, on_table, len(trick), leader, 0,
                                                  caught, legal, table), (hands, gone, trick)
            checked[int(caught), seat - 1, gone.bit_count() // 3] += 1
    assert (checked[:, :, :9] > 0).all(), checked


def test_the_catchers_card_is_the_references_on_random_positions():
    _check_positions(2000, seed=1)


@pytest.mark.slow
def test_the_catchers_card_is_the_references_on_many_random_positions():
    _check_positions(20000, seed=2)
