"""A whole game's figures: luck, own and others' decisions sum to the settled result,
the rating counts real choices with capped losses, lead accuracy and the worst mistakes."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from prefstats.analysis import game_stats
from prefstats.analysis.analyze import SCHEMA
from prefstats.analysis.game import analyze_game, load_game, play_game, replay_game
from prefstats.analysis.game_stats import (
    RatingScale,
    deal_steps,
    decisive_trick,
    game_tables,
    lead_accuracy,
    lead_table,
    luck_totals,
    player_ratings,
    rating_scale,
    real_choices,
    result_parts,
    worst_mistakes,
)
from prefstats.game.variants import get_variant

EXAMPLE = Path(__file__).parents[1] / "examples" / "pulka.json"


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("policies", [["random"] * 3, ["heuristic", "random", "pimc"]])
def test_luck_own_and_others_sum_to_the_settled_result(seed, policies):
    game = play_game(policies, 12, seed=seed, pool_target=6)
    replayed = replay_game(game)
    per_deal = result_parts(game, replayed.finals, seed=seed)
    totals = luck_totals(per_deal, game.names())
    settled = replayed.sheet.settle()
    parts = totals["luck"] + totals["own"] + totals["others"]
    assert parts.to_list() == pytest.approx(settled.tolist(), abs=1e-9)
    assert totals["result"].to_list() == pytest.approx(settled.tolist())
    last = per_deal.filter(pl.col("deal") == len(game.deals)).sort("player")
    assert last["score"].to_list() == pytest.approx(settled.tolist())
    # the luck of a deal is a deal of the same cards: it sums to zero round the table
    assert per_deal.group_by("deal").agg(pl.col("luck").sum())["luck"].abs().max() < 1e-6
    # the own part is not the whole of the rest: the others' decisions count too
    assert (totals["others"].abs() > 1e-6).any()


def test_the_reference_player_has_no_own_or_others_part_against_itself():
    game = play_game(["heuristic"] * 3, 8, seed=5)
    per_deal = result_parts(game, replay_game(game).finals, seed=5)
    assert per_deal["own"].abs().max() < 1e-6 and per_deal["others"].abs().max() < 1e-6


def test_the_reference_players_own_part_is_nil_beside_a_random_player():
    """At a table of two reference players and a random one, the reference players'
    recorded decisions are the reference's own: their ``own`` is nil, and all they
    gained or lost beyond the luck the random player's decisions gave them."""
    game = play_game(["heuristic", "random", "heuristic"], 12, seed=7)
    per_deal = result_parts(game, replay_game(game).finals, seed=7)
    reference = per_deal.filter(pl.col("player") != 1)
    assert reference["own"].abs().max() < 1e-6
    assert reference["others"].abs().max() > 1e-6
    random = per_deal.filter(pl.col("player") == 1)
    assert random["own"].abs().max() > 1e-6


def _frame(rows):
    base = dict.fromkeys(SCHEMA)
    return pl.DataFrame([base | {"deal": 1, "step": i, "player": p, "decision": "card",
                                 "loss": loss, "charged": loss, "alternatives": [
                                     {"option": f"c{j}", "value": v, "tricks": None}
                                     for j, v in enumerate(values)]}
                         for i, (p, loss, values) in enumerate(rows)],
                        schema={"deal": pl.Int64, "player": pl.Int64, **SCHEMA})


def test_the_rating_counts_real_choices_with_capped_losses():
    frame = _frame([(0, 0.0, [1.0, 1.0]),        # all options equal: not a real choice
                    (0, 2.0, [3.0, 1.0]),
                    (0, 500.0, [0.0, -500.0]),   # a misère card: capped
                    (1, 0.0, [2.0, 1.0]),
                    (1, None, [2.0, 1.0])])      # not valued
    assert real_choices(frame).height == 3
    scale = RatingScale(10.0, 100.0, (("strong", 1.0), ("average", 600.0),
                                      ("beginner", float("inf"))), {}, "")
    r = player_ratings(frame, ["A", "B", "C"], scale)
    assert r["choices"].to_list() == [2, 1, 0]
    assert r["rating"].to_list() == [pytest.approx(100 * (2 + 10) / 2), 0.0, None]
    assert r["band"].to_list() == ["average", "strong", None]


