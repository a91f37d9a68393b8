"""The explorer's pages in headless Chromium at a phone's and a desktop's width: a typed
hand's advice is the guide's cell, a rollout's progress moves to the job's result, a
deal's table is the solver's, the charts draw, and no page is wider than the window.
With ``PREFSTATS_SHOTS=DIR`` each page's screenshot is saved there (the how-to's); the
static edition's pages are tests/test_serve_site_browser.py's."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request

import pytest
from browser_support import ROOT, fits_and_shot, needs_chromium, wait

from prefstats.serve import create_app

pytestmark = needs_chromium
HAND = "♠AKQJ10 ♣AK ♦AK ♥A"
CLOSE = "♠AJ9 ♣KQ8 ♦A ♥J98"
DEAL = ["♠AKQJ10 ♣AK ♦AK ♥A", "♠987 ♣QJ109 ♦QJ10", "♥KQJ1098 ♣87 ♦98"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(ROOT / "reports", tmp_path_factory.mktemp("serve"), workers=1, job_nice=0)
    run = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=run.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/api/health", timeout=2)
            break
        except OSError:
            time.sleep(0.1)
    yield base
    run.should_exit = True
    thread.join(30)


def test_a_typed_hand_shows_the_guides_cell(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    box = browser.find_element(By.ID, "hand")
    box.send_keys(HAND)
    advice = wait(browser, "const a = document.getElementById('advice-word');"
                            "return a && a.textContent")
    guide = json.loads((ROOT / "reports/sochi/guide.json").read_text(encoding="utf-8"))
    rule = next(r for r in guide["records"] if r["kind"] == "rule"
                and r["chart"] == "first_call_points"
                and r["features"] == {"points": 11, "seat": 0})
    assert advice == rule["advice"]
    assert browser.find_element(By.ID, "n").text == str(rule["n"])
    assert "hand=" in browser.current_url  # the URL holds the state
    on = browser.execute_script("return document.querySelectorAll('#grid .on').length")
    assert on == 10
    fits_and_shot(browser, "hand")


def test_a_broken_hand_shows_its_error(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(server + "/?hand=XYZ")
    message = wait(browser, "const e = document.getElementById('error');"
                             "return !e.hidden && e.textContent")
    assert message.startswith("hand:")
    assert browser.find_element(By.ID, "advice").text.startswith("hand:")


def test_a_rollout_moves_to_the_jobs_result(server, browser):
    from selenium.webdriver.common.by import By

    seed = browser.execute_script("return window.innerWidth")  # not kept from another width
    browser.get(server + f"/?hand={CLOSE}&seat=0&seed={seed}")
    wait(browser, "return document.getElementById('advice-word')")
    deals = browser.find_element(By.ID, "deals")
    deals.clear()
    deals.send_keys("4000")
    browser.find_element(By.ID, "roll").click()
    seen = set()
    end = time.monotonic() + 600
    while time.monotonic() < end:
        value, state = browser.execute_script(
            "return [document.getElementById('progress').value,"
            " document.getElementById('rollstate').textContent]")
        seen.add(round(value, 3))
        if state.startswith("done"):
            break
        time.sleep(0.05)
    assert state.startswith("done") and len(seen) >= 3, seen  # it moved on its way
    body = json.dumps({"hand": CLOSE, "seat": 0, "seed": seed, "deals": 4000, "variant": "sochi",
                       "players": 3, "decision": "first_call"}).encode()
    request = urllib.request.Request(server + "/api/rollout", body,
                                     {"Content-Type": "application/json"})
    job = json.load(urllib.request.urlopen(request))["job"]
    result = json.load(urllib.request.urlopen(f"{server}/api/jobs/{job}"))["result"]
    assert browser.find_element(By.ID, "rollout-best").text == result["best"]
    fits_and_shot(browser, "rollout")


def test_a_deals_table_is_the_solvers(server, browser):
    from urllib.parse import urlencode

    from selenium.webdriver.common.by import By

    browser.get(server + "/deal?" + urlencode({f"h{i}": h for i, h in enumerate(DEAL)}))
    wait(browser, "return document.getElementById('dd')")
    table = json.load(urllib.request.urlopen(urllib.request.Request(
        server + "/api/solve", json.dumps({"hands": DEAL}).encode(),
        {"Content-Type": "application/json"})))  # the solver's, checked in the API tests
    cells = browser.find_elements(By.CSS_SELECTOR, "#dd td[data-strain]")
    assert len(cells) == 18
    for cell in cells:
        declarer, strain = cell.get_attribute("data-declarer"), cell.get_attribute(
            "data-strain")
        want = table["misere" if strain == "misere" else "tricks"][declarer]
        assert int(cell.text) == (want if strain == "misere" else want[strain])
        assert cell.get_attribute("title") == f"discard {table['discards'][declarer][strain]}"
    browser.find_element(By.ID, "start").click()
    wait(browser, "return document.querySelector('#cards .best')")
    browser.find_element(By.ID, "best").click()
    wait(browser, "return location.search.includes('played=')")
    fits_and_shot(browser, "deal")


def test_a_broken_record_shows_its_error(server, browser, tmp_path):
    from selenium.webdriver.common.by import By

    broken = tmp_path / "broken.json"
    broken.write_text('{"variant": "sochi", "hands": ["♠AKQ"]}', encoding="utf-8")
    browser.get(server + "/game")
    browser.find_element(By.ID, "file").send_keys(str(broken))
    browser.find_element(By.ID, "go").click()
    message = wait(browser, "const e = document.getElementById('error');"
                             "return !e.hidden && e.textContent")
    assert message.startswith("file:")
    assert browser.find_element(By.ID, "result").text == message
    fits_and_shot(browser, "game")


def test_the_charts_draw_a_guide(server, browser):
    browser.get(server + "/charts?table=sochi&chart=first_call_points&option=6")
    wait(browser, "return document.querySelector('#chart .main-svg')")
    assert "Sochi" in browser.execute_script(
        "return document.querySelector('#chart .gtitle').textContent")
    fits_and_shot(browser, "charts")


def test_a_comparison_runs_and_shows_its_article(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(server + "/compare")
    for field, value in (("deals", "300"), ("pulkas", "10")):
        box = browser.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    browser.find_element(By.ID, "go").click()
    href = wait(browser, "const a = document.getElementById('page'); return a && a.href")
    assert "/compare/" in href and href.endswith("/index.html")
    assert browser.find_element(By.ID, "progress").get_attribute("value") == "1"
    fits_and_shot(browser, "compare")
