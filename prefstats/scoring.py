"""Scoring of RULES.md §7–§8: one deal's entries, the score sheet and the settlement.

Every rate comes from the :class:`~prefstats.variants.Variant`. A deal's scoring is
computed once, by :func:`game_entries`, :func:`misere_entries` and
:func:`raspasy_entries`, as a small integer array of entries; :class:`ScoreSheet` only
adds them up (applying help when a closed pool overflows) and the simulator may call the
entry functions directly. Amounts are kept in **half points** (``int64``), so they are
exact: every rate is an integer (prices are even) and only the gentleman split halves.

>>> from prefstats.variants import get_variant
>>> sheet = ScoreSheet(get_variant("sochi"))
>>> sheet.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "whist"})  # RULES.md §9.1
>>> sheet.mountain.tolist(), sheet.whists[:, 0].tolist()
([4.0, 0.0, 0.0], [0.0, 12.0, 8.0])
>>> sheet.value().round(2).tolist()
[-46.67, 25.33, 21.33]
>>> settle([0, 0, 0], [10, 20, 36], np.zeros((3, 3))).tolist()  # RULES.md §9.7
[120.0, 20.0, -140.0]

An entry row is ``(column, player, on, halves)``: ``column`` is ``POOL``, ``MOUNTAIN``
or ``WHIST``; ``on`` is the player written on for whists, -1 otherwise.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np

from prefstats.auction import WHIST_CALL_NAMES
from prefstats.contracts import Contract, parse_contract
from prefstats.variants import Variant, get_variant, variant_from_mapping

POOL, MOUNTAIN, WHIST = 0, 1, 2
COLUMNS = ("pool", "mountain", "whist")


class Entry(NamedTuple):
    """One line of the sheet's log: what was written in which column, for which deal."""

    deal: int
    column: str
    player: int
    on: int | None
    amount: Fraction


