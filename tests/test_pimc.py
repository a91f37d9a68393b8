"""Tests of the PIMC card player."""

from __future__ import annotations

import numpy as np
import pytest

from prefstats.analysis.strength import format_gauge, gauge
from prefstats.game import engine
from prefstats.game.cards import FULL_DECK, parse_cards
from prefstats.game.deal import deal
from prefstats.game.tricks import legal_cards, trick_winner
from prefstats.game.variants import get_variant
from prefstats.players.builtin import resolve_params
from prefstats.players.knowledge import Knowledge, count_worlds, sample_worlds
from prefstats.players.params import SAMPLES, heuristic_params, policy_params
from prefstats.players.pimc import DEFAULT_WORLDS, pimc_card
from prefstats.sim.play import play_batch, play_hands
from prefstats.solver import card_values, card_values_batch


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


def _random_decision(seed: int, moves: int | None = None):
    """A random deal played at random to a random point: the knowledge of the seat to
    play, the position's arguments for ``pimc_card`` and the seat's real hand."""
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
    for _ in range(int(rng.integers(0, 28)) if moves is None else moves):
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
    position = {"trick": trick, "leader": leader, "declarer": declarer,
                "trump": None if trump < 0 else trump, "misere": misere}
    return k, position, hands[seat]


@pytest.mark.parametrize("seed", range(12))
def test_pimc_cards_are_legal(seed):
    k, position, hand = _random_decision(seed)
    card = pimc_card(k, worlds=8, seed=seed, **position)
    trick, trump = position["trick"], position["trump"]
    assert legal_cards(hand, trick[0] >> 3 if trick else -1,
                       -1 if trump is None else trump) >> card & 1


@pytest.mark.parametrize("seed", range(40))
def test_pimc_card_is_the_best_average_over_its_worlds(seed):
    # The decision recomputed in Python from the same worlds, every card valued: the
    # compiled player's shortcuts (no search when its legal cards are one run) must not
    # change it. Ties go to the lowest card.
    k, position, _ = _random_decision(seed, moves=[0, 4, 13, 20, 25][seed % 5])
    worlds = sample_worlds(k, 6, seed)
    values = card_values_batch(worlds, **position).astype(np.int64)
    legal = np.flatnonzero(values[0] >= 0)
    totals = values[:, legal].sum(axis=0)
    maximise = (k.seat == position["declarer"]) != position["misere"]
    best = legal[np.flatnonzero(totals == (totals.max() if maximise else totals.min()))[0]]
    assert pimc_card(k, worlds=6, seed=seed, **position) == best


def test_pimc_plays_a_run_of_cards_with_only_gone_cards_between_at_once():
    # Seat 0 holds ♠KJ, ♠Q is played: one card in every world, the lower one goes.
    k = Knowledge(seat=0, held=(parse_cards("♠KJ"), 0, 0), counts=(2, 2, 2),
                  played=FULL_DECK & ~parse_cards("♠KJ ♥AK ♦AK"))
    assert pimc_card(k, trick=[], leader=0, declarer=0, trump=None, worlds=4) == \
        parse_cards("♠J").bit_length() - 1


def test_a_card_on_the_table_between_two_cards_keeps_them_apart():
    # Seat 0 holds ♠KJ and ♠Q is led: the king wins the trick, the jack does not.
    queen = parse_cards("♠Q").bit_length() - 1
    k = Knowledge(seat=0, held=(parse_cards("♠KJ"), 0, 0), counts=(2, 2, 1),
                  played=FULL_DECK & ~parse_cards("♠KJ7 ♥AK"))
    assert pimc_card(k, trick=[queen], leader=2, declarer=0, trump=None, worlds=4) == \
        parse_cards("♠K").bit_length() - 1


def test_bad_requests_raise():
    k = Knowledge(seat=0, held=(parse_cards("♠A"), 0, 0), counts=(1, 1, 1),
                  played=FULL_DECK & ~parse_cards("♠AK7"))
    with pytest.raises(ValueError, match="not the seat to play"):
        pimc_card(k, trick=[], leader=1, declarer=0, trump=None)
    with pytest.raises(ValueError, match="worlds"):
        pimc_card(k, trick=[], leader=0, declarer=0, trump=None, worlds=0)


# ---- the built-in policy "pimc" ------------------------------------------------------------

SOCHI = get_variant("sochi")
FEW = policy_params("pimc", samples=4)


