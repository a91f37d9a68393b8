"""A deal record (the JSON format of ``docs/ANALYZE.md``): read with the line of every
value, and replayed through the hand engine, which refuses anything impossible;
:class:`~prefstats.errors.RecordError` names the record's field and line."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from prefstats.errors import RecordError
from prefstats.game import engine
from prefstats.game.auction import WHIST_CALL_NAMES, call_name, parse_call
from prefstats.game.cards import card_counts, card_name, cards_of, format_cards, parse_cards
from prefstats.game.contracts import MISERE, Contract, parse_contract
from prefstats.game.variants import Variant, get_variant
from prefstats.sim.play import new_state

#: Fields of a deal record; anything else is refused (a misspelt field would be lost).
FIELDS = ("variant", "players", "names", "dealer", "comment", "hands", "talon",
          "talon_first", "calls", "discard", "contract", "whist", "lay", "play")
LAY_NAMES = ("closed", "open")
#: The dark declarer's switch (B:414) by its decision: a record names it as the
#: contract, "misère", which he then plays in the light.
SWITCH_NAMES = ("keep dark", "light misère")
DECISION_OF_PHASE = {engine.AUCTION: "call", engine.DISCARD: "discard",
                     engine.CONTRACT: "contract", engine.WHIST: "whist", engine.LAY: "lay",
                     engine.SWITCH: "switch", engine.PLAY: "card"}


# ---- reading a record ----------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")


def value_positions(text: str) -> dict[tuple, int]:
    """The offset in ``text`` (valid JSON) where each value starts, by its path of keys
    and list indices."""
    out: dict[tuple, int] = {}
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        return _WS.match(text, i).end()  # type: ignore[union-attr]  # matches anywhere

    def value(i: int, path: tuple) -> int:
        i = skip(i)
        out[path] = i
        if text[i] not in "{[":
            return decoder.raw_decode(text, i)[1]
        close = "}" if text[i] == "{" else "]"
        i = skip(i + 1)
        n = 0
        while text[i] != close:
            if close == "}":
                key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
                i = value(skip(i) + 1, (*path, key))
            else:
                i = value(i, (*path, n))
            n += 1
            i = skip(i)
            if text[i] == ",":
                i = skip(i + 1)
        return i + 1

    value(0, ())
    return out


def field_name(path: tuple) -> str:
    """``("play", 3, 1)`` as ``play[3][1]``."""
    head, *rest = path or ("record",)
    return str(head) + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in rest)


@dataclass
class DealRecord:
    """One played deal as read from JSON: ``data`` and the line of each value."""

    data: dict
    source: str = "record"
    lines: Mapping[tuple, int] | None = None

    def where(self, path: tuple) -> str:
        """``deal.json line 12, play[3][1]``."""
        line = self.line(path)
        at = f" line {line}" if line is not None else ""
        return f"{self.source}{at}, {field_name(path)}"

    def error(self, path: tuple, message: str) -> RecordError:
        return RecordError(f"{self.where(path)}: {message}")

    def line(self, path: tuple) -> int | None:
        """The line of ``path``, or of its nearest enclosing value (a card inside a
        trick written as one string is on the string's line)."""
        for k in range(len(path), -1, -1):
            if self.lines and path[:k] in self.lines:
                return self.lines[path[:k]]
        return None


def parse_record(text: str, source: str = "record") -> DealRecord:
    """A :class:`DealRecord` from JSON text; a syntax error is a :class:`RecordError`
    naming its line and column.

    >>> import pathlib, prefstats
    >>> path = pathlib.Path(prefstats.__file__).parents[1] / "examples" / "deal.json"
    >>> record = parse_record(path.read_text("utf-8"), str(path))
    >>> len(record.data["hands"])
    3
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source} line {exc.lineno}, column {exc.colno}: not valid JSON: "
                          f"{exc.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{source} line 1: a deal record is a JSON object {{...}}")
    offsets = value_positions(text)
    lines = {path: text.count("\n", 0, pos) + 1 for path, pos in offsets.items()}
    return DealRecord(data, source, lines)


def load_record(path: str | Path) -> DealRecord:
    """Read the deal record at ``path`` (see :func:`parse_record`).

    >>> import pathlib, prefstats
    >>> path = pathlib.Path(prefstats.__file__).parents[1] / "examples" / "deal.json"
    >>> sorted(load_record(path).data)[:3]
    ['calls', 'comment', 'contract']
    """
    path = Path(path)
    return parse_record(read_text(path, "deal record"), path.name)


def read_text(path: Path, what: str) -> str:
    """The text of file ``path``, or a :class:`RecordError` naming it as ``what``."""
    try:
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read the {what}: {exc}") from None


def record_variant(record: DealRecord) -> Variant:
    """The variant a record names (``"variant"``, default ``sochi``; ``"players"``)."""
    name = record.data.get("variant", "sochi")
    players = record.data.get("players")
    if not isinstance(name, str):
        raise record.error(("variant",), f"a preset name such as \"sochi\", got {name!r}")
    if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
        raise record.error(("players",), f"a number of players, got {players!r}")
    try:
        return get_variant(name, players=players)
    except ValueError as exc:
        raise record.error(("variant",), str(exc)) from None


# ---- replaying it --------------------------------------------------------------------


@dataclass
class Step:
    """One recorded decision: where it is in the record, the state before it, the
    seat deciding (``seat``; for an open passer's card the whister) and for whom."""

    path: tuple
    state: np.ndarray  # one-element engine.STATE array, before the decision
    seat: int
    plays_for: int
    action: int
    legal: int

    @property
    def phase(self) -> int:
        return int(self.state[0]["phase"])


def _text(record: DealRecord, path: tuple, value) -> str:
    if not isinstance(value, str):
        raise record.error(path, f"expected text, got {json.dumps(value, ensure_ascii=False)}")
    return value


def _cards(record: DealRecord, path: tuple, value, count: int | None) -> int:
    try:
        mask = parse_cards(_text(record, path, value))
    except ValueError as exc:
        raise record.error(path, f"unknown card: {exc}") from None
    if count is not None and int(card_counts(mask)) != count:
        raise record.error(path, f"expected {count} card{'s' * (count > 1)}, got "
                                 f"{int(card_counts(mask))} ({format_cards(mask) or 'none'})")
    return mask


def _list(record: DealRecord, key: str) -> list:
    value = record.data.get(key, [])
    if not isinstance(value, list):
        raise record.error((key,), f"expected a list, got {json.dumps(value, ensure_ascii=False)}")
    return value


def _start(record: DealRecord) -> np.ndarray:
    """The dealt state, the hands and talon checked card by card."""
    unknown = sorted(set(record.data) - set(FIELDS))
    if unknown:
        raise record.error((unknown[0],), f"unknown field; a record has {', '.join(FIELDS)}")
    if "hands" not in record.data or "talon" not in record.data:
        raise record.error((), "a record needs \"hands\" (three hands, seats 0, 1, 2 from "
                               "the dealer's left) and \"talon\"")
    names = record.data.get("names")
    if names is not None and (not isinstance(names, list) or len(names) != 3
                              or not all(isinstance(n, str) for n in names)):
        raise record.error(("names",), "the three players' names, seats 0, 1, 2 from the "
                                       "dealer's left")
    hands = _list(record, "hands")
    if len(hands) != 3:
        raise record.error(("hands",), f"expected three hands (seats 0, 1, 2 from the "
                                       f"dealer's left), got {len(hands)}")
    seen: dict[int, tuple] = {}
    masks = []
    for path, count in [(("hands", s), 10) for s in range(3)] + [(("talon",), 2)]:
        value = record.data[path[0]] if len(path) == 1 else hands[path[1]]
        mask = _cards(record, path, value, count)
        for c in cards_of(mask):
            if c in seen:
                raise record.error(path, f"repeated card: {card_name(c)} is also in "
                                         f"{field_name(seen[c])}")
            seen[c] = path
        masks.append(mask)
    first = None
    if "talon_first" in record.data:
        first = _cards(record, ("talon_first",), record.data["talon_first"], 1)
        if not first & masks[3]:
            raise record.error(("talon_first",), f"{format_cards(first)} is not a talon card "
                                                 f"({format_cards(masks[3])})")
        first = cards_of(first)[0]
    return new_state(masks[:3], masks[3], talon_first=first)


def _names(mask: int, name: Callable[[int], str]) -> str:
    return ", ".join(name(c) for c in range(64) if mask >> c & 1)


def _call_error(record, path, st, rules, call: int, legal: int) -> RecordError:
    seat = int(st["to_act"])
    if st["phase"] == engine.CONTRACT:
        rank = rules[engine.R_RANK:]
        if call != MISERE and rank[call] < rank[int(st["bid"])]:
            return record.error(path, f"contract below the bid: {Contract(call)} is below "
                                      f"{call_name(int(st['bid']))}")
        return record.error(path, f"{Contract(call)} is not a contract the declarer may "
                                  f"name here; legal: {_names(legal, lambda c: str(Contract(c)))}")
    return record.error(path, f"illegal call: seat {seat} may not say {call_name(call)!r} "
                              f"here; legal: {_names(legal, call_name)}")


def _card_error(record, path, st, card: int, legal: int) -> RecordError:
    seat = int(st["to_act"])
    name = card_name(card)
    if int(st["gone"]) >> card & 1:
        return record.error(path, f"repeated card: {name} was already played")
    holder = [s for s in range(3) if int(st["hands"][s]) >> card & 1]
    if holder and holder[0] != seat:
        return record.error(path, f"wrong turn: {name} is seat {holder[0]}'s card, but seat "
                                  f"{seat} is to play")
    if not holder:
        where = "was discarded" if int(st["discard"]) >> card & 1 else "is in the talon"
        return record.error(path, f"card not in the hand: {name} {where}, seat {seat} is "
                                  f"to play")
    return record.error(path, f"illegal card: seat {seat} may not play {name} here; legal: "
                              f"{_names(legal, card_name)}")


def replay(record: DealRecord, variant: Variant) -> tuple[list[Step], np.ndarray]:
    """Every recorded decision (:class:`Step`) and the final state, replayed through the
    engine; anything missing, left over or illegal raises :class:`RecordError`.

    >>> import pathlib, prefstats
    >>> path = pathlib.Path(prefstats.__file__).parents[1] / "examples" / "deal.json"
    >>> from prefstats.game.variants import get_variant
    >>> steps, final = replay(load_record(path), get_variant("sochi"))
    >>> len(steps) > 30, bool((final["phase"] == engine.DONE).all())
    (True, True)
    """
    state = _start(record)
    st = state[0]
    rules = engine.rules_array(variant)
    calls, whists, tricks = _list(record, "calls"), _list(record, "whist"), _list(record, "play")
    cards = []
    for t, trick in enumerate(tricks):
        if isinstance(trick, str):
            cards += [((("play", t, j), j), c) for j, c in enumerate(trick.split())]
        elif isinstance(trick, list):
            cards += [((("play", t, j), j), c) for j, c in enumerate(trick)]
        else:
            raise record.error(("play", t), "a trick is a list of cards in playing order")
    used = {"calls": 0, "whist": 0, "play": 0}
    singles = {"discard": False, "contract": False, "lay": False}
    steps: list[Step] = []
    while st["phase"] != engine.DONE:
        phase = int(st["phase"])
        legal = int(engine.legal_mask(st, rules))
        if phase == engine.PLAY:
            action, path = _next_card(record, st, cards, used, tricks)
        elif phase in (engine.AUCTION, engine.WHIST):
            key, names = ("calls", calls) if phase == engine.AUCTION else ("whist", whists)
            if used[key] == len(names):
                if phase == engine.WHIST and not legal & (legal - 1):  # a whist that must be
                    engine.apply(st, rules, engine.forced(st, rules))
                    continue
                raise record.error((key,), f"the record ends after {len(names)} "
                                           f"{'calls' if key == 'calls' else 'whist calls'}; "
                                           f"seat {int(st['to_act'])} is to speak next")
            path = (key, used[key])
            used[key] += 1
            action = _call(record, path, names[path[1]], phase)
        elif phase == engine.SWITCH:  # a dark bid whose contract is misère switched
            path = ("contract",)
            switched = ("contract" in record.data
                        and _single(record, "contract", record.data["contract"]) == MISERE)
            singles["contract"] |= switched
            action = engine.LIGHT_MISERE if switched else engine.KEEP_DARK
        else:
            key = {engine.DISCARD: "discard", engine.CONTRACT: "contract", engine.LAY: "lay"}[phase]
            path = (key,)
            if key not in record.data:
                raise record.error((), f"the record has no \"{key}\": the declarer "
                                       f"(seat {int(st['declarer'])}) makes it here")
            singles[key] = True
            action = _single(record, key, record.data[key])
        if not _legal(phase, action, legal):
            if phase == engine.PLAY:
                raise _card_error(record, path, st, action, legal)
            if phase in (engine.AUCTION, engine.CONTRACT):
                raise _call_error(record, path, st, rules, action, legal)
            if phase == engine.DISCARD:
                raise record.error(path, f"card not in the hand: the declarer holds "
                                         f"{format_cards(legal)}")
            raise record.error(path, f"illegal {key} call here; legal: "
                                     f"{_names(legal, lambda c: WHIST_CALL_NAMES[c])}")
        steps.append(Step(path, state.copy(), int(st["controller"]), int(st["to_act"]), action,
                          legal))
        engine.apply(st, rules, action)
    _check_leftovers(record, st, calls, whists, cards, used, singles)
    return steps, state


def _next_card(record, st, cards, used, tricks):
    i = used["play"]
    t = int(st["trick"])
    if i == len(cards):
        short = t < len(tricks)
        raise record.error(("play", t) if short else ("play",),
                           f"wrong count: trick {t} is short, seat {int(st['to_act'])} is to "
                           f"play" if short else f"the record ends after {len(tricks)} "
                           f"tricks; a played deal has 10")
    (path, j), text = cards[i]
    if path[1] > t and j == 0:  # the record starts a new trick before the engine
        raise record.error(("play", t), f"wrong count: trick {t} has "
                                        f"{int(st['n_in_trick']) - (st['leader'] == 3)} "
                                        f"cards, a trick here has more")
    if path[1] < t:
        raise record.error(("play", path[1]), f"wrong count: trick {path[1]} has more cards "
                                              f"than a trick here")
    used["play"] += 1
    return cards_of(_cards(record, path, text, 1))[0], path


def _call(record, path, value, phase) -> int:
    text = _text(record, path, value)
    if phase == engine.AUCTION:
        try:
            return parse_call(text)
        except ValueError as exc:
            raise record.error(path, f"unknown call: {exc}") from None
    key = text.strip().lower()
    if key not in WHIST_CALL_NAMES:
        raise record.error(path, f"unknown whist call {text!r}; one of "
                                 f"{', '.join(WHIST_CALL_NAMES)}")
    return WHIST_CALL_NAMES.index(key)


def _single(record, key, value) -> int:
    if key == "discard":
        return _cards(record, (key,), value, 2)
    text = _text(record, (key,), value)
    if key == "lay":
        if text.strip().lower() not in LAY_NAMES:
            raise record.error((key,), f"\"closed\" or \"open\", got {text!r}")
        return LAY_NAMES.index(text.strip().lower())
    try:
        return parse_contract(text).code
    except ValueError as exc:
        raise record.error((key,), str(exc)) from None


def _legal(phase, action, legal) -> bool:
    if phase == engine.DISCARD:
        return not action & ~legal
    return 0 <= action < 63 and bool(legal >> action & 1)


def _check_leftovers(record, st, calls, whists, cards, used, singles) -> None:
    """Nothing may remain in the record after the deal is over."""
    for key, names in (("calls", calls), ("whist", whists)):
        if used[key] < len(names):
            raise record.error((key, used[key]), f"the {'auction' if key == 'calls' else 'whist'}"
                                                 f" was over before this call")
    if used["play"] < len(cards):
        path = cards[used["play"]][0][0]
        why = "the deal was over" if st["played"] else "the game was not played"
        raise record.error(path, f"wrong count: {why} before this card")
    for key, done in singles.items():
        if key in record.data and not done:
            misere_named = (key == "contract" and int(st["kind"]) == engine.MISERE_GAME
                            and _single(record, key, record.data[key]) == MISERE)
            if not misere_named:
                raise record.error((key,), f"the deal had no {key} (it was "
                                           f"{engine.KINDS[int(st['kind'])]}"
                                           f"{', a bid without the talon' * bool(st['no_talon'])})")
