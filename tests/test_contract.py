"""The stable contract outside tools call: every facade name and layered module path it
names imports, takes the arguments it states and behaves as it says; the flat 0.2
module paths are gone in 0.4.0, as announced."""

from __future__ import annotations

import importlib
import inspect
import tempfile
from pathlib import Path

import numpy as np
import pytest

import prefstats

P, K = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
REQUIRED = inspect.Parameter.empty

#: Each callable of the contract by its layered path: its parameters as the contract
#: states them (name, kind, default); more parameters may follow if they have defaults.
CALLS = {
    "prefstats.game.cards.parse_cards": [("text", P, REQUIRED)],
    "prefstats.game.cards.format_cards": [("mask", P, REQUIRED)],
    "prefstats.game.deal.deal": [("n", P, REQUIRED), ("seed", K, None)],
    "prefstats.game.contracts.parse_contract": [("text", P, REQUIRED)],
    "prefstats.game.variants.get_variant": [("name", P, REQUIRED), ("players", K, None)],
    "prefstats.game.variants.load_variant": [("path", P, REQUIRED)],
    "prefstats.game.scoring.settle": [
        ("pool", P, REQUIRED), ("mountain", P, REQUIRED), ("whists", P, REQUIRED),
        ("pool_value", K, 10), ("mountain_value", K, 10)],
    "prefstats.game.scoring.ScoreSheet": [("variant", P, REQUIRED), ("pool_target", P, None)],
    "prefstats.game.scoring.ScoreSheet.record_game": [
        ("self", P, REQUIRED), ("declarer", P, REQUIRED), ("contract", P, REQUIRED),
        ("tricks", P, REQUIRED), ("whist", P, REQUIRED), ("dealer", P, None)],
    "prefstats.game.scoring.ScoreSheet.record_misere": [
        ("self", P, REQUIRED), ("declarer", P, REQUIRED), ("tricks_taken", P, REQUIRED),
        ("dealer", P, None)],
    "prefstats.game.scoring.ScoreSheet.record_raspasy": [
        ("self", P, REQUIRED), ("tricks", P, REQUIRED), ("dealer", P, None)],
    "prefstats.game.scoring.ScoreSheet.value": [("self", P, REQUIRED)],
    "prefstats.game.scoring.ScoreSheet.settle": [("self", P, REQUIRED)],
    "prefstats.solver.solve": [
        ("hands", P, REQUIRED), ("trump", K, REQUIRED), ("leader", K, REQUIRED),
        ("declarer", K, REQUIRED), ("misere", K, False)],
    "prefstats.solver.solve_batch": [
        ("hands", P, REQUIRED), ("trump", P, REQUIRED), ("leader", P, REQUIRED),
        ("declarer", P, REQUIRED), ("misere", P, False)],
    "prefstats.sim.rollout.rollout": [
        ("variant", P, REQUIRED), ("deals", P, REQUIRED), ("seat", K, REQUIRED),
        ("decision", K, REQUIRED), ("options", K, REQUIRED), ("seed", K, 0),
        ("policy", K, "heuristic"), ("params", K, None), ("workers", K, 1)],
    "prefstats.analysis.tables.readable": [("frame", P, REQUIRED)],
    "prefstats.sim.storage.load": [("path", P, REQUIRED)],
}

#: The layered module paths the contract names.
CONTRACT_MODULES = ("prefstats.game.cards", "prefstats.game.deal", "prefstats.game.contracts",
                    "prefstats.game.variants", "prefstats.game.scoring", "prefstats.solver",
                    "prefstats.sim.rollout", "prefstats.analysis.tables", "prefstats.sim.storage")

#: The facade names the contract uses, by the module that defines each.
FACADE = {"deal": "prefstats.game.deal", "rollout": "prefstats.sim.rollout",
          "parse_cards": "prefstats.game.cards", "format_cards": "prefstats.game.cards",
          "get_variant": "prefstats.game.variants", "readable": "prefstats.analysis.tables",
          "load": "prefstats.sim.storage"}

#: The flat 0.2 paths removed in 0.4.0, each with where it moved (named in the CHANGELOG).
REMOVED = {
    "prefstats.codes": "prefstats.game.codes",
    "prefstats.cards": "prefstats.game.cards",
    "prefstats.deal": "prefstats.game.deal",
    "prefstats.exact": "prefstats.game.exact",
    "prefstats.contracts": "prefstats.game.contracts",
    "prefstats.tricks": "prefstats.game.tricks",
    "prefstats.variants": "prefstats.game.variants",
    "prefstats.auction": "prefstats.game.auction",
    "prefstats.engine": "prefstats.game.engine",
    "prefstats.scoring": "prefstats.game.scoring",
    "prefstats.presets": "prefstats.game.presets",
    "prefstats.knowledge": "prefstats.players.knowledge",
    "prefstats.pimc": "prefstats.players.pimc",
    "prefstats.play": "prefstats.sim.play",
    "prefstats.pulka": "prefstats.sim.pulka",
    "prefstats.storage": "prefstats.sim.storage",
    "prefstats.simulate": "prefstats.sim.simulate",
    "prefstats.rollout": "prefstats.sim.rollout",
    "prefstats.analyze": "prefstats.analysis.analyze",
    "prefstats.fit": "prefstats.analysis.fit",
    "prefstats.strength": "prefstats.analysis.strength",
    "prefstats.tables": "prefstats.analysis.tables",
    "prefstats.rollout_cli": "prefstats.cli.rollout",
    "prefstats.analyze_cli": "prefstats.cli.analyze",
}


