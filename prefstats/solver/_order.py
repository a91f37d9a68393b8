"""Move ordering by card-play heuristics, and the playout along it that gives trick
contracts their first guess (private)."""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.cards import lowest_card, pdep, pext, popcount
from prefstats.game.tricks import beats, legal_cards, trick_winner
from prefstats.solver._bounds import DUCKS, HIGH8, _suit_len
from prefstats.solver._intrinsics import _stack


@njit(cache=True, inline="always", error_model="numpy")
def _run_tops(cards, in_play):
    """The top card of each run of ``cards`` with no other card of ``in_play`` between
    them (one card for each set of equivalent ones): on the cards in play packed down,
    lowest first, a card whose next one is not among ``cards`` or is the lowest of the
    next suit."""
    bottoms = 0
    for s in range(4):
        m = (in_play >> (8 * s)) & 0xFF
        bottoms |= (m & -m) << (8 * s)
    x = pext(cards, in_play)
    return pdep(x & ~((x & ~pext(bottoms, in_play)) >> 1), in_play)


@njit(cache=True, inline="always", error_model="numpy")
def _order_moves(hands, trick, tlen, leader, game, tried, scratch, history):
    """Write one card per run of equivalent legal cards of the seat to move into
    ``out``, best first (``scratch``: ``out`` and ``scores``, scratch space).

    ``trick`` holds the ``tlen`` cards already played to this trick, led by ``leader``;
    ``game`` is a :class:`~prefstats.solver.Game`; ``tried``: ``hint``, a card to try
    first if it is among them, and ``killer``, one to try next (-1: none); a lead scores
    ``history[c]`` points more for card ``c``. Returns the number of cards written.
    """
    declarer, trump, misere = game
    hint, killer = tried
    out, scores = scratch
    player = (leader + tlen) % 3
    led = -1 if tlen == 0 else trick[0] >> 3
    legal = legal_cards(hands[player], led, trump)
    in_play = hands[0] | hands[1] | hands[2]
    for i in range(tlen):
        in_play |= 1 << trick[i]
    reps = _run_tops(legal, in_play)
    if reps & (reps - 1) == 0:  # one choice: nothing to order
        out[0] = lowest_card(reps)
        return 1
    wants_declarer = (player == declarer) != misere  # does he want the declarer to win?
    best = -1
    win_seat = -1
    for i in range(tlen):
        if best < 0 or beats(trick[i], best, trump):
            best = trick[i]
            win_seat = (leader + i) % 3
    third = (player + 1) % 3
    third_legal = legal_cards(hands[third], led, trump) if tlen == 1 else 0
    n = 0
    while reps:
        c = lowest_card(reps)
        reps &= reps - 1
        r = c & 7
        if tlen == 0:
            score = _lead_score(hands, c, player, declarer, trump, misere) + history[c]
        elif misere:
            score = _misere_follow_score(hands, c, best, win_seat, trick, tlen, player, game)
        else:
            wins = beats(c, best, trump)
            winner = player if wins else win_seat
            if tlen == 1:
                # The third hand overtakes when he can and likes to, or when he must.
                over = _beating(third_legal, c if wins else best, trump)
                third_likes = (winner == declarer) != ((third == declarer) != misere)
                if over != 0 and (third_likes or over == third_legal):
                    winner = third
            score = 100 if (winner == declarer) == wants_declarer else 0
            if misere and (player == declarer or (declarer - leader) % 3 < tlen):
                score += r  # shed high cards once the declarer's fate in the trick is set
            else:
                score -= r  # cheapest card first
        if c == hint:
            score += 1000
        elif c == killer:
            score += 500
        k = n
        while k > 0 and scores[k - 1] < score:
            scores[k] = scores[k - 1]
            out[k] = out[k - 1]
            k -= 1
        scores[k] = score
        out[k] = c
        n += 1
    return n