def test_pimc_policy_bids_as_the_heuristic_and_searches_closed_play():
    d = deal(60, seed=5)
    pimc = play_batch(d, SOCHI, policy="pimc", params=FEW)  # an illegal card raises
    heur = play_batch(d, SOCHI, policy="heuristic")
    for field in ("calls", "contract", "declarer", "discard", "whist_calls", "kind"):
        assert np.array_equal(pimc[field], heur[field]), field
    closed = (pimc["kind"] == engine.GAME) & pimc["played"] & ~pimc["open"]
    assert closed.sum() >= 5
    # open deals are settled double dummy and raspasy is the heuristic's: the same
    assert np.array_equal(pimc["history"][~closed], heur["history"][~closed])
    # closed play is searched: some game goes another way
    assert not np.array_equal(pimc["history"][closed], heur["history"][closed])


def test_pimc_policy_is_the_same_in_chunks_and_through_the_python_protocol():
    d = deal(30, seed=8)
    whole = play_batch(d, SOCHI, policy="pimc", key=3)
    parts = np.concatenate([play_batch(d[:13], SOCHI, policy="pimc", key=3),
                            play_batch(d[13:], SOCHI, policy="pimc", key=3)])
    assert all(np.array_equal(whole[f], parts[f]) for f in engine.STATE.names)
    python = play_hands(d[:8], SOCHI, policy="pimc", key=3)
    assert all(np.array_equal(whole[:8][f], python[f]) for f in engine.STATE.names)


def test_pimc_policy_runs_in_simulate_rollout_and_pulkas(tmp_path):
    from prefstats.sim.pulka import play_pulkas
    from prefstats.sim.rollout import rollout
    from prefstats.sim.simulate import simulate
    from prefstats.sim.storage import load

    simulate(SOCHI, hands=24, seed=2, out=tmp_path / "a", policy="pimc", params=FEW,
             chunk_size=10, workers=1)
    simulate(SOCHI, hands=24, seed=2, out=tmp_path / "b", policy="pimc", params=FEW,
             chunk_size=24, workers=1)
    assert load(tmp_path / "a").collect().equals(load(tmp_path / "b").collect())
    rows = rollout(SOCHI, deal(4, seed=1), seat=0, decision="first_call",
                   options=["pass", "bid"], policy="pimc", params=FEW)
    assert len(rows) == 8
    result = play_pulkas(SOCHI, [0, 1], seed=1, pool_target=2, policy="pimc", params=FEW)
    assert (result["pool"] >= 0).all()


def test_pimc_parameters_are_checked():
    assert float(policy_params("pimc")[SAMPLES]) == DEFAULT_WORLDS
    for bad in (0, 2.5, 5000, float("nan")):
        with pytest.raises(ValueError, match="samples"):
            policy_params("pimc", samples=bad)
    with pytest.raises(ValueError, match="takes 15 player parameters"):
        resolve_params("pimc", heuristic_params())
    with pytest.raises(ValueError, match="unknown built-in policy"):
        resolve_params("search")


# ---- the strength gauge (prefstats.analysis.strength) ---------------------------------------

#: Deals of seed 3 whose heuristic auctions hold a few misères.
MISERE_DEALS = 400


def test_gauge_of_a_policy_against_itself_is_zero():
    # Paired on the same games with the same keys, a policy gives nothing away to itself:
    # every deal's difference is 0 (a zero-width interval), misère included.
    for policy, deals in (("heuristic", MISERE_DEALS), ("random", 80)):
        g = gauge(policy, policy, deals=deals, seed=3)
        assert g["declarer"]["games"] > 0 and g["raspasy"]["deals"] > 0
        assert g["misere_declarer"]["games"] >= 2
        for part in ("declarer", "defence", "misere_declarer", "misere_catchers"):
            assert g[part]["given_away"] == {"mean": 0, "low": 0, "high": 0}
        for part in ("declarer", "defence"):
            assert g[part]["made_A"] == g[part]["made_B"]
        for part in ("misere_declarer", "misere_catchers"):
            assert g[part]["caught_A"] == g[part]["caught_B"]
        assert g["raspasy"]["difference"]["mean"] == 0


