"""The compiled help of RULES.md §8 (B:317): a closed pool's overflow, who may
receive it, and the whisters' responsibility for a closed declarer."""

from __future__ import annotations

from numba import njit

from prefstats.game.codes import (
    GAME,
    W_HALF,
    W_PASS,
    W_WHIST,
    WITH_DUMMY,
)
from prefstats.game.variants import (
    T_HALF_UNTIL_CLOSED,
    T_PLAYERS,
    T_POOL_VALUE,
    T_TABLE,
)


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
def help_barred(table, kind, declarer, first, second, out):
    """Who may not be helped after a deal (B:317), by the hand engine's seats (0..2 from
    the dealer's left, 3 the 4-player dealer), written over the bool array ``out``: the
    dealer (seat 2 with 3 players, 3 with 4 or 5; Gusarik has none) and, in a trick game,
    each defender who :func:`whisted_against` the declarer. Compiled: the pulka loop
    calls it."""
    n = table[T_PLAYERS]
    out[:] = False
    dummy = table[T_TABLE] == WITH_DUMMY
    if not dummy:
        out[min(n, 4) - 1] = True  # with 5 the next to deal (seat 4) may be helped
    if kind == GAME:
        lead = W_PASS if dummy else first  # Gusarik's dummy never returns a half-whist
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


@njit(cache=True)
def preference_totals(table, target, pool, mountain, player, out):
    """The settlement of the "preference" (B:189-199) as a deal's dense totals, written
    over ``out``: ``player``'s mountain written off, every pool (his own too) filled to
    ``target``, and ``pool_value`` whists a point written by him on each player he fills,
    as help writes them (B:317). ``pool`` and ``mountain`` are the sheet's, all in half
    points. Compiled: the score sheet and the pulka simulator share it."""
    n = table[T_PLAYERS]
    out[:] = 0
    for i in range(n):
        missing = max(0, target - pool[i])
        out[i] = missing
        if i != player:
            out[2 * n + player * n + i] = table[T_POOL_VALUE] * missing
    out[n + player] = -mountain[player]
