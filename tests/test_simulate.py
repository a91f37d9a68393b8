"""Simulation datasets: determinism, resume, refusal of bad data, backends."""

import gc
import json
import signal
import subprocess
import sys
import time
import weakref

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prefstats.errors import OptionError
from prefstats.game.variants import get_variant
from prefstats.players import adjust
from prefstats.players.builtin import player_key
from prefstats.sim._manifest import parse_manifest, signature
from prefstats.sim._spec import RunSpec, default_chunk_size
from prefstats.sim.pulka import play_pulkas
from prefstats.sim.simulate import simulate, simulate_pulkas
from prefstats.sim.storage import DatasetError, load, manifest_of

SOCHI = get_variant("sochi")


def _rows(folder) -> pl.DataFrame:
    return load(folder).collect().sort("deal_id")


def _run(folder, variant=SOCHI, **kw):
    args = {"hands": 3000, "seed": 7, "chunk_size": 1000, "workers": 1, "progress": False}
    return simulate(variant, out=folder, **{**args, **kw})


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ref")
    _run(folder)
    return folder


def test_dataset_rows_and_manifest(reference):
    rows = _rows(reference)
    assert rows["deal_id"].to_list() == list(range(3000))
    m = manifest_of(reference)
    assert m["spec"]["seed"] == 7 and m["spec"]["variant"]["base"] == "sochi"
    assert m["finished"] and [c["rows"] for c in m["chunks"]] == [1000] * 3
    assert m["variant_toml"].startswith("# Preferans variant 'sochi'")
    # Every deal's entries settle to zero.
    values = rows.select(pl.sum_horizontal("value_0", "value_1", "value_2")).to_series()
    assert values.abs().max() < 1e-3
    # Compact dtypes.
    schema = load(reference).collect_schema()
    assert schema["hand_0"] == pl.UInt32 and schema["tricks_0"] == pl.UInt8


@pytest.mark.parametrize(("workers", "chunk_size"), [
    (2, 700), (1, 3000),
    pytest.param(2, 1000, marks=pytest.mark.slow), pytest.param(4, 700, marks=pytest.mark.slow)])
def test_same_rows_whatever_workers_and_chunks(reference, tmp_path, workers, chunk_size):
    """A pool with a short last chunk, or one chunk, gives the reference's rows; more
    workers (slow) run the same pool."""
    _run(tmp_path, workers=workers, chunk_size=chunk_size)
    assert _rows(tmp_path).equals(_rows(reference))


def test_deals_depend_only_on_the_seed(reference, tmp_path):
    _run(tmp_path, variant=get_variant("rostov"))
    a, b = _rows(reference), _rows(tmp_path)
    assert a.select("hand_0", "hand_1", "hand_2", "talon").equals(
        b.select("hand_0", "hand_1", "hand_2", "talon"))


def test_rerun_resumes_and_redoes_damaged_chunks(reference, tmp_path):
    _run(tmp_path)
    chunk = tmp_path / "chunk-000001.parquet"
    chunk.write_bytes(chunk.read_bytes()[:-100])  # truncated
    with pytest.raises(DatasetError, match=r"chunk-000001.parquet"):
        load(tmp_path)
    (tmp_path / ".prefstats-tmp-stale.parquet").write_bytes(b"partial")
    before = {c["index"]: c["sha256"] for c in manifest_of(tmp_path)["chunks"]}
    _run(tmp_path)
    after = {c["index"]: c["sha256"] for c in manifest_of(tmp_path)["chunks"]}
    assert after == before
    assert not list(tmp_path.glob(".prefstats-tmp-*"))
    assert _rows(tmp_path).equals(_rows(reference))


def test_other_arguments_are_refused_and_force_replaces(tmp_path):
    _run(tmp_path, hands=1000)
    with pytest.raises(DatasetError, match=r"differing: .*seed"):
        _run(tmp_path, hands=1000, seed=8)
    _run(tmp_path, hands=1000, seed=8, force=True)
    assert manifest_of(tmp_path)["spec"]["seed"] == 8


def test_the_manifest_records_the_misere_catchers(reference):
    assert manifest_of(reference)["spec"]["players"]["misere_catchers"] == "hidden"
    seeing = RunSpec(SOCHI, 1000, 7, misere_catchers="double_dummy").describe()
    assert seeing["players"]["misere_catchers"] == "double_dummy"
    assert signature(seeing) != signature(RunSpec(SOCHI, 1000, 7).describe())
    with pytest.raises(OptionError, match="misère catchers"):
        RunSpec(SOCHI, 1000, 7, misere_catchers="seeing")


