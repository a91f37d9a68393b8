"""The explorer's jobs: a rollout runs on the pool with progress, equals ``prefstats
rollout`` with the same seed, is kept by its inputs, cancels, and lookups answer while
it runs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from short_games import short_game
from typer.testing import CliRunner

from prefstats.analysis.game import dump_game_text
from prefstats.cli import app as cli
from prefstats.errors import CardError
from prefstats.serve import create_app
from prefstats.serve.jobs import Jobs

ROOT = Path(__file__).resolve().parent.parent
HAND = "♠AKQJ10 ♣AK ♦AK ♥A"
#: A close first call: the rollout races on for many rounds.
CLOSE = "♠AK7 ♣K87 ♦Q8 ♥J8"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(ROOT / "reports", tmp_path_factory.mktemp("serve"), workers=1, job_nice=0)
    with TestClient(app) as c:
        yield c


def _wait(client, job: str, until=("done", "failed", "cancelled"), seen=None) -> dict:
    for _ in range(6000):
        got = client.get(f"/api/jobs/{job}").json()
        if seen is not None:
            seen.append(got)
        if got["state"] in until:
            return got
        time.sleep(0.05)
    raise AssertionError(f"job {job} still {got['state']}")


def test_a_rollout_job_equals_the_rollout_command(client):
    asked = {"hand": HAND, "seat": 0, "seed": 5, "deals": 1000}
    r = client.post("/api/rollout", json=asked)
    assert r.status_code == 202
    seen: list[dict] = []
    done = _wait(client, r.json()["job"], seen=seen)
    assert done["state"] == "done" and done["progress"] == 1.0
    assert all(0 <= s["progress"] <= 1 for s in seen)
    out = CliRunner().invoke(cli, ["rollout", HAND, "--seed", "5", "--deals", "1000",
                                   "--workers", "1", "--format", "json"])
    assert out.exit_code == 0, out.output
    command = json.loads(out.stdout)
    result = done["result"]
    assert result["best"] == command["best"] == "bid"
    assert result["deals"] == command["deals"] and result["decided"] == command["decided"]
    assert result["rows"] == command["rows"]


def test_asking_again_is_answered_from_the_kept_result(client):
    asked = {"hand": HAND, "seat": 0, "seed": 5, "deals": 1000}
    first = _wait(client, client.post("/api/rollout", json=asked).json()["job"])
    again = client.get(f"/api/jobs/{client.post('/api/rollout', json=asked).json()['job']}")
    assert again.json()["state"] == "done" and again.json()["result"] == first["result"]


def test_a_running_rollout_moves_cancels_and_lookups_answer_meanwhile(client):
    r = client.post("/api/rollout", json={"hand": CLOSE, "seat": 1, "seed": 9,
                                          "deals": 100_000})
    job = r.json()["job"]
    running = _wait(client, job, until=("running", "done"))
    assert running["state"] == "running"
    advice = client.get("/api/advice", params={"hand": HAND})
    assert advice.status_code == 200 and advice.json()["advice"] == "8"
    for _ in range(6000):
        got = client.get(f"/api/jobs/{job}").json()
        if got["progress"] > 0 or got["state"] != "running":
            break
        time.sleep(0.05)
    assert got["progress"] > 0
    assert client.delete(f"/api/jobs/{job}").json()["state"] in ("cancelled", "done")
    assert client.get(f"/api/jobs/{job}").json()["state"] in ("cancelled", "done")


def _until(check) -> None:
    for _ in range(6000):
        if check():
            return
        time.sleep(0.01)
    raise AssertionError("never")


def _slow(gate: Path):
    """Work that waits for ``gate`` to exist (the test's go-ahead, across processes)."""
    while not gate.exists():
        time.sleep(0.01)
    yield 0.5, None
    return {"ok": True}


def _broken():
    raise CardError("hand: broken")
    yield  # makes it a generator


def _endless(steps: Path):
    """Work that never ends, counting its steps in ``steps``."""
    n = 0
    while True:
        n += 1
        steps.write_text(str(n))
        yield 0.5, n
        time.sleep(0.01)


def test_a_queued_job_shows_its_place_and_a_failing_job_its_error(tmp_path):
    jobs = Jobs(1, tmp_path, nice=0)
    jobs.start()
    gate = tmp_path / "go"
    first = jobs.submit("test", "a", (_slow, {"gate": gate}))
    _until(lambda: first.state == "running")
    second = jobs.submit("test", "b", (_broken, {}))
    assert second.state == "queued" and jobs.place(second) == 1
    gate.touch()
    _until(lambda: second.state == "failed")
    assert second.error == "hand: broken" and first.result == {"ok": True}
    assert json.loads((tmp_path / "a.json").read_text()) == {"ok": True}
    assert not (tmp_path / "b.json").exists()
    jobs.shutdown()


def test_jobs_run_in_worker_processes_that_stop_with_the_server(tmp_path):
    jobs = Jobs(2, tmp_path, nice=3)
    jobs.start()
    _until(lambda: jobs.ready() == 2)
    pids = {w.process.pid for w in jobs._running}
    assert len(pids) == 2 and os.getpid() not in pids
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in pids} == {min(mine + 3, 19)}
    running = jobs.submit("test", "c", (_endless, {"steps": tmp_path / "steps"}))
    _until(lambda: running.progress == 0.5)
    jobs.cancel(running.id)
    assert running.state == "cancelled"
    stopped = int((tmp_path / "steps").read_text())
    time.sleep(0.3)
    assert int((tmp_path / "steps").read_text()) <= stopped + 1  # its worker stopped it
    other = jobs.submit("test", "d", (_endless, {"steps": tmp_path / "more"}))
    _until(lambda: other.progress == 0.5)
    jobs.shutdown()  # as on Ctrl-C: the running job cancelled, the workers gone
    assert not any(_alive(pid) for pid in pids)
    stopped = (tmp_path / "more").read_text()
    time.sleep(0.3)
    assert (tmp_path / "more").read_text() == stopped


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (and is not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_an_uploaded_deal_record_is_analysed_as_a_job(client):
    body = (ROOT / "examples" / "deal.json").read_bytes()
    r = client.post("/api/analyze", params={"deals": 20}, content=body)
    assert r.status_code == 202
    done = _wait(client, r.json()["job"])
    assert done["state"] == "done", done
    assert done["result"]["kind"] == "deal"
    assert done["result"]["deal"]["contract"] == "6♠"
    decisions = done["result"]["decisions"]
    assert decisions and all({"field", "seat", "loss", "method"} <= set(d) for d in decisions)


def test_an_uploaded_game_record_gets_its_page(client):
    body = dump_game_text(short_game([9, 3])).encode("utf-8")  # its 30 deals: 20 s
    r = client.post("/api/analyze", params={"deals": 4}, content=body)
    assert r.status_code == 202, r.text
    done = _wait(client, r.json()["job"])
    assert done["state"] == "done", done
    page = client.get(done["result"]["page"])
    assert page.status_code == 200 and "<html" in page.text.lower()


@pytest.mark.parametrize(("body", "params"), [
    (b'{"variant": "sochi", "hands": ["\\u2660AKQ"]}', {}),  # a corrupt deal record
    (b'{"some": "other tool"}', {}),  # a foreign record
    (b"", {}),
    (b"\xff\xfe\x00", {}),
    (b'{"variant": "sochi"}', {"deals": 10_000_000}),
])
def test_a_broken_record_is_a_4xx_naming_the_file(client, body, params):
    r = client.post("/api/analyze", params=params, content=body)
    assert 400 <= r.status_code < 500 and r.json()["error"].split(":")[0] in ("file", "deals")
    assert client.get("/api/health").status_code == 200


@pytest.mark.parametrize("path", ["/games/../../pyproject.toml", "/games/abc/index.html",
                                  "/games/" + "0" * 32 + "/..%2F..%2Fpyproject.toml",
                                  "/games/" + "0" * 32 + "/%2Fetc%2Fpasswd"])
def test_no_game_file_outside_the_data_folder(client, path):
    r = client.get(path)
    assert 400 <= r.status_code < 500 and "error" in r.json()
