"""The article's luck-against-skill figures on small samples: the model's arithmetic,
intervals that hold their estimates, and the paired skill edge."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from prefstats.analysis.skill import skill_edge
from prefstats.errors import OptionError
from prefstats.game.variants import get_variant
from prefstats.reports.compare import skill_against_luck

FIGURES = ("deals", "sd", "edge", "pulka_edge", "need", "cards")


def _pulkas(n: int, places: int, deals: int, seed: int = 0) -> pl.LazyFrame:
    rng = np.random.default_rng(seed)
    results = rng.normal(0, 100, (n, places))
    return pl.LazyFrame({**{f"result_{p}": results[:, p] for p in range(places)},
                         "deals": np.full(n, deals), "finished": np.ones(n, bool)})


@pytest.mark.parametrize(("places", "seats"), [(3, 3), (4, 3), (2, 2)])
def test_the_model_scales_the_edge_to_the_pulka(places, seats):
    pulkas = _pulkas(300, places, 30)
    edge = {"edge": 2.0, "se": 0.1, "seats": seats, "places": places}
    found = skill_against_luck(pulkas, edge, draws=400)
    sd = pulkas.select(pl.concat_list(f"result_{p}" for p in range(places)).explode()
                       ).collect().to_series().std()
    pulka_edge = 2.0 * 30 * seats / places
    assert found["n"] == 300 and found["deals"] == 30
    assert found["sd"] == pytest.approx(sd)
    assert found["pulka_edge"] == pytest.approx(pulka_edge)
    assert found["need"] == pytest.approx((stats.norm.ppf(0.975) * sd / pulka_edge) ** 2)
    assert found["cards"] == pytest.approx(sd ** 2 / (sd ** 2 + pulka_edge ** 2))
    for k in FIGURES:
        assert found[f"{k}_lo"] <= found[k] <= found[f"{k}_hi"], k
    assert found["need_lo"] < found["need_hi"] and found["sd_lo"] < found["sd_hi"]


def test_an_edge_that_may_be_nil_leaves_the_pulkas_unbounded():
    found = skill_against_luck(_pulkas(200, 3, 30), {"edge": 0.1, "se": 1.0, "seats": 3,
                                                     "places": 3}, draws=400)
    assert np.isfinite(found["need"]) and found["need_hi"] == np.inf


def test_unfinished_pulkas_are_left_out_and_too_few_give_no_figure():
    pulkas = _pulkas(5, 3, 30).with_columns(finished=pl.Series([True] + [False] * 4))
    found = skill_against_luck(pulkas, {"edge": 1.0, "se": 0.1, "seats": 3, "places": 3})
    assert found["n"] == 1 and np.isnan(found["need"])


@pytest.mark.parametrize(("variant", "seats"), [("sochi", 3), ("gusarik", 2)])
def test_the_skill_edge_is_paired_and_reproducible(variant, seats):
    first = skill_edge(variant, deals=60, seed=4)
    assert first == skill_edge(variant, deals=60, seed=4)
    assert first["seats"] == seats and first["deals"] == 60
    assert first["low"] < first["edge"] < first["high"]
    assert first["high"] - first["low"] == pytest.approx(2 * 1.959964 * first["se"])


def test_four_players_decide_three_deals_of_four():
    e = skill_edge(get_variant("sochi", players=4), deals=30, seed=4)
    assert (e["seats"], e["places"]) == (3, 4)


def test_bad_skill_options_are_refused():
    with pytest.raises(OptionError, match="deals"):
        skill_edge("sochi", deals=1, seed=0)
    with pytest.raises(OptionError, match="policy"):
        skill_edge("sochi", deals=10, seed=0, field="best")
    with pytest.raises(OptionError, match="aggression"):
        skill_edge("sochi", deals=10, seed=0, weaker={"aggression": 9.0})