class _Rows:
    """Collects entry rows in half points, skipping zero amounts."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, int, int, int]] = []

    def pool(self, player: int, halves: int) -> None:
        if halves:
            self.rows.append((POOL, player, -1, halves))

    def mountain(self, player: int, halves: int) -> None:
        if halves:
            self.rows.append((MOUNTAIN, player, -1, halves))

    def whist(self, player: int, on: int, halves: int) -> None:
        if halves:
            self.rows.append((WHIST, player, on, halves))

    def array(self) -> np.ndarray:
        return np.array(self.rows, dtype=np.int64).reshape(-1, 4)


# ---- checks of the inputs ----------------------------------------------------------------


def _seat(value: object, n: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value < n:
        raise ValueError(f"{what}: unknown seat {value!r}; players are 0..{n - 1}")
    return int(value)


def _trick_counts(tricks: object, n: int) -> list[int]:
    if isinstance(tricks, str | bytes) or not isinstance(tricks, Sequence | np.ndarray):
        raise ValueError(f"tricks: expected a sequence of {n} trick counts, got {tricks!r}")
    counts = list(tricks)
    if len(counts) != n:
        raise ValueError(f"tricks: expected {n} trick counts, got {len(counts)}")
    for t in counts:
        if isinstance(t, bool) or not isinstance(t, int | np.integer) or not 0 <= t <= 10:
            raise ValueError(f"tricks: {t!r} is not a trick count 0..10")
    return [int(t) for t in counts]


def _dealer(variant: Variant, dealer: object, busy: Sequence[int]) -> int | None:
    """The sitting-out dealer of a 4-player game (inferred from the seats in ``busy``).

    With 3 players the dealer plays and changes nothing in scoring: ``None``.
    """
    n = variant.players
    if dealer is not None:
        dealer = _seat(dealer, n, "dealer")
    if n == 3:
        return None
    free = [s for s in range(n) if s not in busy]
    if dealer is None and len(free) == 1:
        return free[0]
    if dealer is None or dealer in busy:
        raise ValueError(f"dealer: with 4 players name the seat that sits out, got {dealer!r}")
    return dealer


def _whist_map(whist: object, declarer: int, n: int) -> tuple[list[int], list[str]]:
    """The defenders in speaking order and their calls."""
    if not isinstance(whist, Mapping) or len(whist) != 2:
        raise ValueError(f"whist: expected a map of the two defenders to calls, got {whist!r}")
    seats = [_seat(s, n, "whist") for s in whist]
    if declarer in seats:
        raise ValueError(f"whist: the map names the declarer (seat {declarer})")
    calls = list(whist.values())
    for call in calls:
        if call not in WHIST_CALL_NAMES:
            raise ValueError(f"whist: {call!r} is not one of 'whist', 'pass', 'half'")
    return seats, calls


# ---- one deal's entries ---------------------------------------------------------------------


def game_entries(
    variant: Variant,
    declarer: int,
    contract: Contract | str | int,
    tricks: Sequence[int] | None,
    whist: Mapping[int, str] | None,
    dealer: int | None = None,
) -> np.ndarray:
    """Entries of a trick game (RULES.md §4, §7), as rows ``(column, player, on, halves)``.

    ``whist`` maps the two defenders, the declarer's left-hand one first, to ``"whist"``,
    ``"pass"`` or ``"half"``. The second's ``"half"`` stands when the first passed (the
    game is not played) and was returned when the first says ``"whist"`` (the first
    whists alone, the half-whister counts as a passer). With ``ten_checked`` a 10-level
    game is always played and ``whist`` may be ``None``. ``tricks`` (per player) is
    ignored when the game is not played.

    Shortfall with two whisters under ``gentleman``: each owes ``max(0, q - own)``, and
    when that exceeds the team shortfall the first whister's part is cut first; so on
    8, 9, 10 only the second whister pays.

    >>> from prefstats.variants import get_variant
    >>> game_entries(get_variant("sochi"), 0, "6♠", None, {1: "pass", 2: "pass"}).tolist()
    [[0, 0, -1, 4]]
    """
    n = variant.players
    declarer = _seat(declarer, n, "declarer")
    c = Contract(contract) if isinstance(contract, int | np.integer) else parse_contract(contract)
    if c.is_misere:
        raise ValueError("contract: misère is scored by misere_entries / record_misere")
    checked = variant.ten_checked and c.level == 10
    if whist is None and checked:
        dealer = _dealer(variant, dealer, [declarer])
        seats = [s for s in range(n) if s not in (declarer, dealer)]
        calls = ["whist", "whist"]
    else:
        seats, calls = _whist_map(whist, declarer, n)
        dealer = _dealer(variant, dealer, [declarer, *seats])
    if checked:
        calls = ["whist", "whist"]  # always played, both defend closed
    elif "half" in calls and (calls[0] == "half" or not variant.half_whist or c.level > 7):
        raise ValueError(
            "whist: 'half' is open only to the second defender, on a 6 or 7, with half_whist"
        )
    if variant.stalingrad and c.code == 0 and not checked and calls != ["whist", "whist"]:
        raise ValueError("whist: with stalingrad 6♠ must be whisted by both defenders")

    price = c.price
    out = _Rows()
    made = variant.made_rate.halves(price)
    whist_rate = variant.whist_rate.halves(price)
    if calls[0] == "pass" and calls[1] in ("pass", "half"):  # not played
        out.pool(declarer, made)
        if calls[1] == "half":
            out.whist(seats[1], declarer, whist_rate * c.obligation // 2)
        return out.array()

    counts = _trick_counts(tricks, n)
    if dealer is not None and counts[dealer]:
        raise ValueError(f"tricks: the dealer (seat {dealer}) sits out and takes no tricks")
    if sum(counts) != 10:
        raise ValueError(f"tricks: a played deal has 10 tricks, these sum to {sum(counts)}")
    own = [counts[s] for s in seats]
    k = sum(own)
    under = max(0, c.level - counts[declarer])
    consolation = variant.consolation_rate.halves(price) * under
    if under:
        out.mountain(declarer, variant.remise_rate.halves(price) * under)
    else:
        out.pool(declarer, made)
    if dealer is not None:
        out.whist(dealer, declarer, consolation)
    if checked:  # no trick whists, no obligation
        for s in seats:
            out.whist(s, declarer, consolation)
        return out.array()

    whisters = [i for i in (0, 1) if calls[i] == "whist"]
    if len(whisters) == 2:
        for i in (0, 1):
            out.whist(seats[i], declarer, whist_rate * own[i] + consolation)
    elif under and variant.whist_split == "gentleman":
        share = (whist_rate * k + 2 * consolation) // 2  # even: every rate is whole
        for s in seats:
            out.whist(s, declarer, share)
    else:
        w = whisters[0]
        out.whist(seats[w], declarer, whist_rate * k + consolation)
        out.whist(seats[1 - w], declarer, consolation)

    shortfall = max(0, c.obligation - k)
    if len(whisters) == 1:
        owed = [shortfall if i == whisters[0] else 0 for i in (0, 1)]
    else:
        owed = [max(0, c.quota - t) for t in own]
        if variant.whist_split == "gentleman":
            excess = max(0, sum(owed) - shortfall)
            cut = min(excess, owed[0])
            owed = [owed[0] - cut, owed[1] - (excess - cut)]
    rate = variant.shortfall_rate.halves(price)
    for i in (0, 1):
        out.mountain(seats[i], rate * owed[i])
    return out.array()


def misere_entries(
    variant: Variant, declarer: int, tricks_taken: int, dealer: int | None = None
) -> np.ndarray:
    """Entries of a misère: pool when the declarer takes no trick, else mountain per trick.

    >>> from prefstats.variants import get_variant
    >>> misere_entries(get_variant("leningrad"), 2, 1).tolist()
    [[1, 2, -1, 40]]
    """
    n = variant.players
    declarer = _seat(declarer, n, "declarer")
    taken = _trick_counts([tricks_taken], 1)[0]
    if dealer is not None and _seat(dealer, n, "dealer") == declarer:
        raise ValueError(f"dealer: seat {dealer} is the declarer")
    out = _Rows()
    if taken:
        out.mountain(declarer, 2 * variant.misere_failed * taken)
    else:
        out.pool(declarer, 2 * variant.misere_made)
    return out.array()


def raspasy_step_rate(variant: Variant, step: int) -> int:
    """Mountain rate per trick at progression ``step`` (0 = first); the last step repeats."""
    rates = variant.raspasy_rates
    return rates[min(step, len(rates) - 1)] if rates else 0


def raspasy_entries(
    variant: Variant, tricks: Sequence[int], step: int = 0, dealer: int | None = None
) -> np.ndarray:
    """Entries of a raspasy at progression ``step`` (0-based count of raspasy before it).

    Each player's tricks go to his mountain at the step rate, a player without tricks
    writes ``raspasy_zero_pool`` into his pool, and with ``raspasy_whists`` the players
    with the fewest tricks write whists on those with more. With 4 players ``dealer`` is
    required: under ``raspasy_talon = "dealer"`` he is scored for the tricks the talon
    took (mountain, whists written on him), but as he plays no card he neither gets the
    zero-trick pool nor writes whists; under ``"none"`` he writes the zero-trick pool
    and nothing else; under ``"suit_lead"`` he has no part.

    >>> from prefstats.variants import get_variant
    >>> raspasy_entries(get_variant("rostov"), [0, 3, 7]).tolist()  # RULES.md §9.5
    [[0, 0, -1, 2], [2, 0, 1, 30], [2, 0, 2, 70]]
    """
    n = variant.players
    counts = _trick_counts(tricks, n)
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"step: expected a non-negative integer, got {step!r}")
    players = list(range(n))
    if n == 4:
        if dealer is None:
            raise ValueError("dealer: with 4 players name the seat that sits out")
        dealer = _seat(dealer, n, "dealer")
        players.remove(dealer)
        if variant.raspasy_talon != "dealer" and counts[dealer]:
            raise ValueError(f"tricks: the dealer (seat {dealer}) takes no tricks here")
    elif dealer is not None:
        _seat(dealer, n, "dealer")
        dealer = None  # with 3 players the dealer is an ordinary player
    if sum(counts) != 10:
        raise ValueError(f"tricks: a raspasy has 10 tricks, these sum to {sum(counts)}")

    rate = raspasy_step_rate(variant, step)
    zero = variant.raspasy_zero_pool.halves(rate)
    out = _Rows()
    for p in range(n):
        out.mountain(p, 2 * rate * counts[p])
    for p in players:
        if counts[p] == 0:
            out.pool(p, zero)
    if dealer is not None and variant.raspasy_talon == "none":
        out.pool(dealer, zero)
    fewest = min(counts[p] for p in players)
    for p in players:
        if counts[p] == fewest:
            for q in range(n):
                out.whist(p, q, 2 * variant.raspasy_whists * max(0, counts[q] - fewest))
    return out.array()


# ---- totals and settlement --------------------------------------------------------------------


def entry_totals(entries: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pool, mountain (length ``n``) and whists (``n`` x ``n``) of entry rows, in halves."""
    pool = np.zeros(n, dtype=np.int64)
    mountain = np.zeros(n, dtype=np.int64)
    whists = np.zeros((n, n), dtype=np.int64)
    e = np.asarray(entries, dtype=np.int64).reshape(-1, 4)
    col, player, on, amount = e.T
    np.add.at(pool, player[col == POOL], amount[col == POOL])
    np.add.at(mountain, player[col == MOUNTAIN], amount[col == MOUNTAIN])
    is_whist = col == WHIST
    np.add.at(whists, (player[is_whist], on[is_whist]), amount[is_whist])
    return pool, mountain, whists


