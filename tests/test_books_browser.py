"""The books page (reports/books/index.html) in headless Chromium at a phone's and a
desktop's width: the page no wider than the window, and nothing on it reaching past the
window's right edge except inside a table's own horizontal scroll box."""

from __future__ import annotations

from browser_support import ROOT, needs_chromium, shots

pytestmark = needs_chromium

PAGE = ROOT / "reports" / "books" / "index.html"

#: Elements whose right edge passes the window's, outside any box that scrolls sideways.
_OUTSIDE = """
const inner = window.innerWidth;
const scrolls = el => { for (let p = el.parentElement; p; p = p.parentElement) {
  const x = getComputedStyle(p).overflowX;
  if ((x === 'auto' || x === 'scroll') && p.clientWidth <= inner) return true; }
  return false; };
return Array.from(document.body.querySelectorAll('*'))
  .filter(el => el.getBoundingClientRect().right > inner + 0.5 && !scrolls(el))
  .map(el => el.tagName + ' ' + Math.round(el.getBoundingClientRect().right));"""


def test_the_books_page_fits_the_window(browser):
    assert shots.check_page(browser, PAGE) == []
    assert browser.execute_script(_OUTSIDE) == []
    tables = browser.execute_script("return document.querySelectorAll('table').length")
    assert tables >= 5  # the page was read: its tables are there


def test_a_table_too_wide_for_the_window_is_caught(browser, tmp_path):
    """The check itself: a wide table in a scroll box passes, a bare one fails."""
    head = ("<!doctype html><html><head><meta name='viewport' "
            "content='width=device-width, initial-scale=1'></head><body>")
    row = "<table><tr>" + "<td>cell</td>" * 400 + "</tr></table>"
    page = tmp_path / "page.html"
    page.write_text(head + f"<div style='overflow-x:auto'>{row}</div></body></html>")
    browser.get(page.as_uri())
    assert browser.execute_script(_OUTSIDE) == []
    page.write_text(head + row + "</body></html>")
    browser.get(page.as_uri())
    assert browser.execute_script(_OUTSIDE) != []
