"""Every worked example of RULES.md §9, one test each."""

from fractions import Fraction

import numpy as np
import pytest

from prefstats.scoring import ScoreSheet, settle
from prefstats.variants import get_variant


def sheet(name, **options):
    return ScoreSheet(get_variant(name, **options))


def test_example_1_sochi_two_whisters_remise():
    s = sheet("sochi")
    s.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "whist"})
    assert s.mountain.tolist() == [4, 0, 0]
    assert s.whists[1, 0] == 2 * (4 + 2) == 12
    assert s.whists[2, 0] == 2 * (2 + 2) == 8
    assert s.pool.sum() == 0 and s.whists.sum() == 20


@pytest.mark.parametrize(("split", "whister", "passer"), [("greedy", 16, 4), ("gentleman", 10, 10)])
def test_example_2_one_whister_greedy_and_gentleman(split, whister, passer):
    s = sheet("sochi", whist_split=split)
    s.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "pass"})
    assert s.mountain.tolist() == [4, 0, 0]
    assert s.whists[1, 0] == whister
    assert s.whists[2, 0] == passer


def test_example_3_greedy_personal_quota():
    s = sheet("sochi")
    assert s.variant.whist_split == "greedy"
    s.record_game(0, "6♦", [5, 5, 0], {1: "whist", 2: "whist"})
    assert s.mountain.tolist() == [2, 0, 4]
    assert s.whists[1, 0] == 2 * 5 + 2 == 12
    assert s.whists[2, 0] == 2


def test_example_4_sochi_raspasy_progression():
    s = sheet("sochi")
    s.record_raspasy([0, 4, 6])
    assert s.pool.tolist() == [1, 0, 0]
    assert s.mountain.tolist() == [0, 4, 6]
    s.record_raspasy([0, 4, 6])
    assert s.pool.tolist() == [1 + 2, 0, 0]
    assert s.mountain.tolist() == [0, 4 + 8, 6 + 12]


def test_example_5_rostov_raspasy_whists():
    s = sheet("rostov")
    s.record_raspasy([0, 3, 7])
    assert s.whists[0].tolist() == [0, 15, 35]
    assert s.whists[1:].sum() == 0
    assert s.pool.tolist() == [1, 0, 0]
    assert s.mountain.sum() == 0


def test_example_6_leningrad_both_pass_value():
    s = sheet("leningrad")
    s.record_game(0, "6♠", None, {1: "pass", 2: "pass"})
    assert s.pool.tolist() == [2, 0, 0]
    assert s.value_exact() == [Fraction(80, 3), Fraction(-40, 3), Fraction(-40, 3)]
    assert s.value() == pytest.approx([26 + 2 / 3, -13 - 1 / 3, -13 - 1 / 3])


def test_example_7_settlement():
    scores = settle([0, 0, 0], [10, 20, 36], np.zeros((3, 3)), mountain_value=10)
    assert scores.tolist() == [120, 20, -140]
    assert scores.sum() == 0