def test_data_of_other_fitted_players_is_not_resumed(tmp_path, monkeypatch):
    _run(tmp_path, hands=1000)
    assert manifest_of(tmp_path)["spec"]["players"]["fit"] == adjust.fit_id(SOCHI)
    # a refit ships other offsets
    monkeypatch.setattr(adjust, "fitted", lambda variant: np.full(adjust.SIZE, 0.25))
    with pytest.raises(DatasetError, match=r"differing: .*players"):
        _run(tmp_path, hands=1000)


def test_foreign_and_corrupt_files_get_clear_errors(reference, tmp_path):
    with pytest.raises(DatasetError, match=r"no manifest.json"):
        load(tmp_path)
    pq.write_table(pa.table({"x": [1, 2]}), tmp_path / "chunk-000000.parquet")
    with pytest.raises(DatasetError, match=r"no manifest.json"):
        load(tmp_path)
    with pytest.raises(DatasetError, match="chunk files without a manifest"):
        _run(tmp_path, hands=1000)
    # A foreign Parquet file in place of a listed chunk.
    copy = tmp_path / "copy"
    copy.mkdir()
    for p in reference.iterdir():
        (copy / p.name).write_bytes(p.read_bytes())
    pq.write_table(pa.table({"x": [1, 2]}), copy / "chunk-000002.parquet")
    with pytest.raises(DatasetError, match=r"did not write|wrong size"):
        load(copy)
    (copy / "manifest.json").write_text("{not json")
    with pytest.raises(DatasetError, match="not a readable manifest"):
        load(copy)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(DatasetError, match="not empty and not a prefstats dataset"):
        _run(other, hands=1000)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="positive"):
        RunSpec(SOCHI, size=0, seed=1)
    with pytest.raises(ValueError, match="unknown policy"):
        RunSpec(SOCHI, size=10, seed=1, policy="oracle")
    with pytest.raises(ValueError, match="pool_target"):
        RunSpec(SOCHI, size=10, seed=1, kind="pulkas")


@pytest.mark.slow  # ~55 s on the shared machine: a 20,000-deal run killed and resumed
def test_killed_run_resumes_to_the_same_dataset(tmp_path):
    """A run killed mid-way (SIGKILL) and rerun equals an uninterrupted run."""
    size = {"hands": 20_000, "chunk_size": 500}
    code = (
        "import sys\n"
        "from prefstats.sim.simulate import simulate\n"
        "from prefstats.game.variants import get_variant\n"
        "simulate(get_variant('sochi'), hands=20000, seed=7, chunk_size=500, workers=1,\n"
        "         out=sys.argv[1], progress=False)\n"
    )
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", code, str(killed)])
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if list(killed.glob("manifest-*.json")):  # a chunk's entry: one chunk is whole
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert json.loads((killed / "manifest.json").read_text())["chunks"] == []  # not rewritten
    done = len(parse_manifest(killed)["chunks"])
    assert 1 <= done < 40, "the run should have been killed mid-way"
    _run(killed, **size)
    whole = tmp_path / "whole"
    _run(whole, **size)
    assert _rows(killed).equals(_rows(whole))


def test_the_default_chunk_size_adapts_and_a_rerun_keeps_the_datasets(reference, tmp_path):
    assert [default_chunk_size(n) for n in (3000, 80_000, 1_000_000, 10**9)] == [
        10_000, 10_000, 125_000, 2_000_000]
    assert manifest_of(reference)["spec"]["chunk_size"] == 1000
    grown = tmp_path / "grown"
    _run(grown)
    before = {c["index"]: c["sha256"] for c in manifest_of(grown)["chunks"]}
    simulate(SOCHI, hands=3500, seed=7, out=grown, workers=1, progress=False)
    after = manifest_of(grown)
    assert after["spec"]["chunk_size"] == 1000 and len(after["chunks"]) == 4
    assert all(before[i] == c["sha256"] for i, c in enumerate(after["chunks"][:3]))
    fresh = tmp_path / "fresh"
    simulate(SOCHI, hands=3000, seed=7, out=fresh, workers=1, progress=False)
    assert manifest_of(fresh)["spec"]["chunk_size"] == 10_000
    assert _rows(fresh).equals(_rows(reference))  # rows never depend on the chunk size


@pytest.mark.slow  # ~55 s on the shared machine: starts a local Dask cluster
def test_dask_local_cluster_equals_local_run(reference, tmp_path):
    pytest.importorskip("dask.distributed")
    _run(tmp_path, backend="dask", workers=2)
    assert _rows(tmp_path).equals(_rows(reference))