def test_the_rating_charges_knowable_mistakes_only():
    frame = _frame([(0, 4.0, [4.0, 0.0]), (0, 2.0, [2.0, 0.0])]).with_columns(
        pl.Series("verdict", ["hindsight", "knowable"]),
        pl.Series("charged", [0.0, 1.5]))  # the knowable one: 1.5 on average
    scale = RatingScale(10.0, 100.0, (("strong", float("inf")),), {}, "")
    r = player_ratings(frame, ["A", "B", "C"], scale)
    assert r["choices"][0] == 2 and r["capped_loss"][0] == pytest.approx(1.5)


TABLES = [(v, 3) for v in ("sochi", "leningrad", "rostov", "classic")] + \
    [("gusarik", 2)] + [(v, 4) for v in ("sochi", "leningrad", "rostov", "classic")]


@pytest.mark.parametrize(("variant", "players"), TABLES)
def test_every_table_ships_its_own_calibration_with_the_command_that_made_it(variant,
                                                                           players):
    table = get_variant(variant, players=players)
    scale = rating_scale(table)
    assert f"prefstats fit rating --variant {variant} --players {players} " in scale.source
    assert [name for name, _ in scale.bands] == ["strong", "average", "beginner"]
    tops = [top for _, top in scale.bands]
    assert tops == sorted(tops) and tops[-1] == float("inf")
    means = {p: scale.calibration[p]["mean"] for p in ("pimc", "heuristic", "random")}
    assert max(means["pimc"], means["heuristic"]) < tops[1] < means["random"]
    assert scale.cap == pytest.approx(decisive_trick(table))


def test_a_table_without_a_calibration_is_rated_without_bands(monkeypatch):
    monkeypatch.setattr(game_stats, "rating_file", lambda v: "rating-none.toml")
    game_stats._table_scale.cache_clear()
    try:
        scale = rating_scale(get_variant("leningrad"))
    finally:
        monkeypatch.undo()
        game_stats._table_scale.cache_clear()
    assert scale.bands == () and scale.band(10.0) is None
    assert scale.cap == pytest.approx(decisive_trick(get_variant("leningrad")))


def test_a_game_is_banded_by_its_own_table(monkeypatch):
    asked = []

    def scale_of(variant):
        asked.append((variant.base, variant.players))
        return RatingScale(10.0, 100.0, ((variant.base, float("inf")),), {}, "")

    monkeypatch.setattr(game_stats, "rating_scale", scale_of)
    game = play_game(["heuristic"] * 3, 2, seed=5, variant="rostov")
    tables = game_tables(game, analyze_game(game, deals=2, seed=5), search=False)
    assert asked == [("rostov", 3)]
    assert set(tables["players"]["band"].drop_nulls()) <= {"rostov"}


def test_the_heuristic_rates_better_than_the_random_player():
    ratings = {}
    for policy in ("heuristic", "random"):
        game = play_game([policy] * 3, 4, seed=11)
        r = player_ratings(analyze_game(game, deals=8, seed=11), game.names(),
                           rating_scale(get_variant("sochi")))
        ratings[policy] = r["capped_loss"].sum() / r["choices"].sum()
    assert ratings["heuristic"] < ratings["random"]


def test_leads_and_mistakes_of_the_example():
    game = load_game(EXAMPLE)
    game.deals = game.deals[:3]
    del game.header["result"]
    frame = analyze_game(game, deals=4)
    steps = deal_steps(game)
    leads = lead_table(game, frame, steps)
    assert leads.height == frame.filter(pl.col("type") == "opening lead").height > 0
    assert (leads["done"] == leads["best"]).to_list() <= leads["dd_best"].to_list()
    acc = lead_accuracy(leads, game.names())
    assert acc["leads"].sum() == leads.height
    worst = worst_mistakes(frame, steps, n=2, per_player=1)
    assert worst["gain"].is_sorted(descending=True) and (worst["gain"] > 0).all()
    assert worst.height >= 2 and all(worst["hand"])
