"""One way through a simulation: the command line and the Python API build one run spec,
checked once; the planning reads the manifest once; the workers trust the spec."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from prefstats.cli import app
from prefstats.errors import OptionError
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players.builtin import player_key
from prefstats.players.params import PARAMETERS, policy_params
from prefstats.sim import _spec, play, pulka
from prefstats.sim import rollout as rollout_module
from prefstats.sim._manifest import MANIFEST
from prefstats.sim._rows import deals_table
from prefstats.sim.play import play_batch
from prefstats.sim.rollout import MIN_PIECE, rollout
from prefstats.sim.simulate import simulate
from prefstats.sim.storage import load, manifest_of

SOCHI = get_variant("sochi")
runner = CliRunner()


def load_table(table) -> pl.DataFrame:
    """An Arrow table of deals as :func:`load` reads it."""
    return pl.from_arrow(table).sort("deal_id")


@pytest.fixture
def counted(monkeypatch):
    """Counts the calls of the spec's check and the reads of a ``manifest.json``."""
    calls = {"check_run_spec": 0, "manifest reads": 0}
    check, read_bytes = _spec.check_run_spec, Path.read_bytes

    def counted_check(*args):
        calls["check_run_spec"] += 1
        return check(*args)

    def counted_read(path):
        calls["manifest reads"] += path.name == MANIFEST
        return read_bytes(path)

    monkeypatch.setattr(_spec, "check_run_spec", counted_check)
    monkeypatch.setattr(Path, "read_bytes", counted_read)
    return calls


def test_a_simulate_command_checks_its_spec_once_on_the_way_to_parquet(tmp_path, counted):
    out = tmp_path / "d"
    args = ["simulate", "--hands", "60", "--chunk-size", "20", "--seed", "5", "--out",
            str(out), "--workers", "1", "--quiet", "--param", "aggression=0.7"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert counted == {"check_run_spec": 1, "manifest reads": 1}
    rows = load(out).collect()  # (reads the manifest: not counted above)
    assert rows["deal_id"].sort().to_list() == list(range(60))
    players = manifest_of(out)["spec"]["players"]
    assert players["params"]["aggression"] == 0.7 and players["misere_catchers"] == "hidden"
    # The rows are those of the spec's players, with the parameter as given.
    d = deal(60, seed=5)
    states = play_batch(d, SOCHI, params=policy_params("heuristic", aggression=0.7),
                        key=player_key(5))
    assert rows.sort("deal_id").equals(load_table(deals_table(states, d.index, SOCHI)))
    # A rerun of the finished dataset checks and reads once more, and writes nothing.
    written = (out / MANIFEST).stat().st_mtime_ns
    counted.update({"check_run_spec": 0, "manifest reads": 0})
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert counted == {"check_run_spec": 1, "manifest reads": 1}
    assert (out / MANIFEST).stat().st_mtime_ns == written


@pytest.fixture
def driver_checks(monkeypatch):
    """Counts the checks of the players' parameters by the public drivers
    (``play_batch``, ``play_pulkas``, ``rollout``)."""
    calls = {"checks": 0}
    for module in (play, pulka, rollout_module):
        check = module.resolve_params

        def counted_check(*args, _check=check, **kwargs):
            calls["checks"] += 1
            return _check(*args, **kwargs)

        monkeypatch.setattr(module, "resolve_params", counted_check)
    return calls


def test_the_drivers_check_nothing_again_when_a_spec_plays_its_chunks(tmp_path, driver_checks):
    manifest = simulate(SOCHI, hands=60, seed=5, out=tmp_path, chunk_size=20, workers=1,
                        progress=False, params={"aggression": 0.7})
    assert manifest["spec"]["players"]["params"]["aggression"] == 0.7
    _spec.RunSpec(SOCHI, 2, 1, 2, kind="pulka-deals", pool_target=5).rows(0, 2)
    assert driver_checks["checks"] == 0  # three chunks of deals, the pulkas' deals
    play_batch(deal(2, seed=1), SOCHI)  # the public driver checks what it is given
    assert driver_checks["checks"] == 1


def test_a_rollout_checks_its_players_once_for_all_its_pieces(driver_checks):
    frame = rollout(SOCHI, deal(2 * MIN_PIECE, seed=2), seat=0, decision="first_call",
                    options=["pass", "bid"], workers=2)
    assert frame.height == 4 * MIN_PIECE  # two pieces, on two threads
    assert driver_checks["checks"] == 1


def test_a_spec_travels_to_the_workers_without_being_checked_again(counted):
    spec = _spec.RunSpec(SOCHI, 100, 1, 50, given_params={"aggression": 0.7})
    assert counted["check_run_spec"] == 1
    copy = pickle.loads(pickle.dumps(spec))  # as a worker process receives it
    resized = spec.with_chunk_size(25)
    assert counted["check_run_spec"] == 1
    assert copy.signature == spec.signature != resized.signature
    assert resized.described["chunk_size"] == 25 and spec.described["chunk_size"] == 50
    assert isinstance(copy.params, np.ndarray) and copy.params.dtype == np.float64
    index = PARAMETERS["aggression"][0]
    assert copy.params[index] == 0.7


@pytest.mark.parametrize(("params", "says"), [
    ({"nerve": 1.0}, "unknown player parameter 'nerve'"),
    ({"aggression": float("nan")}, "aggression"),
    (np.zeros(3), "player parameters, got shape"),
])
def test_bad_player_parameters_are_refused_by_the_spec(params, says):
    with pytest.raises(OptionError, match=says):
        _spec.RunSpec(SOCHI, 10, 1, given_params=params)


def test_parameters_of_a_policy_that_has_none_are_refused():
    with pytest.raises(OptionError, match="not 'random'"):
        _spec.RunSpec(SOCHI, 10, 1, policy="random", given_params={"aggression": 0.5})


@pytest.mark.parametrize("catchers", ["hidden", "double_dummy"])
def test_simulate_takes_the_misere_catchers_and_the_manifest_records_them(tmp_path, catchers):
    manifest = simulate(SOCHI, hands=400, seed=3, out=tmp_path, chunk_size=200, workers=1,
                        progress=False, misere_catchers=catchers)
    assert manifest["spec"]["players"]["misere_catchers"] == catchers
    d = deal(400, seed=3)
    states = play_batch(d, SOCHI, key=player_key(3), misere_catchers=catchers)
    assert load(tmp_path).collect().sort("deal_id").equals(
        load_table(deals_table(states, d.index, SOCHI)))


def test_the_command_line_takes_the_misere_catchers(tmp_path):
    out = tmp_path / "d"
    result = runner.invoke(app, ["simulate", "--hands", "20", "--chunk-size", "20", "--out",
                                 str(out), "--workers", "1", "--quiet", "--misere-catchers",
                                 "double_dummy"])
    assert result.exit_code == 0, result.output
    assert manifest_of(out)["spec"]["players"]["misere_catchers"] == "double_dummy"
    result = runner.invoke(app, ["simulate", "--hands", "20", "--out", str(tmp_path / "e"),
                                 "--misere-catchers", "seeing"])
    assert result.exit_code == 2
    assert "unknown misère catchers 'seeing'" in result.output
    assert "Traceback" not in result.output
