"""The explorer's Compare: the rule-comparison article of the variants picked, made as a
job with progress at a tiny size, equal to the library's article, kept by its inputs,
served only from the data folder; bad requests refused naming the field."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from prefstats.game.variants import get_variant, load_variant
from prefstats.reports.article import write_article

ROOT = Path(__file__).resolve().parent.parent
#: A tiny comparison: seconds once the kernels are compiled.
SIZE = {"deals": 300, "pulkas": 10, "pool_target": 5, "seed": 3}
HOUSE = b'base = "sochi"\nraspasy_exit = 7\n'


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from prefstats.serve import create_app

    app = create_app(ROOT / "reports", tmp_path_factory.mktemp("serve"), workers=1, job_nice=0,
                     max_deals=1_000, max_pulkas=20)
    with TestClient(app) as c:
        yield c


def _wait(client, job: str, seen: list) -> dict:
    for _ in range(12_000):
        got = client.get(f"/api/jobs/{job}").json()
        seen.append(got["progress"])
        if got["state"] not in ("queued", "running"):
            return got
        time.sleep(0.05)
    raise AssertionError(f"job {job} still {got['state']}")


@pytest.fixture(scope="module")
def compared(client):
    house = client.post("/api/variants", content=HOUSE).json()["variant"]
    asked = {"variants": ["leningrad", house], **SIZE}
    r = client.post("/api/compare", json=asked)
    assert r.status_code == 202, r.text
    seen: list[float] = []
    done = _wait(client, r.json()["job"], seen)
    assert done["state"] == "done", done
    return asked, done, seen


def test_a_comparison_job_moves_and_links_its_article(client, compared):
    _, done, seen = compared
    assert done["progress"] == 1.0 and seen == sorted(seen)
    assert any(0 < p < 1 for p in seen)  # one step a variant, then the article
    result = done["result"]
    assert result["variants"][0] == "Leningrad" and len(result["variants"]) == 2
    page = client.get(result["page"])
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "Leningrad" in page.text
    assert client.get(result["page"].replace("index.html", "article.md")).status_code == 200


def test_the_article_equals_the_librarys(client, compared, tmp_path):
    _, done, _ = compared
    path = tmp_path / "house.toml"
    path.write_bytes(HOUSE)
    variants = [get_variant("leningrad"), load_variant(path)]
    command = (f"prefstats compare --deals {SIZE['deals']} --pulkas {SIZE['pulkas']} "
               f"--pool-target {SIZE['pool_target']} --seed {SIZE['seed']}")
    out = write_article(tmp_path / "article", tmp_path / "data", deals=SIZE["deals"],
                        pulkas=SIZE["pulkas"], pool_target=SIZE["pool_target"],
                        seed=SIZE["seed"], command=command, variants=variants, workers=1,
                        progress=False)
    served = client.get(done["result"]["page"].replace("index.html", "paired.csv")).text
    assert served == (out / "paired.csv").read_text(encoding="utf-8")
    title = (out / "article.md").read_text(encoding="utf-8").splitlines()[0]
    got = client.get(done["result"]["page"].replace("index.html", "article.md")).text
    assert got.splitlines()[0] == title


def test_asking_again_is_answered_from_the_kept_result(client, compared):
    asked, done, _ = compared
    again = client.post("/api/compare", json=asked).json()["job"]
    got = client.get(f"/api/jobs/{again}").json()
    assert got["state"] == "done" and got["result"] == done["result"]


BAD = [
    ({"variants": ["sochi"]}, "variants:"),
    ({"variants": ["sochi", "sochi"]}, "variants:"),
    ({"variants": ["sochi", "moscow"]}, "variant:"),
    ({"variants": ["sochi", "house-0123456789abcdef"]}, "variant:"),
    ({"variants": ["sochi", "house-../../pyproject"]}, "variant:"),
    ({"variants": ["sochi", "leningrad"], "players": 5}, "players:"),
    ({"variants": ["sochi", "leningrad"], "deals": 5_000}, "deals:"),
    ({"variants": ["sochi", "leningrad"], "deals": 10}, "deals:"),
    ({"variants": ["sochi", "leningrad"], "pulkas": 21}, "pulkas:"),
    ({"variants": ["sochi", "leningrad"], "pool_target": 0}, "pool_target:"),
    ({"variants": ["sochi", "leningrad"], "seed": -1}, "seed:"),
    ({"variants": "sochi"}, "variants:"),
    ({}, "variants:"),
]


@pytest.mark.parametrize(("body", "field"), BAD)
def test_a_bad_comparison_is_refused_naming_the_field(client, body, field):
    r = client.post("/api/compare", json={**SIZE, **body} if body else {})
    assert 400 <= r.status_code < 500
    assert r.json()["error"].startswith(field), r.json()


@pytest.mark.parametrize("path", [
    "/compare/../../pyproject.toml", "/compare/%2e%2e/%2e%2e/pyproject.toml",
    "/compare/0123456789abcdef0123456789abcdef/..%2F..%2Fjobs", "/compare/x/index.html",
    "/compare/0123456789abcdef0123456789abcdef/%2Fetc%2Fpasswd",
    "/compare/0123456789abcdef0123456789abcdef/index.html"])
def test_no_article_path_reaches_outside_the_data_folder(client, path):
    r = client.get(path)
    assert 400 <= r.status_code < 500 and "error" in r.json()


def test_the_compare_page_lists_the_presets(client):
    page = client.get("/compare").text
    assert 'value="sochi"' in page and "/static/compare.js" in page


def test_a_comparison_cancels(client):
    job = client.post("/api/compare", json={"variants": ["sochi", "rostov"], **SIZE}).json()["job"]
    assert client.delete(f"/api/jobs/{job}").json()["state"] == "cancelled"
    time.sleep(0.5)
    got = client.get(f"/api/jobs/{job}").json()
    assert got["state"] == "cancelled" and got["result"] is None
