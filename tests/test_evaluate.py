"""The heuristic player's evaluator: fitted tables against the solver on held-out deals."""

import numpy as np
import pytest

from prefstats.game.cards import parse_cards
from prefstats.game.contracts import NO_TRUMP
from prefstats.game.deal import deal
from prefstats.players import evaluate as ev
from prefstats.solver import solve_batch

TABLES = ev.load_tables()


def _held_out(n=240, seed=424242):
    """Deals the fit never saw: the strongest-looking seat declares its longest suit."""
    d = deal(n, seed=seed)
    holdings = (d.hands[..., None].astype(np.int64) >> (8 * np.arange(4))) & 0xFF
    lengths = np.bitwise_count(holdings)
    high = np.bitwise_count(holdings & 0xF0)  # A K Q J
    declarer = (2 * high.sum(-1) + lengths.max(-1)).argmax(1)
    rows = np.arange(n)
    strain = (8 * lengths + high)[rows, declarer].argmax(-1)
    return d.hands, declarer, strain


def _estimates(hands, declarer, strain):
    return np.array([ev.estimate_tricks(int(hands[i, declarer[i]]), int(strain[i]),
                                        leads=declarer[i] == 0) for i in range(len(hands))])


def test_declarer_tricks_track_the_solver_on_held_out_deals():
    hands, declarer, strain = _held_out()
    solved = solve_batch(hands, strain, 0, declarer).astype(float)
    predicted = _estimates(hands, declarer, strain)
    mae = np.abs(predicted - solved).mean()
    constant = np.abs(solved - solved.mean()).mean()
    assert mae < 0.8 and mae < 0.6 * constant, (mae, constant)
    assert abs((predicted - solved).mean()) < 0.3  # no gross bias


def test_no_trump_tricks_track_the_solver():
    hands, declarer, _ = _held_out(160, seed=77)
    nt = np.full(len(hands), NO_TRUMP)
    solved = solve_batch(hands, -1, 0, declarer).astype(float)
    predicted = _estimates(hands, declarer, nt)
    assert np.abs(predicted - solved).mean() < 0.6 * np.abs(solved - solved.mean()).mean()


def test_terms_record_what_the_estimate_sums():
    hand = parse_cards("♠AKQ7 ♣J9 ♦A108 ♥7")
    rows = np.zeros(ev.MAX_FEATURES, dtype=np.int64)
    cols = np.zeros_like(rows)
    vals = np.zeros(ev.MAX_FEATURES)
    for model in range(len(ev.MODEL_NAMES)):
        for strain in (0, 2, NO_TRUMP):
            total, n = ev.terms(TABLES, model, hand, strain, 1.0, 7, (rows, cols, vals))
            assert total == pytest.approx((TABLES[rows[:n], cols[:n]] * vals[:n]).sum())
            assert total == pytest.approx(ev.estimate(TABLES, model, hand, strain, 1.0, 7))


def test_more_cards_on_top_mean_more_tricks():
    weak = parse_cards("♠Q1098 ♣KJ ♦Q9 ♥J8")
    strong = parse_cards("♠AKQJ ♣AK ♦A9 ♥A8")
    for strain in (0, NO_TRUMP):
        for before in (False, True):
            assert (ev.estimate_tricks(strong, strain, leads=True, before_talon=before)
                    > ev.estimate_tricks(weak, strain, leads=True, before_talon=before) + 2)


def test_misere_risk_separates_safe_from_bare_high_cards():
    safe = parse_cards("♠79J ♣79 ♦79J ♥78")
    bare = parse_cards("♠7A ♣79 ♦79J ♥K87")
    tricks_safe, catch_safe = ev.estimate_misere(safe, leads=False)
    tricks_bare, catch_bare = ev.estimate_misere(bare, leads=False)
    assert catch_safe < 0.2 < 0.5 < catch_bare
    assert tricks_safe < tricks_bare
    # Before the talon one bare ace can still go in the discard.
    ace = parse_cards("♠7A ♣79 ♦79J ♥79J")
    before = ev.estimate_misere(ace, leads=False, before_talon=True)[1]
    assert before < ev.estimate_misere(ace, leads=False)[1] - 0.2


def _all_safe_layouts(n: int, seed: int) -> np.ndarray:
    """(n, 3) hands: a misère hand whose every suit is SAFE, two random defenders."""
    rng = np.random.default_rng(seed)
    found = []
    while sum(len(f) for f in found) < n:
        cards = rng.permuted(np.tile(np.arange(32, dtype=np.uint64), (100_000, 1)), axis=1)
        masks = np.uint64(1) << cards[:, :30]
        hands = np.stack([masks[:, 10 * k:10 * k + 10].sum(1) for k in range(3)], 1)
        found.append(hands[[ev.every_suit_safe(np.int64(h)) for h in hands[:, 0]]])
    return np.concatenate(found)[:n].astype(np.uint32)


@pytest.mark.parametrize("count", [500, pytest.param(1500, marks=pytest.mark.slow)])
def test_a_misere_hand_safe_in_every_suit_is_never_caught_on_a_defenders_lead(count):
    hands = _all_safe_layouts(count, seed=3)
    n = len(hands)
    declarer = np.zeros(n, dtype=np.int64)
    for leader in (1, 2):
        assert (solve_batch(hands, -1, np.full(n, leader), declarer, True) == 0).all()
    # Leading the first trick himself can spoil a suit, rarely (0.14 % of 20,000 layouts).
    assert (solve_batch(hands, -1, np.zeros(n, dtype=np.int64), declarer, True) > 0).mean() < 0.01
    # So the evaluator prices such a hand (before or after the talon) as a clean misère:
    # the per-suit models alone give a safe suit with high cards a trick or so.
    hand = parse_cards("♠AQJ1087 ♣KJ87")
    assert ev.every_suit_safe(hand)
    for before in (False, True):
        assert ev.estimate_misere(hand, leads=True, before_talon=before) == (0.0, 0.0)


def test_defence_tricks_grow_with_the_defenders_high_cards():
    # The team's tricks: the partner holds less when this hand holds more.
    strong = parse_cards("♦AKQJ ♥AKQ ♣QJ10")
    empty = parse_cards("♦987 ♥1098 ♣987 ♠9")
    for level in (6, 8):
        assert (ev.estimate_defence(strong, 0, level, declarer_leads=True)
                > ev.estimate_defence(empty, 0, level, declarer_leads=True) + 0.75)


def test_discard_keeps_the_trumps_and_aces():
    hand = parse_cards("♠AKQJ10 ♣A7 ♦A7 ♥A87")
    mask, value = ev.best_discard(TABLES, hand, 0, 1.0)
    assert mask & parse_cards("♠AKQJ10 ♣A ♦A ♥A") == 0
    assert value == pytest.approx(ev.estimate_tricks(hand & ~mask, 0, leads=True))
