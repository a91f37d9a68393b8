"""Dataset integrity: checksums by default, manifest validation, unfinished
data, the run lock, --force ownership, extension, read-only reruns, column dtypes."""

import errno
import io
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import polars as pl
import pytest

from prefstats.game.deal import deal, seed_keys
from prefstats.game.variants import get_variant
from prefstats.sim import _runner
from prefstats.sim import _workers as sim
from prefstats.sim._lock import LOCK, dataset_lock
from prefstats.sim._manifest import signature
from prefstats.sim._rows import deals_table
from prefstats.sim._schema import SCHEMA_VERSION
from prefstats.sim._spec import RunSpec
from prefstats.sim._workers import run_chunk
from prefstats.sim.play import play_batch
from prefstats.sim.pulka import STRIDE, play_pulkas, pulka_keys
from prefstats.sim.simulate import simulate, simulate_pulkas
from prefstats.sim.storage import DatasetError, describe, load, manifest_of

SOCHI = get_variant("sochi")
ARGS = {"hands": 3000, "seed": 5, "chunk_size": 1000, "workers": 1, "progress": False}


def _run(folder, **kw):
    return simulate(SOCHI, out=folder, **{**ARGS, **kw})


def _rows(folder, **kw) -> pl.DataFrame:
    return load(folder, **kw).collect().sort("deal_id")


def _manifest(folder) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _edit(folder, change) -> None:
    m = _manifest(folder)
    change(m)
    (folder / "manifest.json").write_text(json.dumps(m))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clean")
    _run(folder)
    return folder


@pytest.fixture
def copy(reference, tmp_path):
    folder = tmp_path / "d"
    shutil.copytree(reference, folder)
    return folder


