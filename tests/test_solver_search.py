"""Tests of the solver's search API: values of every card of the seat to move, inside a
trick too, against a plain exhaustive minimax on small positions."""

from __future__ import annotations

import numpy as np
import pytest
from solver_checks import minimax_cards, random_positions

from prefstats.game.cards import parse_cards
from prefstats.game.tricks import legal_cards
from prefstats.solver import best_card, card_values, card_values_batch, solve, solve_leads


def _mid_trick(rows, seed: int):
    """Each position with 0-2 random legal cards already played to its first trick:
    (hands left, trick, trump, leader, declarer, misere) rows."""
    rng = np.random.default_rng(seed)
    out = []
    for hands, trump, leader, declarer, misere in rows:
        hands = list(hands)
        trick = []
        for k in range(int(rng.integers(0, 3))):
            seat = (leader + k) % 3
            legal = legal_cards(hands[seat], trick[0] >> 3 if trick else -1, trump)
            cards = [c for c in range(32) if legal >> c & 1]
            c = int(rng.choice(cards))
            hands[seat] ^= 1 << c
            trick.append(c)
        out.append((hands, trick, trump, leader, declarer, misere))
    return out


POSITIONS = _mid_trick(random_positions(1500, seed=11), seed=12)


def test_card_values_agree_with_plain_minimax_inside_tricks():
    seen = set()
    for hands, trick, trump, leader, declarer, misere in POSITIONS:
        got = card_values(hands, trump=None if trump < 0 else trump, leader=leader,
                          declarer=declarer, trick=trick, misere=misere)
        expected = minimax_cards(hands, np.array(trick + [0] * (3 - len(trick))), len(trick),
                                 leader, declarer, trump, misere)
        assert got == expected, (hands, trick, trump, leader, declarer, misere)
        seen.add((len(trick), (leader + len(trick)) % 3, declarer, misere,
                  min(3, bin(hands[leader]).count("1"))))
    # Every cards-on-table count, seat to move, declarer and kind of contract occurs.
    assert {k[:4] for k in seen} == {(t, s, d, m) for t in range(3) for s in range(3)
                                     for d in range(3) for m in (False, True)}


def _redeal(hands, trick, leader, rng, k: int) -> list[list[int]]:
    """``k`` worlds of one decision: the seat to move keeps its hand, the others' cards
    are dealt anew (their sizes kept)."""
    mover = (leader + len(trick)) % 3
    others = [s for s in range(3) if s != mover]
    pool = [c for s in others for c in range(32) if hands[s] >> c & 1]
    size = bin(hands[others[0]]).count("1")
    worlds = []
    for _ in range(k):
        perm = rng.permutation(pool)
        w = list(hands)
        w[others[0]] = int(np.sum(1 << perm[:size].astype(np.int64)))
        w[others[1]] = int(np.sum(1 << perm[size:].astype(np.int64)))
        worlds.append(w)
    return worlds


def test_batch_over_worlds_matches_single_positions():
    # Worlds of one decision (two of them twice); the batch shares one table across them.
    rng = np.random.default_rng(5)
    for hands, trick, trump, leader, declarer, misere in POSITIONS[:300]:
        worlds = _redeal(hands, trick, leader, rng, 4)
        worlds += [worlds[1], worlds[0]]  # a world drawn again is solved once: same values
        kwargs = dict(trump=None if trump < 0 else trump, leader=leader, declarer=declarer,
                      trick=trick, misere=misere)
        try:
            batch = card_values_batch(np.array(worlds, dtype=np.uint32), **kwargs)
        except ValueError as e:  # a redeal may make an earlier card of the trick illegal
            assert "could not play" in str(e)
            continue
        assert batch.dtype == np.int8 and batch.shape == (6, 32)
        for w, row in zip(worlds, batch, strict=True):
            single = card_values(w, **kwargs)
            assert {c: int(row[c]) for c in range(32) if row[c] >= 0} == single


def _best_total(values: np.ndarray, maximise: bool) -> int:
    """The legal card of the best total over the rows of ``values``, ties to the lowest."""
    legal = np.flatnonzero(values[0] >= 0)
    totals = values[:, legal].astype(np.int64).sum(axis=0)
    return int(legal[np.argmax(totals if maximise else -totals)])


def _check_best_card(rows, rng, sizes) -> int:
    """best_card against the best total of card_values_batch on redealt worlds of each
    position; returns how many decisions had a choice between different totals."""
    contested = 0
    for hands, trick, trump, leader, declarer, misere in rows:
        worlds = _redeal(hands, trick, leader, rng, int(rng.choice(sizes)))
        worlds += worlds[: int(rng.integers(0, 3))]  # repeats count as often as drawn
        arr = np.array(worlds, dtype=np.uint32)
        kwargs = dict(trump=None if trump < 0 else trump, leader=leader, declarer=declarer,
                      trick=trick, misere=misere)
        try:
            values = card_values_batch(arr, **kwargs)
        except ValueError as e:
            assert "could not play" in str(e)
            continue
        maximise = ((leader + len(trick)) % 3 == declarer) != misere
        assert best_card(arr, **kwargs) == _best_total(values, maximise), (worlds, kwargs)
        legal = np.flatnonzero(values[0] >= 0)
        contested += len(set(values[:, legal].astype(np.int64).sum(axis=0).tolist())) > 1
    return contested


