"""Scoring of RULES.md §7–§8: one deal's entries, the score sheet and the settlement.

Every rate comes from the :class:`~prefstats.variants.Variant`, through its
:meth:`~prefstats.variants.Variant.scoring_table`. A deal's scoring is computed once, by
the compiled :func:`deal_totals`; the simulator calls it (or :func:`score_batch` over
arrays of deals), and :func:`game_entries`, :func:`misere_entries` and
:func:`raspasy_entries` validate one deal, call it and return its entry rows, which
:class:`ScoreSheet` adds up (applying help when a closed pool overflows). Amounts are kept
in **half points** (``int64``), so they are exact: every rate is an integer (prices are
even) and only the gentleman split halves.

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

Readings of the Classic and Gusarik rules (RULES.md §10), all variant options:

- **Multiplier** (bombs, dark bids): every entry of a game or misère -- pool, mountain,
  trick whists, consolation, shortfall, a half-whist's whists, talon whists -- is
  multiplied; a raspasy never is. Multipliers multiply: an 8 (price 6) on a double
  bomb (x4) bid dark (x2) is worth 48 in the pool and 48 whists per defender trick. A
  raspasy's multiplier is a bomb raspasy's bomb (``bomb_level = "round"``): its rate a
  trick, 2, 4, 8, instead of the step's (B:398).
- **underbid_penalty**: in a played trick game a declarer who takes more tricks than
  his contract's level is set by the extra tricks: remise-rate mountain and, from each
  defender (and the 4-player dealer), consolation per extra trick; no pool. Trick
  whists and shortfall are as for a made game: the defenders did not set him, so
  ``gentleman`` sharing (which applies when the defence sets the contract) does not
  apply and each defender writes his own consolation. A game not played (passed, a
  standing half-whist) is credited as usual.
- **whist_responsibility = "full"**: every whister answers for the team's whole
  shortfall ``S = max(0, ob - k)``: a lone whister ``S`` (as under ``"quota"``), two
  whisters ``S`` each (instead of the personal quotas). A ``ten_checked`` 10 has no
  obligation either way.
- **talon_whists** (4 players): on every trick game whose talon was shown (played or
  not; never a contract without the talon, misère or raspasy) the sitting-out dealer
  writes ``whist rate x h`` on the declarer, where ``h`` (:func:`talon_honours`) is 3
  for two aces, else 2 for A+K of one suit, else 1 for an ace or K+Q of one suit.
- **2 players** (Gusarik): players 0 and 1; the dummy has no sheet. In a trick game the
  defender is the other player, who owns the dummy's tricks; his call is ``"whist"``
  (a lone whister: all the defence's trick whists and consolation are his, and he is
  liable for the whole shortfall; ``whist_split`` does not apply, as the dummy writes
  nothing), ``"pass"`` (not played, the declarer is credited) or, on a 6 or 7,
  ``"half"`` (not played, the declarer is credited and the defender writes half the
  obligation at the whist rate). Misère and raspasy are scored as for any table, over
  the two players; help never goes to a defender who whisted or left the tricks (B:317:
  "who whisted against him"), so a closed declarer's points then come off his mountain
  and the rest goes into the other player's.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.auction import (
    W_HALF,
    W_PASS,
    W_WHIST,
    WHIST_CALL_NAMES,
    game_played,
    legal_whist_calls,
    whist_options,
    whist_state,
)
from prefstats.cards import card_counts, parse_cards
from prefstats.contracts import MISERE, N_CONTRACTS, Contract, parse_contract
from prefstats.tricks import DEALER_TALON, NO_TALON
from prefstats.variants import (
    C_CONSOLATION,
    C_LEVEL,
    C_MADE,
    C_OBLIGATION,
    C_QUOTA,
    C_REMISE,
    C_SHORTFALL,
    C_WHIST,
    CONTRACT_FIELDS,
    RESPONSIBILITY_FULL,
    SPLIT_GENTLEMAN,
    T_BOMB_ZERO_FIXED,
    T_BOMB_ZERO_PER,
    T_DEALER_RASPASY_POOL,
    T_HALF_UNTIL_CLOSED,
    T_HALF_WHIST,
    T_MISERE_FAILED,
    T_MISERE_MADE,
    T_PLAYERS,
    T_POOL_VALUE,
    T_RASPASY,
    T_RASPASY_STEPS,
    T_RASPASY_TALON,
    T_RASPASY_TIES,
    T_RASPASY_WHISTS,
    T_RESPONSIBILITY,
    T_STALINGRAD,
    T_TALON_WHISTS,
    T_TEN_CHECKED,
    T_UNDERBID_PENALTY,
    T_WHIST_SPLIT,
    TIES_HALF,
    Variant,
    get_variant,
    opening_bombs,
    variant_from_mapping,
)

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

    With 2 or 3 players the dealer plays and changes nothing in scoring: ``None``.
    """
    n = variant.players
    if dealer is not None:
        dealer = _seat(dealer, n, "dealer")
    if n != 4:
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


def _contract(value: Contract | str | int) -> Contract:
    return Contract(value) if isinstance(value, int | np.integer) else parse_contract(value)


def _multiplier(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"multiplier: expected an integer of at least 1, got {value!r}")
    return int(value)


def _talon(value: object) -> int:
    """A talon given as a card mask or as text (``"A♠ K♥"``): two cards, or ``None`` = 0."""
    if value is None:
        return 0
    if isinstance(value, str):
        try:
            value = parse_cards(value)
        except ValueError as exc:
            raise ValueError(f"talon: {exc}") from None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"talon: expected a card mask or cards like 'A♠ K♥', got {value!r}")
    if not 0 <= value <= 0xFFFFFFFF or int(card_counts(int(value))) != 2:
        raise ValueError(f"talon: {value!r} is not two cards")
    return int(value)


