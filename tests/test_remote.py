"""Datasets on object storage through fsspec, against a real S3 API served on 127.0.0.1
by moto's server: a bucket run gives the chunks of a local run, an interrupted run
resumes against the bucket, ``load`` and ``prefstats report`` read it; a URL whose
filesystem is unknown or not installed is refused before anything is written."""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import uuid

import polars as pl
import pytest
from typer.testing import CliRunner

from prefstats.cli import app
from prefstats.game.variants import get_variant
from prefstats.sim import _workers as sim
from prefstats.sim._lock import LOCK
from prefstats.sim._remote import Remote
from prefstats.sim.simulate import simulate
from prefstats.sim.storage import DatasetError, load, location, manifest_of

SOCHI = get_variant("sochi")
ARGS = {"hands": 3000, "seed": 11, "chunk_size": 1000, "workers": 1, "progress": False}
runner = CliRunner()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3():
    """A local S3 endpoint; the environment points fsspec (s3fs) at it, as a user's
    ``AWS_ENDPOINT_URL`` would, so worker processes and the CLI reach it too."""
    server_module = pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = _free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port,
                                              verbose=False)
    server.start()
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "test",
           "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        import fsspec

        fs = fsspec.filesystem("s3", skip_instance_cache=True)
        fs.mkdir("runs")
        yield fs
    server.stop()


@pytest.fixture
def url(s3) -> str:
    return f"s3://runs/{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    folder = tmp_path_factory.mktemp("local")
    simulate(SOCHI, out=folder, **ARGS)
    return folder


def _sums(where) -> dict[int, str]:
    return {c["index"]: c["sha256"] for c in manifest_of(where)["chunks"]}


def test_a_bucket_run_has_the_chunks_of_a_local_run(local, url, s3):
    manifest = simulate(SOCHI, out=url, **{**ARGS, "workers": 2})  # workers upload them
    assert _sums(url) == _sums(local) and manifest["finished"]
    names = sorted(p.rsplit("/", 1)[-1] for p in s3.ls(url, detail=False, refresh=True))
    assert names == ["chunk-000000.parquet", "chunk-000001.parquet", "chunk-000002.parquet",
                     "manifest.json"]  # the entries folded in, the lock released
    rows = load(url).collect().sort("deal_id")
    assert rows.equals(load(local).collect().sort("deal_id"))
    assert simulate(SOCHI, out=url, **ARGS) == manifest  # finished: nothing to do


def test_an_interrupted_bucket_run_resumes_to_the_same_chunks(local, url, s3, monkeypatch):
    real = sim.run_chunk

    def dies_at_chunk_2(spec, index):
        if index == 2:
            raise RuntimeError("worker lost")
        return real(spec, index)

    monkeypatch.setattr(sim, "run_chunk", dies_at_chunk_2)
    with pytest.raises(RuntimeError, match="worker lost"):
        simulate(SOCHI, out=url, **ARGS)
    # Each finished chunk is listed by its own entry; the manifest is not rewritten.
    assert s3.exists(f"{url}/manifest-000001.json") and not s3.exists(f"{url}/{LOCK}")
    assert json.loads(s3.cat_file(f"{url}/manifest.json"))["chunks"] == []
    with pytest.raises(DatasetError, match="unfinished: 2,000 of 3,000 deals"):
        load(url)
    assert load(url, partial=True).collect().height == 2000
    # A process killed outright leaves its lock: the next run of this host takes it over.
    s3.pipe_file(f"{url}/{LOCK}", json.dumps({"pid": 2**22 + 1, "host": socket.gethostname(),
                                              "process_start": "0"}).encode())
    monkeypatch.setattr(sim, "run_chunk", real)
    simulate(SOCHI, out=url, **ARGS)
    assert _sums(url) == _sums(local)
    assert not [p for p in s3.ls(url, detail=False, refresh=True) if "manifest-" in p]


def test_a_live_lock_in_the_bucket_refuses_a_second_run(url, s3):
    s3.pipe_file(f"{url}/{LOCK}", json.dumps({"pid": os.getpid(), "host": "elsewhere"}
                                             ).encode())
    with pytest.raises(DatasetError, match="in use by another prefstats run"):
        simulate(SOCHI, out=url, **ARGS)


def test_the_cli_reads_and_reports_a_bucket(local, url, tmp_path):
    made = runner.invoke(app, ["simulate", "--hands", "1000", "--seed", "11", "--chunk-size",
                               "1000", "--workers", "1", "--quiet", "--out", url])
    assert made.exit_code == 0, made.output
    assert _sums(url) == {0: _sums(local)[0]}  # a chunk does not depend on the run's size
    out = tmp_path / "report"
    result = runner.invoke(app, ["report", url, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "report.md").is_file()
    assert url.rsplit("/", 1)[-1] in (out / "report.md").read_text()


def test_storage_options_reach_the_filesystem(url, s3):
    simulate(SOCHI, out=url, **{**ARGS, "hands": 1000})
    endpoint = os.environ["AWS_ENDPOINT_URL"]
    lf = load(url, storage_options={"endpoint_url": endpoint, "skip_instance_cache": True})
    assert lf.select(pl.len()).collect().item() == 1000
    with pytest.raises(DatasetError, match=r"s3://runs/.*no manifest.json"):
        load(f"{url}-missing")


def test_an_in_memory_filesystem_holds_a_run():
    url = f"memory://prefstats-{uuid.uuid4().hex[:8]}"
    simulate(SOCHI, out=url, **{**ARGS, "hands": 2000, "workers": 2})  # run in-process
    assert isinstance(location(url), Remote)
    assert load(url).collect()["deal_id"].sort().to_list() == list(range(2000))


@pytest.mark.parametrize("url", ["nosuchfs://bucket/run", "gs://bucket/run"])
def test_an_unknown_or_missing_filesystem_is_refused_and_writes_nothing(url, tmp_path,
                                                                       monkeypatch):
    if url.startswith("gs:"):
        pytest.importorskip("fsspec")
        try:
            import gcsfs  # noqa: F401
            pytest.skip("gcsfs is installed")
        except ImportError:
            pass
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["simulate", "--hands", "10", "--workers", "1", "--quiet",
                                 "--out", url])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and url.split(":")[0] in errors[0], result.output
    assert re.search(r"not installed|unknown storage", errors[0])
    assert list(tmp_path.iterdir()) == []  # no local folder named after the scheme
    with pytest.raises(DatasetError, match=r"unknown storage|not installed"):
        load(url)


def test_file_urls_are_local_folders(local, tmp_path):
    assert location(f"file://{tmp_path}/d") == tmp_path / "d"
    assert load(f"file://{local}").collect().height == 3000