def test_a_flipped_byte_anywhere_in_a_chunk_is_refused_and_a_rerun_redoes_it(reference, copy):
    chunk = copy / "chunk-000001.parquet"
    clean = chunk.read_bytes()
    for at in (0, 4, len(clean) // 3, len(clean) // 2, len(clean) - 9, len(clean) - 1):
        damaged = bytearray(clean)
        damaged[at] ^= 0x10
        chunk.write_bytes(bytes(damaged))
        with pytest.raises(DatasetError, match=r"chunk-000001.parquet.*rerun the command"):
            load(copy)  # checksums by default
    _run(copy)
    assert _rows(copy).equals(_rows(reference))


def test_manifest_entries_are_validated(reference, copy):
    clean = (copy / "manifest.json").read_text()
    edits = {
        "listed twice": lambda m: m["chunks"].append(dict(m["chunks"][0])),
        "plain names": lambda m: m["chunks"][0].update(file="../elsewhere/chunk-000000.parquet"),
        "no 'chunks' key": lambda m: m.pop("chunks"),
        "no 'spec' key": lambda m: m.pop("spec"),
        "rows do not match": lambda m: m["chunks"][1].update(rows=999),
        "covers 900 deals": lambda m: m["chunks"][2].update(units=900),
        "relabelled": lambda m: m["spec"].update(seed=6),
        "variant_toml": lambda m: m.update(variant_toml=m["variant_toml"].replace(
            "players = 3", "players = 4")),
        "beyond the 3,000": lambda m: m["chunks"].append({**m["chunks"][0], "index": 7,
                                                          "file": "chunk-000007.parquet"}),
        "schema version 2": lambda m: m.update(schema_version=2),
    }
    for message, change in edits.items():
        (copy / "manifest.json").write_text(clean)
        _edit(copy, change)
        with pytest.raises(DatasetError, match=message):
            load(copy)
        if message != "rows do not match":  # read from the footers
            with pytest.raises(DatasetError, match=message):
                load(copy, verify="none")
    # A rerun with the same arguments repairs a duplicated entry and an edited spec.
    for change in (edits["listed twice"], edits["relabelled"], edits["rows do not match"]):
        (copy / "manifest.json").write_text(clean)
        _edit(copy, change)
        _run(copy)
        assert sorted(c["index"] for c in manifest_of(copy)["chunks"]) == [0, 1, 2]
        assert _rows(copy).equals(_rows(reference))


def test_an_unfinished_dataset_is_refused_unless_asked_for(copy):
    _edit(copy, lambda m: m["chunks"].pop())
    with pytest.raises(DatasetError, match=r"unfinished: 2,000 of 3,000 deals.*partial=True"):
        load(copy)
    assert load(copy, partial=True).collect().height == 2000
    assert describe(manifest_of(copy)) == "unfinished: 2,000 of 3,000 deals"
    _run(copy)
    assert describe(manifest_of(copy)) == "3,000 deals"
    assert load(copy).collect().height == 3000


def test_a_finished_dataset_is_not_rewritten(copy, monkeypatch):
    before = (copy / "manifest.json").stat()

    def no_write(*args):
        raise AssertionError("a finished dataset was written")

    monkeypatch.setattr(sim, "atomic_write", no_write)
    monkeypatch.setattr(_runner, "write_manifest", no_write)
    monkeypatch.setattr(_runner, "write_entry", no_write)
    _run(copy)
    after = (copy / "manifest.json").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not (copy / LOCK).exists()


def test_a_read_only_folder(copy, monkeypatch, tmp_path):
    def read_only(folder):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(_runner, "dataset_lock", read_only)
    assert _run(copy)["spec"]["hands"] == 3000  # finished: nothing to write
    with pytest.raises(DatasetError, match=r"cannot write there.*read-only folder"):
        _run(copy, hands=4000)
    with pytest.raises(DatasetError, match="cannot write there"):
        _run(tmp_path / "new")


def test_out_and_workers_are_checked(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(DatasetError, match="a file, not a folder"):
        _run(tmp_path / "file")
    with pytest.raises(DatasetError, match="cannot create"):
        _run(tmp_path / "file" / "sub")
    for workers in (0, -2):
        with pytest.raises(ValueError, match=f"workers must be a positive.*{workers}"):
            _run(tmp_path / "w", workers=workers)
    assert (tmp_path / "file").read_text() == "x"


def test_a_dask_scheduler_that_is_down_is_named(tmp_path):
    pytest.importorskip("dask.distributed")
    with pytest.raises(ValueError, match=r"cannot reach the dask scheduler at 'tcp://127\.0\.0\.1:9'"):
        _run(tmp_path, backend="dask", scheduler="tcp://127.0.0.1:9")
    assert not list(tmp_path.iterdir())


# --- --force ------------------------------------------------------------------------

def test_force_keeps_files_it_did_not_create(copy):
    (copy / "notes.txt").write_text("mine")
    _run(copy, seed=6, force=True)
    assert (copy / "notes.txt").read_text() == "mine"
    assert manifest_of(copy)["spec"]["seed"] == 6
    # A file at a chunk's name that prefstats did not write: refused, nothing deleted.
    (copy / "chunk-000009.parquet").write_bytes(b"not parquet")
    files = sorted(p.name for p in copy.iterdir())
    with pytest.raises(DatasetError, match=r"chunk-000009\.parquet: not a chunk prefstats wrote"):
        _run(copy, seed=7, force=True)
    assert sorted(p.name for p in copy.iterdir()) == files
    # A folder that holds no dataset is not cleared.
    other = copy.parent / "other"
    other.mkdir()
    (other / "data.csv").write_text("1,2")
    with pytest.raises(DatasetError, match="not empty and not a prefstats dataset"):
        _run(other, force=True)
    assert (other / "data.csv").exists()


def test_force_on_a_pulka_dataset_with_its_deals(tmp_path):
    args = {"pulkas": 6, "pool_target": 3, "chunk_size": 3, "workers": 1, "progress": False}
    simulate_pulkas(SOCHI, seed=1, out=tmp_path, with_deals=True, **args)
    (tmp_path / "notes.txt").write_text("mine")
    simulate_pulkas(SOCHI, seed=2, out=tmp_path, with_deals=True, force=True, **args)
    assert manifest_of(tmp_path)["spec"]["seed"] == 2
    assert manifest_of(tmp_path / "deals")["spec"]["seed"] == 2
    assert load(tmp_path / "deals").collect()["deal_id"].dtype == pl.UInt64
    # Without --with-deals, --force also clears the deals of the pulkas it replaces.
    simulate_pulkas(SOCHI, seed=3, out=tmp_path, force=True, **args)
    assert not (tmp_path / "deals").exists() and (tmp_path / "notes.txt").exists()


# --- the lock -----------------------------------------------------------------------

def test_a_second_run_is_refused_while_the_first_holds_the_lock(copy):
    with dataset_lock(copy):
        with pytest.raises(DatasetError, match=rf"in use by another prefstats run \(pid "
                                               rf"{os.getpid()} on "):
            _run(copy, seed=9, force=True)
        assert len(manifest_of(copy)["chunks"]) == 3  # nothing deleted
    assert not (copy / LOCK).exists()


def test_a_stale_lock_is_taken_over(copy):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (copy / LOCK).write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename,
                                         "started": "2026-01-01T00:00:00+00:00"}))
    _run(copy, hands=4000)
    assert not (copy / LOCK).exists()
    # A lock of another host is never taken over.
    (copy / LOCK).write_text(json.dumps({"pid": 1, "host": "elsewhere"}))
    with pytest.raises(DatasetError, match="pid 1 on elsewhere"):
        _run(copy, hands=4000)