def _duel_role(variant: Variant, declarer: int, code: int, whist: object) -> int:
    """Gusarik: the defending player's call (``W_*``), from ``{defender: call}``."""
    defender = 1 - declarer
    legal = legal_whist_calls(code, [], variant, declarer)
    if whist is None and legal == [W_WHIST]:  # a ten_checked 10 or Stalingrad's 6♠
        return W_WHIST
    if not isinstance(whist, Mapping) or len(whist) != 1:
        raise ValueError(
            f"whist: with 2 players expected a map of the defender (seat {defender}) to "
            f"his call, got {whist!r}"
        )
    ((seat, call),) = whist.items()
    if _seat(seat, 2, "whist") != defender:
        raise ValueError(f"whist: the defender is seat {defender}, not the declarer {declarer}")
    if call not in WHIST_CALL_NAMES:
        raise ValueError(f"whist: {call!r} is not one of 'whist', 'pass', 'half'")
    role = WHIST_CALL_NAMES.index(call)
    if role not in legal:
        open_to = ", ".join(repr(WHIST_CALL_NAMES[c]) for c in legal)
        raise ValueError(f"whist: {call!r} is not open on this contract (only {open_to})")
    return role


# ---- one deal's totals, compiled -----------------------------------------------------------

#: Kinds of deal for :func:`deal_totals` (the codes the hand engine uses too).
GAME, MISERE_GAME, RASPASY = 1, 2, 3


@njit(cache=True)
def talon_honours(talon):
    """Tricks of talon whists (прикупные висты) for the two-card ``talon`` mask: 3 for two
    aces, else 2 for A+K of one suit, else 1 for an ace or K+Q of one suit, else 0.

    >>> from prefstats.cards import parse_cards
    >>> [talon_honours(parse_cards(t)) for t in ("A♠ A♥", "A♦ K♦", "A♦ K♥", "K♣ Q♣", "K♣ Q♥")]
    [3, 2, 1, 1, 0]
    """
    mask = np.int64(talon)
    aces = 0
    ace_king = False
    king_queen = False
    for suit in range(4):
        ace = (mask >> (8 * suit + 7)) & 1
        king = (mask >> (8 * suit + 6)) & 1
        queen = (mask >> (8 * suit + 5)) & 1
        aces += ace
        ace_king = ace_king or (ace == 1 and king == 1)
        king_queen = king_queen or (king == 1 and queen == 1)
    if aces == 2:
        return 3
    if ace_king:
        return 2
    if aces or king_queen:
        return 1
    return 0


@njit(cache=True)
def _declarer_result(t, row, taken, d, n, out):
    """The declarer's made pool or remise mountain into ``out``. He is set by his
    undertricks plus (``underbid_penalty``) the tricks he took beyond his contract's
    level. Returns each defender's consolation and whether he is short (a real
    remise)."""
    level = t[row + C_LEVEL]
    under = max(0, level - taken)
    set_by = under + (max(0, taken - level) if t[T_UNDERBID_PENALTY] else 0)
    if set_by:
        out[n + d] += t[row + C_REMISE] * set_by
    else:
        out[d] += t[row + C_MADE]
    return t[row + C_CONSOLATION] * set_by, under > 0


@njit(cache=True)
def _duel_totals(t, declarer, contract, tricks, role, out):
    """A Gusarik trick game (2 players): the declarer against the other player, who
    defends with the open dummy as a lone whister (``role`` ``W_WHIST``), passes
    (``W_PASS``) or leaves the obligatory tricks (``W_HALF``); see :func:`deal_totals`."""
    n = 2
    row = contract * CONTRACT_FIELDS
    whist_rate = t[row + C_WHIST]
    d = declarer
    p = 1 - d
    w = 2 * n
    if role != W_WHIST:
        out[d] += t[row + C_MADE]
        if role == W_HALF:  # he leaves the obligatory tricks: half the obligation
            out[w + p * n + d] += whist_rate * t[row + C_OBLIGATION] // 2
        return
    consolation, _ = _declarer_result(t, row, tricks[d], d, n, out)
    if t[T_TEN_CHECKED] and t[row + C_LEVEL] == 10:  # no trick whists, no obligation
        out[w + p * n + d] += consolation
        return
    k = tricks[p]  # his and the dummy's
    out[w + p * n + d] += whist_rate * k + consolation
    out[n + p] += t[row + C_SHORTFALL] * max(0, t[row + C_OBLIGATION] - k)


@njit(cache=True)
def _game_totals(t, n, declarer, defender, contract, tricks, first, second, dealer, out):
    """A trick game (RULES.md §4, §7) of 3 or 4 players into ``out``; see
    :func:`deal_totals`."""
    row = contract * CONTRACT_FIELDS
    made = t[row + C_MADE]
    whist_rate = t[row + C_WHIST]
    d = declarer
    w = 2 * n  # whists[i, j] is out[w + i * n + j]
    s0 = defender
    if s0 < 0:  # the declarer's left-hand defender
        s0 = (d + 1) % n
        if s0 == dealer:
            s0 = (s0 + 1) % n
    s1 = 0  # the other defender; no `in` on a tuple: the engine passes mixed int types
    while s1 == d or s1 == s0 or s1 == dealer:  # noqa: SIM109
        s1 += 1
    if not game_played(first, second):
        out[d] += made
        if second == W_HALF:  # the half-whister writes half the obligation
            out[w + s1 * n + d] += whist_rate * t[row + C_OBLIGATION] // 2
        return
    consolation, under = _declarer_result(t, row, tricks[d], d, n, out)
    if dealer >= 0:
        out[w + dealer * n + d] += consolation
    if t[T_TEN_CHECKED] and t[row + C_LEVEL] == 10:  # no trick whists, no obligation
        out[w + s0 * n + d] += consolation
        out[w + s1 * n + d] += consolation
        return
    own0 = tricks[s0]
    own1 = tricks[s1]
    k = own0 + own1
    gentleman = t[T_WHIST_SPLIT] == SPLIT_GENTLEMAN
    two = first == W_WHIST and second == W_WHIST
    if two:
        out[w + s0 * n + d] += whist_rate * own0 + consolation
        out[w + s1 * n + d] += whist_rate * own1 + consolation
    elif under and gentleman and second != W_HALF:
        # shared only when the defence set the contract; after a returned half-whist
        # "all whists are written by the one who returned it" (B:241)
        share = (whist_rate * k + 2 * consolation) // 2  # even: every rate is whole
        out[w + s0 * n + d] += share
        out[w + s1 * n + d] += share
    else:
        whister, passer = (s0, s1) if first == W_WHIST else (s1, s0)
        out[w + whister * n + d] += whist_rate * k + consolation
        out[w + passer * n + d] += consolation

    shortfall = max(0, t[row + C_OBLIGATION] - k)
    if two and t[T_RESPONSIBILITY] == RESPONSIBILITY_FULL:
        owed0, owed1 = shortfall, shortfall  # each answers for the whole team
    elif two:
        owed0 = max(0, t[row + C_QUOTA] - own0)
        owed1 = max(0, t[row + C_QUOTA] - own1)
        if gentleman:  # together no more than the team's shortfall, first one's cut first
            excess = max(0, owed0 + owed1 - shortfall)
            cut = min(excess, owed0)
            owed0 -= cut
            owed1 -= excess - cut
    elif first == W_WHIST:
        owed0, owed1 = shortfall, 0
    else:
        owed0, owed1 = 0, shortfall
    out[n + s0] += t[row + C_SHORTFALL] * owed0
    out[n + s1] += t[row + C_SHORTFALL] * owed1