def _scaled_scores(pool, mountain, whists, pool_value, mountain_value) -> np.ndarray:
    """``N`` times the scores; exact whenever the inputs are integers."""
    n = pool.shape[-1]
    if mountain.shape[-1] != n or whists.shape[-2:] != (n, n):
        raise ValueError(
            f"settle: pool {pool.shape}, mountain {mountain.shape} and whists {whists.shape} "
            "do not describe the same players"
        )
    net = whists.sum(axis=-1) - whists.sum(axis=-2)
    return (
        pool_value * (n * pool - pool.sum(axis=-1, keepdims=True))
        - mountain_value * (n * mountain - mountain.sum(axis=-1, keepdims=True))
        + n * net
    )


def settle(pool, mountain, whists, *, pool_value=10, mountain_value=10) -> np.ndarray:
    """Scores of a sheet (RULES.md §8); ``whists[i][j]`` is what ``i`` wrote on ``j``.

    ``score_i = P·(p_i − mean p) − M·(m_i − mean m) + Σ_j (W[i][j] − W[j][i])``; the
    scores sum to zero. Works on batches too (leading axes). Only the final division by
    the number of players rounds.

    >>> settle([4, 0, 0], [0, 0, 0], np.zeros((3, 3)), pool_value=20).round(3).tolist()
    [53.333, -26.667, -26.667]
    """
    pool = np.asarray(pool, dtype=np.float64)
    scaled = _scaled_scores(
        pool,
        np.asarray(mountain, dtype=np.float64),
        np.asarray(whists, dtype=np.float64),
        pool_value,
        mountain_value,
    )
    return scaled / pool.shape[-1]