def test_best_card_is_the_card_of_the_best_total():
    # Small positions, 1-8 worlds and some drawn twice: exactly the card the totals of
    # the exact values pick (PIMC's choice), though found from bounds.
    contested = _check_best_card(POSITIONS, np.random.default_rng(21), [1, 2, 3, 5, 8])
    assert contested > 300


def test_best_card_on_deals_of_seven_cards():
    # Longer play with 16 worlds a decision, as PIMC asks early in a deal.
    rng = np.random.default_rng(22)
    rows = []
    for _ in range(12):
        cards = rng.permutation(32)
        hands = [int(np.sum(1 << cards[7 * i: 7 * i + 7].astype(np.int64))) for i in range(3)]
        misere = bool(rng.random() < 0.4)
        trump = -1 if misere else int(cards[0] >> 3)
        rows.append((hands, trump, int(rng.integers(3)), int(rng.integers(3)), misere))
    assert _check_best_card(_mid_trick(rows, seed=23), rng, [16]) > 4


def test_best_card_needs_a_world():
    with pytest.raises(ValueError, match="at least one world"):
        best_card(np.zeros((0, 3), dtype=np.uint32), trump=None, leader=0, declarer=0)


def test_values_on_lead_match_solve_and_solve_leads():
    for hands, trump, leader, declarer, misere in random_positions(300, seed=3):
        kwargs = dict(trump=None if trump < 0 else trump, leader=leader, declarer=declarer,
                      misere=misere)
        values = card_values(hands, **kwargs)
        assert values == solve_leads(hands, **kwargs)
        best = max(values.values()) if (leader == declarer) != misere else min(values.values())
        assert best == solve(hands, **kwargs)


def test_full_deal_inside_a_trick():
    # 10 cards: the second hand's values after the first card equal the solve of the
    # position reached by each of them (checked on the best one against solve()).
    rng = np.random.default_rng(8)
    cards = rng.permutation(32)
    hands = [int(np.sum(1 << cards[10 * i: 10 * i + 10].astype(np.int64))) for i in range(3)]
    lead = int(cards[0])
    hands_after = list(hands)
    hands_after[0] ^= 1 << lead
    for misere, trump in ((False, cards[0] >> 3), (False, None), (True, None)):
        values = card_values(hands_after, trump=trump, leader=0, declarer=0, trick=[lead],
                             misere=misere)
        legal = legal_cards(hands[1], lead >> 3, -1 if trump is None else int(trump))
        assert sorted(values) == [c for c in range(32) if legal >> c & 1]
        defence_best = max(values.values()) if misere else min(values.values())
        leads = solve_leads(hands, trump=trump, leader=0, declarer=0, misere=misere)
        assert defence_best == leads[lead]


@pytest.mark.parametrize(
    ("hands", "trick", "message"),
    [
        (["♠A", "♠K", "♠7"], ["♠Q"], "hold"),  # seat 0 led and still holds as many
        (["♠A", "♠K", "♠7"], ["♠K", "♠Q"], "hold"),
        (["♠Q", "♠K8", "♠79"], ["♠K"], "overlap"),
        (["", "♠K ♥7", "♠7 ♥8"], ["♠A", "♥9", "♥10"], "0 to 2"),
        (["♠A", "♥7", "♠7 ♥8"], ["♥9", "♠8"], "could not play"),  # seat 1 revoked
        (["", "", ""], [], "hold"),
    ],
)
def test_bad_positions_raise(hands, trick, message):
    masks = [parse_cards(h) if h else 0 for h in hands]
    cards = [parse_cards(c).bit_length() - 1 for c in trick]
    with pytest.raises(ValueError, match=message):
        card_values(masks, trump=None, leader=0, declarer=0, trick=cards)


def test_bad_arguments_raise():
    hands = [parse_cards("♠A"), parse_cards("♠K"), parse_cards("♠7")]
    with pytest.raises(ValueError, match="shape"):
        card_values_batch(hands, trump=None, leader=0, declarer=0)
    with pytest.raises(ValueError, match="distinct"):
        card_values([parse_cards("♠AK"), parse_cards("♠Q"), parse_cards("♠7")],
                    trump=None, leader=1, declarer=0, trick=[40])
    with pytest.raises(ValueError, match="leader"):
        card_values(hands, trump=None, leader=3, declarer=0)
    with pytest.raises(ValueError, match="trump"):
        card_values(hands, trump=5, leader=0, declarer=0)
