"""A whole game -- a pulka, or an evening of several -- as one record, replayed and analysed.

A game record (:mod:`prefstats.analysis.game_record`) is a header -- ``variant``, the
three players' ``names`` (place 0, 1, 2), an optional ``pool_target``, ``comment`` and
written final ``result`` -- and the deals in order.

The deal slides as in :class:`~prefstats.game.scoring.ScoreSheet` (RULES.md §1): deal
``k`` (from 1) is dealt by place ``(k + 1) mod 3``, so its seat ``s`` (from the dealer's
left) is place ``(k - 1 + s) mod 3``. :func:`replay_game` replays every deal through the
engine and records its outcome on a :class:`ScoreSheet`; a written score that disagrees
with the deals is a :class:`RecordError` naming the file, the deal and the field.

>>> game = load_game("examples/pulka.json")
>>> sheet = replay_game(game).sheet
>>> sheet.deals == len(game.deals)
True
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from prefstats.analysis.analyze import analyze
from prefstats.analysis.game_record import SCORE_FIELDS, TOLERANCE, GameRecord
from prefstats.analysis.game_record import dump_game_json as dump_game_json
from prefstats.analysis.game_record import dump_game_text as dump_game_text
from prefstats.analysis.game_record import load_game as load_game
from prefstats.analysis.record import replay
from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.auction import WHIST_CALL_NAMES, call_name
from prefstats.game.cards import card_name, format_cards
from prefstats.game.codes import GAME, MISERE_GAME, RASPASY
from prefstats.game.contracts import TRUMP, Contract
from prefstats.game.deal import deal as deal_stream
from prefstats.game.scoring import ScoreSheet
from prefstats.game.variants import Variant, get_variant
from prefstats.players.builtin import BuiltinPlayer
from prefstats.sim.play import play_hand, seat_key
from prefstats.solver import card_values_batch

#: Rollout deals per call decision when a whole game is analysed (a deal alone: 2000).
GAME_DEALS = 200


# ---- replaying the sheet ------------------------------------------------------------


def game_variant(game: GameRecord) -> Variant:
    """The header's variant: a three-handed preset (a pulka of three players)."""
    try:
        variant = get_variant(game.header.get("variant", "sochi"))
    except ValueError as exc:
        raise game.error(("variant",), str(exc)) from None
    if variant.players != 3 or variant.has_dummy:
        raise game.error(("variant",), "a game record is for three players at the table")
    return variant


def place_of(deal_index: int, seat: int) -> int:
    """The place of ``seat`` in deal ``deal_index`` (from 0) under the sliding deal."""
    return (deal_index + seat) % 3


@dataclass
class Replayed:
    """A replayed game: each deal's final engine state and the sheet they add up to."""

    finals: list[np.ndarray]
    sheet: ScoreSheet
    #: The sheet after each deal (pool, mountain, whists by place, in points).
    scores: list[dict]


def _record_outcome(sheet: ScoreSheet, st, k: int) -> None:
    """Record deal ``k``'s final state ``st`` on ``sheet``, seats turned into places."""
    tricks = [0, 0, 0]
    for s in range(3):
        tricks[place_of(k, s)] = int(st["tricks"][s])
    kind = int(st["kind"])
    multiplier = max(int(st["multiplier"]), 1)
    if kind == RASPASY:
        sheet.record_raspasy(tricks, multiplier=multiplier)
        return
    declarer = int(st["declarer"])
    if kind == MISERE_GAME:
        sheet.record_misere(place_of(k, declarer), tricks[place_of(k, declarer)],
                            multiplier=multiplier)
        return
    whist = {place_of(k, (declarer + 1) % 3): WHIST_CALL_NAMES[int(st["first"])],
             place_of(k, (declarer + 2) % 3): WHIST_CALL_NAMES[int(st["second"])]}
    talon = int(st["talon"]) if kind == GAME and not st["no_talon"] else None
    sheet.record_game(place_of(k, declarer), int(st["contract"]), tricks, whist,
                      multiplier=multiplier, talon=talon)


