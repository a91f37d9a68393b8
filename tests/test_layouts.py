"""The layouts a player could not rule out: drawn from what he saw, kept where the
others' calls are made, and a mistake knowable only when it loses on average there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from prefstats.analysis.analyze import analyze
from prefstats.analysis.game import game_variant, load_game
from prefstats.analysis.layouts import (
    KNOWABLE_SE,
    LAYOUTS,
    ROUND,
    Layouts,
    _Calls,
    _unseen_seats,
    card_layouts,
    discard_layouts,
    discard_pairs,
    layout_fields,
)
from prefstats.analysis.record import replay
from prefstats.game import engine
from prefstats.game.cards import SUIT_MASKS
from prefstats.players.knowledge import knowledge_of, sample_worlds

EXAMPLES = Path(__file__).parents[1] / "examples"


def _fields(whists, dd_loss):
    whists = np.asarray(whists, dtype=float)
    n, k = whists.shape
    layouts = Layouts(np.zeros((n, 3), np.int64), list(range(k)), np.zeros((n, k), np.int64),
                      n, n, ())
    return layout_fields(layouts, ["a", "b"], whists, "a", dd_loss, 1e-9)


def test_a_card_that_loses_on_average_is_a_knowable_mistake():
    rng = np.random.default_rng(1)
    b = rng.normal(0, 1, 64)
    f = _fields(np.column_stack([b - 2.0, b]), dd_loss=2.0)  # a: two whists worse everywhere
    assert f["verdict"] == "knowable" and f["layout_best"] == "b"
    assert f["charged"] == pytest.approx(2.0) and f["layout_loss_se"] == pytest.approx(0)


def test_a_card_that_loses_only_in_the_real_layout_is_hindsight():
    # a loses 8 in one layout in eight and wins 1 in the others: no loss on average
    a = np.array([-8.0 if j % 8 == 0 else 1.0 for j in range(64)])
    f = _fields(np.column_stack([a, np.zeros(64)]), dd_loss=8.0)
    assert f["verdict"] == "hindsight" and f["charged"] == 0.0
    # a small average loss inside the noise is not knowable either
    a = np.array([-8.0 if j % 8 == 0 else 0.9 for j in range(64)])
    f = _fields(np.column_stack([a, np.zeros(64)]), dd_loss=8.0)
    assert 0 < f["layout_loss"] < KNOWABLE_SE * f["layout_loss_se"]
    assert f["verdict"] == "hindsight" and f["charged"] == 0.0


def test_no_loss_anywhere_is_no_mistake():
    f = _fields(np.zeros((64, 2)), dd_loss=0.0)
    assert f["verdict"] is None and f["charged"] == 0.0 and f["layout_best"] == "a"


@pytest.fixture(scope="module")
def pulka():
    game = load_game(EXAMPLES / "pulka.json")
    return game, game_variant(game)


def _trick_game(game, variant):
    """The first deal of the example that is a played trick game, its steps and final."""
    for k in range(len(game.deals)):
        steps, final = replay(game.deal_record(k), variant)
        st = final[0]
        if int(st["kind"]) == engine.GAME and st["played"] and not st["open"]:
            return steps, final
    raise AssertionError("the example has a closed trick game")


def test_the_layouts_hold_what_the_player_saw_and_make_the_others_calls(pulka):
    game, variant = pulka
    steps, final = _trick_game(game, variant)
    decl = int(final[0]["declarer"])
    cards = [i for i, s in enumerate(steps) if s.phase == engine.PLAY]
    # a whister's card in the third trick: voids may be shown, the discard is unseen
    i = next(i for i in cards if int(steps[i].state[0]["trick"]) >= 2
             and steps[i].seat != decl)
    step = steps[i]
    x = step.state[0]
    legal = [c for c in range(32) if step.legal >> c & 1]
    lay = card_layouts(steps, i, variant, legal, seed=3, policy="heuristic")
    w = lay.worlds
    assert len(w) == LAYOUTS == lay.tricks.shape[0]
    assert (w[:, step.seat] == int(x["hands"][step.seat])).all()
    for s in range(3):
        assert (np.bitwise_count(w[:, s]) == np.bitwise_count(int(x["hands"][s]))).all()
        for suit in range(4):
            if int(x["voids"][s]) >> suit & 1:
                assert not (w[:, s] & SUIT_MASKS[suit]).any()
    gone = int(x["gone"])
    out = (0xFFFFFFFF & ~(w[:, 0] | w[:, 1] | w[:, 2]) & ~gone)
    assert len(set(out.tolist())) > 1  # the discard: not seen, so not fixed
    # the layouts kept are the first drawn that make the others' calls, rebuilt as dealt
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    engine.observe(step.state.copy()[0], engine.rules_array(variant), obs[0])
    k = knowledge_of(obs[0])
    calls = _Calls(steps, i, _unseen_seats(k) - {step.seat}, variant, "heuristic")
    assert calls.by_seat and lay.drawn >= ROUND
    drawn = sample_worlds(k, ROUND, 3)
    played = np.array([int(b) for b in x["played_by"][:3]], dtype=np.int64)
    dealt = drawn | played
    talon = np.full(ROUND, int(x["talon"]), dtype=np.int64)
    away = 0xFFFFFFFF & ~(drawn[:, 0] | drawn[:, 1] | drawn[:, 2]) & ~gone
    dealt[:, decl] = (dealt[:, decl] | away) & ~talon
    made = calls.made(dealt, talon, away, first=0)
    used = [s for s in made if s not in lay.ignored]
    if used:
        passing = drawn[np.logical_and.reduce([made[s] for s in used])]
        n = min(len(passing), LAYOUTS)
        assert np.array_equal(lay.worlds[:n], passing[:n])
        assert lay.kept is not None and lay.kept >= n
    else:
        assert np.array_equal(lay.worlds, drawn[:LAYOUTS]) and lay.kept is None
    # the declarer's own card: his discard is known, the same in every layout
    j = next(j for j in cards if steps[j].seat == decl)
    lay = card_layouts(steps, j, variant,
                       [c for c in range(32) if steps[j].legal >> c & 1], seed=3,
                       policy="heuristic")
    w = lay.worlds
    out = 0xFFFFFFFF & ~(w[:, 0] | w[:, 1] | w[:, 2]) & ~int(steps[j].state[0]["gone"])
    assert set(out.tolist()) == {int(final[0]["discard"])}


def test_the_discard_is_valued_over_the_declarers_layouts(pulka):
    game, variant = pulka
    steps, final = _trick_game(game, variant)
    i = next(i for i, s in enumerate(steps) if s.phase == engine.DISCARD)
    x = steps[i].state[0]
    decl = int(x["declarer"])
    pairs = discard_pairs(int(x["hands"][decl]))
    done = pairs.index(steps[i].action)
    lay = discard_layouts(steps, i, variant, final, done, seed=2, policy="heuristic")
    assert done in lay.options and len(lay.options) <= 5
    assert lay.tricks.shape == (LAYOUTS, len(lay.options))
    others = [s for s in range(3) if s != decl]
    # the defenders' hands vary; the declarer's twelve cards do not
    assert (lay.worlds[:, decl] == int(x["hands"][decl])).all()
    assert len({tuple(r) for r in lay.worlds[:, others].tolist()}) > 1


def test_the_analysis_labels_each_card_knowable_or_hindsight():
    frame = analyze(EXAMPLES / "deal.json", deals=10)
    cards = frame.filter(pl.col("decision").is_in(["card", "discard"])
                         & pl.col("layouts").is_not_null())
    assert cards.height > 10 and (cards["layouts"] >= LAYOUTS).all()
    assert set(cards["verdict"].drop_nulls()) <= {"knowable", "hindsight"}
    knowable = cards.filter(pl.col("verdict") == "knowable")
    assert (knowable["charged"] == knowable["layout_loss"]).all()
    assert (knowable["layout_loss"] >= KNOWABLE_SE * knowable["layout_loss_se"]).all()
    hindsight = cards.filter(pl.col("verdict") == "hindsight")
    assert (hindsight["charged"] == 0).all() and (hindsight["loss"] > 0).all()
    # a double-dummy loss is either knowable or hindsight: none goes unlabelled
    assert cards.filter((pl.col("loss") > 1e-9) & pl.col("verdict").is_null()).height == 0
