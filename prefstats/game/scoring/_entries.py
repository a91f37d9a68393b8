"""One deal's entry rows ``(column, player, on, halves)``, validated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from prefstats.errors import RecordError
from prefstats.game.auction import (
    game_played,
    legal_whist_calls,
)
from prefstats.game.codes import (
    GAME,
    MISERE_GAME,
    RASPASY,
    W_PASS,
    W_WHIST,
    WHIST_CALL_NAMES,
)
from prefstats.game.contracts import Contract
from prefstats.game.scoring._checks import (
    _bomb,
    _contract,
    _dealer,
    _duel_role,
    _multiplier,
    _seat,
    _talon,
    _trick_counts,
    _whist_map,
    _whist_roles,
    sitting_out,
)
from prefstats.game.scoring._kernels import Outcome, deal_totals
from prefstats.game.variants import (
    Variant,
)

POOL, MOUNTAIN, WHIST = 0, 1, 2


COLUMNS = ("pool", "mountain", "whist")


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


def _entries(variant: Variant, *deal: int | Sequence[int]) -> np.ndarray:
    """Entry rows of one validated deal, given as :func:`deal_totals` takes it between
    ``table`` and ``out``: mountain, then pool, then whist rows, zero amounts skipped."""
    n = variant.players
    out = np.empty(2 * n + n * n, dtype=np.int64)
    kind, declarer, defender, contract, tricks, first, second, dealer, step, mult, talon = deal
    outcome = Outcome(int(kind), int(declarer), int(defender), int(contract),
                      np.asarray(tricks, dtype=np.int64), int(first), int(second),
                      -1 if dealer is None else int(dealer), int(step), int(mult), int(talon))
    deal_totals(variant.scoring_table(), outcome, out)
    rows = _Rows()
    for p in range(n):
        rows.mountain(p, int(out[n + p]))
    for p in range(n):
        rows.pool(p, int(out[p]))
    for i in range(n):
        for j in range(n):
            rows.whist(i, j, int(out[2 * n + i * n + j]))
    return rows.array()


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

    >>> from prefstats.game.variants import get_variant
    >>> game_entries(get_variant("sochi"), 0, "6♠", None, {1: "pass", 2: "pass"}).tolist()
    [[0, 0, -1, 4]]
    """
    n = variant.players
    declarer = _seat(declarer, n, "declarer")
    c = _contract(contract)
    if c.is_misere:
        raise RecordError("contract: misère is scored by misere_entries / record_misere")
    multiplier = _multiplier(multiplier)
    talon_mask = _talon(talon)
    if variant.has_dummy:
        if dealer is not None:
            _seat(dealer, n, "dealer")
        role = _duel_role(variant, declarer, c.code, whist)
        counts = [0, 0]
        if role == W_WHIST:
            counts = _trick_counts(tricks, n)
            if sum(counts) != 10:
                raise RecordError(
                    f"tricks: a played deal has 10 tricks, these sum to {sum(counts)}"
                )
        return _entries(variant, GAME, declarer, -1, c.code, counts, role, W_PASS, None, 0,
                        multiplier, talon_mask)  # fmt: skip
    checked = not legal_whist_calls(c.code, [], variant)  # a ten_checked 10: no calls
    if whist is None and checked:
        dealer = _dealer(variant, dealer, [declarer])
        seats = [s for s in range(n) if s != declarer and s not in sitting_out(variant, dealer)]
    else:
        seats, calls = _whist_map(whist, declarer, n)
        dealer = _dealer(variant, dealer, [declarer, *seats])
    roles = _whist_roles(variant, c.code, [] if checked else calls)  # checked: no calls

    counts = [0] * n
    if game_played(*roles):
        counts = _trick_counts(tricks, n)
        for seat in sitting_out(variant, dealer):
            if counts[seat]:
                raise RecordError(f"tricks: seat {seat} sits out and takes no tricks")
        if sum(counts) != 10:
            raise RecordError(f"tricks: a played deal has 10 tricks, these sum to {sum(counts)}")
    return _entries(variant, GAME, declarer, seats[0], c.code, counts, *roles, dealer, 0,
                    multiplier, talon_mask)  # fmt: skip


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

    >>> from prefstats.game.variants import get_variant
    >>> misere_entries(get_variant("leningrad"), 2, 1).tolist()
    [[1, 2, -1, 40]]
    """
    n = variant.players
    declarer = _seat(declarer, n, "declarer")
    taken = _trick_counts([tricks_taken], 1)[0]
    if dealer is not None and _seat(dealer, n, "dealer") == declarer and variant.dealer_sits_out:
        raise RecordError(f"dealer: seat {dealer} sits out and cannot be the declarer")
    if dealer is not None and variant.dealer_sits_out:
        dealer = _dealer(variant, dealer, [declarer])
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
    "round"`` or ``"tree"``): a power of two, its bomb, worth that many points a trick
    instead of the step's rate (2, 4, 8 for a single, double, triple bomb, B:398), its
    zero-trick pool ``raspasy_zero_pool`` at that rate; ``step`` is then ignored.

    Each player's tricks go to his mountain at the step rate, a player without tricks
    writes ``raspasy_zero_pool`` into his pool, and with ``raspasy_whists`` the players
    with the fewest tricks write whists on those with more. With 4 players ``dealer`` is
    required: under ``raspasy_talon = "dealer"`` he is scored like a player for the
    tricks the talon took (mountain; with ``raspasy_whists`` he is in the count of the
    fewest and writes whists, as in B:374's example) and, with ``dealer_raspasy_pool``,
    gets the zero-trick pool when it took none (B:312, B:355); under ``"none"`` he
    writes the zero-trick pool and nothing else; under ``"suit_lead"`` he has no part.

    >>> from prefstats.game.variants import get_variant
    >>> raspasy_entries(get_variant("rostov"), [0, 3, 7]).tolist()  # RULES.md §9.5
    [[0, 0, -1, 2], [2, 0, 1, 30], [2, 0, 2, 70]]
    """
    n = variant.players
    counts = _trick_counts(tricks, n)
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise RecordError(f"step: expected a non-negative integer, got {step!r}")
    if variant.dealer_sits_out:
        if dealer is None:
            raise RecordError(f"dealer: with {n} players name the dealer's seat, who sits out")
        dealer = _seat(dealer, n, "dealer")
        if variant.raspasy_talon != "dealer" and counts[dealer]:
            raise RecordError(f"tricks: the dealer (seat {dealer}) takes no tricks here")
        for seat in sitting_out(variant, dealer)[1:]:
            if counts[seat]:
                raise RecordError(f"tricks: seat {seat}, the next to deal, sits out and takes "
                                  "no tricks")
    elif dealer is not None:
        _seat(dealer, n, "dealer")
        dealer = None  # at any other table the dealer is an ordinary player
    if sum(counts) != 10:
        raise RecordError(f"tricks: a raspasy has 10 tricks, these sum to {sum(counts)}")
    bomb = _bomb(variant, multiplier)
    return _entries(variant, RASPASY, 0, -1, 0, counts, -1, -1, dealer, step, bomb, 0)


def outcome_entries(variant: Variant, kind, declarer, defender, contract, tricks, first,
                    second, dealer, step, multiplier=1, talon=0) -> np.ndarray:  # fmt: skip
    """Entry rows of one deal given in the form of :func:`score_batch` (``defender`` a
    seat), through the validating :func:`game_entries`, :func:`misere_entries` or
    :func:`raspasy_entries`.

    >>> from prefstats.game.variants import get_variant
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
    if variant.has_dummy:
        whist = {1 - declarer: WHIST_CALL_NAMES[first]}
    else:
        out = sitting_out(variant, dealer)
        (other,) = (s for s in range(variant.players) if s not in (declarer, defender, *out))
        whist = {defender: WHIST_CALL_NAMES[first], other: WHIST_CALL_NAMES[second]}
    return game_entries(variant, declarer, contract, tricks, whist, dealer,
                        multiplier=multiplier, talon=int(talon) or None)  # fmt: skip