def test_the_lock_is_released_on_error_and_ctrl_c(copy, monkeypatch):
    for error in (RuntimeError("boom"), KeyboardInterrupt()):
        def fail(*args, error=error):
            raise error

        monkeypatch.setattr(sim, "run_chunk", fail)
        with pytest.raises(type(error)):
            _run(copy, hands=4000)
        assert not (copy / LOCK).exists()


def test_concurrent_starts_take_the_lock_once(tmp_path):
    """Four runs start together: one takes the lock, three are refused at once."""
    go, stop = tmp_path / "go", tmp_path / "stop"
    code = ("import sys, time\n"
            "from pathlib import Path\n"
            "from prefstats.sim._lock import dataset_lock\n"
            "from prefstats.sim.storage import DatasetError\n"
            "folder, go, stop = map(Path, sys.argv[1:])\n"
            "while not go.exists(): time.sleep(0.001)\n"
            "try:\n"
            "    with dataset_lock(folder):\n"
            "        print('got', flush=True)\n"
            "        while not stop.exists(): time.sleep(0.01)\n"
            "except DatasetError as exc:\n"
            "    print('refused', exc, flush=True)\n")
    folder = tmp_path / "d"
    folder.mkdir()
    procs = [subprocess.Popen([sys.executable, "-c", code, str(folder), str(go), str(stop)],
                              stdout=subprocess.PIPE, text=True) for _ in range(4)]
    time.sleep(1)
    go.touch()
    lines = [p.stdout.readline() for p in procs]
    stop.touch()
    for p in procs:
        p.wait(timeout=60)
    assert sorted(line.split()[0] for line in lines) == ["got", "refused", "refused", "refused"]
    assert all("in use by another prefstats run" in line for line in lines
               if line.startswith("refused"))
    assert not (folder / LOCK).exists()


# --- extension ----------------------------------------------------------------------

def test_more_hands_extend_a_dataset(tmp_path):
    small, big = tmp_path / "small", tmp_path / "big"
    _run(small, hands=2500)
    first = {c["index"]: c["sha256"] for c in manifest_of(small)["chunks"]}
    stamp = (small / "chunk-000000.parquet").stat().st_mtime_ns
    _run(small, hands=4200)
    now = {c["index"]: c["sha256"] for c in manifest_of(small)["chunks"]}
    assert now[0] == first[0] and now[1] == first[1] and now[2] != first[2]
    assert (small / "chunk-000000.parquet").stat().st_mtime_ns == stamp  # kept, not redone
    _run(big, hands=4200)
    assert _rows(small).equals(_rows(big))
    assert manifest_of(small)["signature"] == manifest_of(big)["signature"]
    with pytest.raises(DatasetError, match="grows but does not shrink"):
        _run(small, hands=3000)
    assert load(small).collect().height == 4200


