"""The explorer's JSON API: the pages call it, and so can a notebook (the contract is in
``docs/how-to/explore.md``)."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from prefstats.errors import OptionError
from prefstats.serve import inputs
from prefstats.serve.games import analyse_work, store_record
from prefstats.serve.guides import CHARTS, cell_answer, hand_features, sample_hand, table_name
from prefstats.serve.jobs import job_key
from prefstats.serve.work import dd_table, play_position, rollout_work, table_rules

router = APIRouter(prefix="/api")

Cards = str | int


class DealIn(BaseModel):
    """A deal: three hands (card text or masks) and the talon (optional), under a variant
    (a preset at ``players``, by default its own number, or an uploaded one)."""

    variant: str = "sochi"
    players: int | None = None
    hands: list[Cards]
    talon: Cards | None = None


class PlayIn(DealIn):
    """A deal and the cards played so far in one contract."""

    declarer: int = 0
    contract: str = "NT"
    played: list[str] = Field(default_factory=list)


class RolloutIn(BaseModel):
    """One hand's rollout: every option of one decision on many deals."""

    variant: str = "sochi"
    players: int = 3
    hand: Cards
    seat: int = 0
    decision: str = "first_call"
    options: list[str] | None = None
    talon: Cards | None = None
    deals: int = 20_000
    seed: int = 1


class CompareIn(BaseModel):
    """A comparison: two or more variants (presets or uploaded house variants) played on
    the same deals and pulkas."""

    variants: list[str]
    players: int | None = None
    deals: int = 2_000
    pulkas: int = 50
    pool_target: int = 20
    seed: int = 1


def _state(request: Request):
    return request.app.state


@router.get("/health")
def health(request: Request) -> dict:
    """The server is up: its version, whether its compiled code is loaded (in the server
    and in every job worker) and how many job workers are ready."""
    state = _state(request)
    ready = state.jobs.ready()
    return {"version": _version(), "warm": state.warm.is_set() and ready == state.jobs.workers,
            "workers_ready": ready}


@router.get("/advice")
async def advice(request: Request, hand: str, variant: str = "sochi", players: int = 3,
                 seat: int = 0, decision: str = "first_call", level: int | None = None,
                 trump: str | None = None, chart: str | None = None) -> dict:
    """The committed guide's cell of ``hand`` at ``decision``: advice, gain with its CI,
    n, robustness and the models that break it."""
    from starlette.concurrency import run_in_threadpool

    args = (_state(request).guides, hand, variant, players, seat, decision, level, trump, chart)
    if _state(request).warm.is_set():  # a lookup takes well under a millisecond
        return _advice(*args)
    return await run_in_threadpool(_advice, *args)  # the first loads compiled code


def _advice(guides, hand: str, variant: str, players: int, seat: int, decision: str,
            level: int | None, trump: str | None, chart: str | None) -> dict:
    guide = guides.get(table_name(variant, players))
    if decision not in CHARTS:
        raise OptionError(f"decision: one of {', '.join(CHARTS)}, got {decision!r}")
    charts = CHARTS[decision]
    chart = chart or charts[0]
    if chart not in charts:
        raise OptionError(f"chart: one of {', '.join(charts)} for {decision}, got {chart!r}")
    if seat not in guide.seats:
        raise OptionError(f"seat: one of {guide.seats} at this table, got {seat}")
    mask = inputs.cards(hand, "hand", 10)
    records = guide.cells(chart)
    if level is not None and not 6 <= level <= 10:
        raise OptionError(f"level: 6 to 10, got {level}")
    suit = inputs.strain(trump) if decision == "whist" else None
    features = hand_features(records, chart, mask, seat=seat, level=level, trump=suit)
    return {**cell_answer(guide, chart, features), "table": table_name(variant, players),
            "mask": mask}


@router.get("/guides")
def guides(request: Request) -> dict:
    """The tables with a committed guide."""
    return {"tables": _state(request).guides.tables()}


@router.get("/guides/{table}")
def guide(request: Request, table: str) -> dict:
    """One committed guide: its cells and rules (``guide.json``)."""
    return _state(request).guides.get(table).doc


@router.get("/sample")
def sample(request: Request, table: str, chart: str) -> dict:
    """A hand of one cell of a guide's chart (the cell's features as further query
    parameters), with the seat, decision, level and trump to ask about it."""
    records = request.app.state.guides.get(table).cells(chart)
    if not records:
        raise OptionError(f"chart: no chart {chart!r} in the guide of {table}")
    names = records[0]["features"]
    features = {}
    for name in names:
        value = request.query_params.get(name)
        if value is None:
            raise OptionError(f"{name}: missing; the cells of {chart} are by {', '.join(names)}")
        try:
            features[name] = value if name == "hole" else int(value)
        except ValueError:
            raise OptionError(f"{name}: a whole number, got {value!r}") from None
    variant, _, four = table.partition("-")
    return {**sample_hand(records, chart, features), "variant": variant,
            "players": 4 if four else 3}


@router.post("/solve")
def solve(deal: DealIn, request: Request) -> dict:
    """The deal's double-dummy table under the variant's rules: each declarer's tricks in
    each strain after taking the talon and his best discard, and on misère."""
    rules = inputs.variant(deal.variant, deal.players, _state(request).variants)
    hands, talon = inputs.deal_cards(deal.hands, deal.talon)
    return dd_table(hands, talon, **table_rules(rules))