@njit(cache=True)
def _raspasy_totals(t, n, tricks, dealer, step, bomb, out):
    """A raspasy (RULES.md §6, §7) into ``out``; see :func:`deal_totals`. A bomb
    raspasy (``bomb`` > 1) is priced by its bomb, ``bomb`` points a trick, and its
    zero-trick pool is ``raspasy_zero_pool`` at that rate (B:398)."""
    at = T_RASPASY + 2 * min(step, t[T_RASPASY_STEPS] - 1)  # the last step repeats
    rate = t[at]
    zero = t[at + 1]
    if bomb > 1:
        rate = 2 * bomb
        zero = t[T_BOMB_ZERO_PER] * bomb + t[T_BOMB_ZERO_FIXED]
    # The 4-player dealer plays the talon's cards (raspasy_talon = "dealer"): he is in
    # the count of the fewest tricks and writes whists (B:374's example), and with
    # dealer_raspasy_pool an empty talon writes him the zero-trick pool (B:312, B:355).
    plays = dealer >= 0 and t[T_RASPASY_TALON] == DEALER_TALON
    fewest = 10
    for p in range(n):
        out[n + p] += rate * tricks[p]  # the dealer's talon tricks too
        if p != dealer or plays:
            fewest = min(fewest, tricks[p])
            if tricks[p] == 0 and (p != dealer or t[T_DEALER_RASPASY_POOL]):
                out[p] += zero
    if dealer >= 0 and t[T_RASPASY_TALON] == NO_TALON:
        out[dealer] += zero
    tied = 0
    for p in range(n):
        tied += (p != dealer or plays) and tricks[p] == fewest
    per_trick = t[T_RASPASY_WHISTS]
    if tied > 1 and t[T_RASPASY_TIES] == TIES_HALF:  # "they write half each" (B:593)
        per_trick //= 2  # whole: the rate is in half points
    for p in range(n):
        if (p != dealer or plays) and tricks[p] == fewest:
            for q in range(n):
                out[2 * n + p * n + q] += per_trick * max(0, tricks[q] - fewest)


@njit(cache=True)
def deal_totals(table, kind, declarer, defender, contract, tricks, first, second, dealer,
                step, multiplier, talon, out):  # fmt: skip
    """One deal's pool, mountain and whists in half points, written over ``out``.

    ``table`` is :meth:`Variant.scoring_table`; ``kind`` is ``GAME``, ``MISERE_GAME`` or
    ``RASPASY``; ``tricks`` (int64, length N) the tricks per player (a misère's declarer:
    his tricks; ignored for a game that is not played). For a game, ``first`` and
    ``second`` are the defenders' roles as :func:`~prefstats.auction.whist_state` returns
    them and ``defender`` the first defender's seat (-1: the declarer's left-hand one).
    With 2 players (Gusarik) the defender is ``1 - declarer``, ``tricks[1 - declarer]``
    his and the dummy's tricks, ``first`` his role (``W_WHIST``, ``W_PASS`` or
    ``W_HALF``), and ``defender`` and ``second`` are ignored.
    ``dealer`` is the 4-player dealer's seat (-1, and ignored with 2 or 3 players);
    ``step`` the raspasy progression step (0 = first). ``multiplier`` (>= 1: bombs, a
    dark bid) multiplies every entry of a game or misère; on a raspasy, > 1 makes it a
    bomb raspasy at ``multiplier`` points a trick instead of the step's rate (``bomb_level
    = "round"``, B:398); ``talon`` is the talon's mask
    when the declarer of a trick game showed it (0 otherwise), for ``talon_whists``.
    ``out`` (int64, length 2N + N²) receives ``pool[N], mountain[N], whists[N*N]`` with
    ``whists[i*N + j]`` written by i on j. Inputs are trusted: the entry functions
    validate them. Compiled; no allocation.
    """
    n = table[T_PLAYERS]
    out[:] = 0
    if n != 4:
        dealer = -1
    if kind == RASPASY:
        _raspasy_totals(table, n, tricks, dealer, step, multiplier, out)
        return
    if kind == MISERE_GAME:
        taken = tricks[declarer]
        if taken:
            out[n + declarer] = table[T_MISERE_FAILED] * taken
        else:
            out[declarer] = table[T_MISERE_MADE]
    elif n == 2:
        _duel_totals(table, declarer, contract, tricks, first, out)
    else:
        _game_totals(table, n, declarer, defender, contract, tricks, first, second, dealer, out)
    if kind == GAME and dealer >= 0 and talon != 0 and table[T_TALON_WHISTS]:
        whist_rate = table[contract * CONTRACT_FIELDS + C_WHIST]
        out[2 * n + dealer * n + declarer] += whist_rate * talon_honours(talon)
    if multiplier != 1:
        for i in range(len(out)):
            out[i] *= multiplier


