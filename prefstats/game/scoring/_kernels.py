"""The compiled scoring kernels: one deal's totals from trusted inputs (the entry
functions and :func:`~prefstats.game.scoring.score_batch` check them first)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from prefstats.game.auction import (
    game_played,
)
from prefstats.game.codes import (
    DEALER_SITS_OUT,
    DEALER_TALON,
    GAME,
    MISERE_GAME,
    RASPASY,
    TALON_UNUSED,
    UNDECIDED,
    W_HALF,
    W_PASS,
    W_WHIST,
    WITH_DUMMY,
)
from prefstats.game.variants import (
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
    T_MISERE_FAILED,
    T_MISERE_MADE,
    T_MISERE_PRIZE,
    T_PLAYERS,
    T_RASPASY,
    T_RASPASY_STEPS,
    T_RASPASY_TALON,
    T_RASPASY_TIES,
    T_RASPASY_WHISTS,
    T_RESPONSIBILITY,
    T_TABLE,
    T_TALON_WHISTS,
    T_TEN_CHECKED,
    T_UNDERBID_PENALTY,
    T_WHIST_SPLIT,
    TIES_HALF,
)


@njit(cache=True)
def talon_honours(talon):
    """Tricks of talon whists (прикупные висты) for the two-card ``talon`` mask: 3 for two
    aces, else 2 for A+K of one suit, else 1 for an ace or K+Q of one suit, else 0.

    >>> from prefstats.game.cards import parse_cards
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
def idle_seat(n, dealer):
    """The seat that sits out beside the dealer at a five-player table: the next to deal,
    on the dealer's left (B:474, B:223) -- seat 4 when the dealer is seat 3, place
    ``dealer + 1`` by places; -1 at any other table (or with no dealer). He writes and
    is written nothing: every entry of the sitting-out player the texts name is the
    dealer's (B:233, B:273, B:312, B:355).

    >>> idle_seat(5, 3), idle_seat(5, 4), idle_seat(4, 3)
    (4, 0, -1)
    """
    if n == 5 and dealer >= 0:
        return (dealer + 1) % n
    return -1


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


class Outcome(NamedTuple):
    """A deal's outcome as :func:`deal_totals` scores it (its fields there), or many
    deals' as arrays (``OUTCOME_FIELDS``, :func:`~prefstats.game.scoring.score_batch`)."""

    kind: int
    declarer: int
    defender: int
    contract: int
    tricks: np.ndarray
    first: int
    second: int
    dealer: int
    step: int
    multiplier: int
    talon: int


@njit(cache=True)
def _game_totals(t, n, outcome, dealer, idle, out):
    """A trick game (RULES.md §4, §7) of 3, 4 or 5 players into ``out``; see
    :func:`deal_totals` (``dealer``: the sitting-out dealer, -1 at a table without)."""
    _, declarer, defender, contract, tricks, first, second, _, _, _, _ = outcome
    row = contract * CONTRACT_FIELDS
    made = t[row + C_MADE]
    whist_rate = t[row + C_WHIST]
    d = declarer
    w = 2 * n  # whists[i, j] is out[w + i * n + j]
    s0 = defender
    if s0 < 0:  # the declarer's left-hand defender
        s0 = (d + 1) % n
        while s0 == dealer or s0 == idle:  # noqa: SIM109
            s0 = (s0 + 1) % n
    s1 = 0  # the other defender; no `in` on a tuple: the engine passes mixed int types
    while s1 == d or s1 == s0 or s1 == dealer or s1 == idle:  # noqa: SIM109
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
def _raspasy_totals(t, n, tricks, dealer, idle, step, bomb, out):
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
        if p == idle:
            continue
        out[n + p] += rate * tricks[p]  # the dealer's talon tricks too
        if p != dealer or plays:
            fewest = min(fewest, tricks[p])
            if tricks[p] == 0 and (p != dealer or t[T_DEALER_RASPASY_POOL]):
                out[p] += zero
    if dealer >= 0 and t[T_RASPASY_TALON] == TALON_UNUSED:
        out[dealer] += zero
    tied = 0
    for p in range(n):
        tied += p != idle and (p != dealer or plays) and tricks[p] == fewest
    per_trick = t[T_RASPASY_WHISTS]
    if tied > 1 and t[T_RASPASY_TIES] == TIES_HALF:  # "they write half each" (B:593)
        per_trick //= 2  # whole: the rate is in half points
    for p in range(n):
        if p != idle and (p != dealer or plays) and tricks[p] == fewest:
            for q in range(n):
                out[2 * n + p * n + q] += per_trick * max(0, tricks[q] - fewest)


