"""A whole game's figures from its analysed decisions (:func:`~prefstats.analysis.game.
analyze_game`): each player's performance rating, opening-lead accuracy, luck against
his own and the others' decisions, and the game's worst mistakes (``docs/ANALYZE.md``,
"A whole game").

- **Rating**: the mean charged loss per decision that had a real choice (more than one
  legal option, and options that were not all worth the same) -- a call's, or a card's
  or discard's when the mistake was knowable (it lost on average over the layouts the
  player could not rule out, :mod:`prefstats.analysis.layouts`); a hindsight mistake,
  seen only double dummy, is not charged -- each decision's loss capped at
  :attr:`RatingScale.cap` whists -- one decisive trick of the cheapest game -- so that
  a misère card (its tricks cost the declarer's side tens of whists each under
  double-dummy valuation) counts as one bad mistake, not as a game's worth of them;
  times :attr:`RatingScale.scale` (whists per 100 decisions). Lower is better. Bands
  (``strong``, ``average``, ``beginner``) are the game's own table's, from
  ``data/rating-<preset>-<players>.toml``, written by ``prefstats fit rating`` from
  simulated deals of the search, heuristic and random players at that table.
- **Lead accuracy**: the share of a player's opening leads (the first card of a played
  game) that were double-dummy best, and the share that agree with the search player
  (``pimc``) at the same position.
- **Luck, own decisions, the others' decisions**: each deal's change of the settled
  sheet is split three ways. Luck is what a reference player (the built-in heuristic at
  all three seats, with the same cards, seat and sheet) would have scored. His own
  decisions' value is what he scores when he makes his recorded decisions and the
  reference plays the other seats (each of his decisions as recorded while the deal is
  still at a recorded position, the reference's once it has left the record), less the
  luck. The rest -- the result less both -- is what the other players' decisions gave
  him. All three sum over the deals, and the sheet's settlement after deal k
  telescopes, so luck + own + others is the settled result exactly.
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
import polars as pl

from prefstats.analysis.analyze import replay
from prefstats.analysis.game import (
    RecordingPlayer,
    _double_dummy_card,
    _record_outcome,
    game_variant,
    place_of,
    player_losses,
    replay_game,
    score_table,
)
from prefstats.analysis.game_record import GameRecord
from prefstats.analysis.record import Step
from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.cards import card_name, format_cards
from prefstats.game.codes import GAME, W_WHIST
from prefstats.game.contracts import parse_contract
from prefstats.game.scoring import ScoreSheet, deal_values, score_batch
from prefstats.game.variants import Variant, get_variant
from prefstats.players.base import Observation
from prefstats.players.builtin import POLICIES, BuiltinPlayer, seat_key
from prefstats.sim.play import play_hand

#: Options closer in value than this (whists) are worth the same.
EQUAL = 1e-9
#: Standard errors from zero an estimated gain must be before it is advice: a guide's
#: rule, or a rollout-valued mistake given to train.
DECISIVE_SE = 3.0
#: Whists per 100 decisions: a rating is this times the mean capped loss.
SCALE = 100.0


def rating_file(variant: Variant) -> str:
    """The name of the calibration ``prefstats fit rating`` writes for a table."""
    return f"rating-{variant.base}-{variant.players}.toml"


def decisive_trick(variant: Variant) -> float:
    """Whists to the declarer (seat 0) between 6♠ made and 6♠ one down, whisted."""
    six = parse_contract("6♠").code
    if variant.has_dummy:  # one defender, with the dummy's cards
        tricks, where = ([6, 4], [5, 5]), {"defender": 1}
    else:  # with four the dealer, the last seat, sits out and takes no trick
        rest = [0] * (variant.players - 3)
        tricks = ([6, 2, 2, *rest], [5, 2, 3, *rest])
        where = {"dealer": variant.players - 1} if variant.dealer_sits_out else {}
    made, down = (deal_values(variant, *score_batch(variant, GAME, 0, six, [t], W_WHIST,
                                                    W_WHIST, **where))[0, 0]
                  for t in tricks)
    return float(made - down)


@dataclass(frozen=True)
class RatingScale:
    """How a rating is made and read: each decision's loss capped at ``cap`` whists,
    the mean times ``scale``; ``bands`` (name, highest rating) from the best up, the
    last open-ended, none for a table never calibrated; ``calibration`` the mean rating
    of each calibrated player."""

    cap: float
    scale: float
    bands: tuple[tuple[str, float], ...]
    calibration: dict
    source: str

    def band(self, rating: float | None) -> str | None:
        if rating is None or not self.bands:
            return None
        for name, top in self.bands:
            if rating <= top:
                return name
        return self.bands[-1][0]


def rating_scale(variant: Variant) -> RatingScale:
    """The shipped calibration of ``variant``'s table (its preset and players); a table
    never calibrated rates with its own cap and no bands."""
    return _table_scale(variant.base, variant.players)


@cache
def _table_scale(base: str, players: int) -> RatingScale:
    table = get_variant(base, players=players)
    path = resources.files("prefstats.analysis.data").joinpath(rating_file(table))
    if not path.is_file():
        return RatingScale(decisive_trick(table), SCALE, (), {}, "")
    data = tomllib.loads(path.read_text("utf-8"))
    bands = tuple((b["name"], float(b["up_to"])) for b in data["bands"])
    return RatingScale(float(data["cap"]), float(data["scale"]), bands,
                       data.get("calibration", {}), data.get("source", ""))


def capped_choices(frame: pl.DataFrame, cap: float) -> pl.DataFrame:
    """The real choices, each one's ``charged`` loss capped at ``cap`` (``capped``)."""
    return real_choices(frame).with_columns(pl.col("charged").clip(0, cap).alias("capped"))


