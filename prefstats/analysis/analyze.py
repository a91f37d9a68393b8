"""Analyse one played deal: every decision of every seat against its best alternative.

A deal record (the JSON format of ``docs/ANALYZE.md``: hands, talon, the calls, the
discard and contract, the whist calls and the tricks) is replayed through the hand
engine, which refuses anything impossible; :class:`RecordError` names the record's
field and line. Each real decision (one with more than one legal choice) is valued in
whists to the seat that made it, as the reports value a deal:

- **cards** of a trick game or misère, by the double-dummy solver
  (:func:`prefstats.solver.card_values_batch`): each legal card's declarer tricks from
  the position on, turned into whists by the contract's scoring
  (:func:`~prefstats.analysis.layouts.tricks_to_whists` says how the defence's tricks
  are split) and valued for the seat's side, as the solver plays it: the declarer, or
  the two defenders together (a defender's own whists also rise when his partner falls
  short, which is no aim of the defence); and beside it over the layouts the player
  could not rule out (:mod:`prefstats.analysis.layouts`: at least 64, drawn consistent
  with the talon he saw, the play so far and the other players' calls): the mistake is
  ``knowable`` when the card lost on average there by at least 3 standard errors,
  ``hindsight`` when only double dummy sees it, and only a knowable one is ``charged``;
- **the discard** of a game that was played, by the solver too: the declarer's tricks
  from the first lead after each pair of cards he could have put away, under the
  recorded contract and whist calls (the defenders never see the discard, so their
  calls do not depend on it), and over the declarer's layouts alike;
- **calls**: every decision :mod:`prefstats.sim.rollout` can force, by rollouts over the
  cards the seat could not see (:func:`~prefstats.sim.rollout.hand_deals`), each deal
  played once per option by the continuation ``policy``: the seat's first call
  (``first_call``: pass, bid, misère ...), at the same call how high to compete
  (``max_bid``: levels 6 .. 10 in the hand's best strain, every call of the seat's
  auction forced; what was done is the level whose forcing makes every call the seat
  made), the contract after the talon (``contract``: every legal named contract) and the
  first whist call (``whist``). With ``condition="record"`` (the default) a dealt deal
  counts only if the policy, playing it, made every call the seat had heard before the
  decision as recorded (for the contract: the same discard too, the hand it names the
  contract with) -- rejection; ``acceptance`` is the share kept; with
  ``condition="none"`` every deal that reaches the decision counts.

Double-dummy figures hold for perfect play by all four hands from the position on;
rollout figures for the built-in players (``policy``) making every other decision.
Raspasy card play (each player for himself: no two sides for the solver) and decisions
no method covers (a later call, valued with the first as ``max_bid``; a second whist
call after a half-whist; a lone whister's choice to lie open) get a row with
``method = "not analysed"`` and the reason in ``note``.

>>> frame = analyze(load_record("examples/deal.json"), deals=30)
>>> sorted(set(frame["method"]))
['double dummy', 'rollout']
>>> frame.filter(pl.col("decision") == "card")["loss"].min() >= 0
True
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import polars as pl

from prefstats.analysis.layouts import (
    card_layouts,
    discard_layouts,
    discard_pairs,
    layout_fields,
    side_whists,
)
from prefstats.analysis.record import (
    DECISION_OF_PHASE,
    LAY_NAMES,
    SWITCH_NAMES,
    DealRecord,
    Step,
    field_name,
    load_record,
    parse_record,
    record_variant,
    replay,
)
from prefstats.errors import OptionError, RecordError
from prefstats.game import engine
from prefstats.game.auction import WHIST_CALL_NAMES, call_name
from prefstats.game.cards import card_counts, card_name, format_cards
from prefstats.game.contracts import MISERE, TRUMP, Contract
from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import Variant, get_variant
from prefstats.players.builtin import player_key
from prefstats.players.pimc import _one_run
from prefstats.sim._workers import usable_cores
from prefstats.sim.play import at_decision, forced_action
from prefstats.sim.rollout import (
    DECISIONS,
    LEVELS,
    OPTIONS,
    best_strains,
    hand_deals,
    in_pieces,
    max_bid_call,
    max_bid_top,
    option_codes,
    rollout_states,
)
from prefstats.solver import card_values_batch, solve_batch

__all__ = ["RecordError", "analyze", "load_record", "parse_record", "replay"]

CONDITIONS = ("record", "none")
#: Options closer in value than this (whists) are worth the same.
EQUAL = 1e-9
NO_LAYOUTS = "no layouts drawn at a table with a dummy: charged double dummy"
#: Deals per compiled rollout call: the progress bar moves between them.
ROLLOUT_CHUNK = 1000


# ---- values --------------------------------------------------------------------------


def _row(step: Step, record: DealRecord, **values) -> dict:
    return {"step": None, "field": field_name(step.path), "line": record.line(step.path),
            "seat": step.seat, "plays_for": step.plays_for,
            "decision": DECISION_OF_PHASE[step.phase], **values}


def _best(options: list[str], value: np.ndarray, done: str | None) -> int:
    """Index of the best option, the one done on a tie."""
    top = value.max()
    if done is not None and value[options.index(done)] >= top - 1e-9:
        return options.index(done)
    return int(np.argmax(value))


def _solver_row(step, record, variant, final, names, tricks, done) -> dict:
    """A double-dummy row: ``names`` the options, ``tricks`` the declarer's total after
    each; valued in whists to the deciding seat's side, the solver's two sides."""
    whists = side_whists(step, variant, final, tricks)
    best = _best(names, whists, done)
    d = names.index(done)
    return _row(step, record, method="double dummy", done=done, best=names[best],
                value_done=float(whists[d]), value_best=float(whists[best]),
                loss=float(whists[best] - whists[d]), loss_se=0.0,
                tricks_done=int(tricks[d]), tricks_best=int(tricks[best]),
                alternatives=[{"option": o, "value": float(v), "tricks": int(t)}
                              for o, v, t in zip(names, whists, tricks, strict=True)],
                note="declarer's tricks double dummy, in whists by the contract's scoring")


def _with_layouts(row: dict, step: Step, variant, final, names, layouts) -> dict:
    """``row`` with its options valued over the layouts the player could not rule out
    (:func:`~prefstats.analysis.layouts.layout_fields`)."""
    whists = side_whists(step, variant, final, layouts.tricks)
    row.update(layout_fields(layouts, names, whists, row["done"], row["loss"], EQUAL))
    return row


def _one_run_only(st) -> bool:
    """Whether the legal cards of the seat to play are one run: the same card in any
    layout (nothing to draw layouts for)."""
    n = int(st["n_in_trick"])
    on_table = sum(1 << int(c) for c in st["trick_cards"][:n])
    trump = -1 if int(st["kind"]) == engine.MISERE_GAME else int(TRUMP[int(st["contract"])])
    hand = int(st["hands"][(int(st["leader"]) + n) % 3])
    led = -1 if n == 0 else int(st["trick_cards"][0]) >> 3
    return int(_one_run(hand, int(st["gone"]) & ~on_table, led, trump)) >= 0


def _card_row(steps: list[Step], i: int, record, variant, final, *, seed: int,
              policy: str, never: dict[int, set[int]]) -> dict:
    step = steps[i]
    st = step.state[0]
    misere = int(st["kind"]) == engine.MISERE_GAME
    trump = int(TRUMP[int(st["contract"])])
    decl = int(st["declarer"])
    trick = [int(c) for c in st["trick_cards"][: int(st["n_in_trick"])]]
    out = card_values_batch([[int(h) for h in st["hands"]]], trump=None if trump < 0 else trump,
                            leader=int(st["leader"]), declarer=decl, trick=trick,
                            misere=misere)[0]
    legal = [c for c in range(32) if out[c] >= 0]
    tricks = np.array([int(st["tricks"][decl]) + int(out[c]) for c in legal])
    names = [card_name(c) for c in legal]
    row = _solver_row(step, record, variant, final, names, tricks, card_name(step.action))
    if variant.has_dummy:
        return row | {"charged": row["loss"], "layout_note": NO_LAYOUTS}
    if _one_run_only(st):
        return row | {"charged": 0.0, "layout_note": "one run of cards: alike in any layout"}
    layouts = card_layouts(steps, i, variant, legal, seed=seed * 4096 + i, policy=policy,
                           never=never.setdefault(step.seat, set()))
    return _with_layouts(row, step, variant, final, names, layouts)


def _discard_row(steps: list[Step], i: int, record, variant, final, *, seed: int,
                 policy: str, never: dict[int, set[int]]) -> dict:
    step = steps[i]
    st = step.state[0]
    decl = int(st["declarer"])
    hand = int(st["hands"][decl])
    pairs = discard_pairs(hand)
    hands = np.repeat(st["hands"][None, :3].astype(np.int64), len(pairs), axis=0)
    hands[:, decl] = [hand & ~p for p in pairs]
    misere = int(final[0]["kind"]) == engine.MISERE_GAME
    trump = int(TRUMP[int(final[0]["contract"])])
    # Trick 1 is the first hand's: seat 0, or Gusarik's dummy (B:382).
    leader = int(engine.rules_array(variant)[engine.R_FIRST_HAND])
    tricks = solve_batch(hands, None if misere or trump < 0 else trump, leader, decl, misere,
                         threads=1).astype(np.int64)
    names = [format_cards(p) for p in pairs]
    row = _solver_row(step, record, variant, final, names, tricks, format_cards(step.action))
    row["note"] = (f"declarer's tricks double dummy under the recorded contract "
                   f"{Contract(int(final[0]['contract']))} and whist calls")
    if variant.has_dummy:
        return row | {"charged": row["loss"], "layout_note": NO_LAYOUTS}
    layouts = discard_layouts(steps, i, variant, final, pairs.index(step.action),
                              seed=seed * 4096 + i, policy=policy,
                              never=never.setdefault(step.seat, set()))
    return _with_layouts(row, step, variant, final, names, layouts)


def _not_analysed(step: Step, record, why: str, decision: str | None = None) -> dict:
    return _row(step, record, method="not analysed", done=_done_name(step), note=why,
                **_label(decision))


def _label(decision: str | None) -> dict:
    """The ``decision`` column of a rollout row where it is not the phase's name:
    ``max_bid`` (how high to compete, valued at the seat's first call beside the call)."""
    return {"decision": "max_bid"} if decision == "max_bid" else {}


def _done_name(step: Step) -> str:
    phase = step.phase
    if phase == engine.AUCTION:
        return call_name(step.action)
    if phase == engine.WHIST:
        return WHIST_CALL_NAMES[step.action]
    if phase == engine.CONTRACT:
        return str(Contract(step.action))
    if phase == engine.LAY:
        return LAY_NAMES[step.action]
    if phase == engine.SWITCH:
        return SWITCH_NAMES[step.action]
    if phase == engine.DISCARD:
        return format_cards(step.action)
    return card_name(step.action)


def rollout_decisions(step: Step, variant: Variant) -> list[str]:
    """The :mod:`prefstats.sim.rollout` decisions that ``step`` is (by ``at_decision``);
    max_bid, which forces every call of the seat's auction, only at its first call."""
    rules = engine.rules_array(variant)
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    st = step.state.copy()
    engine.observe(st[0], rules, obs[0])
    names = [name for name, code in DECISIONS.items() if at_decision(obs[0], code, step.seat)]
    if "first_call" not in names and "max_bid" in names:
        names.remove("max_bid")
    return names


def _options(variant: Variant, decision: str, legal: int) -> dict[str, int | None]:
    """Options of ``decision`` the variant has and that are legal at the recorded
    decision, with the call each makes there: the named calls of first_call and whist,
    every legal contract (by its name) of contract, and max_bid's levels (their calls
    depend on the auction: None)."""
    if decision == "max_bid":
        return {str(level): None for level in LEVELS}
    if decision == "contract":
        return {str(Contract(c)): c for c in range(MISERE) if legal >> c & 1} | {
            str(Contract(c)): c for c in range(MISERE + 1, 26) if legal >> c & 1}  # type: ignore[return-value]
    rules = engine.rules_array(variant)
    out: dict[str, int | None] = {}
    for option in OPTIONS[decision]:
        try:
            code = option_codes(variant, decision, [option])[0]
        except ValueError:
            continue  # the variant lacks it
        action = int(forced_action(code, legal, rules))
        if action >= 0:
            out[option] = action
    return out


def max_bid_levels(steps: list[Step], step: Step, variant: Variant) -> list[str]:
    """The max_bid levels whose forcing makes every call of the auction that ``step``'s
    seat made in the record (each call is max_bid's call where it was made: the lowest
    legal bid up to the level in the hand's best strain, else a pass); none when the
    seat called otherwise (a misère, a dark call, a bid in another strain)."""
    rules = engine.rules_array(variant)
    seat = step.seat
    hand = np.array([int(step.state[0]["dealt"][seat])], dtype=np.int64)
    strain = int(best_strains(hand, seat)[0])
    calls = [(s.legal, s.action) for s in steps
             if s.phase == engine.AUCTION and s.seat == seat]
    return [str(level) for level in LEVELS
            if all(int(max_bid_call(legal, rules, max_bid_top(level, strain))) == action
                   for legal, action in calls)]


def _matches(finals: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Which branch-final states (``(n,)``) heard what the seat had heard in ``before``
    (a state at the decision): the same calls, and on from the contract the same
    declarer, contract and whist calls."""
    n = int(before["n_calls"])
    ok = (finals["n_calls"] >= n) & (finals["calls"][:, :n] == before["calls"][:n]).all(axis=1)
    if before["phase"] in (engine.CONTRACT, engine.WHIST, engine.LAY):
        ok &= finals["declarer"] == before["declarer"]
    if before["phase"] == engine.CONTRACT:  # the hand the declarer names a contract with
        ok &= finals["discard"] == before["discard"]
    if before["phase"] in (engine.WHIST, engine.LAY):
        w = int(before["n_whist"])
        ok &= finals["contract"] == before["contract"]
        ok &= (finals["whist_calls"][:, :w] == before["whist_calls"][:w]).all(axis=1)
    return ok


#: The rollouts kept while :func:`shared_rollouts` runs (None: none are kept).
_shared: dict | None = None


@contextmanager
def shared_rollouts() -> Iterator[None]:
    """Within the block, a call decision rolled out with the same inputs -- the seat and
    its hand, the talon it saw, the decision and its options, the deals, the seed, the
    policy and the variant -- is rolled out once and its branches reused: games played
    on the same cards share their rollouts, whoever made the calls. The figures are
    those of rolling out each time (the rollouts are a function of these inputs; what the
    record heard is applied to the kept branches)."""
    global _shared
    outer, _shared = _shared, {} if _shared is None else _shared
    try:
        yield
    finally:
        _shared = outer


def _rollout_chunk(variant, part, seat, decision, names, seed, policy, where
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk of a decision's rollout deals: each branch's value to ``seat``
    ``(n, k)``, whether every option was legal ``(n,)``, and the first branch's final
    states ``(n,)`` (what the calls heard are checked on)."""
    key = (variant.to_toml(), seat, decision, tuple(names), seed, policy, *where)
    if _shared is not None and key in _shared:
        return _shared[key]
    def played(piece):
        return rollout_states(variant, piece, seat=seat, decision=decision, options=names,
                              key=int(player_key(seed)), policy=policy)

    # on every core's thread (the compiled rollout releases the GIL); the players are
    # keyed by each deal's number, so the pieces give what the whole would
    pieces = in_pieces(played, part, usable_cores())
    finals = np.concatenate([p[0] for p in pieces])
    legal = np.concatenate([p[1] for p in pieces])
    value = deal_values(variant, *score_states(variant, finals.reshape(-1)))[:, seat]
    out = (np.asarray(value).reshape(legal.shape), np.asarray(legal.all(axis=1)),
           finals[:, 0].copy())
    if _shared is not None:
        _shared[key] = out
    return out


def _rollout_row(step, record, variant, decision, *, steps, deals, seed, policy, condition,
                 tick) -> dict:
    options = _options(variant, decision, step.legal)
    names = list(options)
    if decision == "max_bid":
        matching = max_bid_levels(steps, step, variant)
        done = matching[0] if matching else None
    else:
        matching = []
        done = next((o for o, a in options.items() if a == step.action), None)
    st = step.state[0]
    seat = step.seat
    rules = engine.rules_array(variant)
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    engine.observe(step.state.copy()[0], rules, obs[0])
    if int(obs[0]["hand"]) == 0:
        tick(deals)
        return _not_analysed(step, record, "the seat had not seen its cards (a dark call)",
                             decision)
    talon = int(obs[0]["talon"]) if int(card_counts(int(obs[0]["talon"]))) == 2 else None
    hand = int(st["dealt"][seat])
    block = len(hand_deals(hand, seat, 1, talon=talon))
    dealt = hand_deals(hand, seat, -(-deals // block), seed=seed, talon=talon)[:deals]
    parts: list[np.ndarray] = []
    kept = 0
    for a in range(0, deals, ROLLOUT_CHUNK):
        part = dealt[a:a + ROLLOUT_CHUNK]
        value, ok, first = _rollout_chunk(variant, part, seat, decision, names, seed, policy,
                                          (hand, talon, deals, a))
        if condition == "record":
            ok = ok & _matches(first, st)
        parts.append(value[ok])
        kept += int(ok.sum())
        tick(len(part))
    values = np.concatenate(parts) if parts else np.zeros((0, len(names)))
    base = {"n": kept, "dealt": deals, "acceptance": kept / deals, **_label(decision)}
    if kept == 0:
        heard = " (calls and discard)" if decision == "contract" else ""
        return _row(step, record, method="rollout", done=done, **base,
                    note=f"{decision}: no deal of {deals:,} reproduced the record{heard} "
                         f"before this decision" if condition == "record"
                    else f"{decision}: the decision was never reached")
    mean = values.mean(axis=0)
    best = _best(names, mean, done)
    row = _row(step, record, method="rollout", done=done, best=names[best],
               value_best=float(mean[best]), **base,
               alternatives=[{"option": o, "value": float(v)} for o, v in zip(names, mean,
                                                                                 strict=True)],
               note=f"{decision}: {policy} policy, {condition} conditioning")
    if decision == "max_bid":
        strain = int(best_strains(np.array([hand], dtype=np.int64), seat)[0])
        row["note"] += (f"; competing up to {Contract(int(max_bid_top(6, strain)))} .. "
                        f"{Contract(int(max_bid_top(10, strain)))} (the hand's best strain)")
    if len(matching) > 1:
        row["note"] += (f"; the calls made are those of levels {', '.join(matching)} alike "
                        f"(done: the lowest)")
    if done is None:
        made = ("the calls made are those of no level (lowest bid up to it in the best "
                "strain, then pass)" if decision == "max_bid" else
                f"the call made ({_done_name(step)}) is not an option of {decision}")
        row["note"] += f"; {made}"
        return row
    d = names.index(done)
    diff = values[:, best] - values[:, d]
    se = float(diff.std(ddof=1) / math.sqrt(kept)) if kept > 1 else None
    row.update(value_done=float(mean[d]), loss=float(diff.mean()), loss_se=se,
               charged=float(diff.mean()))
    return row


#: Columns of :func:`analyze`'s frame, in order, with their types.
SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "step": pl.Int64, "field": pl.Utf8, "line": pl.Int64, "seat": pl.Int64,
    "plays_for": pl.Int64, "decision": pl.Utf8, "method": pl.Utf8, "done": pl.Utf8,
    "best": pl.Utf8, "value_done": pl.Float64, "value_best": pl.Float64, "loss": pl.Float64,
    "loss_se": pl.Float64, "tricks_done": pl.Int64, "tricks_best": pl.Int64, "n": pl.Int64,
    "dealt": pl.Int64, "acceptance": pl.Float64,
    "alternatives": pl.List(pl.Struct({"option": pl.Utf8, "value": pl.Float64,
                                       "tricks": pl.Int64})),
    "note": pl.Utf8, "layouts": pl.Int64, "layout_best": pl.Utf8,
    "layout_value_done": pl.Float64, "layout_value_best": pl.Float64,
    "layout_loss": pl.Float64, "layout_loss_se": pl.Float64, "verdict": pl.Utf8,
    "charged": pl.Float64,
    "layout_alternatives": pl.List(pl.Struct({"option": pl.Utf8, "value": pl.Float64})),
    "layout_note": pl.Utf8,
}


def _plan(steps: list[Step], variant: Variant, final: np.ndarray) -> list[tuple[Step, str]]:
    """How each real decision is valued: a rollout decision name, ``card``, ``discard``,
    or ``-reason`` when it is not analysed."""
    plan = []
    kind = int(final[0]["kind"])
    for step in steps:
        if not step.legal & (step.legal - 1):
            continue  # one legal choice: no decision
        phase = step.phase
        if phase == engine.PLAY:
            plan.append((step, "card" if kind != engine.RASPASY else
                         "-raspasy card play: each player for himself, no two sides for the "
                         "double-dummy solver"))
        elif phase == engine.DISCARD:
            plan.append((step, "discard" if final[0]["played"] else
                         "-the game was not played (no whister): the discard did not change "
                         "the score"))
        else:
            names = rollout_decisions(step, variant)
            plan.extend((step, n) for n in names)
            if not names:
                plan.append((step, "-" + _unforced(phase)))
    return plan


def _unforced(phase: int) -> str:
    """Why a call, whist call or lay is not rolled out."""
    if phase == engine.AUCTION:
        return ("a later call of the seat's auction: valued with its first call, as max_bid "
                "(how high to compete; every call of the seat forced)")
    return (f"prefstats.sim.rollout has no decision for this {DECISION_OF_PHASE[phase]} (it "
            f"forces {', '.join(DECISIONS)}: a whist call only the first time)")


def analyze(record: DealRecord | Mapping | str | Path, variant: Variant | str | None = None, *,
            deals: int = 2000, seed: int = 0, policy: str = "heuristic",
            condition: str = "record",
            progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """Value every decision of a played deal against its best alternative.

    :param record: a :class:`DealRecord`, a dict in the JSON form, or a path.
    :param variant: overrides the record's variant.
    :param deals: the deals dealt per call decision.
    :param seed: keys those deals and the players' random choices.
    :param policy: the player model that plays on after each decision.
    :param condition: ``"record"`` (the dealt deals agree with the auction) or ``"none"``.
    :param progress: called as ``progress(done, total)`` as the work advances.
    :returns: one row per decision and method, columns :data:`SCHEMA`: ``seat`` decided
        (for ``plays_for``), ``done`` and ``best`` options, their values in whists
        (``value_done``, ``value_best``: to ``seat``, on double-dummy rows to its side),
        ``loss`` = best − done (≥ 0 on double-dummy rows; ``loss_se`` its standard error,
        0 for double-dummy rows), ``tricks_*`` the declarer's tricks (double dummy), ``n``
        of ``dealt`` rollout deals kept (``acceptance``), every option's value in
        ``alternatives``; on card and discard rows the same over the ``layouts`` the
        player could not rule out (``layout_*``, ``layout_loss_se`` paired), the
        ``verdict`` (``knowable``, ``hindsight`` or none) and what the rating is
        ``charged`` (a knowable loss over the layouts; a rollout row's loss).

    >>> import pathlib, prefstats
    >>> path = pathlib.Path(prefstats.__file__).parents[1] / "examples" / "deal.json"
    >>> frame = analyze(path, deals=10)
    >>> frame.columns[:4], frame.height > 20
    (['step', 'field', 'line', 'seat'], True)
    """
    if isinstance(record, str | Path):
        record = load_record(record)
    elif not isinstance(record, DealRecord):
        record = DealRecord(dict(record))
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise OptionError(f"deals must be at least 1, got {deals!r}")
    if condition not in CONDITIONS:
        raise OptionError(f"condition must be one of {', '.join(CONDITIONS)}, got {condition!r}")
    if variant is None:
        variant = record_variant(record)
    elif isinstance(variant, str):
        variant = get_variant(variant)
    steps, final = replay(record, variant)
    plan = _plan(steps, variant, final)
    total = sum(deals if how in DECISIONS else 0 if how.startswith("-") else 1
                for _, how in plan)
    done = 0

    def tick(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, total)

    rows = []
    index = {id(s): i for i, s in enumerate(steps)}
    never: dict[int, set[int]] = {}  # by deciding seat: seats whose calls no layout made
    for step, how in plan:
        if how.startswith("-"):
            rows.append(_not_analysed(step, record, how[1:]))
        elif how in ("card", "discard"):
            rows.append((_card_row if how == "card" else _discard_row)(
                steps, index[id(step)], record, variant, final, seed=seed, policy=policy,
                never=never))
            tick(1)
        else:
            rows.append(_rollout_row(step, record, variant, how, steps=steps, deals=deals,
                                     seed=seed,
                                     policy=policy, condition=condition, tick=tick))
    for row, (step, _) in zip(rows, plan, strict=True):
        row["step"] = index[id(step)]
    return pl.DataFrame([{k: r.get(k) for k in SCHEMA} for r in rows], schema=SCHEMA,
                        orient="row") if rows else pl.DataFrame(schema=SCHEMA)


def seat_totals(frame: pl.DataFrame) -> pl.DataFrame:
    """Each seat's summed loss in whists per method (the analysed decisions only)."""
    return (frame.filter(pl.col("loss").is_not_null())
            .group_by("seat", "method").agg(pl.len().alias("decisions"),
                                            pl.col("loss").sum())
            .sort("seat", "method"))


def deal_summary(record: DealRecord, variant: Variant) -> dict:
    """What the record says, in words: the hands, talon, contract and tricks."""
    steps, final = replay(record, variant)
    st = final[0]
    kind = engine.KINDS[int(st["kind"])]
    out = {"variant": record.data.get("variant", "sochi"),
           "hands": [format_cards(int(h)) for h in st["dealt"]],
           "talon": format_cards(int(st["talon"])), "kind": kind,
           "calls": [call_name(int(c)) for c in st["calls"][: int(st["n_calls"])]],
           "tricks": [int(t) for t in st["tricks"][:3]]}
    if kind != "raspasy":
        out.update(declarer=int(st["declarer"]), contract=str(Contract(int(st["contract"]))))
    out["decisions"] = len(steps)
    return out