def _entries(variant: Variant, *deal: int | Sequence[int]) -> np.ndarray:
    """Entry rows of one validated deal, given as :func:`deal_totals` takes it between
    ``table`` and ``out``: mountain, then pool, then whist rows, zero amounts skipped."""
    n = variant.players
    out = np.empty(2 * n + n * n, dtype=np.int64)
    kind, declarer, defender, contract, tricks, first, second, dealer, step, mult, talon = deal
    tricks = np.asarray(tricks, dtype=np.int64)
    dealer = -1 if dealer is None else dealer
    table = variant.scoring_table()
    deal_totals(table, kind, declarer, defender, contract, tricks, first, second, dealer, step,
                mult, talon, out)  # fmt: skip
    rows = _Rows()
    for p in range(n):
        rows.mountain(p, int(out[n + p]))
    for p in range(n):
        rows.pool(p, int(out[p]))
    for i in range(n):
        for j in range(n):
            rows.whist(i, j, int(out[2 * n + i * n + j]))
    return rows.array()


# ---- one deal's entries ---------------------------------------------------------------------


def game_entries(
    variant: Variant,
    declarer: int,
    contract: Contract | str | int,
    tricks: Sequence[int] | None,
    whist: Mapping[int, str] | None,
    dealer: int | None = None,
    *,
    multiplier: int = 1,
    talon: int | str | None = None,
) -> np.ndarray:
    """Entries of a trick game (RULES.md §4, §7), as rows ``(column, player, on, halves)``.

    ``whist`` maps the two defenders, the declarer's left-hand one first, to ``"whist"``,
    ``"pass"`` or ``"half"``. The second's ``"half"`` stands when the first passed (the
    game is not played) and was returned when the first says ``"whist"`` (the first
    whists alone, the half-whister counts as a passer). With ``ten_checked`` a 10-level
    game is always played and ``whist`` may be ``None``. ``tricks`` (per player) is
    ignored when the game is not played.

    With 2 players (Gusarik) ``tricks`` holds the two players' counts (the dummy's tricks
    belong to the defending player) and ``whist`` maps the one defender to his call:
    ``"whist"`` (with the dummy), ``"pass"`` or, on a 6 or 7, ``"half"`` (he leaves the
    obligatory tricks).

    ``multiplier`` (bombs, a dark bid) multiplies every entry; ``talon`` is the talon the
    declarer showed (a mask or text like ``"A♠ K♥"``; ``None`` for a contract without
    the talon), which gives the 4-player dealer his ``talon_whists``.

    Shortfall with two whisters under ``gentleman``: each owes ``max(0, q - own)``, and
    when that exceeds the team shortfall the first whister's part is cut first; so on
    8, 9, 10 only the second whister pays. The rules are in :func:`deal_totals`.

    >>> from prefstats.variants import get_variant
    >>> game_entries(get_variant("sochi"), 0, "6♠", None, {1: "pass", 2: "pass"}).tolist()
    [[0, 0, -1, 4]]
    """
    n = variant.players
    declarer = _seat(declarer, n, "declarer")
    c = _contract(contract)
    if c.is_misere:
        raise ValueError("contract: misère is scored by misere_entries / record_misere")
    multiplier = _multiplier(multiplier)
    talon_mask = _talon(talon)
    if n == 2:
        if dealer is not None:
            _seat(dealer, n, "dealer")
        role = _duel_role(variant, declarer, c.code, whist)
        counts = [0, 0]
        if role == W_WHIST:
            counts = _trick_counts(tricks, n)
            if sum(counts) != 10:
                raise ValueError(
                    f"tricks: a played deal has 10 tricks, these sum to {sum(counts)}"
                )
        return _entries(variant, GAME, declarer, -1, c.code, counts, role, W_PASS, None, 0,
                        multiplier, talon_mask)  # fmt: skip
    checked = not legal_whist_calls(c.code, [], variant)  # a ten_checked 10: no calls
    if whist is None and checked:
        dealer = _dealer(variant, dealer, [declarer])
        seats = [s for s in range(n) if s not in (declarer, dealer)]
    else:
        seats, calls = _whist_map(whist, declarer, n)
        dealer = _dealer(variant, dealer, [declarer, *seats])
    roles = _whist_roles(variant, c.code, [] if checked else calls)  # checked: no calls

    counts = [0] * n
    if game_played(*roles):
        counts = _trick_counts(tricks, n)
        if dealer is not None and counts[dealer]:
            raise ValueError(f"tricks: the dealer (seat {dealer}) sits out and takes no tricks")
        if sum(counts) != 10:
            raise ValueError(f"tricks: a played deal has 10 tricks, these sum to {sum(counts)}")
    return _entries(variant, GAME, declarer, seats[0], c.code, counts, *roles, dealer, 0,
                    multiplier, talon_mask)  # fmt: skip


def _whist_roles(variant: Variant, contract: int, calls: Sequence[str]) -> tuple[int, int]:
    """The defenders' roles (``W_*``) of the outcome ``calls`` (first, second), checked
    by replaying the whist calls that lead to it."""
    codes = [WHIST_CALL_NAMES.index(call) for call in calls]
    if len(codes) == 2 and codes[1] == W_HALF:  # the first defender passed, then answered
        codes = [W_PASS, W_HALF, codes[0]]
    sequence = np.array(codes, dtype=np.int64)
    _, _, first, second, bad = whist_state(contract, sequence, *whist_options(variant))
    if bad >= 0 and codes[bad] == W_HALF:
        raise ValueError(
            "whist: 'half' is open only to the second defender, on a 6 or 7, with half_whist"
        )
    if bad >= 0:
        raise ValueError("whist: with stalingrad 6♠ must be whisted by both defenders")
    return first, second


def misere_entries(
    variant: Variant,
    declarer: int,
    tricks_taken: int,
    dealer: int | None = None,
    *,
    multiplier: int = 1,
) -> np.ndarray:
    """Entries of a misère: pool when the declarer takes no trick, else mountain per trick,
    each times ``multiplier`` (bombs, a dark bid).

    >>> from prefstats.variants import get_variant
    >>> misere_entries(get_variant("leningrad"), 2, 1).tolist()
    [[1, 2, -1, 40]]
    """
    n = variant.players
    declarer = _seat(declarer, n, "declarer")
    taken = _trick_counts([tricks_taken], 1)[0]
    if dealer is not None and _seat(dealer, n, "dealer") == declarer and n == 4:
        raise ValueError(f"dealer: seat {dealer} sits out and cannot be the declarer")
    multiplier = _multiplier(multiplier)
    counts = [0] * n
    counts[declarer] = taken
    return _entries(variant, MISERE_GAME, declarer, -1, 0, counts, -1, -1, dealer, 0,
                    multiplier, 0)  # fmt: skip