def real_choices(frame: pl.DataFrame) -> pl.DataFrame:
    """The valued rows whose options were not all worth the same (a forced decision --
    one legal option -- is not a row of the analysis at all)."""
    values = pl.col("alternatives").list.eval(pl.element().struct.field("value"))
    return frame.filter(pl.col("loss").is_not_null()).filter(
        (values.list.max() - values.list.min()) > EQUAL)


def player_ratings(frame: pl.DataFrame, names: list[str], scale: RatingScale) -> pl.DataFrame:
    """Per place: ``choices`` (decisions with a real choice), ``capped_loss`` (their
    summed ``charged`` loss -- a card's or discard's only when knowable -- each capped),
    ``rating`` and its ``band``; no choices, no rating."""
    per = capped_choices(frame, scale.cap).group_by("player").agg(pl.len().alias("choices"),
                                      pl.col("capped").sum().alias("capped_loss"))
    base = pl.DataFrame({"player": list(range(3)), "name": names},
                        schema={"player": pl.Int64, "name": pl.Utf8})
    out = base.join(per, on="player", how="left").with_columns(
        pl.col("choices").fill_null(0).cast(pl.Int64),
        pl.col("capped_loss").fill_null(0.0))
    rating = [None if n == 0 else scale.scale * c / n
              for n, c in zip(out["choices"], out["capped_loss"], strict=True)]
    return out.with_columns(pl.Series("rating", rating, dtype=pl.Float64),
                            pl.Series("band", [scale.band(r) for r in rating], dtype=pl.Utf8))


def deal_steps(game: GameRecord, variant: Variant | None = None) -> list[list[Step]]:
    """Every deal's recorded decisions (:func:`~prefstats.analysis.analyze.replay`)."""
    variant = variant or game_variant(game)
    return [replay(game.deal_record(k), variant)[0] for k in range(len(game.deals))]


def search_choice(step: Step, variant: Variant, key: int) -> int:
    """What the search player (``pimc``) decides at ``step``, keyed by ``key``."""
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    engine.observe(step.state.copy()[0], engine.rules_array(variant), obs[0])
    player = BuiltinPlayer("pimc")
    player.start_deal(key)
    return int(player.act(Observation(obs[0].copy(), variant)))