def replay_game(game: GameRecord, variant: Variant | None = None) -> Replayed:
    """Replay every deal of ``game`` (:func:`~prefstats.analysis.analyze.replay`) and
    its outcome on a :class:`ScoreSheet` with the header's ``pool_target``; each written
    ``pool``, ``mountain``, ``whists`` and the final ``result`` must match the sheet."""
    variant = variant or game_variant(game)
    sheet = ScoreSheet(variant, game.header.get("pool_target"))
    finals, scores = [], []
    for k in range(len(game.deals)):
        if sheet.finished:
            raise game.error(("deals", k), f"the pulka was over after deal {k} (every pool "
                                           f"at {game.header.get('pool_target')})")
        _, final = replay(game.deal_record(k), variant)
        try:
            _record_outcome(sheet, final[0], k)
        except ValueError as exc:
            raise game.error(("deals", k), f"cannot score the deal: {exc}") from None
        finals.append(final)
        score = {"pool": sheet.pool.tolist(), "mountain": sheet.mountain.tolist(),
                 "whists": sheet.whists.tolist()}
        scores.append(score)
        for key in SCORE_FIELDS:
            if key in game.deals[k]:
                _compare(game, ("deals", k, key), game.deals[k][key], score[key])
    if "result" in game.header:
        _compare(game, ("result",), game.header["result"], sheet.settle().tolist())
    return Replayed(finals, sheet, scores)


def _compare(game: GameRecord, path: tuple, written, computed) -> None:
    w = np.asarray(written, dtype=float)
    c = np.asarray(computed, dtype=float)
    if np.abs(w - c).max() > TOLERANCE + 1e-9:
        def show(a):
            return json.dumps(np.round(a, 2).tolist())
        raise game.error(path, f"the written score disagrees with the deals: written "
                               f"{show(w)}, the deals give {show(c)}")


# ---- from a played engine state -----------------------------------------------------


def record_of_state(st, lay: str | None = None) -> dict:
    """The deal record fields of a finished engine state: hands,
    talon, calls, discard, contract, whist calls, ``lay`` when given, and the tricks
    (the players' cards; a talon card the rules lead is not written)."""
    out: dict = {"hands": [format_cards(int(h)) for h in st["dealt"]],
                 "talon": format_cards(int(st["talon"])),
                 "calls": [call_name(int(c)) for c in st["calls"][: int(st["n_calls"])]]}
    kind = int(st["kind"])
    if kind == RASPASY:
        out["talon_first"] = card_name(int(st["talon_first"]))
    else:
        if int(st["discard"]):
            out["discard"] = format_cards(int(st["discard"]))
        out["contract"] = str(Contract(int(st["contract"])))
        if int(st["n_whist"]):
            out["whist"] = [WHIST_CALL_NAMES[int(c)] for c in
                            st["whist_calls"][: int(st["n_whist"])]]
    if lay is not None:
        out["lay"] = lay
    cards = [card_name(int(c)) for c, by in zip(st["history"][: int(st["n_played"])],
                                                 st["history_by"][: int(st["n_played"])],
                                                 strict=True)
             if int(by) != engine.TALON_SLOT]
    size = len(cards) // 10 or 3  # ten tricks: of two cards when Gusarik's dummy sits out
    out["play"] = [cards[i:i + size] for i in range(0, len(cards), size)]
    return out


class RecordingPlayer(BuiltinPlayer):
    """A built-in player that plays open deals card by card (so every card is in the
    history, as a record needs) and notes a lone whister's lay in ``lays``. A policy
    that settles open deals double dummy (the drivers' one solver call) plays a
    double-dummy best card there instead, the lowest on a tie: the same tricks."""

    def __init__(self, policy: str, lays: list[str]) -> None:
        super().__init__(policy)
        self.sees_all = self.double_dummy_open  # the open hands, for the solver
        self.double_dummy_open = False
        self.lays = lays

    def act(self, obs) -> int:
        if self.sees_all and int(obs.phase) == engine.PLAY and int(obs.open):
            return _double_dummy_card(obs.state)
        action = super().act(obs)
        if int(obs.phase) == engine.LAY:
            self.lays.append(("closed", "open")[action])
        return action


def _double_dummy_card(st) -> int:
    """A double-dummy best card for the seat to move in state ``st``: most tricks to
    the declarer when it is his card (fewest on misère), fewest to a defender's."""
    misere = int(st["kind"]) == MISERE_GAME
    declarer = int(st["declarer"])
    trump = int(TRUMP[int(st["contract"])])
    trick = [int(c) for c in st["trick_cards"][: int(st["n_in_trick"])]]
    values = card_values_batch([[int(h) for h in st["hands"][:3]]],
                               trump=None if trump < 0 else trump, leader=int(st["leader"]),
                               declarer=declarer, trick=trick, misere=misere)[0].astype(int)
    legal = np.flatnonzero(values >= 0)
    mover = (int(st["leader"]) + len(trick)) % 3
    sign = 1 if (mover == declarer) != misere else -1
    return int(legal[np.argmax(sign * values[legal])])