@router.post("/play")
def play(body: PlayIn, request: Request) -> dict:
    """A position of the deal's play: the hands left, the trick, and each legal card's
    double-dummy value."""
    rules = inputs.variant(body.variant, body.players, _state(request).variants)
    hands, talon = inputs.deal_cards(body.hands, body.talon)
    return play_position(hands, talon, body.declarer, body.contract, body.played,
                         **table_rules(rules))


@router.post("/variants")
async def upload_variant(request: Request) -> dict:
    """Keep an uploaded house variant (the request's body, TOML); its name for
    ``variant=``."""
    return {"variant": inputs.store_variant(await request.body(), _state(request).variants)}


@router.post("/rollout", status_code=202)
def rollout(body: RolloutIn, request: Request) -> dict:
    """Start one hand's rollout as a job; ``GET /api/jobs/{job}`` follows it."""
    from prefstats.sim.rollout import default_options, hand_deals, option_codes
    from prefstats.sim.rollout import rollout as play

    state = _state(request)
    if not 1 <= body.deals <= state.max_deals:
        raise OptionError(f"deals: 1 to {state.max_deals:,} on this server, got {body.deals:,}")
    rules = inputs.variant(body.variant, body.players, state.variants)
    names = body.options or default_options(rules, body.decision)
    try:
        option_codes(rules, body.decision, names)
    except OptionError as exc:
        raise OptionError(f"options: {exc}") from None
    mask = inputs.cards(body.hand, "hand", 10)
    talon = inputs.cards(body.talon, "talon", 2) if body.talon not in (None, "") else None
    empty = hand_deals(mask, body.seat, 0, talon=talon)  # checks the hand and the talon
    play(rules, empty, seat=body.seat, decision=body.decision, options=names)  # the seat
    asked = {"variant": body.variant, "players": body.players}
    key = job_key("rollout", {**body.model_dump(), "options": names}, _version())
    job = state.jobs.submit("rollout", key, (rollout_work, dict(
        rules=rules, hand=mask, seat=body.seat, decision=body.decision, options=names,
        deals=body.deals, seed=body.seed, talon=talon, describe=asked)))
    return {"job": job.id}


@router.post("/analyze", status_code=202)
async def analyze(request: Request, deals: int = 200, seed: int = 1) -> dict:
    """Start the analysis of an uploaded record (the request's body: a deal or game
    record, docs/ANALYZE.md) as a job; a game's result links its page."""
    from starlette.concurrency import run_in_threadpool

    state = _state(request)
    if not 1 <= deals <= state.max_deals:
        raise OptionError(f"deals: 1 to {state.max_deals:,} on this server, got {deals:,}")
    body = await request.body()
    path = await run_in_threadpool(store_record, body, state.data / "uploads")
    key = job_key("analyze", {"record": path.name, "deals": deals, "seed": seed}, _version())
    job = state.jobs.submit("analyze", key, (analyse_work, dict(
        path=path, out=state.data / "games", key=key, deals=deals, seed=seed)))
    return {"job": job.id}


@router.post("/compare", status_code=202)
def compare(body: CompareIn, request: Request) -> dict:
    """Start the rule-comparison article over the variants as a job; its result links
    the article's page."""
    from prefstats.serve.compare import compare_variants, compare_work

    state = _state(request)
    rules = compare_variants(body.variants, body.players, state.variants)
    for field, low, high in (("deals", 100, state.max_deals),
                             ("pulkas", 10, state.max_pulkas), ("pool_target", 1, 100)):
        got = getattr(body, field)
        if not low <= got <= high:
            raise OptionError(f"{field}: {low:,} to {high:,} on this server, got {got:,}")
    if body.seed < 0:
        raise OptionError(f"seed: 0 or more, got {body.seed}")
    key = job_key("compare", body.model_dump(), _version())
    # `prefstats compare` plays every preset; the article says which call made it
    command = f"POST /api/compare {json.dumps(body.model_dump(), ensure_ascii=False)}"
    job = state.jobs.submit("compare", key, (compare_work, dict(
        rules=rules, out=state.data / "compare" / key, deals=body.deals, pulkas=body.pulkas,
        pool_target=body.pool_target, seed=body.seed, command=command)))
    return {"job": job.id}


@router.get("/jobs/{job_id}")
def job(job_id: str, request: Request) -> dict:
    """A job's state, progress and (partial) result."""
    jobs = _state(request).jobs
    found = jobs.get(job_id)
    return found.view(jobs.place(found))


@router.delete("/jobs/{job_id}")
def cancel(job_id: str, request: Request) -> dict:
    """Cancel a queued or running job."""
    jobs = _state(request).jobs
    return jobs.cancel(job_id).view(None)


def _version() -> str:
    from prefstats import __version__

    return __version__


def error(status: int, message: str) -> JSONResponse:
    """The one error answer: ``{"error": message}`` with a 4xx status."""
    return JSONResponse({"error": message.splitlines()[0] if message else "bad request"},
                        status_code=status)



@router.get("/random-deal")
def random_deal(seed: int | None = None) -> dict:
    """A deal drawn at random (from ``seed`` when given): three hands and the talon."""
    import secrets

    from prefstats.game.cards import format_cards
    from prefstats.game.deal import deal

    drawn = deal(1, seed=secrets.randbits(32) if seed is None else seed)
    return {"hands": [format_cards(int(h)) for h in drawn.hands[0]],
            "talon": format_cards(int(drawn.talon[0]))}
