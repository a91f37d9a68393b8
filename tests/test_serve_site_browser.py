"""The explorer's static edition opened from disk in headless Chromium, at a phone's and
a desktop's width: My hand reads typed and clicked cards as the server does, computes
the hand's cell in the page (features.js over the tables classify.js exports) equal to
Python's ``hand_features`` on thousands of random hands of every committed table, chart,
seat and contract, shows ``GET /api/advice``'s answer for it and the server's one-line
message for a bad hand, and no page is wider than the window."""

from __future__ import annotations

import random
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import pytest
from browser_support import ROOT, fits_and_shot, needs_chromium, wait

from prefstats.errors import CardError, OptionError
from prefstats.game.cards import format_cards
from prefstats.game.deal import deal
from prefstats.serve import inputs
from prefstats.serve.guides import CHARTS, Guides, cell_answer, hand_features

pytestmark = needs_chromium
#: Random hands a table's chart is checked on.
HANDS = 2_000
GUIDES = Guides(ROOT / "reports")
#: A hand typed as the live page takes it, and the cards that make it on the grid.
TYPED = ("♠AKQJ10 ♣AK ♦AK ♥A", "S:AKQJ10 C:AK D:AK H:A", "s:akqjt,c:ak;d:ak h:a",
         "As Ks Qs Js 10s Ac Kc Ad Kd Ah")
GRID = ("♠A", "♠K", "♠Q", "♠J", "♠10", "♣A", "♣K", "♦A", "♦K", "♥A")
#: Bad hands: a card named twice, too few or too many cards, a card that is none.
BAD = ("♠AKQJ10 ♣AK ♦AK ♥A ♠K", "♠AKQ ♣AK", "♠AKQJ10 ♣AKQ ♦AK ♥A", "♠AKQJ10 ♣AK ♦AK ♥AX",
       "AK QJ", "Zs")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    from prefstats.serve.site import write_site

    return write_site(tmp_path_factory.mktemp("site") / "explorer", ROOT / "reports")


