"""The player protocol: what a strategy sees and what it must decide.

A player gets an :class:`Observation` -- a copy of what its seat may know at that
moment, never the engine's state -- and returns one decision as an int (see
:mod:`prefstats.game.engine`). Custom strategies implement :class:`Player`; subclassing
:class:`BasePlayer` gives one method per kind of decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from prefstats.game import engine
from prefstats.game.cards import cards_of

PHASE_METHODS = {
    engine.AUCTION: "bid",
    engine.DISCARD: "discard",
    engine.CONTRACT: "contract",
    engine.WHIST: "whist",
    engine.PLAY: "play",
    engine.LAY: "lay",
    engine.SWITCH: "switch",
}


@dataclass(frozen=True, eq=False)
class Observation:
    """What the deciding seat knows. ``record`` is an :data:`engine.OBSERVATION` copy;
    the properties read it in the game's terms. ``sheet`` is the score sheet of the
    pulka when the deal is part of one (else ``None``); ``variant`` the rules.

    >>> from prefstats.game.cards import format_cards
    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.play import play_hand
    >>> class Watcher(RandomLegalPlayer):
    ...     def bid(self, obs):
    ...         self.hand = format_cards(obs.hand)
    ...         return super().bid(obs)
    >>> d = deal(1, seed=3)
    >>> players = [Watcher(seed=s) for s in range(3)]
    >>> _ = play_hand(d.hands[0], d.talon[0], players, get_variant("sochi"))
    >>> players[0].hand == format_cards(int(d.hands[0, 0]))
    True
    """

    record: np.void
    variant: Any
    sheet: Any = None

    def __getattr__(self, name: str):
        # Every field of the record reads as an attribute: obs.hand, obs.contract, ...
        record = object.__getattribute__(self, "record")
        if name in record.dtype.names:
            value = record[name]
            return value.copy() if isinstance(value, np.ndarray) else value.item()
        raise AttributeError(name)

    @property
    def phase_name(self) -> str:
        return engine.PHASES[self.record["phase"]]

    @property
    def calls(self) -> list[int]:
        return self.record["calls"][: self.record["n_calls"]].tolist()

    @property
    def whist_calls(self) -> list[int]:
        return self.record["whist_calls"][: self.record["n_whist"]].tolist()

    @property
    def legal(self) -> list[int]:
        """Legal decisions: calls, contracts, whist calls or cards (for a discard, the
        cards that may go; choose two)."""
        mask = int(self.record["legal"])
        return [a for a in range(63) if mask >> a & 1]

    @property
    def trick_cards(self) -> list[int]:
        return [int(c) for c in self.record["trick_cards"] if c >= 0]

    @property
    def history(self) -> list[tuple[int, int]]:
        """Every card played so far as ``(who, card)`` in playing order: forced cards
        included, a talon card led for the 4-player dealer as ``who = 3``
        (``engine.TALON_SLOT``). The record holds it as ``n_played``, ``history`` (cards)
        and ``history_by`` (who)."""
        r = self.record
        n = int(r["n_played"])
        return list(zip(r["history_by"][:n].tolist(), r["history"][:n].tolist(), strict=True))

    @property
    def voids(self) -> list[int]:
        """Per seat, the suits (bits ``1 << suit``) it has shown void in: it did not
        follow the suit led (nor ruff, in a trump contract: void in trumps too), or led
        another suit than the turned talon card's on a ``suit_lead`` raspasy."""
        return self.record["voids"].tolist()

    @property
    def talon_order(self) -> list[int]:
        """The talon cards shown so far, in the order they were turned (on a raspasy one
        a trick; a game's talon is shown whole)."""
        return [int(c) for c in self.record["talon_order"] if c >= 0]

    def __repr__(self) -> str:
        return f"Observation(seat={self.seat}, phase={self.phase_name!r}, legal={self.legal})"


@dataclass(frozen=True, eq=False)
class OracleObservation(Observation):
    """What an oracle player (``sees_all = True``, e.g. the double-dummy player used
    for comparisons) gets: the observation plus a copy of the whole engine ``state``."""

    state: Any = None


@runtime_checkable
class Player(Protocol):
    """A strategy: ``act`` returns the decision for the observed moment.

    ``double_dummy_open`` declares that in open play (a lone whister's defence, misère)
    the player plays double dummy; when every player of an open deal does, the engine
    settles it with one solver call instead of asking card by card.
        >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.play import play_hand
    >>> class Counting:  # any object with these two members is a Player
    ...     double_dummy_open = False
    ...     def __init__(self, inner):
    ...         self.inner, self.decisions = inner, 0
    ...     def act(self, obs):
    ...         self.decisions += 1
    ...         return self.inner.act(obs)
    >>> players = [Counting(RandomLegalPlayer(seed=s)) for s in range(3)]
    >>> d = deal(1, seed=3)
    >>> _ = play_hand(d.hands[0], d.talon[0], players, get_variant("sochi"))
    >>> sum(p.decisions for p in players) > 10
    True
    """

    double_dummy_open: bool

    def act(self, obs: Observation) -> int: ...


class BasePlayer:
    """A :class:`Player` with one method per decision: ``bid``, ``discard`` (a mask of
    two cards), ``contract``, ``whist`` and ``play`` (a card index); ``lay`` and
    ``switch`` (Classic's rarer choices) have defaults.

    >>> from prefstats.game.auction import PASS
    >>> from prefstats.game.codes import Kind
    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.play import play_hand
    >>> class Passer(RandomLegalPlayer):  # passes when it may, else as its base
    ...     def bid(self, obs):
    ...         return PASS if PASS in obs.legal else super().bid(obs)
    >>> d = deal(1, seed=3)
    >>> st = play_hand(d.hands[0], d.talon[0], [Passer(seed=s) for s in range(3)],
    ...                get_variant("sochi"))
    >>> Kind(int(st["kind"])).name
    'RASPASY'
    """

    double_dummy_open = False

    def act(self, obs: Observation) -> int:
        return getattr(self, PHASE_METHODS[int(obs.record["phase"])])(obs)

    def bid(self, obs: Observation) -> int:
        raise NotImplementedError

    def discard(self, obs: Observation) -> int:
        raise NotImplementedError

    def contract(self, obs: Observation) -> int:
        raise NotImplementedError

    def whist(self, obs: Observation) -> int:
        raise NotImplementedError

    def play(self, obs: Observation) -> int:
        raise NotImplementedError

    def lay(self, obs: Observation) -> int:
        """A lone whister's choice (``lone_whist_play = "whister_chooses"``): by default
        he lies open, as every variant plays without the option (A:S3)."""
        return engine.LAY_OPEN

    def switch(self, obs: Observation) -> int:
        """A dark declarer's choice before the talon (``dark_switch_to_misere``, B:414):
        by default he keeps the dark game he bid."""
        return engine.KEEP_DARK


class RandomLegalPlayer(BasePlayer):
    """Chooses uniformly among the legal decisions (for tests and baselines).

    >>> p = RandomLegalPlayer(seed=1)
    >>> isinstance(p, Player)
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def _pick(self, obs: Observation) -> int:
        return int(self.rng.choice(obs.legal))

    bid = contract = whist = play = lay = switch = _pick

    def discard(self, obs: Observation) -> int:
        a, b = self.rng.choice(cards_of(int(obs.record["legal"])), size=2, replace=False)
        return (1 << int(a)) | (1 << int(b))
