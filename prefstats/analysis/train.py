"""A game's mistakes as training positions: each decision of an analysed game
(:func:`~prefstats.analysis.game.analyze_game`) where the choice made lost whists
against the best option, with what the deciding player could see at that moment -- and
nothing else (``docs/ANALYZE.md``, "Mistakes to train").

The view is the engine's observation (:func:`prefstats.game.engine.observe`): the
player's own cards, the hands the rules lay open to him (a lone whister's open
defence, the misère catchers', the Gusarik dummy), the talon once shown, his own
discard if he declared, every call and whist call, and the cards played so far, trick
by trick. The hidden hands never enter a position.

>>> from prefstats.analysis.game import analyze_game, load_game
>>> game = load_game("examples/pulka.json")
>>> game.deals = game.deals[:2]; del game.header["result"]
>>> doc = train_document(game, analyze_game(game, deals=4), source="pulka.json")
>>> parse_train(dump_train(doc)) == doc
True
>>> all(p["gain"] > 0 for p in doc["positions"])
True
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl

from prefstats.analysis.game import game_variant, place_of
from prefstats.analysis.game_record import GameRecord
from prefstats.analysis.game_stats import DECISIVE_SE, EQUAL, deal_steps
from prefstats.analysis.record import Step, read_text
from prefstats.errors import RecordError
from prefstats.game import engine
from prefstats.game.auction import WHIST_CALL_NAMES, call_name
from prefstats.game.cards import card_name, format_cards
from prefstats.game.contracts import Contract
from prefstats.game.variants import Variant
from prefstats.sim.rollout import best_strains, max_bid_top

#: The ``format`` of a training file, and its ``version``.
FORMAT = "prefstats training positions"
VERSION = 1
#: Fields every position holds.
POSITION_FIELDS = ("id", "deal", "field", "player", "name", "type", "decision", "seat",
                   "plays_for", "seats", "view", "question", "options", "done", "best",
                   "gain", "gain_se", "method", "values")
QUESTIONS = {"call": "What is your first call?",
             "max_bid": "How high do you compete: the highest bid you make, in {strain} "
                        "(your hand's best strain), before you pass?",
             "discard": "Which two cards do you put away?",
             "contract": "Which contract do you name?",
             "whist": "What is your whist call?",
             "card": "Which card do you play?"}


def _seat_cards(pairs) -> list[list]:
    """``[seat, card]`` for each (card, seat) of the history; seat 3 a talon card."""
    return [[int(by), card_name(int(c))] for c, by in pairs]


def position_view(steps: list[Step], i: int, variant: Variant) -> dict:
    """What the seat deciding at ``steps[i]`` (a deal's steps) may see there, as the
    rules show it."""
    step = steps[i]
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    engine.observe(step.state.copy()[0], engine.rules_array(variant), obs[0])
    o = obs[0]
    seat = int(o["seat"])
    phase = int(o["phase"])
    before = steps[:i]
    n_play = int(o["n_played"])
    played = list(zip(o["history"][:n_play], o["history_by"][:n_play], strict=True))
    current = played[len(played) - int(o["n_in_trick"]):] if phase == engine.PLAY else []
    tricks: list[list] = []
    trick: list = []
    for card, by in played[: len(played) - len(current)]:
        trick.append((card, by))
        if sum(int(b) != engine.TALON_SLOT for _, b in trick) == 3:
            tricks.append(_seat_cards(trick))
            trick = []
    whists = [[s.seat, WHIST_CALL_NAMES[s.action]] for s in before if s.phase == engine.WHIST]
    whists += [[None, WHIST_CALL_NAMES[int(c)]]  # made by the engine: a forced whist call
               for c in o["whist_calls"][len(whists): int(o["n_whist"])]]
    named = int(o["declarer"]) >= 0 and phase in (engine.WHIST, engine.LAY, engine.PLAY) \
        and int(o["kind"]) != engine.RASPASY
    return {
        "phase": engine.PHASES[phase],
        "hand": format_cards(int(o["hand"])),
        "seen": [format_cards(int(o["visible"][s])) if s != seat and int(o["visible"][s])
                 else None for s in range(3)],
        "talon": format_cards(int(o["talon"])) if int(o["talon"]) else None,
        "discard": format_cards(int(o["discard"])) if int(o["discard"]) else None,
        "calls": [[s.seat, call_name(s.action)] for s in before if s.phase == engine.AUCTION],
        "declarer": int(o["declarer"]) if int(o["declarer"]) >= 0 else None,
        "contract": str(Contract(int(o["contract"]))) if named else None,
        "whist": whists,
        "open": bool(o["open"]),
        "tricks": tricks,
        "trick": _seat_cards(current),
        "taken": [int(t) for t in o["tricks"][:3]],
    }


def _question(decision: str, step: Step) -> str:
    if decision != "max_bid":
        return QUESTIONS[decision]
    hand = np.array([int(step.state[0]["dealt"][step.seat])], dtype=np.int64)
    strain = str(Contract(int(max_bid_top(6, int(best_strains(hand, step.seat)[0])))))[1:]
    return QUESTIONS[decision].format(strain=strain)


def train_positions(game: GameRecord, frame: pl.DataFrame,
                    steps: list[list[Step]] | None = None) -> list[dict]:
    """Every decision of ``frame`` (the game's :func:`analyze_game` frame) with a
    charged loss, as a training position, in the order of the game: a call whose
    rollout loss is at least :data:`DECISIVE_SE` standard errors above zero (a smaller
    one may be the rollout's noise, and the position would teach it), a card or discard
    whose mistake was knowable (its loss over the layouts the player could not rule out,
    at least as many standard errors); a hindsight mistake, seen only double dummy,
    would teach a guess."""
    variant = game_variant(game)
    steps = steps if steps is not None else deal_steps(game, variant)
    names = game.names()
    out = []
    lost = frame.filter((pl.col("charged") > EQUAL) & (
        (pl.col("method") != "rollout") | (pl.col("loss") >= DECISIVE_SE * pl.col("loss_se"))
    )).sort("deal", "step", maintain_order=True)
    for r in lost.iter_rows(named=True):
        k = r["deal"] - 1
        rollout = r["method"] == "rollout"
        layouts = r["layouts"] is not None
        out.append({
            "id": f"d{r['deal']}-s{r['step']}-{r['decision']}",
            "deal": r["deal"], "field": r["field"], "player": r["player"], "name": r["name"],
            "type": r["type"], "decision": r["decision"], "seat": r["seat"],
            "plays_for": r["plays_for"],
            "seats": [names[place_of(k, s)] for s in range(3)],
            "view": position_view(steps[k], r["step"], variant),
            "question": _question(r["decision"], steps[k][r["step"]]),
            "options": [{"option": a["option"], "value": a["value"]}
                        for a in r["layout_alternatives" if layouts else "alternatives"]],
            "done": r["done"], "best": r["layout_best" if layouts else "best"],
            "gain": r["charged"],
            "gain_se": r["loss_se"] if rollout else r["layout_loss_se"] if layouts else 0.0,
            "method": r["method"],
            "values": (f"whists to you, the mean of {r['n']} rollout deals ({r['note']})"
                       if rollout else
                       f"whists to your side, the mean over {r['layout_note']} you could "
                       f"not rule out, each played double dummy from here" if layouts else
                       "whists to your side, double dummy: every hand played perfectly "
                       "from here"),
        })
    return out


def train_document(game: GameRecord, frame: pl.DataFrame, *, source: str,
                   analysis: dict | None = None,
                   steps: list[list[Step]] | None = None) -> dict:
    """The training file's content: the game (``source``, variant, names), the
    ``analysis`` settings it was valued with, and the positions."""
    return {"format": FORMAT, "version": VERSION, "game": source,
            "variant": game.header.get("variant", "sochi"), "names": game.names(),
            "analysis": dict(analysis or {}),
            "positions": train_positions(game, frame, steps)}


def dump_train(doc: dict) -> str:
    """The JSON text of a training document, one position to a block."""
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def parse_train(text: str, source: str = "train.json") -> dict:
    """A training document from its JSON text, its shape checked."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source} line {exc.lineno}: not valid JSON: {exc.msg}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RecordError(f"{source}: not a training file (\"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise RecordError(f"{source}: version {doc.get('version')!r}; this prefstats reads "
                          f"version {VERSION}")
    if not isinstance(doc.get("positions"), list):
        raise RecordError(f"{source}: \"positions\" must be a list")
    for i, p in enumerate(doc["positions"]):
        missing = [f for f in POSITION_FIELDS if not isinstance(p, dict) or f not in p]
        if missing:
            raise RecordError(f"{source}: position {i + 1} lacks {', '.join(missing)}")
    return doc


def load_train(path: str | Path) -> dict:
    """The training document at ``path`` (:func:`parse_train`)."""
    path = Path(path)
    return parse_train(read_text(path, "training file"), path.name)
