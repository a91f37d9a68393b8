"""The score sheet of a pulka: entries added up, help applied, the log kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from prefstats.errors import OptionError, RecordError, VariantError
from prefstats.game.auction import (
    legal_whist_calls,
)
from prefstats.game.codes import (
    THREE_HANDED,
    W_PASS,
)
from prefstats.game.contracts import Contract
from prefstats.game.scoring._checks import _contract, _duel_role, _whist_map, _whist_roles
from prefstats.game.scoring._entries import (
    COLUMNS,
    WHIST,
    _Rows,
    game_entries,
    misere_entries,
    raspasy_entries,
)
from prefstats.game.scoring._help import (
    apply_help,
    preference_totals,
    responsible_shortfall,
    whisted_against,
)
from prefstats.game.scoring._settle import _scaled_scores, entry_totals
from prefstats.game.variants import (
    Variant,
    opening_bombs,
)


class Entry(NamedTuple):
    """One line of the sheet's log: what was written in which column, for which deal."""

    deal: int
    column: str
    player: int
    on: int | None
    amount: Fraction


class ScoreSheet:
    """A pulka's sheet: pool, mountain and whists per player, and a log of every entry.

    ``pool_target=None``: no pool closes and there is no help. Otherwise the variant's
    ``pulka_end`` applies: ``"help"`` closes a pool at the target and sends the points
    beyond it as :func:`apply_help` says (B:317): never to the deal's dealer or to a
    player who whisted against the helper; with nobody to help, and for a closed
    player's zero-trick raspasy pool, they come off his mountain down to zero and the
    rest goes into every other player's mountain. The dealer is the ``dealer`` given to
    a record method; with 3 players it defaults to the sliding deal of RULES.md §1
    (deal ``k``, counted from 0, is dealt by player ``(2 + k) mod 3``). ``"total"``
    (Leningrad) ends the pulka when the pools sum to ``pool_target`` times the players,
    ``"each"`` (Classic, B:400) when every pool holds ``pool_target``; neither helps.
    Recording after the end raises.

    Illegal inputs raise ``RecordError`` and leave the sheet unchanged.

    >>> from prefstats.game.variants import get_variant
    >>> sheet = ScoreSheet(get_variant("sochi"))
    >>> sheet.record_game(0, "7♥", [7, 2, 1], {1: "whist", 2: "pass"})
    >>> sheet.pool.tolist(), sheet.mountain.tolist()
    ([4.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    """

    def __init__(self, variant: Variant, pool_target: int | None = None) -> None:
        if pool_target is not None and (
            isinstance(pool_target, bool) or not isinstance(pool_target, int) or pool_target < 1
        ):
            raise OptionError(f"pool_target: expected a positive integer, got {pool_target!r}")
        self.variant = variant
        self.pool_target = pool_target
        n = variant.players
        self._pool = np.zeros(n, dtype=np.int64)
        self._mountain = np.zeros(n, dtype=np.int64)
        self._whists = np.zeros((n, n), dtype=np.int64)
        self.log: list[Entry] = []
        self.deals = 0
        #: The players whose pools first reached the target (one deal), for the races.
        self.first_closed: list[int] = []
        self._preference = False
        #: Consecutive raspasy so far: the progression step of the next raspasy.
        self.raspasy_step = 0

    # -- what is on the sheet

    @property
    def pool(self) -> np.ndarray:
        return self._pool / 2

    @property
    def mountain(self) -> np.ndarray:
        return self._mountain / 2

    @property
    def whists(self) -> np.ndarray:
        """``whists[i, j]``: what player ``i`` wrote on ``j``."""
        return self._whists / 2

    @property
    def finished(self) -> bool:
        """Whether the pulka is over under the variant's ``pulka_end``."""
        if self._preference:
            return True  # the game stops and is considered finished (B:199)
        if self.pool_target is None or self.deals < len(opening_bombs(self.variant)):
            return False  # the opening bomb circles are played in full (B:400)
        target = 2 * self.pool_target
        if self.variant.pulka_end == "total":  # "each" and "help": every pool closed
            return bool(self._pool.sum() >= target * self.variant.players)
        return bool((self._pool >= target).all())

    def value(self) -> np.ndarray:
        """Settlement of the sheet as it stands, with the variant's point values."""
        return self._scaled() / (2 * self.variant.players)

    def value_exact(self) -> list[Fraction]:
        """:meth:`value` as exact fractions."""
        return [Fraction(int(x), 2 * self.variant.players) for x in self._scaled()]

    def settle(self) -> np.ndarray:
        """Final scores. Help and the end rule act as deals are recorded, so this is the
        settlement of the sheet (:meth:`value`) and, once :attr:`finished`, the race
        bonuses (:meth:`race_bonuses`); call it once finished."""
        return self.value() + self.race_bonuses()

    def race_bonuses(self) -> np.ndarray:
        """Whists that the race bonuses (B:426) add to each player's score
        once the pulka is over: ``race_first_closed`` from each other player to the first
        to close his pool, ``race_smallest_mountain`` to the smallest mountain; players
        tied for a bonus share it. Zero before the end."""
        v = self.variant
        n = v.players
        bonus = np.zeros(n)
        if not self.finished:
            return bonus
        smallest = np.flatnonzero(self._mountain == self._mountain.min()).tolist()
        for winners, amount in ((self.first_closed, v.race_first_closed),
                                (smallest, v.race_smallest_mountain)):
            if not amount or not winners or len(winners) == n:
                continue  # a bonus everyone shares is no bonus
            # each of the others pays the amount, shared out among the winners
            for p in range(n):
                bonus[p] += amount * (n - len(winners)) / len(winners) if p in winners \
                    else -amount
        return bonus

    def record_preference(self, player: int) -> None:
        """The "preference" (B:189-199): ``player`` holds A K Q of all four suits after
        taking the talon. The deal stops and the pulka is over: his mountain is written
        off, every pool is filled to the target, and for each point he fills into
        another's pool he writes ``pool_value`` whists on him, as help does (B:317). A
        variant option (``preference``, "agreed in advance", B:201); the sheet needs a
        ``pool_target``."""
        v = self.variant
        if not v.preference:
            raise VariantError("preference: off in this variant (B:201: agreed in advance)")
        if self.pool_target is None:
            raise RecordError("pool_target: the preference fills the pools to the target; "
                              "this sheet has none")
        if self.finished:
            raise RecordError("the pulka is over: every deal after its end is refused")
        n = v.players
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
            raise RecordError(f"player: expected a seat 0..{n - 1}, got {player!r}")
        deal = np.empty(2 * n + n * n, dtype=np.int64)
        preference_totals(v.scoring_table(), 2 * self.pool_target, self._pool, self._mountain,
                          player, deal)
        pool, mountain, whists = deal[:n], deal[n : 2 * n], deal[2 * n :].reshape(n, n)
        self._preference = True  # after the checks: a refused call changes nothing
        self._add(_rows_of(pool, mountain, whists), pool, mountain, whists)

    def _scaled(self) -> np.ndarray:
        v = self.variant
        return _scaled_scores(
            self._pool, self._mountain, self._whists, v.pool_value, v.mountain_value
        )

    # -- recording deals

    def record_game(
        self,
        declarer: int,
        contract: Contract | str | int,
        tricks: Sequence[int] | None,
        whist: Mapping[int, str] | None,
        dealer: int | None = None,
        *,
        multiplier: int = 1,
        talon: int | str | None = None,
    ) -> None:
        """Record a trick game; see :func:`game_entries` for the arguments (with 2
        players ``tricks`` has the two players' counts and ``whist`` maps the defender
        to his call)."""
        entries = game_entries(self.variant, declarer, contract, tricks, whist, dealer,
                               multiplier=multiplier, talon=talon)  # fmt: skip
        v = self.variant
        code = _contract(contract).code
        seats = [s for s in range(v.players) if s != declarer]
        if v.has_dummy:
            role = _duel_role(v, declarer, code, whist)
            barred = seats if whisted_against(role, W_PASS) else []
        elif whist is None or not legal_whist_calls(code, [], v):
            barred = seats  # a ten_checked 10: every defender whists (the dealer is barred)
        else:
            seats, calls = _whist_map(whist, declarer, v.players)
            first, second = _whist_roles(v, code, calls)
            barred = [s for s, role in zip(seats, (first, second), strict=True)
                      if whisted_against(role, first)]
        dealers = self._dealer_of(dealer, [declarer, *seats])
        self._commit(entries, no_help=barred + dealers, raspasy=False, declarer=declarer)

    def record_misere(self, declarer: int, tricks_taken: int, dealer: int | None = None, *,
                      multiplier: int = 1) -> None:  # fmt: skip
        """Record a misère in which the declarer took ``tricks_taken`` tricks, every
        entry times ``multiplier``."""
        entries = misere_entries(self.variant, declarer, tricks_taken, dealer,
                                 multiplier=multiplier)  # fmt: skip
        self._commit(entries, no_help=self._dealer_of(dealer, [declarer]), raspasy=False)

    def record_raspasy(self, tricks: Sequence[int], dealer: int | None = None, *,
                       multiplier: int = 1) -> None:  # fmt: skip
        """Record a raspasy at the sheet's progression step, then advance the step. A
        bomb raspasy (``multiplier`` > 1, see :func:`raspasy_entries`) is priced by its
        bomb and is no step of the progression: the step stays (RULES.md §10.1)."""
        entries = raspasy_entries(self.variant, tricks, self.raspasy_step, dealer,
                                  multiplier=multiplier)  # fmt: skip
        step = self.raspasy_step
        self._commit(entries, no_help=[], raspasy=True)  # a raspasy pool never helps
        if multiplier > 1:
            self.raspasy_step = step

    def _dealer_of(self, dealer: int | None, busy: Sequence[int]) -> list[int]:
        """The dealer of the deal being recorded, as a list (empty when unknown: Gusarik,
        or a 4-player deal whose dealer is neither given nor the one seat left free)."""
        v = self.variant
        n = v.players
        if dealer is not None:
            return [] if v.has_dummy else [dealer]
        if v.table_format == THREE_HANDED:
            return [(n - 1 + self.deals) % n]
        free = [s for s in range(n) if s not in busy]
        if v.dealer_sits_out and len(free) == 2:  # five: the dealer and the next to deal
            return [s for s in free if (s + 1) % n in free]
        return free if v.dealer_sits_out and len(free) == 1 else []

    def _commit(self, entries: np.ndarray, *, no_help: Sequence[int], raspasy: bool,
                declarer: int | None = None) -> None:
        """Add a deal's ``entries`` (``declarer``: of a trick game) after help."""
        if self.finished:
            raise RecordError("the pulka is over: every deal after its end is refused")
        v = self.variant
        n = v.players
        target = 0 if self.pool_target is None else 2 * self.pool_target
        pool, mountain, whists = entry_totals(entries, n)
        deal = np.concatenate([pool, mountain, whists.ravel()])
        changed = bool(target) and v.pulka_end == "help"
        if declarer is not None and v.half_responsible_until_closed:
            before = deal.copy()
            responsible_shortfall(v.scoring_table(), target, self._pool, declarer, deal)
            changed |= not np.array_equal(before, deal)
        if target and v.pulka_end == "help":
            blocked = np.zeros(n, dtype=np.bool_)
            blocked[list(no_help)] = True
            helped = np.empty_like(deal)
            apply_help(v.scoring_table(), target, self._pool, self._mountain, deal, blocked,
                       raspasy, helped)
            deal = helped
        if changed:
            pool, mountain, whists = deal[:n], deal[n : 2 * n], deal[2 * n :].reshape(n, n)
            entries = _rows_of(pool, mountain, whists)
        self._add(entries, pool, mountain, whists)
        self.raspasy_step = self.raspasy_step + 1 if raspasy else 0

    def _add(self, entries, pool, mountain, whists) -> None:
        """Write one deal's totals and log its ``entries``; note who closed first."""
        closed = self._closed()
        self._pool += pool
        self._mountain += mountain
        self._whists += whists
        self.deals += 1
        if not self.first_closed and self.pool_target is not None:
            self.first_closed = sorted(set(self._closed()) - set(closed))
        for column, player, on, halves in entries.tolist():
            who = None if column != WHIST else on
            self.log.append(Entry(self.deals, COLUMNS[column], player, who, Fraction(halves, 2)))

    def _closed(self) -> list[int]:
        if self.pool_target is None:
            return []
        return np.flatnonzero(self._pool >= 2 * self.pool_target).tolist()


def _rows_of(pool: np.ndarray, mountain: np.ndarray, whists: np.ndarray) -> np.ndarray:
    """Entry rows of dense totals: mountain, pool, then whist rows; zeros skipped."""
    out = _Rows()
    for p in range(len(pool)):
        out.mountain(p, int(mountain[p]))
    for p in range(len(pool)):
        out.pool(p, int(pool[p]))
    for i, j in zip(*np.nonzero(whists), strict=True):
        out.whist(int(i), int(j), int(whists[i, j]))
    return out.array()
