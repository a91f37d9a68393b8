"""The explorer's JSON API through FastAPI's test client: every endpoint answers from the
committed guides and the solver, and every bad input is a 4xx ``{"error"}`` naming its
field, the server answering on after it."""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import prefstats as ps
from prefstats.serve import create_app

ROOT = Path(__file__).resolve().parent.parent
HAND = "♠AKQJ10 ♣AK ♦AK ♥A"
DEAL = ["♠AKQJ10 ♣AK ♦AK ♥A", "♠987 ♣QJ109 ♦QJ10", "♥KQJ1098 ♣87 ♦98"]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(ROOT / "reports", tmp_path_factory.mktemp("serve"), workers=1, job_nice=0)
    with TestClient(app) as c:
        yield c


def _guide(table: str) -> dict:
    return json.loads((ROOT / "reports" / table / "guide.json").read_text(encoding="utf-8"))


def test_health_names_the_version(client):
    assert client.get("/api/health").json()["version"] == ps.__version__


def test_the_advice_is_the_guides_cell(client):
    got = client.get("/api/advice", params={"hand": HAND, "seat": 0}).json()
    # 5 spades + A K Q of them + 3 aces outside: 11 points, the chart's top class
    assert got["cell"]["features"] == {"points": 11, "seat": 0}
    cells = [r for r in _guide("sochi")["records"] if r["chart"] == "first_call_points"
             and r["features"] == {"points": 11, "seat": 0}]
    rule = next(r for r in cells if r["kind"] == "rule")
    assert got["advice"] == rule["advice"] == "8"
    assert (got["gain"], got["ci_low"], got["ci_high"], got["n"]) == (
        rule["gain"], rule["ci_low"], rule["ci_high"], rule["n"])
    assert got["robust"] is rule["robust"] and got["breaks"] == rule["breaks"]
    assert {o["option"] for o in got["cell"]["options"]} == {"6", "7", "8", "misere"}


def test_a_pass_cell_states_passings_gain_over_the_best_option(client):
    weak = "♠789 ♣789 ♦789 ♥7"
    got = client.get("/api/advice", params={"hand": weak, "seat": 1}).json()
    assert got["advice"] == "pass" and got["gain"] > 0 and got["ci_low"] <= got["ci_high"]


@pytest.mark.parametrize("table", ["sochi", "leningrad", "rostov", "classic", "gusarik",
                                   "sochi-4p", "leningrad-4p", "rostov-4p", "classic-4p"])
def test_every_committed_table_answers_every_decision(client, table):
    variant, _, four = table.partition("-")
    players = 4 if four else 3
    for decision, extra in [("first_call", {}), ("whist", {"level": 7, "trump": "♠"}),
                            ("misere", {}), ("raspasy", {})]:
        r = client.get("/api/advice", params={"hand": HAND, "variant": variant,
                                              "players": players, "decision": decision,
                                              **extra})
        assert r.status_code == 200, r.json()
        assert r.json()["table"] == table and r.json()["cell"]["options"]


def test_a_whist_cell_is_found_by_level_honours_and_trumps(client):
    got = client.get("/api/advice", params={"hand": "♠A87 ♣K8 ♦987 ♥87", "decision": "whist",
                                            "level": 10, "trump": "S"}).json()
    assert got["cell"]["features"] == {"level": 9, "aces_kings": 2, "trumps": 3}
    nt = client.get("/api/advice", params={"hand": "♠A87 ♣K8 ♦987 ♥87", "decision": "whist",
                                           "level": 6, "trump": "NT"}).json()
    assert nt["cell"]["features"]["trumps"] == -1


def _best(hands, talon, declarer, trump, misere, leader):
    """The declarer's tricks after his best discard, every one of the 66 solved."""
    held = hands[declarer] | talon
    got = []
    for a, b in itertools.combinations([c for c in range(32) if held >> c & 1], 2):
        dealt = list(hands)
        dealt[declarer] = held & ~(1 << a | 1 << b)
        got.append(ps.solve(dealt, trump=trump, leader=leader, declarer=declarer,
                            misere=misere))
    return min(got) if misere else max(got)


