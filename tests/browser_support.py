"""The browser tests' shared set-up: the screenshot script's Chromium driver, a mark
that skips a test module, saying why, where no headless Chromium can be had, waiting for
a page, and the width check (with a screenshot) the explorer's pages pass."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest

from prefstats.reports.charts import palette_png

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
shots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shots)

_WHY = shots.chromium()
needs_chromium = pytest.mark.skipif(_WHY is not None, reason=f"no headless Chromium: {_WHY} "
                                    "(make test runs scripts/ensure_chromium.sh)")


def wait(browser, script: str, timeout: float = 300):
    """The first truthy value ``script`` returns, polled until ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = browser.execute_script(script)
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"never true: {script}")


def fits_and_shot(browser, name: str) -> None:
    """Check the page is no wider than the window; with ``PREFSTATS_SHOTS=DIR``, save its
    screenshot there (the how-to's)."""
    width = browser.execute_script("return [document.documentElement.scrollWidth, "
                                   "window.innerWidth]")
    assert width[0] <= width[1], f"{name}: {width[0]} px wide in a {width[1]} px window"
    folder = os.environ.get("PREFSTATS_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        path = Path(folder) / f"explore-{name}-{width[1]}.png"
        browser.save_screenshot(str(path))
        palette_png(path)
