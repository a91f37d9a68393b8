"""Look at every generated report page in headless Chromium (Debian's ``chromium`` and
``chromium-driver``), as the browser test does, and save a screenshot of each at a
phone's and a desktop's width for the docs:

    python scripts/screenshots.py reports --out /tmp/shots

The docs show the top of the article and of a report page, 1280 px wide, saved as
256-colour PNGs (``make screenshots`` remakes them with ``--out docs/screenshots --page
compare/index.html#how-much-do-the-cards-decide-and-how-much-skill --page
sochi/index.html --width 1280 --height 1400``).

It also prints what :func:`check_page` finds wrong with each page (a page wider than
the window, an image that did not load, a local link to a missing file, a console
error); the exit status is 1 when anything is.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

from prefstats.reports.charts import palette_png

#: Window widths a page is looked at (CSS px): a phone's and a desktop's.
WIDTHS = (390, 1280)


def chromium() -> str | None:
    """Why Chromium cannot be driven here, or ``None`` when it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    for tool in ("chromium", "chromedriver"):
        if shutil.which(tool) is None:
            return (f"{tool} is not installed (Debian: apt-get install chromium "
                    "chromium-driver; scripts/ensure_chromium.sh does it)")
    return None


def driver(width: int = WIDTHS[0]):
    """A headless Chromium whose window is ``width`` CSS px wide, keeping the
    console's log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--allow-file-access-from-files", f"--window-size={width},900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    browser.set_window_size(width, 900)
    return browser


def pages(root: str | Path) -> list[Path]:
    """Every HTML page under ``root``."""
    return sorted(Path(root).rglob("*.html"))


_STATE = """return {
  scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
  images: Array.from(document.images).map(i => [i.getAttribute('src'), i.complete,
                                                 i.naturalWidth]),
  links: Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))}"""


def check_page(browser, page: Path) -> list[str]:
    """What is wrong with ``page`` in ``browser`` at its window's width: horizontal
    overflow of the page, images not loaded, local links to missing files or anchors,
    console errors."""
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(page.resolve().as_uri())
    state = browser.execute_script(_STATE)
    problems = []
    if state["scroll"] > state["inner"]:
        problems.append(f"{page}: {state['scroll']} px wide in a {state['inner']} px window")
    problems += [f"{page}: image {src} did not load" for src, done, width in state["images"]
                 if not done or not width]
    for href in state["links"]:
        url = urlparse(href)
        if url.scheme or href.startswith("//"):
            continue  # not a local file
        if url.path:
            target = page.parent / unquote(url.path)
            if not target.exists():
                problems.append(f"{page}: link {href} to a missing file")
        elif url.fragment and not browser.execute_script(
                "return document.getElementById(arguments[0]) !== null", unquote(url.fragment)):
            problems.append(f"{page}: link {href} to a missing anchor")
    problems += [f"{page}: console: {e['message']}" for e in browser.get_log("browser")
                 if e["level"] == "SEVERE"]
    return problems


def check_all(root: str | Path, shots: Path | None = None, *,
              widths: tuple[int, ...] = WIDTHS, only: tuple[str, ...] = (),
              height: int | None = None) -> list[str]:
    """:func:`check_page` of every page under ``root`` (or those of ``only``: paths
    below it, each with an optional ``#anchor``) at every width of ``widths``, saving a
    screenshot of each into ``shots`` when given: the whole page, or ``height`` px of it
    from its top (or from the anchor's heading)."""
    problems = []
    wanted = [w.partition("#") for w in only]
    chosen = ([(p, "") for p in pages(root)] if not only else
              [(Path(root) / path, anchor) for path, _, anchor in wanted])
    for width in widths:
        browser = driver(width)
        try:
            for page, anchor in chosen:
                problems += [f"{p} ({width} px)" for p in check_page(browser, page)]
                if shots is not None:
                    name = "-".join([*page.relative_to(root).with_suffix("").parts,
                                     *([anchor] if anchor else [])])
                    full = browser.execute_script(
                        "return document.documentElement.scrollHeight")
                    browser.set_window_size(width, min(full, height or 16000))
                    if anchor:  # the shot starts at that heading
                        browser.execute_script(
                            "document.getElementById(arguments[0]).scrollIntoView()", anchor)
                    shots.mkdir(parents=True, exist_ok=True)
                    browser.save_screenshot(str(shots / f"{name}-{width}.png"))
                    palette_png(shots / f"{name}-{width}.png")
                    browser.set_window_size(width, 900)
        finally:
            browser.quit()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default="reports", help="Folder of the pages.")
    parser.add_argument("--out", type=Path, default=None,
                        help="Folder for the screenshots (none: only check).")
    parser.add_argument("--page", action="append", default=[],
                        help="Only this page (its path below ROOT, with an optional #anchor the "
                             "shot starts at); repeat for several.")
    parser.add_argument("--width", action="append", type=int, default=[],
                        help=f"Window width in CSS px; repeat for several (default "
                             f"{' and '.join(map(str, WIDTHS))}).")
    parser.add_argument("--height", type=int, default=None,
                        help="Shoot only the top of each page, this many px (default: all).")
    args = parser.parse_args()
    why = chromium()
    if why:
        print(f"cannot drive Chromium: {why}", file=sys.stderr)
        return 2
    problems = check_all(args.root, args.out, widths=tuple(args.width) or WIDTHS,
                         only=tuple(args.page), height=args.height)
    print("\n".join(problems) or f"{len(args.page) or len(pages(args.root))} pages: "
          "no problem")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