def test_the_signature_leaves_out_only_the_size():
    a = RunSpec(SOCHI, 1000, 1).describe()
    assert signature(a) == signature(RunSpec(SOCHI, 5000, 1).describe())
    assert signature(a) != signature(RunSpec(SOCHI, 1000, 2).describe())
    assert signature(a) != signature(RunSpec(SOCHI, 1000, 1, chunk_size=500).describe())


# --- columns ------------------------------------------------------------------------

def test_pulka_deal_ids_do_not_wrap_past_2_to_the_32():
    spec = RunSpec(SOCHI, STRIDE + 1, 1, chunk_size=STRIDE, kind="pulka-deals", pool_target=2)
    _, data, _, units = run_chunk(spec, 1)  # pulka 65,536 only
    table = pl.read_parquet(io.BytesIO(data))
    assert units == 1 and table["pulka_id"].unique().to_list() == [STRIDE]
    assert table["deal_id"].dtype == pl.UInt64
    assert table["deal_id"].to_list() == [STRIDE * STRIDE + k for k in table["deal_no"]]


def test_multiplier_holds_its_range():
    deals = deal(4, seed=1)
    states = play_batch(deals, get_variant("classic"))
    states["multiplier"][:] = 510  # a dark game on a bomb of 2^8
    table = deals_table(states, deals.index, get_variant("classic"))
    assert table["multiplier"].to_pylist() == [510] * 4
    assert table["deal_id"].type == "uint64"


def test_pulkas_deal_from_their_own_stream():
    assert tuple(pulka_keys(3)) != tuple(seed_keys(3)[1:])
    r = play_pulkas(SOCHI, [0, 1], seed=3, pool_target=3, with_deals=True)
    pulka_hands = r["deal_states"]["dealt"][:, :3]
    stream = deal(2 * STRIDE, seed=3)
    rows = r["deal_places"][:, 0] * STRIDE + r["deal_places"][:, 1]
    assert not (pulka_hands == stream.hands[rows]).all(axis=1).any()
    again = play_pulkas(SOCHI, [1], seed=3, pool_target=3, with_deals=True)
    assert (again["deal_states"]["dealt"] == r["deal_states"]["dealt"][
        r["deal_places"][:, 0] == 1]).all()


def test_killed_main_process_takes_its_workers_with_it(tmp_path):
    """Worker processes exit once the main process is killed outright (kill -9)."""
    code = ("import sys\n"
            "from prefstats.sim.simulate import simulate\n"
            "from prefstats.game.variants import get_variant\n"
            "simulate(get_variant('sochi'), hands=400000, seed=1, chunk_size=2000, workers=2,\n"
            "         out=sys.argv[1], progress=False)\n")
    main = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "d")])

    def children() -> list[int]:
        return [int(p) for p in os.listdir("/proc")
                if p.isdigit() and _stat(int(p))[1:2] == [str(main.pid)]]

    deadline = time.time() + 240
    while time.time() < deadline and not (tmp_path / "d" / "chunk-000000.parquet").exists():
        time.sleep(0.2)
    workers = children()
    assert workers, "the run should have started its workers"
    main.kill()
    main.wait()
    deadline = time.time() + 30
    while time.time() < deadline and any(os.path.exists(f"/proc/{p}") and
                                         _state(p) != "Z" for p in workers):
        time.sleep(0.2)
    assert all(not os.path.exists(f"/proc/{p}") or _state(p) == "Z" for p in workers)