def raspasy_entries(
    variant: Variant, tricks: Sequence[int], step: int = 0, dealer: int | None = None, *,
    multiplier: int = 1,
) -> np.ndarray:
    """Entries of a raspasy at progression ``step`` (0-based count of raspasy before it).

    ``multiplier`` > 1 makes it a bomb raspasy (``blind_pass`` with ``bomb_level =
    "round"``): a power of two, its bomb, worth that many points a trick instead of the
    step's rate (2, 4, 8 for a single, double, triple bomb, B:398), its zero-trick pool
    ``raspasy_zero_pool`` at that rate; ``step`` is then ignored.

    Each player's tricks go to his mountain at the step rate, a player without tricks
    writes ``raspasy_zero_pool`` into his pool, and with ``raspasy_whists`` the players
    with the fewest tricks write whists on those with more. With 4 players ``dealer`` is
    required: under ``raspasy_talon = "dealer"`` he is scored like a player for the
    tricks the talon took (mountain; with ``raspasy_whists`` he is in the count of the
    fewest and writes whists, as in B:374's example) and, with ``dealer_raspasy_pool``,
    gets the zero-trick pool when it took none (B:312, B:355); under ``"none"`` he
    writes the zero-trick pool and nothing else; under ``"suit_lead"`` he has no part.

    >>> from prefstats.variants import get_variant
    >>> raspasy_entries(get_variant("rostov"), [0, 3, 7]).tolist()  # RULES.md §9.5
    [[0, 0, -1, 2], [2, 0, 1, 30], [2, 0, 2, 70]]
    """
    n = variant.players
    counts = _trick_counts(tricks, n)
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"step: expected a non-negative integer, got {step!r}")
    if n == 4:
        if dealer is None:
            raise ValueError("dealer: with 4 players name the seat that sits out")
        dealer = _seat(dealer, n, "dealer")
        if variant.raspasy_talon != "dealer" and counts[dealer]:
            raise ValueError(f"tricks: the dealer (seat {dealer}) takes no tricks here")
    elif dealer is not None:
        _seat(dealer, n, "dealer")
        dealer = None  # with 2 or 3 players the dealer is an ordinary player
    if sum(counts) != 10:
        raise ValueError(f"tricks: a raspasy has 10 tricks, these sum to {sum(counts)}")
    bomb = _bomb(variant, multiplier)
    return _entries(variant, RASPASY, 0, -1, 0, counts, -1, -1, dealer, step, bomb, 0)


def _bomb(variant: Variant, multiplier: object) -> int:
    """A raspasy's ``multiplier`` checked: 1, or a bomb raspasy's power of two."""
    bomb = _multiplier(multiplier)
    if bomb > 1 and not (variant.blind_pass and variant.bomb_level == "round"):
        raise ValueError("multiplier: a raspasy has one only as a bomb raspasy, with "
                         "blind_pass and bomb_level = 'round'")
    if bomb & (bomb - 1):
        raise ValueError(f"multiplier: a bomb is a power of two (2, 4, 8 ...), got {bomb}")
    return bomb


# ---- batches ---------------------------------------------------------------------------------

#: The arguments of :func:`deal_totals` that describe a deal, in its order.
OUTCOME_FIELDS = ("kind", "declarer", "defender", "contract", "tricks", "first", "second",
                  "dealer", "step", "multiplier", "talon")  # fmt: skip


@njit(cache=True)
def _score_loop(table, kind, declarer, defender, contract, tricks, first, second, dealer, step,
                multiplier, talon, out):  # fmt: skip
    for i in range(len(kind)):
        deal_totals(
            table, kind[i], declarer[i], defender[i], contract[i], tricks[i], first[i],
            second[i], dealer[i], step[i], multiplier[i], talon[i], out[i],
        )  # fmt: skip