def lead_table(game: GameRecord, frame: pl.DataFrame, steps: list[list[Step]], *,
               search: bool = True, seed: int = 0) -> pl.DataFrame:
    """One row per opening lead valued double dummy: who led (``player``), the card
    (``done``), ``best`` (double dummy), whether it was among the double-dummy best
    (``dd_best``), and with ``search`` the search player's lead at the same position
    (``search``), whether the player's lead agrees with it and whether it was
    double-dummy best."""
    variant = game_variant(game)
    leads = frame.filter((pl.col("type") == "opening lead")
                         & (pl.col("method") == "double dummy"))
    rows = []
    for r in leads.iter_rows(named=True):
        values = {a["option"]: a["value"] for a in r["alternatives"]}
        top = max(values.values())
        row = {"deal": r["deal"], "player": r["player"], "name": r["name"], "done": r["done"],
               "best": r["best"], "dd_best": values[r["done"]] >= top - EQUAL}
        if search:
            k = r["deal"] - 1
            step = steps[k][r["step"]]
            card = card_name(search_choice(step, variant,
                                           int(seat_key(np.uint64(seed), k, step.seat))))
            row.update(search=card, agrees=card == r["done"],
                       search_dd_best=values[card] >= top - EQUAL)
        rows.append(row)
    schema = {"deal": pl.Int64, "player": pl.Int64, "name": pl.Utf8, "done": pl.Utf8,
              "best": pl.Utf8, "dd_best": pl.Boolean}
    if search:
        schema |= {"search": pl.Utf8, "agrees": pl.Boolean, "search_dd_best": pl.Boolean}
    return pl.DataFrame(rows, schema=schema, orient="row")