def deal_value(variant: Variant, entries: np.ndarray, *, exact: bool = False):
    """The value of one deal to each player: the settlement of its entries alone.

    Floats by default; ``exact=True`` gives a list of ``Fraction``.

    >>> from prefstats.variants import get_variant
    >>> v = get_variant("leningrad")
    >>> [str(x) for x in deal_value(v, game_entries(v, 0, "6♠", None,
    ...                                 {1: "pass", 2: "pass"}), exact=True)]
    ['80/3', '-40/3', '-40/3']
    """
    n = variant.players
    scaled = _scaled_scores(*entry_totals(entries, n), variant.pool_value, variant.mountain_value)
    if exact:
        return [Fraction(int(x), 2 * n) for x in scaled]
    return scaled / (2 * n)


# ---- the sheet --------------------------------------------------------------------------------


class ScoreSheet:
    """A pulka's sheet: pool, mountain and whists per player, and a log of every entry.

    ``pool_target=None``: no pool closes and there is no help. Otherwise the variant's
    ``pulka_end`` applies: ``"help"`` closes a pool at the target and sends the points
    beyond it to the unclosed player with the largest pool (ties: smaller mountain, then
    the first clockwise from the helper), never to the defenders (every active
    non-declarer, misère catchers included) or a 4-player dealer; the helper writes
    ``pool_value`` whists per point on the helped player, and with nobody to help the
    points come off his own mountain. ``"total"`` (Leningrad) ends the pulka when the
    pools sum to ``pool_target`` times the players. Recording after the end raises.

    Illegal inputs raise ``ValueError`` and leave the sheet unchanged.
    """

    def __init__(self, variant: Variant, pool_target: int | None = None) -> None:
        if pool_target is not None and (
            isinstance(pool_target, bool) or not isinstance(pool_target, int) or pool_target < 1
        ):
            raise ValueError(f"pool_target: expected a positive integer, got {pool_target!r}")
        self.variant = variant
        self.pool_target = pool_target
        n = variant.players
        self._pool = np.zeros(n, dtype=np.int64)
        self._mountain = np.zeros(n, dtype=np.int64)
        self._whists = np.zeros((n, n), dtype=np.int64)
        self.log: list[Entry] = []
        self.deals = 0
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
        if self.pool_target is None:
            return False
        target = 2 * self.pool_target
        if self.variant.pulka_end == "total":
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
        settlement of the sheet (:meth:`value`); call it once :attr:`finished`."""
        return self.value()

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
    ) -> None:
        """Record a trick game; see :func:`game_entries` for the arguments."""
        entries = game_entries(self.variant, declarer, contract, tricks, whist, dealer)
        others = [s for s in range(self.variant.players) if s != declarer]
        self._commit(entries, no_help=others, raspasy=False)

    def record_misere(self, declarer: int, tricks_taken: int, dealer: int | None = None) -> None:
        """Record a misère in which the declarer took ``tricks_taken`` tricks."""
        entries = misere_entries(self.variant, declarer, tricks_taken, dealer)
        others = [s for s in range(self.variant.players) if s != declarer]
        self._commit(entries, no_help=others, raspasy=False)

    def record_raspasy(self, tricks: Sequence[int], dealer: int | None = None) -> None:
        """Record a raspasy at the sheet's progression step, then advance the step."""
        entries = raspasy_entries(self.variant, tricks, self.raspasy_step, dealer)
        no_help = [] if self.variant.players == 3 else [_seat(dealer, 4, "dealer")]
        self._commit(entries, no_help=no_help, raspasy=True)

    def _commit(self, entries: np.ndarray, *, no_help: Sequence[int], raspasy: bool) -> None:
        if self.finished:
            raise ValueError("the pulka is over: every deal after its end is refused")
        if self.pool_target is not None and self.variant.pulka_end == "help":
            entries = self._with_help(entries, set(no_help))
        pool, mountain, whists = entry_totals(entries, self.variant.players)
        self._pool += pool
        self._mountain += mountain
        self._whists += whists
        self.deals += 1
        for column, player, on, halves in entries.tolist():
            who = None if column != WHIST else on
            self.log.append(Entry(self.deals, COLUMNS[column], player, who, Fraction(halves, 2)))
        self.raspasy_step = self.raspasy_step + 1 if raspasy else 0

    def _with_help(self, entries: np.ndarray, no_help: set[int]) -> np.ndarray:
        """Entries with each pool write beyond the target sent on as help."""
        n = self.variant.players
        target = 2 * self.pool_target
        pool = self._pool.copy()
        mountain = self._mountain.copy()
        out = _Rows()
        for column, player, on, halves in entries.tolist():
            if column == MOUNTAIN:
                mountain[player] += halves
            if column != POOL:
                out.rows.append((column, player, on, halves))
                continue
            kept = min(halves, max(0, target - pool[player]))
            out.pool(player, kept)
            pool[player] += kept
            rest = halves - kept
            while rest:
                open_seats = [
                    j for j in range(n) if j != player and j not in no_help and pool[j] < target
                ]
                if not open_seats:
                    out.mountain(player, -rest)
                    mountain[player] -= rest
                    break
                j = min(open_seats, key=lambda s: (-pool[s], mountain[s], (s - player) % n))
                given = min(rest, target - pool[j])
                out.pool(j, given)
                out.whist(player, j, self.variant.pool_value * given)
                pool[j] += given
                rest -= given
        return out.array()