def test_gauge_finds_random_misere_play_worse():
    # Random cards give tricks away on both sides of a misère: its declarer takes more,
    # its catchers let the declarer escape more, on the same misères (those of the
    # random auction, frequent).
    g = gauge("random", "heuristic", deals=400, seed=5)
    declarer, catchers = g["misere_declarer"], g["misere_catchers"]
    assert declarer["games"] == catchers["games"] >= 20
    assert declarer["given_away"]["low"] > 0 and catchers["given_away"]["low"] > 0
    assert declarer["caught_A"] > declarer["caught_B"]
    assert catchers["caught_A"] < catchers["caught_B"]
    assert g["misere_play"]["random"] == "at random"
    text = format_gauge(g)
    assert "misère declarer" in text and "misère catchers" in text and "hidden" in text


def test_gauge_of_the_misere_catchers_models():
    # The heuristic and PIMC play an open misère alike; catchers who see the discard
    # (double dummy, card by card) catch at least as often as the hidden ones.
    hidden = gauge("heuristic", "pimc", deals=MISERE_DEALS, seed=3, samples=2)
    seen = gauge("heuristic", "heuristic", deals=MISERE_DEALS, seed=3,
                 misere_catchers="double_dummy")
    for part in ("misere_declarer", "misere_catchers"):
        assert hidden[part]["given_away"] == {"mean": 0, "low": 0, "high": 0}
        assert seen[part]["tricks_A"] >= hidden[part]["tricks_A"]
    assert hidden["misere_catchers_model"] == "hidden"
    assert "play an open misère alike" in format_gauge(hidden)
    assert "double_dummy" in seen["misere_play"]["heuristic"]
    with pytest.raises(ValueError, match="misère catchers"):
        gauge("heuristic", "pimc", deals=10, misere_catchers="blind")


def test_gauge_against_pimc_searches_every_closed_game():
    g = gauge("heuristic", "pimc", deals=40, seed=1, samples=4)
    t = g["timing"]
    assert t["A"]["pimc_searches"] == 0
    assert t["B declarer"]["pimc_searches"] >= g["declarer"]["games"]
    assert t["B defence"]["pimc_searches"] >= g["defence"]["games"]
    assert g["samples"] == 4 and g["pimc_ms_per_search"] > 0
    assert "closed games" in format_gauge(g)


def test_gauge_refuses_bad_requests():
    with pytest.raises(ValueError, match="unknown policy 'best'"):
        gauge("best", "heuristic", deals=10)
    with pytest.raises(ValueError, match="deals must lie"):
        gauge("heuristic", "pimc", deals=0)
    with pytest.raises(ValueError, match="samples"):
        gauge("heuristic", "pimc", deals=10, samples=0)


@pytest.mark.parametrize("args, message", [
    (["--policy", "best", "--against", "pimc"], "unknown policy"),
    (["--policy", "heuristic", "--against", "pimc", "--deals", "0"], "deals must lie"),
    (["--policy", "heuristic", "--against", "pimc", "--format", "xml"], "--format"),
])
def test_strength_command_refuses_bad_input(args, message):
    from typer.testing import CliRunner

    from prefstats.cli import app

    result = CliRunner().invoke(app, ["strength", *args])
    assert result.exit_code == 2 and message in result.output


def test_strength_command_prints_json():
    import json

    from typer.testing import CliRunner

    from prefstats.cli import app

    result = CliRunner().invoke(app, ["strength", "--policy", "random", "--against",
                                      "heuristic", "--deals", "30", "--format", "json"])
    assert result.exit_code == 0, result.output
    g = json.loads(result.output)
    assert g["policy"] == "random" and set(g) >= {"declarer", "defence", "misere_declarer",
                                                  "misere_catchers", "raspasy"}


@pytest.mark.slow  # a few hundred games under PIMC at K = 32
def test_gauge_finds_random_play_weak_and_the_heuristic_near_pimc():
    # Random card play gives away over a trick a game on each side (1.39 and 1.09 here).
    weak = gauge("random", "pimc", deals=300, seed=1)
    assert weak["declarer"]["given_away"]["low"] > 0.5
    assert weak["defence"]["given_away"]["low"] > 0.5
    # Since 0.2.0 the heuristic's gap (about 0.07 a side on 9,000 games) is below what
    # 141 games resolve; its interval must still reach the 0.08 target on each side.
    g = gauge("heuristic", "pimc", deals=1500, seed=1)
    assert g["declarer"]["given_away"]["low"] < 0.08
    assert g["defence"]["given_away"]["low"] < 0.08