def score_batch(
    variant: Variant,
    kind,
    declarer,
    contract,
    tricks,
    first,
    second,
    dealer=-1,
    step=0,
    *,
    defender=-1,
    multiplier=1,
    talon=0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pool ``(n, N)``, mountain ``(n, N)`` and whists ``(n, N, N)`` in half points of
    ``n`` deals, each scored by :func:`deal_totals` (see it for the arguments).

    ``tricks`` is ``(n, N)``; every other argument is a length-``n`` array or one value
    for all deals; with 4 players every deal names its ``dealer``. Only the ranges of
    seats, codes and counts are checked (out-of-range values would write outside the
    arrays), that ``multiplier`` is at least 1 and that each ``talon`` is 0 or two cards;
    the rules are trusted, as the engine produces them. The three results are views of
    one array.

    >>> from prefstats.variants import get_variant
    >>> pool, mountain, whists = score_batch(get_variant("sochi"), [GAME, RASPASY], 0, 3,
    ...     [[4, 4, 2], [0, 4, 6]], W_WHIST, W_WHIST, step=[0, 1])
    >>> (pool // 2).tolist(), (mountain // 2).tolist(), (whists[0, :, 0] // 2).tolist()
    ([[0, 0, 0], [2, 0, 0]], [[4, 0, 0], [0, 8, 12]], [0, 12, 8])
    """
    n_players = variant.players
    tricks = np.asarray(tricks, dtype=np.int64)
    if tricks.ndim != 2 or tricks.shape[1] != n_players:
        raise ValueError(f"tricks: expected shape (n, {n_players}), got {tricks.shape}")
    n = len(tricks)
    big = np.iinfo(np.int64).max
    columns = {  # in the order of OUTCOME_FIELDS: values, lowest, highest
        "kind": (kind, GAME, RASPASY),
        "declarer": (declarer, 0, n_players - 1),
        "defender": (defender, -1, n_players - 1),
        "contract": (contract, 0, N_CONTRACTS - 1),
        "tricks": (tricks, 0, 10),
        "first": (first, -1, W_HALF),
        "second": (second, -1, W_HALF),
        "dealer": (dealer, 0 if n_players == 4 else -1, n_players - 1),
        "step": (step, 0, big),
        "multiplier": (multiplier, 1, big),
        "talon": (talon, 0, 0xFFFFFFFF),
    }
    arrays = []
    for name, (values, low, high) in columns.items():
        a = np.asarray(values, dtype=np.int64)
        if a.size and (a.min() < low or a.max() > high):
            raise ValueError(f"{name}: values outside {low}..{high}")
        if name == "talon" and ((a != 0) & (card_counts(a.astype(np.uint32)) != 2)).any():
            raise ValueError("talon: each value is 0 (no talon shown) or a mask of two cards")
        if name != "tricks":
            try:
                a = np.broadcast_to(a, (n,))
            except ValueError:
                raise ValueError(f"{name}: expected {n} values or one, got {a.shape}") from None
        arrays.append(a)
    out = np.empty((n, 2 * n_players + n_players**2), dtype=np.int64)
    _score_loop(variant.scoring_table(), *arrays, out)
    pool = out[:, :n_players]
    mountain = out[:, n_players : 2 * n_players]
    return pool, mountain, out[:, 2 * n_players :].reshape(n, n_players, n_players)


@njit(cache=True)
def state_totals(table, st, tricks, out):
    """:func:`deal_totals` of one finished hand-engine state ``st`` (a record of
    :data:`prefstats.engine.STATE`), written over ``out``; ``tricks`` (int64, length N)
    is scratch. The one mapping from engine states to scoring (the simulator's datasets,
    the pulka loop):

    - seats 0..2 are the first, second and third hand; with 4 players the dealer is
      player 3, whose tricks are those the talon took on a raspasy;
    - with 2 players (Gusarik) the dummy's tricks (seat 2) go to the defending player
      and ``first`` is that player's role (the engine's roles are positional: the
      declarer's left-hand defender first, the dummy's role ``W_PASS``);
    - a game or misère is scored at ``st.multiplier``, and so is a bomb raspasy (the
      engine sets its multiplier, B:398); any other raspasy has multiplier 1;
    - ``talon`` is the talon's mask for a trick game with the talon (``not
      st.no_talon``), else 0.
    """
    n = table[T_PLAYERS]
    kind = st.kind
    declarer = max(st.declarer, 0)
    for s in range(n):
        tricks[s] = st.tricks[s]
    first = st.first
    second = st.second
    defender = -1
    multiplier = max(st.multiplier, 1)
    talon = 0
    if kind != RASPASY:
        if kind == GAME and not st.no_talon:
            talon = st.talon
        if n == 2:
            tricks[1 - declarer] += st.tricks[2]
            if (declarer + 1) % 3 == 2:  # the dummy is the first defender
                first = st.second
            second = W_PASS
        elif n == 4:
            defender = (declarer + 1) % 3
    deal_totals(table, kind, declarer, defender, max(st.contract, 0), tricks, first, second,
                3 if n == 4 else -1, st.raspasy_step, multiplier, talon, out)  # fmt: skip


@njit(cache=True)
def _states_loop(table, states, out):
    tricks = np.zeros(table[T_PLAYERS], dtype=np.int64)
    for i in range(len(states)):
        state_totals(table, states[i], tricks, out[i])


def score_states(variant: Variant, states: np.ndarray) -> tuple[np.ndarray, ...]:
    """Pool, mountain and whists (as :func:`score_batch` returns them) of finished
    hand-engine states (records of :data:`prefstats.engine.STATE`), each scored by
    :func:`state_totals`."""
    n = variant.players
    states = np.ascontiguousarray(states)
    out = np.empty((len(states), 2 * n + n * n), dtype=np.int64)
    _states_loop(variant.scoring_table(), states, out)
    return out[:, :n], out[:, n : 2 * n], out[:, 2 * n :].reshape(-1, n, n)


def deal_values(variant: Variant, pool, mountain, whists) -> np.ndarray:
    """Value of each deal ``(n, N)`` (float) from its totals in half points, as
    :func:`score_batch` returns them: the settlement (RULES.md §8) of each deal alone.

    >>> from prefstats.variants import get_variant
    >>> v = get_variant("leningrad")
    >>> deal_values(v, *score_batch(v, GAME, 0, 0, [[0, 0, 0]], W_PASS, W_PASS)).round(2)
    array([[ 26.67, -13.33, -13.33]])
    """
    scaled = _scaled_scores(pool, mountain, whists, variant.pool_value, variant.mountain_value)
    return scaled / (2 * variant.players)


def outcome_entries(variant: Variant, kind, declarer, defender, contract, tricks, first,
                    second, dealer, step, multiplier=1, talon=0) -> np.ndarray:  # fmt: skip
    """Entry rows of one deal given in the form of :func:`score_batch` (``defender`` a
    seat), through the validating :func:`game_entries`, :func:`misere_entries` or
    :func:`raspasy_entries`.

    >>> from prefstats.variants import get_variant
    >>> outcome_entries(get_variant("sochi"), GAME, 0, 1, 3, [4, 4, 2], 1, 1, -1, 0).tolist()
    [[1, 0, -1, 8], [2, 1, 0, 24], [2, 2, 0, 16]]
    """
    dealer = None if dealer < 0 else int(dealer)
    tricks = [int(t) for t in tricks]
    multiplier = int(multiplier)
    if kind == RASPASY:
        return raspasy_entries(variant, tricks, int(step), dealer, multiplier=multiplier)
    if kind == MISERE_GAME:
        return misere_entries(variant, declarer, tricks[declarer], dealer,
                              multiplier=multiplier)  # fmt: skip
    if variant.players == 2:
        whist = {1 - declarer: WHIST_CALL_NAMES[first]}
    else:
        (other,) = (s for s in range(variant.players) if s not in (declarer, defender, dealer))
        whist = {defender: WHIST_CALL_NAMES[first], other: WHIST_CALL_NAMES[second]}
    return game_entries(variant, declarer, contract, tricks, whist, dealer,
                        multiplier=multiplier, talon=int(talon) or None)  # fmt: skip


def random_outcomes(variant: Variant, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``n`` random valid deal outcomes for ``variant``, as :func:`score_batch` takes them
    (keys ``OUTCOME_FIELDS``): for tests and benchmarks, not a model of real play.

    Kinds, seats, contracts and the raspasy step are uniform; whist calls are a random
    walk over :func:`~prefstats.auction.whist_state`'s legal calls; tricks split 10
    uniformly over the compositions among the players who can take them. Games and
    misères get a multiplier of 1, 2, 4, 8 or 16; three trick games in four show a
    random talon.

    >>> from prefstats.variants import get_variant
    >>> o = random_outcomes(get_variant("rostov", players=4), 1000, seed=1)
    >>> bool((o["tricks"].sum(axis=1) <= 10).all()), sorted(set(o["kind"].tolist()))
    (True, [1, 2, 3])
    """
    table = variant.scoring_table()
    unused = {"declarer": 0, "contract": 0, "tricks": 0, "step": 0, "multiplier": 1,
              "talon": 0}  # else -1  # fmt: skip
    out = {}
    for name in OUTCOME_FIELDS:
        shape = (n, variant.players) if name == "tricks" else n
        out[name] = np.full(shape, unused.get(name, -1), dtype=np.int64)
    _random_loop(table, seed, *(out[name] for name in OUTCOME_FIELDS))
    return out