# ---- a pulka from a file ------------------------------------------------------------------

_DEAL_KEYS = {
    "game": ({"declarer", "contract", "whist"}, {"tricks", "dealer"}),
    "misere": ({"declarer", "tricks"}, {"dealer"}),
    "raspasy": ({"tricks"}, {"dealer"}),
}


def _record(sheet: ScoreSheet, deal: Mapping) -> None:
    """Record one deal outcome given as a mapping (see :func:`sheet_from_records`)."""
    if not isinstance(deal, Mapping) or deal.get("type") not in _DEAL_KEYS:
        raise ValueError("type: expected 'game', 'misere' or 'raspasy'")
    required, optional = _DEAL_KEYS[deal["type"]]
    for key in required - set(deal):
        raise ValueError(f"{key}: missing")
    for key in set(deal) - required - optional - {"type"}:
        raise ValueError(f"{key}: unknown key")
    dealer = deal.get("dealer")
    if deal["type"] == "raspasy":
        sheet.record_raspasy(deal["tricks"], dealer)
    elif deal["type"] == "misere":
        sheet.record_misere(deal["declarer"], deal["tricks"], dealer)
    else:
        whist = deal["whist"]
        if isinstance(whist, Mapping):  # JSON and TOML keys are strings
            whist = {int(k) if str(k).isdigit() else k: call for k, call in whist.items()}
        sheet.record_game(deal["declarer"], deal["contract"], deal.get("tricks"), whist, dealer)


