"""The explorer: ``prefstats serve``, a local web application over the committed guides,
the solver and the rollouts, every page backed by a JSON API (:mod:`prefstats.serve.api`).

Bad input takes one path: a ``PrefstatsError`` (the message names the field), a request
the API cannot read, an unknown URL, a body over 1 MB, each answered with a 4xx and
``{"error": "..."}``. Files are read and written only in the server's data folder (jobs'
results, uploaded variants) and read from the committed guides by names the server
lists itself, so no request names a path.
"""

from __future__ import annotations

import os
import threading
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from prefstats.errors import PrefstatsError
from prefstats.serve.api import error, router
from prefstats.serve.guides import Guides
from prefstats.serve.inputs import MAX_UPLOAD, TooLarge
from prefstats.serve.jobs import WORKER_NICE, Jobs
from prefstats.serve.work import warm_worker

#: Most deals a rollout may ask for on this server.
MAX_DEALS = 100_000
#: Most pulkas a comparison may ask for, a variant, on this server.
MAX_PULKAS = 2_000


class _LimitBody:
    """Refuse a request body over ``MAX_UPLOAD`` bytes, however it is sent."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if length.isdigit() and int(length) > MAX_UPLOAD:
            response = error(413, f"file: over the upload limit of {MAX_UPLOAD:,} bytes")
            return await response(scope, receive, send)
        got = 0

        async def counted():
            nonlocal got
            message = await receive()
            got += len(message.get("body", b""))
            if got > MAX_UPLOAD:
                raise TooLarge(f"file: over the upload limit of {MAX_UPLOAD:,} bytes")
            return message

        return await self.app(scope, counted, send)


def _field(err: dict) -> str:
    where = [str(x) for x in err.get("loc", ()) if x not in ("query", "body", "path")]
    return f"{'.'.join(where) or 'request'}: {err.get('msg', 'invalid')}"


def _warm_up(done: threading.Event) -> None:
    """Load the solver and the hand classifiers (numba) once, then set ``done``."""
    from prefstats.game.variants import get_variant
    from prefstats.serve.guides import hand_features
    from prefstats.serve.work import WARM_DEAL, WARM_TALON, dd_table, table_rules

    try:
        dd_table(WARM_DEAL, WARM_TALON, **table_rules(get_variant("sochi")))
        for chart, features in [("first_call_points", {"points": 3, "seat": 0}),
                                ("first_call_expected_tricks", {"expected_tricks": 2,
                                                                "seat": 0}),
                                ("misere", {"holes": 0, "hole": ""})]:
            hand_features([{"features": features, "option": "misere"}], chart, WARM_DEAL[0],
                          seat=0)
    finally:
        done.set()


def create_app(reports: Path | str = "reports", data: Path | str = "data/serve", *,
               workers: int | None = None, max_deals: int = MAX_DEALS,
               max_pulkas: int = MAX_PULKAS, job_nice: int = WORKER_NICE) -> FastAPI:
    """The explorer over the guides in ``reports``, keeping its files in ``data``; jobs
    run in ``workers`` processes (default: the cores), ``job_nice`` steps below the
    server's priority so that lookups keep their core."""
    data = Path(data).resolve()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # numba imported on two threads at once breaks: import it here, before any
        import numba  # noqa: F401

        # The compiled code loads in the background: the server answers at once, and
        # the first lookup or table does not wait for it.
        threading.Thread(target=_warm_up, args=(app.state.warm,), daemon=True,
                         name="warm-up").start()
        app.state.jobs.start()  # the workers warm up too
        yield
        app.state.jobs.shutdown()  # Ctrl-C: running jobs cancelled between two rounds

    app = FastAPI(title="prefstats explorer", lifespan=lifespan, docs_url="/api/docs",
                  redoc_url=None, openapi_url="/api/openapi.json")
    app.state.guides = Guides(Path(reports))
    app.state.warm = threading.Event()
    app.state.jobs = Jobs(workers or len(os.sched_getaffinity(0)), data / "jobs",
                          warm=warm_worker, nice=job_nice)
    app.state.data = data
    app.state.variants = data / "variants"
    app.state.max_deals = max_deals
    app.state.max_pulkas = max_pulkas
    app.include_router(router)

    @app.exception_handler(PrefstatsError)
    async def refused(request: Request, exc: PrefstatsError):
        return error(413 if isinstance(exc, TooLarge) else 400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def unreadable(request: Request, exc: RequestValidationError):
        return error(422, _field(exc.errors()[0]) if exc.errors() else "request: unreadable")

    @app.exception_handler(HTTPException)
    async def http(request: Request, exc: HTTPException):
        if exc.status_code == 404:
            return error(404, f"url: no page or API at {request.url.path}")
        return error(exc.status_code, str(exc.detail))

    from prefstats.serve.pages import mount

    mount(app)
    app.add_middleware(_LimitBody)
    return app
