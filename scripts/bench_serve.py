"""Benchmark of the explorer (``scripts/bench.py serve`` runs this too): a real server
on loopback (uvicorn in a child process), each figure beside the same work done by
calling the Python API directly in this run.

- advice lookups: ``--clients`` concurrent clients (50) each asking ``--requests``
  lookups of varied hands, first alone, then while ``--rollouts`` (4) rollouts run as
  jobs (in the server's worker processes): every request answered (none lost),
  lookups a second and the p50/p95 latency; the direct call's time a lookup beside it;
- one hand's first-call rollout, the README's example hand, until decided (or 20,000
  deals): the job's wall time against ``race`` called directly;
- a deal's double-dummy table (each declarer's best discard of the talon solved):
  ``POST /api/solve`` against ``dd_table`` directly.

Bounded in count and time: every client stops at ``--seconds``.

    .venv/bin/python scripts/bench_serve.py --clients 50 --requests 40 --rollouts 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
from benchtools import machine_load

ROOT = Path(__file__).resolve().parents[1]

HAND = "♠AKQJ10 ♣AK ♦AK ♥A"
#: A close first call: its rollout races on for many rounds.
CLOSE = "♠AK7 ♣K87 ♦Q8 ♥J8"
DEAL = ["♠AKQJ10 ♣AK ♦AK ♥A", "♠987 ♣QJ109 ♦QJ10", "♥KQJ1098 ♣87 ♦98"]


def _start(data: str) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "prefstats", "serve", "--port", str(port),
                               "--reports", str(ROOT / "reports"), "--data", data],
                              stdout=subprocess.DEVNULL, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/api/health", timeout=2)
            while not json.load(urllib.request.urlopen(base + "/api/health"))["warm"]:
                time.sleep(0.2)
            return server, base
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as r:
        return json.load(r)


def _job(base: str, body: dict) -> dict:
    job = _post(base + "/api/rollout", body)["job"]
    while True:
        with urllib.request.urlopen(f"{base}/api/jobs/{job}", timeout=60) as r:
            got = json.load(r)
        if got["state"] not in ("queued", "running"):
            return got
        time.sleep(0.05)


def _hands(n: int) -> list[str]:
    import prefstats as ps

    deals = ps.deal(n, seed=11)
    return [ps.format_cards(int(h)) for h in deals.hands[:, 0]]


async def _get(reader, writer, path: str) -> int:
    """One GET on a kept-alive connection: the status (the body read and dropped). A
    plain HTTP/1.1 exchange: a full client library costs more CPU than the server on 2
    cores and would measure itself."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = next(int(x.split(":")[1]) for x in lines if x.lower().startswith("content-length"))
    await reader.readexactly(length)
    return int(lines[0].split()[1])


async def _lookups(base: str, hands: list[str], clients: int, per_client: int,
                   seconds: float) -> tuple[list[float], int, int]:
    from urllib.parse import urlencode, urlsplit

    where = urlsplit(base)
    times: list[float] = []
    failed = 0
    stop = time.monotonic() + seconds

    async def client(k: int) -> None:
        nonlocal failed
        reader, writer = await asyncio.open_connection(where.hostname, where.port)
        try:
            for i in range(per_client):
                if time.monotonic() > stop:
                    return
                hand = hands[(k * per_client + i) % len(hands)]
                path = "/api/advice?" + urlencode({"hand": hand, "seat": k % 3})
                started = time.perf_counter()
                try:
                    status = await _get(reader, writer, path)
                except (OSError, asyncio.IncompleteReadError):  # lost: counted
                    failed += 1
                    reader, writer = await asyncio.open_connection(where.hostname, where.port)
                    continue
                times.append(time.perf_counter() - started)
                failed += status != 200
        finally:
            writer.close()

    await asyncio.gather(*(client(k) for k in range(clients)))
    return times, failed, clients * per_client