def sheet_from_records(data: Mapping) -> ScoreSheet:
    """A sheet with every deal of ``data`` recorded, in order.

    ``data`` holds ``variant`` (a preset name, or a table ``{base = "sochi", ...}`` of
    options), optional ``players`` and ``pool_target``, and ``deals``: a list of
    ``{type = "game", declarer, contract, tricks, whist = {seat = call}}``,
    ``{type = "misere", declarer, tricks}`` or ``{type = "raspasy", tricks}`` (each with
    an optional ``dealer``). Errors raise ``ValueError`` naming the deal.

    >>> s = sheet_from_records({"variant": "sochi", "deals": [
    ...     {"type": "raspasy", "tricks": [0, 4, 6]},
    ...     {"type": "game", "declarer": 1, "contract": "7♥", "tricks": [2, 7, 1],
    ...      "whist": {"2": "whist", "0": "pass"}}]})
    >>> s.pool.tolist(), s.mountain.tolist()
    ([1.0, 4.0, 0.0], [0.0, 4.0, 6.0])
    """
    if not isinstance(data, Mapping):
        raise ValueError("expected a table with 'variant' and 'deals'")
    for key in set(data) - {"variant", "players", "pool_target", "deals"}:
        raise ValueError(f"{key}: unknown key")
    spec = data.get("variant", "sochi")
    players = data.get("players", 3)
    if isinstance(spec, Mapping):
        variant = variant_from_mapping({"players": players, **spec})
    else:
        variant = get_variant(spec, players=players)
    sheet = ScoreSheet(variant, data.get("pool_target"))
    deals = data.get("deals", [])
    if not isinstance(deals, list):
        raise ValueError("deals: expected a list of deal outcomes")
    for number, deal in enumerate(deals, 1):
        try:
            _record(sheet, deal)
        except ValueError as exc:
            raise ValueError(f"deal {number}: {exc}") from None
    return sheet


def load_pulka(path: str | Path) -> ScoreSheet:
    """:func:`sheet_from_records` of a JSON (``.json``) or TOML file."""
    path = Path(path)
    text = path.read_text("utf-8")
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    return sheet_from_records(data)