@njit(cache=True)
def _split_ten(seats, m, tricks):
    """Ten tricks over ``seats[:m]``: cut points drawn uniformly, then sorted."""
    cuts = np.sort(np.random.randint(0, 11, m - 1))
    low = 0
    for j in range(m - 1):
        tricks[seats[j]] = cuts[j] - low
        low = cuts[j]
    tricks[seats[m - 1]] = 10 - low


@njit(cache=True)
def _random_loop(t, seed, kind, declarer, defender, contract, tricks, first, second, dealer,
                 step, multiplier, talon):  # fmt: skip
    np.random.seed(seed)
    n = t[T_PLAYERS]
    calls = np.empty(3, dtype=np.int64)
    seats = np.empty(4, dtype=np.int64)
    for i in range(len(kind)):
        k = np.random.randint(GAME, RASPASY + 1)
        kind[i] = k
        dealer[i] = np.random.randint(0, n) if n == 4 else -1
        m = 0
        for s in range(n):
            if s != dealer[i]:
                seats[m] = s
                m += 1
        if k == RASPASY:
            if dealer[i] >= 0 and t[T_RASPASY_TALON] == DEALER_TALON:
                seats[m] = dealer[i]  # the talon's tricks are the dealer's
                m += 1
            _split_ten(seats, m, tricks[i])
            step[i] = np.random.randint(0, 5)
            continue
        d = seats[np.random.randint(0, m)]
        declarer[i] = d
        multiplier[i] = 1 << np.random.randint(0, 5)
        if k == MISERE_GAME:
            tricks[i, d] = np.random.randint(0, 11)
            continue
        code = np.random.randint(0, N_CONTRACTS - 1)
        code += code >= MISERE
        contract[i] = code
        if np.random.randint(0, 4):
            low = np.random.randint(0, 32)
            high = (low + np.random.randint(1, 32)) % 32
            talon[i] = (1 << low) | (1 << high)
        if n == 2:  # the defending player's one call (as if he were the first defender)
            legal = whist_state(code, calls[:0], t[T_HALF_WHIST] != 0, t[T_TEN_CHECKED] != 0,
                                t[T_STALINGRAD] != 0, 1)[0]  # fmt: skip
            call = np.random.randint(0, 3)
            while not (legal >> call) & 1:
                call = np.random.randint(0, 3)
            first[i] = call
            second[i] = W_PASS
            if call == W_WHIST:
                _split_ten(seats, 2, tricks[i])
            continue
        others = seats[:3][seats[:3] != d]
        defender[i] = others[np.random.randint(0, 2)]
        ncalls = 0
        while True:
            legal, _, r0, r1, _ = whist_state(
                code, calls[:ncalls], t[T_HALF_WHIST] != 0, t[T_TEN_CHECKED] != 0,
                t[T_STALINGRAD] != 0, -1,
            )  # fmt: skip
            if legal == 0:
                break
            call = np.random.randint(0, 3)
            while not (legal >> call) & 1:
                call = np.random.randint(0, 3)
            calls[ncalls] = call
            ncalls += 1
        first[i] = r0
        second[i] = r1
        if game_played(r0, r1):
            _split_ten(seats, 3, tricks[i])


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
    beyond it as :func:`apply_help` says (B:317): never to the deal's dealer or to a
    player who whisted against the helper; with nobody to help, and for a closed
    player's zero-trick raspasy pool, they come off his mountain down to zero and the
    rest goes into every other player's mountain. The dealer is the ``dealer`` given to
    a record method; with 3 players it defaults to the sliding deal of RULES.md §1
    (deal ``k``, counted from 0, is dealt by player ``(2 + k) mod 3``). ``"total"``
    (Leningrad) ends the pulka when the pools sum to ``pool_target`` times the players.
    Recording after the end raises.

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
        if self.pool_target is None or self.deals < len(opening_bombs(self.variant)):
            return False  # the opening bomb circles are played in full (B:400)
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
        if v.players == 2:
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
        n = self.variant.players
        if dealer is not None:
            return [dealer] if n > 2 else []
        if n == 3:
            return [(n - 1 + self.deals) % n]
        free = [s for s in range(n) if s not in busy]
        return free if n == 4 and len(free) == 1 else []

    def _commit(self, entries: np.ndarray, *, no_help: Sequence[int], raspasy: bool,
                declarer: int | None = None) -> None:
        """Add a deal's ``entries`` (``declarer``: of a trick game) after help."""
        if self.finished:
            raise ValueError("the pulka is over: every deal after its end is refused")
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
        self._pool += pool
        self._mountain += mountain
        self._whists += whists
        self.deals += 1
        for column, player, on, halves in entries.tolist():
            who = None if column != WHIST else on
            self.log.append(Entry(self.deals, COLUMNS[column], player, who, Fraction(halves, 2)))
        self.raspasy_step = self.raspasy_step + 1 if raspasy else 0


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