@njit(cache=True)
def deal_totals(table, outcome, out):
    """One deal's pool, mountain and whists in half points, written over ``out``.

    ``table`` is :meth:`Variant.scoring_table`; ``outcome`` an :class:`Outcome`: ``kind`` is
    ``GAME``, ``MISERE_GAME`` or ``RASPASY``; ``tricks`` (int64, length N) the tricks per player
    (a misère's declarer: his tricks; ignored for a game that is not played). For a game,
    ``first`` and ``second`` are the defenders' roles as
    :func:`~prefstats.game.auction.whist_state` returns them and ``defender`` the first
    defender's seat (-1: the declarer's left-hand one). With 2 players (Gusarik) the defender is
    ``1 - declarer``, ``tricks[1 - declarer]`` his and the dummy's tricks, ``first`` his role
    (``W_WHIST``, ``W_PASS`` or ``W_HALF``), and ``defender`` and ``second`` are ignored.
    ``dealer`` is the sitting-out dealer's seat (-1, and ignored with 2 or 3 players); with 5
    players the next to deal, :func:`idle_seat`, sits out too and has no entry; ``step`` the
    raspasy progression step (0 = first). ``multiplier`` (>= 1: bombs, a dark bid) multiplies
    every entry of a game or misère; on a raspasy, > 1 makes it a bomb raspasy at ``multiplier``
    points a trick instead of the step's rate (``bomb_level = "round"``, B:398); ``talon`` is
    the talon's mask when the declarer of a trick game showed it (0 otherwise), for
    ``talon_whists``. ``out`` (int64, length 2N + N²) receives ``pool[N], mountain[N],
    whists[N*N]`` with ``whists[i*N + j]`` written by i on j. Inputs are trusted: the entry
    functions validate them. Compiled; no allocation.
    """
    kind, declarer, _, contract, tricks, first, _, dealer, step, multiplier, talon = outcome
    n = table[T_PLAYERS]
    out[:] = 0
    if table[T_TABLE] != DEALER_SITS_OUT:
        dealer = -1
    idle = idle_seat(n, dealer)
    if kind == RASPASY:
        _raspasy_totals(table, n, tricks, dealer, idle, step, multiplier, out)
        return
    if kind == MISERE_GAME:
        taken = tricks[declarer]
        if taken:
            out[n + declarer] = table[T_MISERE_FAILED] * taken
        else:
            out[declarer] = table[T_MISERE_MADE]
            for p in range(n):  # the prize of a made misère (B:361), from each catcher
                if p != declarer and p != dealer and p != idle:
                    out[2 * n + p * n + declarer] += table[T_MISERE_PRIZE]
    elif table[T_TABLE] == WITH_DUMMY:
        _duel_totals(table, declarer, contract, tricks, first, out)
    else:
        _game_totals(table, n, outcome, dealer, idle, out)
    if kind == GAME and dealer >= 0 and talon != 0 and table[T_TALON_WHISTS]:
        whist_rate = table[contract * CONTRACT_FIELDS + C_WHIST]
        out[2 * n + dealer * n + declarer] += whist_rate * talon_honours(talon)
    if multiplier != 1:
        for i in range(len(out)):
            out[i] *= multiplier


@njit(cache=True)
def _score_loop(table, outcomes, out):
    """:func:`deal_totals` of each deal of ``outcomes`` (an :class:`Outcome` of arrays)."""
    kind, declarer, defender, contract, tricks, first, second, dealer, step, multiplier, talon = (
        outcomes)
    for i in range(len(kind)):
        deal_totals(table, Outcome(kind[i], declarer[i], defender[i], contract[i], tricks[i],
                                   first[i], second[i], dealer[i], step[i], multiplier[i],
                                   talon[i]), out[i])


@njit(cache=True)
def state_totals(table, st, tricks, out):
    """:func:`deal_totals` of one finished hand-engine state ``st`` (a record of
    :data:`prefstats.game.engine.STATE`), written over ``out``; ``tricks`` (int64, length N)
    is scratch. The one mapping from engine states to scoring (the simulator's datasets,
    the pulka loop):

    - seats 0..2 are the first, second and third hand; at a ``dealer_out`` table the
      dealer is player 3, whose tricks are those the talon took on a raspasy, and with
      5 players the next to deal is player 4 (:func:`idle_seat`), who holds no cards;
    - at Gusarik's ``dummy`` table the dummy's tricks (seat 2) go to the defending player
      and ``first`` is that player's role (the engine's roles are positional: the
      declarer's left-hand defender first, the dummy's role ``W_PASS``);
    - a game or misère is scored at ``st.multiplier``, and so is a bomb raspasy (the
      engine sets its multiplier, B:398); any other raspasy has multiplier 1;
    - ``talon`` is the talon's mask for a trick game with the talon (``not
      st.no_talon``), else 0;
    - a deal stopped before its game was decided (a pulka's preference, stopped at the
      talon) writes nothing: its settlement is the pulka's.
    """
    n = table[T_PLAYERS]
    kind = st.kind
    if kind == UNDECIDED:
        out[:] = 0
        return
    declarer = max(st.declarer, 0)
    for s in range(n):
        tricks[s] = st.tricks[s] if s < 4 else 0  # the engine's seats: three and the talon
    first = st.first
    second = st.second
    defender = -1
    multiplier = max(st.multiplier, 1)
    talon = 0
    if kind != RASPASY:
        if kind == GAME and not st.no_talon:
            talon = st.talon
        if table[T_TABLE] == WITH_DUMMY:
            tricks[1 - declarer] += st.tricks[2]
            if (declarer + 1) % 3 == 2:  # the dummy is the first defender
                first = st.second
            second = W_PASS
        elif table[T_TABLE] == DEALER_SITS_OUT:
            defender = (declarer + 1) % 3
    dealer = 3 if table[T_TABLE] == DEALER_SITS_OUT else -1
    deal_totals(table, Outcome(np.int64(kind), np.int64(declarer), np.int64(defender),
                               np.int64(max(st.contract, 0)), tricks, np.int64(first),
                               np.int64(second), np.int64(dealer), np.int64(st.raspasy_step),
                               np.int64(multiplier), np.int64(talon)), out)


@njit(cache=True)
def _states_loop(table, states, out):
    tricks = np.zeros(table[T_PLAYERS], dtype=np.int64)
    for i in range(len(states)):
        state_totals(table, states[i], tricks, out[i])