@pytest.mark.parametrize(("variant", "players", "leader", "declarers"), [
    ("sochi", 3, 0, [0, 1, 2]),
    ("gusarik", None, 2, [0, 1]),  # the dummy (seat 2) leads and never declares
])
def test_the_double_dummy_table_takes_the_talon_and_the_best_discard(
        client, variant, players, leader, declarers):
    dealt = ps.deal(1, seed=7)
    hands, talon = [int(h) for h in dealt.hands[0]], int(dealt.talon[0])
    got = client.post("/api/solve", json={"variant": variant, "players": players,
                                          "hands": hands, "talon": talon}).json()
    assert got["leader"] == leader and sorted(got["tricks"]) == [str(s) for s in declarers]
    for declarer in declarers:
        seat = str(declarer)
        for i, strain in enumerate(["♠", "♣", "♦", "♥", "NT"]):
            trump = None if strain == "NT" else i
            assert got["tricks"][seat][strain] == _best(hands, talon, declarer, trump, False,
                                                        leader)
            kept = list(hands)
            kept[declarer] = (hands[declarer] | talon) & ~ps.parse_cards(
                got["discards"][seat][strain])
            assert ps.solve(kept, trump=trump, leader=leader,
                            declarer=declarer) == got["tricks"][seat][strain]
        assert got["misere"][seat] == _best(hands, talon, declarer, None, True, leader)


def test_the_play_starts_from_the_tables_discard(client):
    table = client.post("/api/solve", json={"hands": DEAL}).json()
    got = client.post("/api/play", json={"hands": DEAL, "declarer": 0, "contract": "♠",
                                         "played": ["A♠", "7♠", "7♣"]}).json()
    assert got["discard"] == table["discards"]["0"]["♠"]
    assert got["to_move"] == 0 and got["trick"] == [] and got["declarer_tricks"] == 1
    assert got["values"] and max(got["values"].values()) == table["tricks"]["0"]["♠"]


def test_a_house_variant_uploads_and_is_used(client):
    r = client.post("/api/variants", content=b'base = "sochi"\nplayers = 3\n')
    name = r.json()["variant"]
    assert name.startswith("house-")
    assert client.post("/api/solve", json={"variant": name, "hands": DEAL}).status_code == 200


def test_uploads_older_than_their_days_or_over_the_folders_bytes_go(tmp_path):
    from prefstats.serve.inputs import prune

    for age, name in ((9, "stale"), (3, "older"), (1, "newer"), (0, "kept")):
        path = tmp_path / f"{name}.json"
        path.write_bytes(b"x" * 100)
        os.utime(path, (time.time() - age * 86_400,) * 2)
    (tmp_path / "busy.toml.part").write_bytes(b"x" * 100)  # being written
    prune(tmp_path, tmp_path / "kept.json", days=7, most=10_000)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "busy.toml.part", "kept.json", "newer.json", "older.json"]
    prune(tmp_path, tmp_path / "kept.json", days=7, most=200)  # room for one more
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "busy.toml.part", "kept.json", "newer.json"]


def test_an_upload_prunes_the_stale_uploads(client):
    folder = client.app.state.variants
    folder.mkdir(parents=True, exist_ok=True)
    stale = folder / "house-0000000000000000.toml"
    stale.write_text('base = "sochi"\n', encoding="utf-8")
    os.utime(stale, (time.time() - 30 * 86_400,) * 2)
    r = client.post("/api/variants", content=b'base = "leningrad"\nplayers = 3\n')
    assert r.status_code == 200 and (folder / f"{r.json()['variant']}.toml").is_file()
    assert not stale.exists()


