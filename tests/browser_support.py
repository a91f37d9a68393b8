"""The browser tests' shared set-up: the screenshot script's Chromium driver, and a mark
that skips a test module, saying why, where no headless Chromium can be had."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
shots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shots)

_WHY = shots.chromium()
needs_chromium = pytest.mark.skipif(_WHY is not None, reason=f"no headless Chromium: {_WHY} "
                                    "(make test runs scripts/ensure_chromium.sh)")