def test_columns_are_consistent(reference):
    rows = _rows(reference)
    played = rows.filter(pl.col("played"))
    tricks = played.select(pl.sum_horizontal("tricks_0", "tricks_1", "tricks_2")).to_series()
    assert (tricks == 10).all()
    solved = rows.filter(pl.col("double_dummy"))
    assert (solved["solver_tricks"] >= 0).all()
    assert (rows.filter(~pl.col("double_dummy"))["solver_tricks"] == -1).all()
    assert (rows["calls"].list.len() >= 3).all()  # a list of call names
    assert set(rows["kind"].cast(pl.String)) <= {"game", "misere", "raspasy"}


def test_cli_simulate_and_package_load(tmp_path):
    from typer.testing import CliRunner

    import prefstats
    from prefstats.cli import app

    out = str(tmp_path / "d")
    args = ["simulate", "--hands", "1500", "--chunk-size", "500", "--workers", "1",
            "--seed", "3", "--out", out, "--quiet"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "1,500 deals in 3 chunk(s)" in result.output
    assert prefstats.load(out).collect().height == 1500
    again = CliRunner().invoke(app, [*args[:-3], "--seed", "4", "--out", out, "--quiet"])
    assert again.exit_code == 2 and "other arguments" in again.output
    bad = CliRunner().invoke(app, [*args, "--param", "nonsense=1"])
    assert bad.exit_code == 2 and "unknown player parameter" in bad.output


def test_pulka_dataset(tmp_path):
    m = simulate_pulkas(SOCHI, pulkas=30, pool_target=5, seed=2, out=tmp_path, chunk_size=10,
                        workers=1, progress=False)
    assert m["spec"]["kind"] == "pulkas" and m["spec"]["pool_target"] == 5
    rows = load(tmp_path).collect().sort("pulka_id")
    assert rows["pulka_id"].to_list() == list(range(30))
    direct = play_pulkas(SOCHI, [7], seed=2, pool_target=5, player_key=player_key(2))
    assert rows["result_0"][7] == pytest.approx(direct["result"][0, 0], abs=1e-3)
    assert rows["finished"].all()


def test_cli_simulate_pulkas(tmp_path):
    from typer.testing import CliRunner

    from prefstats.cli import app

    out = str(tmp_path / "p")
    result = CliRunner().invoke(app, ["simulate-pulkas", "--pulkas", "20", "--pool-target", "4",
                                      "--chunk-size", "10", "--workers", "1", "--out", out,
                                      "--quiet", "--with-deals"])
    assert result.exit_code == 0, result.output
    assert "20 pulkas in 2 chunk(s)" in result.output
    pulkas = load(out).collect()
    deals = load(f"{out}/deals").collect()
    assert deals.height == pulkas["deals"].sum()
    first = deals.filter(pl.col("pulka_id") == 3).sort("deal_no")
    assert first["deal_no"].to_list() == list(range(pulkas.sort("pulka_id")["deals"][3]))
    # The dealer's place rotates from place 2 (place 0's right neighbour).
    assert first["dealer"].to_list()[:4] == [2, 0, 1, 2][: first.height]
    assert manifest_of(f"{out}/deals")["spec"]["kind"] == "pulka-deals"


def test_parameters_out_of_range_are_refused_before_anything_is_written(tmp_path):
    from prefstats.players.params import PARAMETERS, heuristic_params

    params = heuristic_params()
    params[PARAMETERS["expect_whist"][0]] = float("inf")  # the compiled players would crash
    with pytest.raises(ValueError, match="expect_whist"):
        simulate(get_variant("sochi"), hands=100, seed=1, out=tmp_path / "d", params=params,
                 progress=False)
    assert not (tmp_path / "d").exists() or not any((tmp_path / "d").iterdir())


def test_the_main_process_keeps_no_finished_chunk(tmp_path, monkeypatch):
    """With a pool, each worker writes its chunk and hands back a small entry; the main
    process lets go of each finished future as it lands, so nothing it holds grows with
    the chunks but the entries."""
    from joblib.externals.loky import ProcessPoolExecutor

    from prefstats.sim._workers import local_chunks
    from prefstats.sim.storage import location

    futures = []
    submit = ProcessPoolExecutor.submit

    def tracked(self, *args, **kw):
        future = submit(self, *args, **kw)
        futures.append(weakref.ref(future))
        return future

    monkeypatch.setattr(ProcessPoolExecutor, "submit", tracked)
    spec = RunSpec(SOCHI, 600, 7, 100)
    landed = local_chunks(spec, list(range(spec.n_chunks)), 2, location(tmp_path))
    entries = [next(landed) for _ in range(spec.n_chunks)]  # the run still open
    gc.collect()
    # all but the last landed (and one a pool thread may still name) are gone
    assert sum(ref() is None for ref in futures) >= spec.n_chunks - 2
    assert all(not isinstance(v, bytes) for e in entries for v in e.values())
    assert sorted(e["index"] for e in entries) == list(range(spec.n_chunks))
    landed.close()