@njit(cache=True, inline="always", error_model="numpy")
def _below(hands, c):
    """How many cards in play of card ``c``'s suit rank below it (its relative rank)."""
    return popcount(((hands[0] | hands[1] | hands[2]) >> (c & ~7)) & ((1 << (c & 7)) - 1))


@njit(cache=True, inline="always", error_model="numpy")
def _misere_follow_score(hands, c, best, win_seat, trick, tlen, player, game):
    """Heuristic value of card ``c`` for a misère player playing second or third
    (``best`` the winning card so far, played by ``win_seat``): weights fitted as for
    leads (a best card first 79% of the time for the declarer, 69% for the defenders,
    from 68% and 60% by the rules used before, which only asked who wins the trick).
    Each side wants the trick to go its way; a card of a short suit, not the lowest,
    first."""
    declarer, trump, _ = game
    s = c >> 3
    sh = 8 * s
    r = c & 7
    led = trick[0] >> 3
    wins = beats(c, best, trump)
    top = c if wins else best
    declarer_wins = (player if wins else win_seat) == declarer
    over = False  # the third hand holds a card of the led suit above the winning one
    if tlen == 1:
        t3 = (hands[(player + 1) % 3] >> (8 * led)) & 0xFF
        over = t3 != 0 and top >> 3 == led and HIGH8[t3] > top & 7
        declarer_wins = declarer_wins and not over
    mine = (hands[player] >> sh) & 0xFF
    lowest = mine & ((1 << r) - 1) == 0
    below = _below(hands, c)
    follows = s == led
    if player == declarer:
        theirs = ((hands[(player + 1) % 3] | hands[(player + 2) % 3]) >> sh) & 0xFF
        rest = mine ^ (1 << r)
        return (6 * (not declarer_wins) - 11 * wins + 5 * below - 12 * popcount(mine)
                - 10 * lowest - 5 * (r == HIGH8[mine]) + 13 * over
                + (min(DUCKS[rest, theirs], 9) if rest else 9)
                + 3 * popcount(theirs & ((1 << r) - 1)) + 11 * (theirs == 0))
    return (7 * declarer_wins - 5 * wins + (5 if follows else 3) * below
            - 10 * popcount(mine) - 7 * lowest
            - 3 * (not follows and (hands[declarer] >> sh) & 0xFF == 0)
            - 3 * (declarer_wins and tlen == 2) + 8 * over)


@njit(cache=True, inline="always", error_model="numpy")
def _beating(cards, best, trump):
    """The cards of ``cards`` that would beat ``best`` (as ``beats`` does, all at once)."""
    sh = best & ~7
    higher = cards & (0xFF << sh) & ~((2 << best) - 1)
    if trump >= 0 and sh != 8 * trump:
        higher |= cards & (0xFF << (8 * trump))
    return higher


