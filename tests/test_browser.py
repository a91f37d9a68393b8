"""Every generated page under reports/ in a real browser (headless Chromium) at a
phone's and a desktop's width: no page wider than the window, every image loaded,
every local link resolving, no console error; and a planted overflow and a broken
image are caught."""

from __future__ import annotations

from browser_support import ROOT, needs_chromium, shots

pytestmark = needs_chromium


def test_every_report_page_reads_in_a_browser(browser):
    found = shots.pages(ROOT / "reports")
    assert found, "no generated page under reports/"
    problems = [p for page in found for p in shots.check_page(browser, page)]
    assert problems == []


def test_a_planted_overflow_and_broken_image_are_caught(browser, tmp_path):
    (tmp_path / "good.png").write_bytes(
        bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"))
    page = tmp_path / "page.html"
    head = ("<!doctype html><html><head><meta name='viewport' "
            "content='width=device-width, initial-scale=1'></head><body>")
    page.write_text(head + "<img src='good.png' alt='fine'><a href='good.png'>ok</a>"
                    "</body></html>")
    assert shots.check_page(browser, page) == []
    page.write_text(head + "<div style='width:2000px'>wide</div><img src='missing.png' "
                    "alt='broken'><a href='nowhere.html'>gone</a></body></html>")
    problems = shots.check_page(browser, page)
    assert any("px wide" in p for p in problems)
    assert any("missing.png did not load" in p for p in problems)
    assert any("nowhere.html to a missing file" in p for p in problems)


def test_the_training_page_asks_then_answers(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from prefstats.analysis.game import analyze_game, load_game
    from prefstats.analysis.game_record import GameRecord
    from prefstats.analysis.train import train_document
    from prefstats.reports.train_page import write_train_page

    game = load_game(ROOT / "examples" / "pulka.json")
    game = GameRecord({"variant": "sochi", "names": game.names()},
                      [{k: v for k, v in game.deals[0].items()
                        if k not in ("pool", "mountain", "whists")}])
    doc = train_document(game, analyze_game(game, deals=2), source="one.json")
    page = write_train_page(doc, tmp_path / "train.html")
    assert shots.check_page(browser, page) == []
    first = browser.find_elements(By.CSS_SELECTOR, "section.position")[0]
    assert first.find_element(By.CSS_SELECTOR, "details.answer").get_attribute("open") is None
    first.find_elements(By.CSS_SELECTOR, "button.option")[0].click()
    assert first.find_element(By.CSS_SELECTOR, "details.answer").get_attribute("open")
    assert first.find_element(By.CSS_SELECTOR, ".verdict").text
    player = doc["positions"][0]["player"]
    Select(browser.find_element(By.ID, "player")).select_by_value(str(player))
    shown = [s for s in browser.find_elements(By.CSS_SELECTOR, "section.position")
             if s.is_displayed()]
    assert len(shown) == sum(p["player"] == player for p in doc["positions"])
    assert "1 answered" in browser.find_element(By.ID, "score").text