def resolve(path: str):
    """The object at a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(path)


@pytest.mark.parametrize("path", sorted(CALLS))
def test_each_call_takes_the_contract_arguments(path):
    found = list(inspect.signature(resolve(path)).parameters.values())
    stated = CALLS[path]
    assert [(p.name, p.kind, p.default) for p in found[:len(stated)]] == stated
    assert all(p.default is not REQUIRED or p.kind is p.VAR_KEYWORD
               for p in found[len(stated):]), f"{path}: a new required argument"


@pytest.mark.parametrize("name", sorted(FACADE))
def test_each_facade_name_is_its_module_function(name):
    assert getattr(prefstats, name) is getattr(importlib.import_module(FACADE[name]), name)
    assert name in prefstats.__all__


def test_every_contract_module_is_public():
    """The layered paths the contract names are tier 1, each callable in its ``__all__``."""
    assert set(CONTRACT_MODULES) <= set(prefstats.PUBLIC)
    for path in CALLS:
        module = next(m for m in CONTRACT_MODULES if path.startswith(m + "."))
        name = path[len(module) + 1:].split(".")[0]
        assert name in importlib.import_module(module).__all__, path


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_the_flat_paths_of_0_2_are_gone(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    importlib.import_module(REMOVED[old])


def test_the_changelog_names_each_removed_path_and_where_it_went():
    text = " ".join((Path(__file__).parents[1] / "CHANGELOG.md").read_text("utf-8").split())
    missing = [old for old, new in REMOVED.items() if f"`{old}` → `{new}`" not in text]
    assert missing == []


def test_the_facade_verbs_survive_a_layered_import():
    import prefstats.game.deal
    import prefstats.sim.rollout

    assert callable(prefstats.deal) and callable(prefstats.rollout)


def test_cards_deals_and_contracts_as_stated():
    from prefstats.game.cards import format_cards, parse_cards

    assert parse_cards("♠7") == 1 and parse_cards("♥A") == 1 << 31
    assert parse_cards("♠AKQ ♣7 ♥10 9 8") == parse_cards("S:AKQ C:7 H:T98")
    assert parse_cards(format_cards(parse_cards("♦KQ ♥7"))) == parse_cards("♦KQ ♥7")
    with pytest.raises(ValueError, match="Z"):
        parse_cards("♠AZ")
    deals = prefstats.deal(50, seed=3)
    assert deals.hands.shape == (50, 3) and deals.hands.dtype == np.uint32
    assert deals.talon.shape == (50,) and deals.talon.dtype == np.uint32
    assert np.array_equal(prefstats.deal(50, seed=3).hands, deals.hands)
    from prefstats.game.contracts import parse_contract

    six, seven = parse_contract("6♠"), parse_contract("7NT")
    assert (six.level, six.trump) == (6, 0) and seven.trump is None and six < seven
    assert parse_contract("6S") == six and parse_contract("7БК") == seven
    assert parse_contract("misere").level is None


def test_variants_and_scoring_as_stated(tmp_path):
    from prefstats.game.scoring import ScoreSheet, settle
    from prefstats.game.variants import get_variant, load_variant

    for name in ("sochi", "leningrad", "rostov", "classic", "gusarik"):
        assert get_variant(name).players in (2, 3)
    with pytest.raises(ValueError, match="bridge"):
        get_variant("bridge")
    with pytest.raises(ValueError, match="no_such_option"):
        get_variant("sochi", no_such_option=1)
    (tmp_path / "house.toml").write_text('base = "sochi"\n', "utf-8")
    assert load_variant(tmp_path / "house.toml").players == 3
    scores = settle([0, 0, 0], [0, 0, 0], [[0, 5, 0], [0, 0, 0], [0, 0, 0]])
    assert scores.dtype.kind == "f" and scores[0] > scores[1]
    sheet = ScoreSheet(get_variant("sochi"))
    sheet.record_game(0, "6♠", [6, 2, 2], {1: "whist", 2: "pass"})
    sheet.record_misere(1, 0)
    sheet.record_raspasy([2, 3, 5])
    assert sheet.pool.shape == (3,) and sheet.whists.shape == (3, 3)
    assert sheet.value().shape == (3,) and sheet.settle().shape == (3,)


def test_solver_rollout_and_tables_as_stated():
    from prefstats.game.cards import parse_cards as p
    from prefstats.solver import solve, solve_batch

    hands = [p("♠AK"), p("♠QJ"), p("♠87")]
    assert solve(hands, trump=None, leader=0, declarer=0) == 2
    batch = solve_batch(np.array([hands, hands], dtype=np.uint32), -1, 0, 0)
    assert batch.tolist() == [2, 2]
    variant = prefstats.get_variant("sochi")
    frame = prefstats.rollout(variant, prefstats.deal(4, seed=1), seat=0,
                              decision="whist", options=["pass", "whist"])
    assert {"deal", "option", "legal", "value"} <= set(frame.columns)
    assert frame.height == 8
    with pytest.raises(ValueError, match="nonsense"):
        prefstats.rollout(variant, prefstats.deal(1, seed=1), seat=0, decision="nonsense",
                          options=["pass"])
    from prefstats.sim.simulate import simulate

    out = tempfile.mkdtemp()
    simulate(variant, hands=20, seed=1, out=out, chunk_size=10, workers=1, progress=False)
    table = prefstats.readable(prefstats.load(out)).collect()
    assert set(table["kind"].unique()) <= {"game", "misere", "raspasy"}
    assert prefstats.load(out).collect().to_pandas().shape[0] == 20