def _cases(table: str, chart: str, seed: int) -> list[dict]:
    """``HANDS`` random hands at random seats and contracts, with Python's features and
    answer for each."""
    guide = GUIDES.get(table)
    records, rng = guide.cells(chart), random.Random(seed)
    out = []
    for hand in deal(HANDS // 3 + 1, seed=seed).hands.reshape(-1)[:HANDS].tolist():
        seat, level = rng.choice(guide.seats), rng.randint(6, 10)
        trump = rng.choice([0, 1, 2, 3, None])
        features = hand_features(records, chart, hand, seat=seat, level=level, trump=trump)
        try:
            answer = cell_answer(guide, chart, features)
        except OptionError as exc:  # a class the guide has no cell of: the server's 400
            answer = {"advice": None, "n": None, "error": str(exc)}
        out.append({"hand": hand, "seat": seat, "level": level, "trump": trump,
                    "features": features, "advice": answer["advice"], "n": answer["n"],
                    "error": answer.get("error")})
    return out


@pytest.fixture(scope="module")
def cases() -> dict[tuple[str, str], list[dict]]:
    return {(t, c): _cases(t, c, seed) for seed, (t, c) in enumerate(
        (t, c) for t in GUIDES.tables() for charts in CHARTS.values() for c in charts)}


def test_the_pages_cells_are_pythons_on_random_hands(site, browser, cases):
    browser.get((site / "index.html").as_uri())
    wait(browser, "return document.getElementById('grid').children.length === 32")
    asked = set()
    for (table, chart), batch in cases.items():
        got = browser.execute_script("""
            const [table, chart, batch] = arguments, cells = ANSWERS[table][chart];
            return batch.map((b) => {
              const f = handFeatures(cells.map((c) => c.features), chart, b.hand, b.seat,
                                     b.level, b.trump);
              const a = cells.find((c) => sameFeatures(c.features, f))?.answer;
              return {features: f, advice: a ? a.advice : null, n: a ? a.n : null};
            });""", table, chart, [{k: b[k] for k in ("hand", "seat", "level", "trump")}
                                   for b in batch])
        want = [{k: b[k] for k in ("features", "advice", "n")} for b in batch]
        wrong = [(b, g) for b, g, w in zip(batch, got, want, strict=True) if g != w]
        assert not wrong, (table, chart, len(wrong), wrong[:3])
        asked.update((table, chart, b["seat"], b["level"], b["trump"]) for b in batch)
    for table in GUIDES.tables():  # every seat, and every level and strain, was asked
        for chart in CHARTS["first_call"]:
            assert {a[2] for a in asked if a[:2] == (table, chart)} == set(
                GUIDES.get(table).seats)
        assert {a[3:] for a in asked if a[:2] == (table, "whist")} == {
            (level, trump) for level in range(6, 11) for trump in (0, 1, 2, 3, None)}


def _spellings(mask: int, rng: random.Random) -> list[str]:
    """``mask`` written as a player types it: suit symbols, suit letters, single cards
    rank first, in any case and order."""
    groups = format_cards(mask).split()
    letters = [("SCDH"["♠♣♦♥".index(g[0])] + ":" + g[1:].replace("10", "T")) for g in groups]
    cards = [r + "scdh"[s] for s in range(4) for i, r in enumerate(
        ("7", "8", "9", "10", "J", "Q", "K", "A")) if mask >> (8 * s + i) & 1]
    rng.shuffle(cards)
    return [" ".join(groups), ", ".join(letters).lower(), " ".join(cards)]


def _scrawl(rng: random.Random) -> str:
    """A string of card-like characters, mostly not a hand."""
    return "".join(rng.choice("♠♣♦♥SCDHscdh:-,; 1078AKQJTXx") for _ in range(rng.randint(0, 24)))


def test_the_page_reads_cards_as_the_server(site, browser):
    rng = random.Random(11)
    texts = [t for h in deal(700, seed=99).hands.reshape(-1)[:2_000].tolist()
             for t in _spellings(h, rng)] + [_scrawl(rng) for _ in range(2_000)]
    want = []
    for text in texts:
        try:
            want.append(inputs.cards(text, "hand", 10))
        except CardError as exc:
            want.append(str(exc))
    browser.get((site / "index.html").as_uri())
    got = browser.execute_script("""return arguments[0].map((t) => {
        try { return handMask(t, "hand", 10); } catch (e) { return e.message; } });""", texts)
    wrong = [(t, g, w) for t, g, w in zip(texts, got, want, strict=True) if g != w]
    assert not wrong, (len(wrong), wrong[:5])
    assert sum(isinstance(w, str) for w in want) > 1_000  # the scrawls were mostly refused


def _ask(browser, hand: str | None, **fields) -> None:
    """Set the form's ``fields`` (table, seat, decision, chart, level, trump), then type
    ``hand`` (None: leave the hand)."""
    from selenium.webdriver.common.by import By

    browser.execute_script("""
        for (const [id, value] of Object.entries(arguments[0])) {
          const box = document.getElementById(id);
          box.value = String(value);
          box.dispatchEvent(new Event("change"));
        }""", fields)
    if hand is not None:  # typed after clearing the box as a user does
        browser.execute_script("const box = document.getElementById('hand'); box.value = '';"
                               "box.dispatchEvent(new Event('input'));")
        browser.find_element(By.ID, "hand").send_keys(hand)


def _shown(browser) -> dict:
    return browser.execute_script("""
        const text = (e) => e && e.textContent, id = (i) => document.getElementById(i);
        return {advice: text(id('advice-word')), gain: text(id('gain')), n: text(id('n')),
                cell: text(document.querySelector('#cell p')),
                error: id('error').hidden ? null : text(id('error'))};""")


def _fmt(x: float | None) -> str:
    return "–" if x is None else ("+" if x > 0 else "") + f"{x:.1f}"


def _expected(table: str, chart: str, hand: str, seat: int, level: int, trump: str) -> dict:
    guide = GUIDES.get(table)
    features = hand_features(guide.cells(chart), chart, inputs.cards(hand, "hand", 10),
                             seat=seat, level=level, trump=inputs.strain(trump))
    try:
        a = cell_answer(guide, chart, features)
    except OptionError as exc:  # the guide has no cell of this class: the server's 400
        return {"advice": None, "gain": None, "n": None, "cell": None, "error": str(exc)}
    where = ", ".join(f"{k} {'–' if v == '' else v}" for k, v in features.items())
    return {"advice": a["advice"], "gain": _fmt(a["gain"]), "n": str(a["n"]),
            "cell": f"Cell of chart {chart}: {where}", "error": None}


def test_a_typed_hand_shows_the_guides_answer(site, browser):
    from selenium.webdriver.common.by import By

    browser.get((site / "index.html").as_uri())
    rng = np.random.default_rng(7)
    hands = [format_cards(int(h)) for h in deal(40, seed=3).hands[:, 0]]
    asked = 0
    for table in GUIDES.tables():
        for decision, charts in CHARTS.items():
            for chart in charts:
                hand = hands[asked % len(hands)] if asked % 3 else TYPED[asked % len(TYPED)]
                seat, level = int(rng.integers(3)), int(rng.integers(6, 11))
                trump = str(rng.choice(["♠", "♣", "♦", "♥", "NT"]))
                _ask(browser, hand, table=table, seat=seat, decision=decision, chart=chart,
                     level=level, trump=trump)
                want = _expected(table, chart, hand, seat, level, trump)
                assert browser.find_element(By.ID, "hand").get_attribute("value") == hand
                assert _shown(browser) == want, (table, chart, hand)
                asked += 1
    assert "hand=" in browser.current_url and "table=" in browser.current_url
    _ask(browser, "", table="sochi", decision="first_call", chart="first_call_points", seat=0)
    for card in GRID:  # clicking the cards makes the same hand
        browser.find_element(By.XPATH, f"//div[@id='grid']/button[text()='{card}']").click()
    assert browser.find_element(By.ID, "hand").get_attribute("value") == TYPED[0]
    assert _shown(browser) == _expected("sochi", "first_call_points", TYPED[0], 0, 6, "NT")
    assert browser.execute_script("return document.querySelectorAll('#grid .on').length") == 10
    fits_and_shot(browser, "site")


def _error(browser) -> str:
    return wait(browser, "const e = document.getElementById('error');"
                         "return !e.hidden && e.textContent")


def test_a_bad_hand_shows_the_servers_one_line_message(site, browser, cases):
    browser.get((site / "index.html").as_uri())
    for hand in BAD:
        with pytest.raises(CardError) as refused:  # what GET /api/advice answers
            inputs.cards(hand, "hand", 10)
        _ask(browser, hand)
        message = _error(browser)
        assert message == str(refused.value) and "\n" not in message
        assert browser.find_element("id", "advice").text == message
        assert not browser.execute_script("return document.getElementById('advice-word')")
    fits_and_shot(browser, "site-error")
    (table, chart), case = next((key, b) for key, batch in cases.items() for b in batch
                                if b["error"])  # a hand of a class the guide has no cell of
    decision = next(d for d, charts in CHARTS.items() if chart in charts)
    _ask(browser, format_cards(case["hand"]), table=table, seat=case["seat"], decision=decision,
         chart=chart, level=case["level"],
         trump="NT" if case["trump"] is None else "♠♣♦♥"[case["trump"]])
    assert _error(browser) == case["error"]


def test_a_charts_cell_opens_a_hand_of_that_cell(site, browser):
    browser.get((site / "charts.html").as_uri() + "?table=sochi&chart=first_call_points&option=6")
    wait(browser, "return document.querySelector('#chart .main-svg')")
    fits_and_shot(browser, "site-charts")
    for chart, cell in (("misere", "holes=1&hole=lone+8"),
                        ("whist", "level=7&aces_kings=2&trumps=-1"),
                        ("first_call_expected_tricks", "expected_tricks=6&seat=1")):
        browser.get((site / "index.html").as_uri() + f"?table=leningrad&chart={chart}&{cell}")
        wait(browser, "return document.getElementById('advice-word')")
        hand = browser.find_element("id", "hand").get_attribute("value")
        state = browser.execute_script("return formState(FIELDS)")
        features = hand_features(GUIDES.get("leningrad").cells(chart), chart,
                                 inputs.cards(hand, "hand", 10), seat=int(state["seat"]),
                                 level=int(state.get("level", 6)),
                                 trump=inputs.strain(state.get("trump", "NT")))
        assert {k: str(v) for k, v in features.items()} == dict(parse_qsl(cell))
        assert _shown(browser)["error"] is None