def _tidy(figures):
    """Sheet figures as written: whole numbers without a decimal point."""
    if isinstance(figures, list):
        return [_tidy(x) for x in figures]
    return int(figures) if float(figures).is_integer() else figures


def play_recorded(policies: list[str], variant: Variant, dealt, k: int, seed: int, *,
                  sheet: ScoreSheet | None = None) -> tuple[np.void, dict]:
    """Deal ``k`` of ``dealt`` played by built-in players (``policies``: each seat's),
    each keyed by the seed, the deal and his seat, at the ``sheet``'s raspasy step (none:
    a fresh deal): its final state and its deal record's fields."""
    lays: list[str] = []
    players = [RecordingPlayer(policies[s], lays) for s in range(3)]
    for s, p in enumerate(players):
        p.start_deal(seat_key(np.uint64(seed), dealt.index[k], s))
    st = play_hand(dealt.hands[k], dealt.talon[k], players, variant,
                   talon_first=dealt.talon_first[k],
                   raspasy_step=0 if sheet is None else sheet.raspasy_step, sheet=sheet)
    return st, record_of_state(st, lays[0] if lays else None)


def play_game(policies: list[str], deals: int, *, seed: int = 0,
              pool_target: int | None = None, names: list[str] | None = None,
              variant: str = "sochi") -> GameRecord:
    """A game record of a pulka played by built-in players (``policies``: each place's
    ``random``, ``heuristic`` or ``pimc``) through the Python driver: the first
    ``deals`` deals of the deal stream of ``seed`` (fewer if the pulka ends at
    ``pool_target``), each player keyed by the seed, the deal and his seat; the sheet is
    written after every deal and its settlement as the ``result``.

    >>> game = play_game(["random"] * 3, 2, seed=1)
    >>> len(game.deals), replay_game(game).sheet.deals
    (2, 2)
    """
    rules = get_variant(variant)
    header: dict = {"variant": variant, "names": list(names or [f"player {p}"
                                                                for p in range(3)])}
    if pool_target is not None:
        header["pool_target"] = pool_target
    sheet = ScoreSheet(rules, pool_target)
    dealt = deal_stream(deals, seed=seed)
    records: list[dict] = []
    for k in range(deals):
        if sheet.finished:
            break
        st, record = play_recorded([policies[place_of(k, s)] for s in range(3)], rules,
                                   dealt, k, seed, sheet=sheet)
        records.append({"deal": k + 1, **record})
        _record_outcome(sheet, st, k)
    game = GameRecord(header, records)
    score = replay_game(game)
    for d, written in zip(records, score.scores, strict=True):
        d.update({key: _tidy(v) for key, v in written.items()})
    game.header["result"] = [round(float(x), 2) for x in score.sheet.settle()]
    return game


# ---- analysing -----------------------------------------------------------------------

#: The decision types of a game's report, in order.
DECISION_TYPES = ("bid", "how high to compete", "talon and discard", "contract", "whist call",
                  "opening lead", "card play", "misère catching")


def decision_types(frame: pl.DataFrame, misere_declarer: int | None) -> pl.Series:
    """The report's type of each row of one deal's :func:`analyze` frame: the first call
    (``bid``), how high to compete (``max_bid``), the discard, the contract, the whist
    calls and the lay (``whist call``), the first card of the deal, a misère catcher's
    card and every other card."""
    def kind(row: dict) -> str:
        d = row["decision"]
        if d == "card":
            if row["field"] == "play[0][0]":
                return "opening lead"
            if misere_declarer is not None and row["plays_for"] != misere_declarer:
                return "misère catching"
            return "card play"
        return {"call": "bid", "max_bid": "how high to compete",
                "discard": "talon and discard", "contract": "contract",
                "whist": "whist call", "lay": "whist call"}[d]

    return pl.Series("type", [kind(r) for r in frame.iter_rows(named=True)], dtype=pl.Utf8)


