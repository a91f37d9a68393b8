"""The suite's set-up: under pytest-xdist (``-n N``), the engine is compiled once, in
the controlling process before the workers start (itself on two cores, see
:func:`prefstats.cli._compile.warm_up`). On an empty cache every worker would otherwise
compile the same kernels at once; a warm cache makes this a check of a few files.
The browser tests share one headless Chromium a module and width (``browser``)."""

from __future__ import annotations

import pytest
from browser_support import shots


def pytest_sessionstart(session) -> None:
    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return  # a worker (the controller compiled), or one process: it compiles on use
    from prefstats.cli import _compile

    # the demo's steps first: they compile nearly everything, both processes busy
    for command in ("demo", *_compile.COMMANDS):
        _compile.warm_up(command)


@pytest.fixture(scope="module", params=shots.WIDTHS)
def browser(request):
    """A headless Chromium at each of the screenshot widths, shared by a module's tests."""
    b = shots.driver(request.param)
    yield b
    b.quit()