@njit(cache=True)
def responsible_shortfall(table, target, pool, declarer, deal):
    """B:422's half-responsible whist until a pool closes (``half_responsible_until_closed``):
    while no pool of ``pool`` (the sheet's before the deal, half points) has reached
    ``target`` (0: none ever does), halve the mountain entries of a trick game's
    dense totals ``deal`` other than the declarer's -- the whisters' shortfall. In
    place; compiled: the pulka loop calls it."""
    if not table[T_HALF_UNTIL_CLOSED]:
        return
    n = table[T_PLAYERS]
    for p in range(n):
        if target > 0 and pool[p] >= target:
            return
    for p in range(n):
        if p != declarer:
            deal[n + p] //= 2  # even: every rate is a whole number of points


@njit(cache=True)
def whisted_against(role, first):
    """Whether a defender whose role is ``role`` (``W_*``; ``first`` the first
    defender's) whisted against the declarer, which bars him from the declarer's help
    (B:317): a whister, or a half-whister whose half-whist stood (the first passed); a
    half-whister whose whist was returned counts as a passer."""
    return role == W_WHIST or (role == W_HALF and first == W_PASS)


@njit(cache=True)
def help_barred(n, kind, declarer, first, second, out):
    """Who may not be helped after a deal (B:317), by the hand engine's seats (0..2 from
    the dealer's left, 3 the 4-player dealer), written over the bool array ``out``: the
    dealer (seat 2 with 3 players, 3 with 4; Gusarik has none) and, in a trick game,
    each defender who :func:`whisted_against` the declarer. Compiled: the pulka loop
    calls it."""
    out[:] = False
    if n >= 3:
        out[n - 1] = True
    if kind == GAME:
        lead = W_PASS if n == 2 else first  # Gusarik's dummy never returns a half-whist
        for i in range(2):
            seat = (declarer + 1 + i) % 3
            if seat < n and whisted_against(first if i == 0 else second, lead):
                out[seat] = True


@njit(cache=True)
def apply_help(table, target, pool, mountain, deal, no_help, raspasy, out):
    """A deal's dense totals ``deal`` (as :func:`deal_totals` writes them) with help
    applied, written over ``out``; ``pool`` and ``mountain`` are the sheet's before it
    and ``target`` the pool target, all in half points (RULES.md §8, B:317).

    Pool points beyond the target go to the unclosed player with the largest pool (ties:
    the smaller mountain, then the first clockwise from the helper) who is not barred
    by ``no_help`` (the dealer, the players who whisted against the helper); the overflow
    of a filled pool goes to the next. The helper writes ``pool_value`` whists per point
    on the helped player. With nobody to help -- and always on a ``raspasy``, where a
    closed player's zero-trick pool helps nobody -- the points are written off the
    helper's own mountain down to zero and the rest into every other player's
    mountain. Mountain entries count before pool entries, and pool entries are helped in
    seat order. Compiled: the pulka simulator calls it directly.
    """
    n = table[T_PLAYERS]
    out[:] = deal
    pool_now = pool.copy()
    mountain_now = mountain + deal[n : 2 * n]
    for player in range(n):
        halves = deal[player]
        if halves <= 0:
            continue
        kept = min(halves, max(0, target - pool_now[player]))
        out[player] += kept - halves
        pool_now[player] += kept
        rest = halves - kept
        while rest > 0:
            best = -1
            for step in range(1, n):
                j = (player + step) % n
                if raspasy or no_help[j] or pool_now[j] >= target:
                    continue
                if best < 0 or pool_now[j] > pool_now[best] or (
                    pool_now[j] == pool_now[best] and mountain_now[j] < mountain_now[best]
                ):
                    best = j
            if best < 0:
                off = min(rest, max(0, mountain_now[player]))
                out[n + player] -= off
                mountain_now[player] -= off
                rest -= off
                for j in range(n):
                    if j != player:
                        out[n + j] += rest
                        mountain_now[j] += rest
                break
            given = min(rest, target - pool_now[best])
            out[best] += given
            out[2 * n + player * n + best] += table[T_POOL_VALUE] * given
            pool_now[best] += given
            rest -= given


# ---- a pulka from a file ------------------------------------------------------------------

_DEAL_KEYS = {
    "game": ({"declarer", "contract", "whist"}, {"tricks", "dealer", "multiplier", "talon"}),
    "misere": ({"declarer", "tricks"}, {"dealer", "multiplier"}),
    "raspasy": ({"tricks"}, {"dealer", "multiplier"}),
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
        sheet.record_raspasy(deal["tricks"], dealer, multiplier=deal.get("multiplier", 1))
    elif deal["type"] == "misere":
        sheet.record_misere(deal["declarer"], deal["tricks"], dealer,
                            multiplier=deal.get("multiplier", 1))  # fmt: skip
    else:
        whist = deal["whist"]
        if isinstance(whist, Mapping):  # JSON and TOML keys are strings
            whist = {int(k) if str(k).isdigit() else k: call for k, call in whist.items()}
        sheet.record_game(deal["declarer"], deal["contract"], deal.get("tricks"), whist, dealer,
                          multiplier=deal.get("multiplier", 1), talon=deal.get("talon"))


def sheet_from_records(data: Mapping) -> ScoreSheet:
    """A sheet with every deal of ``data`` recorded, in order.

    ``data`` holds ``variant`` (a preset name, or a table ``{base = "sochi", ...}`` of
    options), optional ``players`` (default: the preset's) and ``pool_target``, and
    ``deals``: a list of ``{type = "game", declarer, contract, tricks, whist = {seat =
    call}}`` (optional ``multiplier`` and ``talon``, e.g. ``"A♠ K♥"``), ``{type =
    "misere", declarer, tricks}`` (optional ``multiplier``) or ``{type = "raspasy",
    tricks}`` (optional ``multiplier``: a bomb raspasy's bomb; each with an optional
    ``dealer``). Errors raise ``ValueError`` naming the
    deal.

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
    players = data.get("players")
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