@njit(cache=True, inline="always", error_model="numpy")
def _lead_score(hands, c, player, declarer, trump, misere):
    """Heuristic value of leading card ``c``: higher is tried first."""
    s = c >> 3
    r = c & 7
    sh = 8 * s
    a = (player + 1) % 3
    b = (player + 2) % 3
    sa = (hands[a] >> sh) & 0xFF
    sb = (hands[b] >> sh) & 0xFF
    if misere:
        # Misère leads: weights fitted to the solver's values of every lead in positions
        # where the search cut off at a lead (least squares within each position, 30
        # points a trick; random deals). A lead the solver values best comes first 70%
        # of the time for the declarer, 72% for the defenders, from 48% and 49% by the
        # rules used before, safe leads, then forcing ones (scripts/order_accuracy.py,
        # on random positions).
        if player == declarer:
            below = (1 << r) - 1
            sd = (hands[player] >> sh) & 0xFF
            rrel = _below(hands, c)
            # Safe if a defender must follow with a higher card: all his cards are above it.
            safe = (sa != 0 and sa & below == 0) or (sb != 0 and sb & below == 0)
            # Short suits first; not a suit only he holds (he wins it).
            score = (safe * (4 * rrel - 9) + 3 * rrel + 2 * popcount(sd & below)
                     + popcount((sa | sb) & below) - 4 * ((sa == 0) + (sb == 0))
                     - 12 * popcount(sd) - 3 * (r == HIGH8[sd]))
            return score - 15 if sa | sb == 0 else score
        partner = a if b == declarer else b
        sp = (hands[partner] >> sh) & 0xFF
        sd = (hands[declarer] >> sh) & 0xFF
        sl = (hands[player] >> sh) & 0xFF
        below = _below(hands, c)
        # A suit the partner is void in; not one the declarer is void in (he discards);
        # a lead he must win counts against it unless he holds one card of the suit.
        score = 13 * (sp == 0) + 2 * below
        if sd == 0:
            return score - 26
        low = r
        if sp:
            low = max(low, lowest_card(sp))
        if sd & ((1 << low) - 1) == 0:  # he must win it
            score += 10 - 12 * popcount(sd)
        return score + popcount(sd) - 4 * popcount(sl) + 3 * DUCKS[sd, sp | sl]
    # Trick contracts: weights fitted likewise (a best lead first 83% of the time for
    # the declarer, 79% for the defenders, from 78% and 70% by cashing masters first,
    # then leads to the partner, low cards of short suits, trumps last).
    sm = (hands[player] >> sh) & 0xFF
    others = sa | sb
    side = trump >= 0 and s != trump
    ruff_a = side and sa == 0 and _suit_len(hands[a], trump) > 0
    ruff_b = side and sb == 0 and _suit_len(hands[b], trump) > 0
    master = others == 0 or r > HIGH8[others]
    masters = popcount(sm >> (HIGH8[others] + 1))  # his cards above the others'
    if player != declarer:
        partner = a if b == declarer else b
        sp = (hands[partner] >> sh) & 0xFF
        sd = (hands[declarer] >> sh) & 0xFF
        partner_ruffs = ruff_b if a == declarer else ruff_a
        return (11 * (master and not (ruff_a or ruff_b)) + 12 * partner_ruffs
                + 10 * (sp != 0 and HIGH8[sp] > HIGH8[sd]) + 3 * (s == trump) - 3 * masters
                + 13 * (others == 0))
    return (23 * (master and not (ruff_a or ruff_b)) - 10 * master + 16 * (ruff_a or ruff_b)
            - 10 * (s == trump) + 2 * popcount(sm) - 6 * (sm & ((1 << r) - 1) == 0)
            - 5 * masters - 2 * (others == 0))



@njit(cache=True, error_model="numpy")
def _first_card(hands, trick, tlen, leader, game, history, scratch):
    """The move ordering's first card with no table hint or killer (``scratch``:
    ``out`` and ``scores``). A call, not inlined: it runs once a ply of a playout and
    once a PIMC decision, and one copy of the ordering fewer shortens the compile."""
    _order_moves(hands, trick, tlen, leader, game, (-1, -1), scratch, history)
    return scratch[0][0]


@njit(cache=True, error_model="numpy")
def _playout(hands, seq, root_len, leader, game):
    """Declarer's tricks when every player plays the first card of the move ordering."""
    declarer, trump, _ = game
    h = _stack((3,), np.int64)
    h[:] = hands
    trick = _stack((3,), np.int64)
    trick[:] = seq[:3]
    moves = _stack((10,), np.int64)
    scores = _stack((10,), np.int64)
    no_history = _stack((32,), np.int64)
    no_history[:] = 0
    taken = 0
    tlen = root_len
    while h[leader] | h[(leader + 1) % 3] | h[(leader + 2) % 3]:
        player = (leader + tlen) % 3
        c = _first_card(h, trick, tlen, leader, game, no_history, (moves, scores))
        h[player] &= ~(1 << c)
        trick[tlen] = c
        tlen += 1
        if tlen == 3:
            leader = (leader + trick_winner(trick[0], trick[1], trick[2], trump)) % 3
            taken += leader == declarer
            tlen = 0
    return taken

