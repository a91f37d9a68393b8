"""Tests of the PIMC card player."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from prefstats.cards import FULL_DECK, parse_cards
from prefstats.deal import deal
from prefstats.knowledge import Knowledge, count_worlds
from prefstats.pimc import pimc_card
from prefstats.solver import card_values
from prefstats.tricks import legal_cards, trick_winner
from prefstats.variants import get_variant


def test_pimc_plays_the_double_dummy_card_when_one_world_fits():
    # Every card known: the unseen cards are forced by the voids; PIMC is double dummy.
    rest = parse_cards("♠AK7 ♥AK8 ♦AK8")
    gone = FULL_DECK & ~rest
    hands = [parse_cards("♠AK7"), parse_cards("♥AK8"), parse_cards("♦AK8")]
    k = Knowledge(seat=0, held=(hands[0], 0, 0), counts=(3, 3, 3), played=gone,
                  voids=(0, 0b0101, 0b1001))  # seat 1 holds no ♠♦, seat 2 no ♠♥
    assert count_worlds(k) == 1
    for trump in (None, 0, 3):
        values = card_values(hands, trump=trump, leader=0, declarer=1)
        best = min(values.values())  # seat 0 defends
        expected = min(c for c, v in values.items() if v == best)
        assert pimc_card(k, trick=[], leader=0, declarer=1, trump=trump, worlds=4) == expected


@pytest.mark.parametrize("seed", range(12))
def test_pimc_cards_are_legal(seed):
    # Random deals played at random to a random point, then the seat to play asks PIMC.
    rng = np.random.default_rng(100 + seed)
    cards = rng.permutation(32)
    hands = [sum(1 << int(c) for c in cards[10 * i: 10 * i + 10]) for i in range(3)]
    talon = sum(1 << int(c) for c in cards[30:])
    declarer = int(rng.integers(3))
    trump = int(rng.integers(-1, 4))
    misere = bool(rng.random() < 0.3)
    if misere:
        trump = -1
    hands[declarer] |= talon
    drop = rng.choice([c for c in range(32) if hands[declarer] >> c & 1], 2, replace=False)
    discard = sum(1 << int(c) for c in drop)
    hands[declarer] &= ~discard
    voids = [0, 0, 0]
    gone = 0
    leader = 0
    trick: list[int] = []
    for _ in range(int(rng.integers(0, 28))):
        seat = (leader + len(trick)) % 3
        legal = legal_cards(hands[seat], trick[0] >> 3 if trick else -1, trump)
        c = int(rng.choice([c for c in range(32) if legal >> c & 1]))
        if trick and c >> 3 != trick[0] >> 3:
            voids[seat] |= 1 << (trick[0] >> 3)
            if trump >= 0 and c >> 3 != trump:
                voids[seat] |= 1 << trump
        hands[seat] ^= 1 << c
        gone |= 1 << c
        trick.append(c)
        if len(trick) == 3:
            leader = (leader + trick_winner(*trick, trump)) % 3
            trick = []
    seat = (leader + len(trick)) % 3
    k = Knowledge(seat=seat, held=tuple(h if s == seat else 0 for s, h in enumerate(hands)),
                  counts=tuple(h.bit_count() for h in hands), played=gone,
                  out=discard if seat == declarer else 0, voids=tuple(voids), talon=talon,
                  talon_holder=declarer)
    card = pimc_card(k, trick=trick, leader=leader, declarer=declarer,
                     trump=None if trump < 0 else trump, misere=misere, worlds=8, seed=seed)
    assert legal_cards(hands[seat], trick[0] >> 3 if trick else -1, trump) >> card & 1


def test_bad_requests_raise():
    k = Knowledge(seat=0, held=(parse_cards("♠A"), 0, 0), counts=(1, 1, 1),
                  played=FULL_DECK & ~parse_cards("♠AK7"))
    with pytest.raises(ValueError, match="not the seat to play"):
        pimc_card(k, trick=[], leader=1, declarer=0, trump=None)
    with pytest.raises(ValueError, match="worlds"):
        pimc_card(k, trick=[], leader=0, declarer=0, trump=None, worlds=0)


# ---- the strength gauge's driver (scripts/strength.py) ------------------------------------

_ROOT = Path(__file__).resolve().parents[1]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, _ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache finds the script's kernels by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # whole games under PIMC on both sides: a gauge check, run by make test-all
def test_gauge_driver_plays_the_heuristic_like_the_engine_and_pimc_legally():
    strength = _script("strength")
    gap = sys.modules["defence_gap"]
    variant = get_variant("sochi")
    states = gap.constructed_closed_games(deal(6, seed=3), variant)
    # Heuristic on both sides: the same tricks as the engine's own closed play.
    tricks, decisions, _ = strength.play(states, variant, pimc_declarer=False,
                                         pimc_defence=False)
    assert (tricks == gap.play_closed(states, variant, measure=False)[:, 1]).all()
    assert not decisions.any()
    # PIMC on both sides: every game ends (an illegal card raises), with a decision a
    # trick or more for the seats that had a choice.
    tricks, decisions, _ = strength.play(states, variant, pimc_declarer=True,
                                         pimc_defence=True, worlds=4, seed=1)
    assert ((tricks >= 0) & (tricks <= 10)).all() and (decisions > 0).all()