def analyze_game(game: GameRecord, *, deals: int = GAME_DEALS, seed: int = 0,
                 policy: str = "heuristic", condition: str = "record",
                 progress: Callable[[int, int, int], None] | None = None) -> pl.DataFrame:
    """Every deal of ``game`` analysed by :func:`~prefstats.analysis.analyze.analyze`
    (``deals`` rollout deals per call decision; each deal's seed ``seed + k``), one
    frame: its columns plus ``deal`` (from 1), ``player`` (the place deciding),
    ``name`` and ``type`` (:data:`DECISION_TYPES`). ``progress(deal, done, total)``
    follows the work of each deal.

    Each deal is valued as a fresh deal: the raspasy progression and a raised lowest bid
    carried from the deals before it are not in its rollouts.
    """
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise OptionError(f"deals must be at least 1, got {deals!r}")
    variant = game_variant(game)
    replayed = replay_game(game, variant)  # the whole record is checked before any rollout
    names = game.names()
    frames = []

    def deal_progress(k: int) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, total: progress(k + 1, done, total)

    for k, final in enumerate(replayed.finals):
        frame = analyze(game.deal_record(k), variant, deals=deals, seed=seed + k,
                        policy=policy, condition=condition, progress=deal_progress(k))
        st = final[0]
        misere = int(st["declarer"]) if int(st["kind"]) == MISERE_GAME else None
        players = [place_of(k, s) for s in frame["seat"].to_list()]
        frames.append(frame.with_columns(
            pl.lit(k + 1, dtype=pl.Int64).alias("deal"),
            pl.Series("player", players, dtype=pl.Int64),
            pl.Series("name", [names[p] for p in players], dtype=pl.Utf8),
            decision_types(frame, misere)))
        if progress is not None:
            progress(k + 1, 1, 1)
    front = ["deal", "player", "name", "type"]
    out = pl.concat(frames, how="vertical")
    return out.select(front + [c for c in out.columns if c not in front])


def player_losses(frame: pl.DataFrame, names: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per player and decision type, then per player: the decisions analysed (each a
    real choice: more than one legal option), the whists lost and the mean loss per
    decision. A rollout row's loss is an estimate (``loss_se``); rows not analysed
    are not counted."""
    valued = frame.filter(pl.col("loss").is_not_null())
    order = {t: i for i, t in enumerate(DECISION_TYPES)}
    by_type = (valued.group_by("player", "type")
               .agg(pl.len().alias("decisions"), pl.col("loss").sum().alias("loss"))
               .with_columns((pl.col("loss") / pl.col("decisions")).alias("mean_loss"),
                             pl.col("type").replace_strict(order, return_dtype=pl.Int64)
                             .alias("_order"))
               .sort("player", "_order").drop("_order"))
    by_type = by_type.with_columns(pl.col("player").replace_strict(
        dict(enumerate(names)), return_dtype=pl.Utf8).alias("name")).select(
        "player", "name", "type", "decisions", "loss", "mean_loss")
    totals = (valued.group_by("player")
              .agg(pl.len().alias("decisions"), pl.col("loss").sum().alias("loss"))
              .with_columns((pl.col("loss") / pl.col("decisions")).alias("mean_loss")))
    base = pl.DataFrame({"player": list(range(3)), "name": names},
                        schema={"player": pl.Int64, "name": pl.Utf8})
    totals = base.join(totals, on="player", how="left").with_columns(
        pl.col("decisions").fill_null(0), pl.col("loss").fill_null(0.0))
    return by_type, totals


def score_table(game: GameRecord, replayed: Replayed) -> pl.DataFrame:
    """The sheet after each deal, one row per deal and place."""
    rows = []
    for k, (score, final) in enumerate(zip(replayed.scores, replayed.finals, strict=True)):
        st = final[0]
        kind = engine.KINDS[int(st["kind"])]
        what = kind if kind == "raspasy" else (
            f"{game.names()[place_of(k, int(st['declarer']))]} {Contract(int(st['contract']))}")
        for p in range(3):
            rows.append({"deal": k + 1, "deal_was": what, "player": p,
                         "name": game.names()[p], "pool": score["pool"][p],
                         "mountain": score["mountain"][p],
                         "whists_written": float(sum(score["whists"][p])),
                         "whists_against": float(sum(r[p] for r in score["whists"]))})
    return pl.DataFrame(rows)