def _stat(pid: int) -> list[str]:
    """Fields 3... of ``/proc/pid/stat`` (state, ppid, ...); none for a process gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _state(pid: int) -> str:
    return (_stat(pid) or ["Z"])[0]


def test_deal_ids_are_uint64(reference):
    assert load(reference).collect_schema()["deal_id"] == pl.UInt64
    assert np.array_equal(_rows(reference)["deal_id"].to_numpy(), np.arange(3000))


def _files(folder) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_old_schema_dataset_is_refused_naming_its_version_and_the_command(copy):
    """Schema 3 stored bare codes: a dataset of it is refused by every reader and by a
    rerun, with its version and the command that remakes it; nothing is changed."""
    _edit(copy, lambda m: m.update(schema_version=3))
    before = _files(copy)
    command = (f"prefstats simulate --hands 3000 --variant sochi --seed 5 --chunk-size 1000 "
               f"--out {copy} --force")
    for attempt in (lambda: load(copy), lambda: load(copy, verify="none"), lambda: _run(copy)):
        with pytest.raises(DatasetError) as refused:
            attempt()
        assert "schema version 3" in str(refused.value)
        assert f"reads version {SCHEMA_VERSION}" in str(refused.value)
        assert command in str(refused.value)
    assert _files(copy) == before
    from typer.testing import CliRunner

    from prefstats.cli import app

    result = CliRunner().invoke(app, ["report", str(copy), "--out", str(copy / "r")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "schema version 3" in " ".join(result.output.split())
    assert _files(copy) == before
    _run(copy, force=True)  # the command it names remakes it
    assert manifest_of(copy)["schema_version"] == SCHEMA_VERSION


def test_the_remake_command_names_the_run_of_any_dataset_kind(tmp_path):
    from prefstats.sim._manifest import remake_command

    four = get_variant("classic", players=4)
    simulate_pulkas(four, pulkas=2, pool_target=2, seed=3, out=tmp_path / "p", chunk_size=1,
                    with_deals=True, workers=1, progress=False)
    deals = remake_command(tmp_path / "p" / "deals", manifest_of(tmp_path / "p" / "deals"))
    pulkas = remake_command(tmp_path / "p", manifest_of(tmp_path / "p"))
    assert deals == pulkas == (
        "prefstats simulate-pulkas --pulkas 2 --variant classic --players 4 --pool-target 2 "
        f"--with-deals --seed 3 --chunk-size 1 --out {tmp_path / 'p'} --force")
    house = get_variant("sochi", whist_split="gentleman")
    simulate(house, hands=10, seed=1, out=tmp_path / "h", chunk_size=10, policy="random",
             workers=1, progress=False)
    assert remake_command(tmp_path / "h", manifest_of(tmp_path / "h")) == (
        "prefstats simulate --hands 10 --config VARIANT.toml (the manifest's variant_toml) "
        f"--seed 1 --chunk-size 10 --policy random --out {tmp_path / 'h'} --force")


# --- chunk entries ------------------------------------------------------------------

def test_each_chunk_is_listed_by_its_own_entry_until_the_run_ends(reference, tmp_path,
                                                                 monkeypatch):
    folder = tmp_path / "d"
    real = sim.run_chunk

    def dies_at_chunk_2(spec, index):
        if index == 2:
            raise RuntimeError("worker lost")
        return real(spec, index)

    monkeypatch.setattr(sim, "run_chunk", dies_at_chunk_2)
    with pytest.raises(RuntimeError):
        _run(folder)
    assert _manifest(folder)["chunks"] == []  # the manifest is not rewritten a chunk
    assert sorted(p.name for p in folder.glob("manifest-*.json")) == [
        "manifest-000000.json", "manifest-000001.json"]
    assert describe(manifest_of(folder)) == "unfinished: 2,000 of 3,000 deals"
    assert load(folder, partial=True).collect().height == 2000
    # A damaged entry is refused by load, and its chunk redone by a rerun.
    (folder / "manifest-000001.json").write_text("{half")
    with pytest.raises(DatasetError, match="not an object"):
        load(folder, partial=True)
    monkeypatch.setattr(sim, "run_chunk", real)
    _run(folder)
    assert not list(folder.glob("manifest-*.json"))  # folded into manifest.json
    assert [c["index"] for c in _manifest(folder)["chunks"]] == [0, 1, 2]
    assert _rows(folder).equals(_rows(reference))
    # --force deletes a dataset's entries with its other files.
    (folder / "manifest-000007.json").write_text("{}")
    _run(folder, force=True)
    assert not list(folder.glob("manifest-*.json"))