def lead_accuracy(leads: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Per place: ``leads``, the share double-dummy best (``lead_dd``) and, when the
    search player was asked, the share agreeing with it (``lead_search``) and the
    search player's own double-dummy share on the same positions (``search_dd``)."""
    aggs = [pl.len().alias("leads"), pl.col("dd_best").mean().alias("lead_dd")]
    if "agrees" in leads.columns:
        aggs += [pl.col("agrees").mean().alias("lead_search"),
                 pl.col("search_dd_best").mean().alias("search_dd")]
    per = leads.group_by("player").agg(aggs)
    base = pl.DataFrame({"player": list(range(3)), "name": names},
                        schema={"player": pl.Int64, "name": pl.Utf8})
    return base.join(per, on="player", how="left").with_columns(
        pl.col("leads").fill_null(0).cast(pl.Int64))


def _settled(sheet: ScoreSheet) -> np.ndarray:
    """The sheet's settlement as it stands, the race bonuses once it is over."""
    return sheet.value() + sheet.race_bonuses()


class ScriptedPlayer(RecordingPlayer):
    """The reference player at a seat that makes the recorded decisions of ``script``
    (a position's key, :func:`position_key`, to the recorded action) while the deal is
    at a recorded position: off the record, the reference, playing open deals as
    :func:`~prefstats.analysis.game.play_game`'s players do (double dummy, card by
    card), so an empty script plays as the player who made the records."""

    def __init__(self, policy: str, script: dict[tuple, int]) -> None:
        super().__init__(policy, [])
        self.script = script
        self.open_double_dummy = self.sees_all
        self.sees_all = True  # the whole state: where the deal is against the record

    def act(self, obs) -> int:
        st = obs.state
        action = self.script.get(position_key(st))
        if action is not None and _legal(action, int(obs.record["legal"]), int(st["phase"])):
            return action
        if self.open_double_dummy and int(st["phase"]) == engine.PLAY and int(st["open"]):
            return _double_dummy_card(st)
        return BuiltinPlayer.act(self, obs)


def _legal(action: int, legal: int, phase: int) -> bool:
    """Whether a recorded action is legal where it is asked again (a raised lowest bid
    carried from the deals before may forbid a call of a record analysed as fresh)."""
    if phase == engine.DISCARD:
        return action & ~legal == 0
    return bool(legal >> action & 1)


def position_key(st) -> tuple:
    """Where a deal stands: everything decided so far and who decides next (not the
    sheet's context -- lowest bid level, raspasy step, bombs -- a fresh replay lacks)."""
    n, w, h = int(st["n_calls"]), int(st["n_whist"]), int(st["n_played"])
    return (int(st["phase"]), int(st["controller"]), bytes(st["calls"][:n]),
            int(st["declarer"]), int(st["contract"]), int(st["discard"]),
            bytes(st["whist_calls"][:w].astype(np.int8)), bool(st["open"]), int(st["dark"]),
            int(st["blind"]), bytes(st["history"][:h].astype(np.int8)))


def result_parts(game: GameRecord, finals: list[np.ndarray], *, reference: str = "heuristic",
                 seed: int = 0) -> pl.DataFrame:
    """One row per deal and place: ``score`` (the settled sheet after the deal),
    ``result`` (the deal's change of it), ``luck`` (the change had the ``reference``
    player sat at all three seats with the same cards, on the same sheet), ``own``
    (the change with the place's recorded decisions against the reference, less the
    luck) and ``others`` (``result - luck - own``: what the other places' decisions
    gave him). Summed over the deals, luck + own + others = the settled result."""
    if reference not in POLICIES:
        raise OptionError(f"reference must be one of {', '.join(POLICIES)}, got {reference!r}")
    variant = game_variant(game)
    sheet = ScoreSheet(variant, game.header.get("pool_target"))
    names = game.names()
    rows = []
    for k, final in enumerate(finals):
        st = final[0]
        before = _settled(sheet)
        steps = replay(game.deal_record(k), variant)[0]

        def change(scripted: int | None, k=k, st=st, steps=steps, before=before
                   ) -> np.ndarray:
            """The deal played by the reference, ``scripted`` seat making its recorded
            decisions, scored on a copy of the sheet."""
            script = {position_key(s.state[0]): s.action for s in steps
                      if s.seat == scripted}
            players = [ScriptedPlayer(reference, script if s == scripted else {})
                       for s in range(3)]
            for s, player in enumerate(players):
                player.start_deal(seat_key(np.uint64(seed), k, s))
            other = copy.deepcopy(sheet)
            _record_outcome(other, play_hand_reference(st, players, variant, sheet), k)
            return _settled(other) - before

        luck = change(None)
        own = np.zeros(3)
        for s in range(3):
            own[place_of(k, s)] = (change(s) - luck)[place_of(k, s)]
        _record_outcome(sheet, st, k)
        after = _settled(sheet)
        for p in range(3):
            result = float(after[p] - before[p])
            rows.append({"deal": k + 1, "player": p, "name": names[p],
                         "score": float(after[p]), "result": result,
                         "luck": float(luck[p]), "own": float(own[p]),
                         "others": result - float(luck[p]) - float(own[p])})
    return pl.DataFrame(rows)


def play_hand_reference(st, players, variant: Variant, sheet: ScoreSheet):
    """The deal of final state ``st`` (its cards as dealt, its talon) played anew by
    ``players`` at the sheet's raspasy step."""
    return play_hand([int(h) for h in st["dealt"][:3]], int(st["talon"]), players, variant,
                     talon_first=int(st["talon_first"]), raspasy_step=sheet.raspasy_step,
                     sheet=sheet)


def luck_totals(per_deal: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Per place: the settled ``result`` and its ``luck``, ``own`` and ``others`` parts."""
    per = per_deal.group_by("player").agg(pl.col("result").sum(), pl.col("luck").sum(),
                                          pl.col("own").sum(), pl.col("others").sum())
    base = pl.DataFrame({"player": list(range(3)), "name": names},
                        schema={"player": pl.Int64, "name": pl.Utf8})
    return base.join(per, on="player", how="left")


def worst_mistakes(frame: pl.DataFrame, steps: list[list[Step]], n: int = 10,
                   per_player: int = 3, *, hindsight: bool = False) -> pl.DataFrame:
    """The ``n`` largest charged losses of the game (a call's, a knowable card's or
    discard's) and each player's ``per_player`` largest, largest first: where (deal,
    field), who, the position (the deciding hand and the cards on the table), the choice
    made, the better one, the ``gain`` in whists had he made it (a card's on average over
    the layouts he could not rule out) and the double-dummy gain (``dd_gain``). With
    ``hindsight``, the largest hindsight mistakes instead: seen only double dummy, not
    charged, their ``gain`` the double-dummy one."""
    if hindsight:
        lost = frame.filter(pl.col("verdict") == "hindsight").with_columns(
            pl.col("loss").alias("gain"), pl.col("best").alias("better"),
            pl.lit(0.0).alias("gain_se"))
    else:
        card = pl.col("verdict") == "knowable"
        lost = frame.filter(pl.col("charged") > EQUAL).with_columns(
            pl.col("charged").alias("gain"),
            pl.when(card).then(pl.col("layout_best")).otherwise(pl.col("best")).alias("better"),
            pl.when(card).then(pl.col("layout_loss_se")).otherwise(pl.col("loss_se"))
            .alias("gain_se"))
    lost = lost.filter(pl.col("gain") > EQUAL).sort("gain", descending=True)
    keep = lost.head(n).select("deal", "step", "decision")
    for p in range(3):
        keep = pl.concat([keep, lost.filter(pl.col("player") == p).head(per_player)
                          .select("deal", "step", "decision")])
    worst = lost.join(keep.unique(), on=["deal", "step", "decision"], how="semi").sort(
        "gain", descending=True)
    rows = []
    for r in worst.iter_rows(named=True):
        st = steps[r["deal"] - 1][r["step"]].state[0]
        trick = [card_name(int(c)) for c in st["trick_cards"][: int(st["n_in_trick"])]] \
            if int(st["phase"]) == engine.PLAY else []
        rows.append({"deal": r["deal"], "player": r["player"], "name": r["name"],
                     "type": r["type"], "field": r["field"],
                     "hand": format_cards(int(st["hands"][r["seat"]])),
                     "table": " ".join(trick), "done": r["done"], "best": r["better"],
                     "gain": r["gain"], "gain_se": r["gain_se"],
                     "dd_gain": r["loss"] if r["method"] == "double dummy" else None,
                     "layouts": r["layouts"], "method": r["method"],
                     "verdict": r["verdict"]})
    schema = {"deal": pl.Int64, "player": pl.Int64, "name": pl.Utf8, "type": pl.Utf8,
              "field": pl.Utf8, "hand": pl.Utf8, "table": pl.Utf8, "done": pl.Utf8,
              "best": pl.Utf8, "gain": pl.Float64, "gain_se": pl.Float64,
              "dd_gain": pl.Float64, "layouts": pl.Int64, "method": pl.Utf8,
              "verdict": pl.Utf8}
    return pl.DataFrame(rows, schema=schema, orient="row")


def game_tables(game: GameRecord, frame: pl.DataFrame, *, seed: int = 0,
                search: bool = True) -> dict[str, pl.DataFrame]:
    """The tidy tables of an analysed game: ``players`` (per place: the settled result
    and its luck, own and others' parts, the rating and band, lead accuracy, the raw loss),
    ``losses`` (by decision type), ``timeline`` (per deal and place: the settled score
    and the deal's result, luck, own and others' parts), ``score`` (the sheet after each deal),
    ``mistakes`` (charged), ``hindsight`` (seen only double dummy), ``leads`` and
    ``decisions`` (every analysed decision)."""
    names = game.names()
    replayed = replay_game(game)
    steps = deal_steps(game)
    by_type, totals = player_losses(frame, names)
    timeline = result_parts(game, replayed.finals, seed=seed)
    leads = lead_table(game, frame, steps, search=search, seed=seed)
    players = (luck_totals(timeline, names)
               .join(player_ratings(frame, names, rating_scale(game_variant(game)))
                     .drop("name"), on="player")
               .join(lead_accuracy(leads, names).drop("name"), on="player")
               .join(totals.drop("name"), on="player"))
    return {"players": players, "losses": by_type, "timeline": timeline,
            "score": score_table(game, replayed), "mistakes": worst_mistakes(frame, steps),
            "hindsight": worst_mistakes(frame, steps, hindsight=True),
            "leads": leads, "decisions": frame}