BAD = [
    ("get", "/api/advice", {"params": {"hand": "XYZ"}}, 400, "hand:"),
    ("get", "/api/advice", {"params": {"hand": "♠AKQJ10 ♣AK ♦AK"}}, 400, "hand:"),
    ("get", "/api/advice", {"params": {"hand": "♠AKQJ10 ♣AK ♦AK ♥A", "variant": "moscow"}},
     400, "variant:"),
    ("get", "/api/advice", {"params": {"hand": HAND, "players": 5}}, 400, "players:"),
    ("get", "/api/advice", {"params": {"hand": HAND, "decision": "double"}}, 400, "decision:"),
    ("get", "/api/advice", {"params": {"hand": HAND, "seat": 7}}, 400, "seat:"),
    ("get", "/api/advice", {"params": {"hand": HAND, "decision": "whist", "trump": "Z"}},
     400, "trump:"),
    ("get", "/api/advice", {"params": {"hand": HAND, "seat": "x"}}, 422, "seat:"),
    ("get", "/api/advice", {}, 422, "hand:"),
    ("post", "/api/solve", {"json": {"hands": DEAL[:2]}}, 400, "hands:"),
    ("post", "/api/solve", {"json": {"hands": [DEAL[0], DEAL[0], DEAL[2]]}}, 400, "hands[1]:"),
    ("post", "/api/solve", {"json": {"hands": [DEAL[0], "♠987", DEAL[2]]}}, 400, "hands[1]:"),
    ("post", "/api/solve", {"json": {"hands": DEAL, "talon": "♠A ♥7"}}, 400, "talon:"),
    ("post", "/api/solve", {"json": {"hands": DEAL, "variant": "moscow"}}, 400, "variant:"),
    ("post", "/api/solve", {"content": b"{not json"}, 422, ""),
    ("post", "/api/play", {"json": {"hands": DEAL, "played": ["7♥"]}}, 400, "played[0]:"),
    ("post", "/api/play", {"json": {"hands": DEAL, "variant": "gusarik", "players": None,
                                    "declarer": 2}}, 400, "declarer:"),
    ("post", "/api/variants", {"content": b'base = "sochi"\nbogus_rule = 1\n'}, 400, "file:"),
    ("post", "/api/variants", {"content": b"\xff\xfe"}, 400, "file:"),
    ("post", "/api/variants", {"content": b"x" * (1 << 20 + 1)}, 413, "file:"),
    ("post", "/api/rollout", {"json": {"hand": HAND, "deals": 10_000_000}}, 400, "deals:"),
    ("post", "/api/rollout", {"json": {"hand": HAND, "options": ["nope"]}}, 400, "options:"),
    ("post", "/api/rollout", {"json": {"hand": "♠AK"}}, 400, "hand:"),
    ("get", "/api/jobs/nope", {}, 400, "job:"),
    ("delete", "/api/jobs/nope", {}, 400, "job:"),
    ("get", "/no/such/page", {}, 404, "url:"),
    # no request names a path outside the server's folders
    ("get", "/api/guides/..%2F..%2Fpyproject.toml", {}, 404, "url:"),
    ("get", "/api/guides/%2E%2E", {}, 400, "variant:"),
    ("get", "/api/guides/%2Fetc%2Fpasswd", {}, 404, "url:"),
    ("get", "/static/../pyproject.toml", {}, 404, "url:"),
    ("get", "/static/%2e%2e/%2e%2e/pyproject.toml", {}, 404, "url:"),
    ("post", "/api/solve", {"json": {"hands": DEAL, "variant": "house-../../pyproject"}},
     400, "variant:"),
    ("post", "/api/solve", {"json": {"hands": DEAL, "variant": "/etc/passwd"}}, 400, "variant:"),
]


@pytest.mark.parametrize(("method", "url", "kwargs", "status", "field"), BAD,
                         ids=[f"{m} {u} {i}" for i, (m, u, *_) in enumerate(BAD)])
def test_bad_input_is_a_4xx_naming_the_field_and_the_server_answers_on(
        client, method, url, kwargs, status, field):
    r = getattr(client, method)(url, **kwargs) if method != "post" else client.post(url, **kwargs)
    assert r.status_code == status, r.text
    message = r.json()["error"]
    assert message.startswith(field) and "\n" not in message
    assert client.get("/api/health").status_code == 200


@pytest.mark.parametrize(("table", "chart", "features"), [
    ("sochi", "first_call_points", {"points": 9, "seat": 1}),
    ("sochi", "whist", {"level": 7, "aces_kings": 2, "trumps": -1}),
    ("sochi-4p", "misere", {"holes": 1, "hole": "lone K"}),
])
def test_a_charts_cell_opens_my_hand_with_a_hand_of_its_class(client, table, chart, features):
    found = client.get("/api/sample", params={"table": table, "chart": chart, **features})
    advice = client.get("/api/advice", params=found.json()).json()
    assert advice["cell"]["chart"] == chart and advice["cell"]["features"] == features
    page = client.get("/sample", params={"table": table, "chart": chart, **features},
                      follow_redirects=False)
    assert page.status_code == 307 and page.headers["location"].startswith("/?hand=")