def _phase(base: str, hands: list[str], args) -> dict:
    """The lookups' figures: asked, answered, failed, a second, p50 and p95 (ms)."""
    started = time.perf_counter()
    times, failed, asked = asyncio.run(_lookups(base, hands, args.clients, args.requests,
                                                args.seconds))
    spent = time.perf_counter() - started
    ms = np.array(times) * 1e3
    return {"advice_asked": asked, "advice_answered": len(times), "advice_failed": failed,
            "advice_per_s": len(times) / spent,
            "advice_p50_ms": float(np.percentile(ms, 50)),
            "advice_p95_ms": float(np.percentile(ms, 95))}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=40, help="lookups a client")
    ap.add_argument("--rollouts", type=int, default=4, help="rollouts run meanwhile")
    ap.add_argument("--seconds", type=float, default=120, help="most time the lookups take")
    args = ap.parse_args(argv)

    import prefstats as ps
    from prefstats.analysis.racing import race
    from prefstats.serve.guides import Guides, cell_answer, hand_features
    from prefstats.serve.work import dd_table, table_rules
    from prefstats.sim.rollout import default_options

    hands = _hands(2000)
    guides = Guides(ROOT / "reports")
    guide = guides.get("sochi")
    records = guide.cells("first_call_points")

    def direct(hand: str) -> None:
        f = hand_features(records, "first_call_points", ps.parse_cards(hand), seat=0)
        cell_answer(guide, "first_call_points", f)

    direct(HAND)
    started = time.perf_counter()
    for h in hands[:500]:
        direct(h)
    direct_ms = (time.perf_counter() - started) / 500 * 1e3

    masks = [ps.parse_cards(h) for h in DEAL]
    table = {"talon": ~(masks[0] | masks[1] | masks[2]) & 0xFFFFFFFF,
             **table_rules(ps.get_variant("sochi"))}
    dd_table(masks, **table)
    started = time.perf_counter()
    dd_table(masks, **table)
    dd_direct = time.perf_counter() - started
    rules = ps.get_variant("sochi")
    hand = ps.parse_cards(HAND)
    started = time.perf_counter()
    for _ in race(rules, hand, 0, "first_call", default_options(rules, "first_call"),
                  deals=20_000, seed=1):
        pass
    roll_direct = time.perf_counter() - started

    with tempfile.TemporaryDirectory() as data:
        server, base = _start(data)
        try:
            _post(base + "/api/solve", {"hands": DEAL})  # the solver loaded
            started = time.perf_counter()
            _post(base + "/api/solve", {"hands": DEAL})
            dd_served = time.perf_counter() - started
            started = time.perf_counter()
            job = _job(base, {"hand": HAND, "seed": 1, "deals": 20_000})
            roll_served = time.perf_counter() - started
            alone = _phase(base, hands, args)
            # close calls on the server's budget: they race on through the lookups
            others = [_post(base + "/api/rollout", {"hand": CLOSE, "seat": 1, "seed": seed,
                                                    "deals": 100_000})["job"]
                      for seed in range(2, 2 + args.rollouts)]
            loaded = _phase(base, hands, args)
            states = [json.load(urllib.request.urlopen(f"{base}/api/jobs/{j}"))["state"]
                      for j in others]
        finally:
            server.send_signal(signal.SIGINT)  # Ctrl-C: the rollouts stop after their round
            server.wait(300)
    figures = {
        "advice_clients": args.clients, "advice_direct_ms": direct_ms,
        **{f"{k}_alone": v for k, v in alone.items()},
        **{f"{k}_rollouts": v for k, v in loaded.items()},
        "rollouts_meanwhile": args.rollouts, "rollout_states": states,
        "rollout_served_s": roll_served, "rollout_direct_s": roll_direct,
        "rollout_deals": job["result"]["deals"], "rollout_decided": job["result"]["decided"],
        "dd_table_served_s": dd_served, "dd_table_direct_s": dd_direct,
    }
    print(f"serve: loopback, {machine_load()}")
    for name, got in (("alone", alone), (f"{args.rollouts} rollouts running", loaded)):
        print(f"  advice   {got['advice_per_s']:8.0f} lookups/s, {got['advice_answered']:,} of "
              f"{got['advice_asked']:,} answered ({got['advice_failed']} failed) by "
              f"{args.clients} clients, {name}; p50 {got['advice_p50_ms']:.1f} ms, p95 "
              f"{got['advice_p95_ms']:.1f} ms (direct call {direct_ms:.2f} ms)")
    print(f"  rollout  {roll_served:8.2f} s served, {roll_direct:.2f} s direct "
          f"({figures['rollout_deals']:,} deals, decided {figures['rollout_decided']}; "
          f"{HAND})")
    print(f"  DD table {dd_served * 1e3:8.1f} ms served, {dd_direct * 1e3:.1f} ms direct")
    return figures


if __name__ == "__main__":
    main()
