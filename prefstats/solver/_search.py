"""The search: zero-window alpha-beta on an explicit stack down to the positions
:mod:`._endgame` settles at once, and the compiled solves built on it (the compiled layer
behind :mod:`prefstats.solver`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.cards import lowest_card, popcount
from prefstats.game.tricks import legal_cards, trick_winner
from prefstats.solver._bounds import _bounds
from prefstats.solver._endgame import (
    ENDGAME_CARDS,
    TRICK_CARDS,
    _endgame_index,
    _last_trick,
    _last_two,
    _one_trick,
    endgame_value,
    table_row,
    trick_minimax,
)
from prefstats.solver._intrinsics import _borrowed, _stack
from prefstats.solver._order import _order_moves, _playout
from prefstats.solver._records import Game, game_of
from prefstats.solver._table import (
    Table,
    _entry,
    _pack_card,
    _position_key,
    _slot,
    _store,
    _unpack_card,
)

_MAX_PLIES = 31  # 30 cards plus the final node
_HISTORY_CAP = 1023  # a lower cap, or none, searches more nodes


# ---- the last two tricks above the endgame table, without the stack ------------------------


@njit(cache=True, inline="always", error_model="numpy")
def _settle_above_table(hands, n, leader, game, need, ctx):
    """Declarer's tricks from a position one trick above the endgame table, ``leader``
    to lead: the bounds stored for it or its static ones when they settle it, else the
    minimax of one trick over the table (stored); a bound as the search answers.
    ``ctx``: the transposition table's words and mask, the endgame table and its row
    of ``ORDER`` (a leaf of :func:`trick_minimax`)."""
    words, mask, endgame, row = ctx
    declarer, trump, misere = game
    k1, k2 = _position_key(hands, leader, declarer, trump, misere)
    slot = _slot(k1, k2, mask)
    lo, hi, packed = _entry(words, slot, k1, k2, -1, n)
    if lo < 0:
        lo, hi = _bounds(hands, n, leader, declarer, trump, misere, need)
    if lo >= need:
        return lo
    if hi < need:
        return hi
    v = _one_trick(hands, n, leader, game, need, endgame, row)
    if v >= need:
        lo = v
    else:
        hi = v
    _store(words, slot, k1, k2, lo, hi, packed)
    return v


#: Declarer's tricks from a position two tricks above the endgame table: the minimax of
#: one trick over :func:`_settle_above_table`, in loops rather than on the search's
#: stack (faster than recursion there).
_two_tricks = trick_minimax(_settle_above_table)


# ---- the search -----------------------------------------------------------------------


@njit(cache=True, error_model="numpy")
def _search(hands, seq, root_len, root_leader, game, target, table):
    """Whether the declarer ends with at least ``target`` tricks from the root position,
    and the bound the search proved: a number of tricks he surely reaches (at least
    ``target``) if so, else one he surely stays within (below ``target``).

    ``hands`` (mutated, restored on return) are the three hands; ``seq[:root_len]`` the
    cards already played to the current trick, led by ``root_leader``. The search is an
    AND/OR tree walked with an explicit stack; ``val`` carries the proved bound up (on
    the declarer's tricks from the root): a node whose moves all fail to cut off takes
    the weakest of their bounds, a cut-off the bound of the move that made it.
    """
    declarer, trump, misere = game
    words = table[0]
    mask = words.shape[0] - 1
    # Scratch arrays on the stack and views without reference counting: a heap array
    # costs an allocation a search (PIMC runs many small ones) and each handed to an
    # inlined helper an atomic increment and decrement a use.
    moves = _stack((_MAX_PLIES, 10), np.int64)
    scores = _stack((10,), np.int64)
    n_moves = _stack((_MAX_PLIES,), np.int64)
    idx = _stack((_MAX_PLIES,), np.int64)
    is_or = _stack((_MAX_PLIES,), np.bool_)
    st_player = _stack((_MAX_PLIES,), np.int64)
    st_leader = _stack((_MAX_PLIES,), np.int64)
    st_tlen = _stack((_MAX_PLIES,), np.int64)
    st_taken = _stack((_MAX_PLIES,), np.int64)
    st_slot = _stack((_MAX_PLIES,), np.int64)
    st_k1 = _stack((_MAX_PLIES,), np.int64)
    st_k2 = _stack((_MAX_PLIES,), np.int64)
    st_lo = _stack((_MAX_PLIES,), np.int64)
    st_hi = _stack((_MAX_PLIES,), np.int64)
    st_acc = _stack((_MAX_PLIES,), np.int64)
    # The lead that last cut the search off at each depth, by leader: it often refutes
    # the sibling positions too (there most leads are tried first by heuristics alone).
    killer = _stack((_MAX_PLIES, 3), np.int64)
    killer[:] = -1
    leads = _stack((10,), np.int64)  # the leads of _two_tricks, in order
    no_trick = _stack((3,), np.int64)
    # Lead points by leader and card (the history heuristic): a lead that cuts the
    # search off earns the tricks then left; tried first across positions and searches
    # of one solve (fewer nodes; capped, as more lets old cut-offs rule).
    # Trick contracts only: misère solves take fewer nodes without.
    history = _borrowed(table[1])
    hands = _borrowed(hands)
    seq = _borrowed(seq)
    words = _borrowed(words)
    endgame = _borrowed(table[2])
    nodes = table.nodes
    table_cards = ENDGAME_CARDS if misere else TRICK_CARDS
    row = table_row(trump, misere)
    ctx = (words, mask, endgame, row)  # what positions above the endgame table need

    d = 0
    leader = root_leader
    tlen = root_len
    taken = 0
    res = False
    val = 0
    while True:
        # ---- enter node d: settle it at once if bounds allow, else expand it ----
        nodes[0] += 1
        settled = False
        st_slot[d] = -1
        hint = -1
        if tlen == 0:
            n = popcount(hands[leader])
            need = target - taken
            if need <= 0:
                res = True
                val = taken
                settled = True
            elif need > n:
                res = False
                val = taken + n
                settled = True
            elif n <= 2:
                if n == 1:
                    v = _last_trick(hands, leader, declarer, trump)
                else:
                    v = _last_two(hands, leader, declarer, trump, misere, need)
                res = v >= need
                val = taken + v
                settled = True
            elif n <= table_cards + 1:
                if n <= table_cards:
                    v = endgame_value(endgame, _endgame_index(hands, n, leader, declarer, row))
                else:
                    v = _settle_above_table(hands, n, leader, game, need, ctx)
                res = v >= need
                val = taken + v
                settled = True
            else:
                k1, k2 = _position_key(hands, leader, declarer, trump, misere)
                slot = _slot(k1, k2, mask)
                lo, hi, packed = _entry(words, slot, k1, k2, -1, n)
                if lo < 0:  # a new position: start from the static bounds
                    # Not stored when they settle it: computing them again costs less
                    # than the entry a store would push out (measured: fewer nodes).
                    lo, hi = _bounds(hands, n, leader, declarer, trump, misere, need)
                hint = _unpack_card(hands, packed)
                if lo >= need:
                    res = True
                    val = taken + lo
                    settled = True
                elif hi < need:
                    res = False
                    val = taken + hi
                    settled = True
                elif n == table_cards + 2:
                    # The leads in the search's order, the followers' cards highest first.
                    n_leads = _order_moves(hands, no_trick, 0, leader, game,
                                           (hint, killer[d, leader]), (leads, scores),
                                           history[leader])
                    v, cut_lead = _two_tricks(hands, n, leader, game, need, leads, n_leads,
                                              ctx)
                    if cut_lead >= 0:
                        packed = _pack_card(hands, cut_lead)
                    res = v >= need
                    val = taken + v
                    settled = True
                    if res:
                        lo = v
                    else:
                        hi = v
                    _store(words, slot, k1, k2, lo, hi, packed)
                else:
                    st_lo[d] = lo
                    st_hi[d] = hi
                    st_slot[d] = slot
                    st_k1[d] = k1
                    st_k2[d] = k2
        if not settled:
            player = (leader + tlen) % 3
            trick = seq[root_len + d - tlen : root_len + d]
            n_moves[d] = _order_moves(
                hands, trick, tlen, leader, game, (hint, killer[d, leader] if tlen == 0 else -1),
                (moves[d], scores), history[leader],
            )
            idx[d] = 0
            is_or[d] = (player == declarer) != misere
            st_acc[d] = -1 if is_or[d] else 99
            st_player[d] = player
            st_leader[d] = leader
            st_tlen[d] = tlen
            st_taken[d] = taken
        else:
            # ---- back up settled values until a node has another move to try ----
            while True:
                if d == 0:
                    return res, val
                d -= 1
                hands[st_player[d]] |= 1 << seq[root_len + d]
                cut = res == is_or[d]
                if cut:
                    killer[d, st_leader[d]] = seq[root_len + d]
                    if st_tlen[d] == 0 and not misere:
                        lead = st_leader[d]
                        c = seq[root_len + d]
                        history[lead, c] = min(history[lead, c] + popcount(hands[lead]),
                                               _HISTORY_CAP)
                if not cut:
                    if is_or[d]:
                        st_acc[d] = max(st_acc[d], val)
                    else:
                        st_acc[d] = min(st_acc[d], val)
                    idx[d] += 1
                    if idx[d] < n_moves[d]:
                        break
                    res = not is_or[d]  # no move reached the cut-off
                    val = st_acc[d]
                slot = st_slot[d]
                if slot >= 0:
                    k1 = st_k1[d]
                    k2 = st_k2[d]
                    lo, hi, packed = _entry(words, slot, k1, k2, st_lo[d], st_hi[d])
                    if cut:
                        packed = _pack_card(hands, seq[root_len + d])
                    if res:
                        lo = max(lo, val - st_taken[d])
                    else:
                        hi = min(hi, val - st_taken[d])
                    _store(words, slot, k1, k2, lo, hi, packed)
        # ---- play move idx[d] of node d ----
        player = st_player[d]
        c = moves[d, idx[d]]
        hands[player] &= ~(1 << c)
        seq[root_len + d] = c
        leader = st_leader[d]
        taken = st_taken[d]
        tlen = st_tlen[d] + 1
        if tlen == 3:
            base = root_len + d - 2
            leader = (leader + trick_winner(seq[base], seq[base + 1], c, trump)) % 3
            if leader == declarer:
                taken += 1
            tlen = 0
        d += 1



@njit(cache=True, error_model="numpy")
def solve_position(hands, seq, root_len, leader, game, table):
    """Declarer's tricks from a position, by zero-window searches around a guess
    (compiled; callers in numba code may value positions inside a trick with it).

    For trick contracts the guess is the result of a playout along the move ordering:
    mostly within a trick of the answer, so two or three searches settle it. Misère
    searches count up from one trick: there proving "at least t" is cheap and refuting
    it dear, so it pays to refute only once.
    """
    table[1][:] = 0  # a new deal: no history
    guess = 1 if game.misere else _playout(hands, seq, root_len, leader, game)
    return _solve_from(hands, seq, root_len, leader, game, table, guess)


@njit(cache=True, error_model="numpy")
def _solve_from(hands, seq, root_len, leader, game, table, guess):
    """:func:`solve_position` with the first guess given."""
    n_tricks = (popcount(hands[0] | hands[1] | hands[2]) + root_len) // 3
    lo = 0
    hi = n_tricks
    while lo < hi:
        t = min(max(guess, lo + 1), hi)
        res, val = _search(hands, seq, root_len, leader, game, target=t, table=table)
        if res:
            lo = val
            guess = val + 1
        else:
            hi = val
            guess = val
    return lo


@njit(cache=True, error_model="numpy")
def solve_kernel(h0, h1, h2, leader, declarer, trump, misere, table):
    """Compiled :func:`solve` of one deal for callers in numba code (the hand engine):
    hands as int64 masks, ``trump`` -1 for none, ``table`` one thread's table from
    :func:`new_table` (its ``nodes`` count the positions searched)."""
    hands = np.array([h0, h1, h2], dtype=np.int64)
    seq = np.zeros(_MAX_PLIES + 3, np.int64)
    return solve_position(hands, seq, 0, leader, game_of(declarer, trump, misere), table)


@njit(cache=True, inline="always", error_model="numpy")
def _play_card(h, seq, trick, tlen, leader, c, declarer, trump):
    """Play card ``c`` of the seat to move into ``h`` (removed) and ``seq`` (after the
    ``tlen`` cards of ``trick``): the root of the search after it, as (leader, tricks the
    declarer won by it, cards of the root's trick)."""
    for i in range(tlen):
        seq[i] = trick[i]
    seq[tlen] = c
    h[(leader + tlen) % 3] &= ~(1 << c)
    if tlen == 2:  # the card closes the trick: search on from the next lead
        lead = (leader + trick_winner(seq[0], seq[1], c, trump)) % 3
        return lead, 1 if lead == declarer else 0, 0
    return leader, 0, tlen + 1


@njit(cache=True, inline="always", error_model="numpy")
def _run_reps(hand, others, trick, tlen, trump, out):
    """Fill ``out[c]`` for each legal card ``c`` of ``hand`` with the lowest card of its
    run (legal cards with no other card in play between them: the same card), -1 for the
    rest; ``others`` are the other hands' cards."""
    out[:] = -1
    legal = legal_cards(hand, -1 if tlen == 0 else trick[0] >> 3, trump)
    in_play = hand | others
    for i in range(tlen):
        in_play |= 1 << trick[i]
    prev = -1
    while legal:
        c = lowest_card(legal)
        legal &= legal - 1
        if prev >= 0 and prev >> 3 == c >> 3 and in_play & ((1 << c) - (2 << prev)) == 0:
            out[c] = out[prev]
        else:
            out[c] = c
        prev = c


@njit(cache=True, error_model="numpy")
def card_values_kernel(hands, decision, table, out):
    """Fill ``out[c]`` (32 entries) with the declarer's tricks from the current trick on
    after the seat to move plays card ``c``; -1 for the cards it may not play.

    Compiled form of :func:`card_values`: ``hands`` (three int64 masks) are the cards
    the seats still hold, ``decision`` a :class:`~prefstats.solver.Decision`: the cards
    already on the table, who led them, the game.
    Legal cards with no other card in play between them (in a hand or on the table)
    have the same value, so one card of each such run is searched; each search starts
    from the value found for the last one (measured: a better first guess than the
    card's value in the previous world of a batch).
    """
    trick, tlen, leader, played = decision
    declarer, trump, misere = played
    table[1][:] = 0  # a new position: no history
    player = (leader + tlen) % 3
    reps = np.empty(32, np.int64)
    _run_reps(hands[player], hands[(player + 1) % 3] | hands[(player + 2) % 3], trick, tlen,
              trump, reps)
    out[:] = -1
    h = hands.copy()
    seq = np.zeros(_MAX_PLIES + 3, np.int64)
    guess = -1
    for c in range(32):
        if reps[c] < 0:
            continue
        if reps[c] != c:
            out[c] = out[reps[c]]
            continue
        lead, won, root = _play_card(h, seq, trick, tlen, leader, c, declarer, trump)
        if guess < 0:
            guess = won + (1 if misere else _playout(h, seq, root, lead, played))
        v = won + _solve_from(h, seq, root, lead, played, table, guess - won)
        h[player] |= 1 << c
        out[c] = v
        guess = v


@njit(cache=True, inline="always", error_model="numpy")
def _first_copy(worlds, i):
    """The first row before ``i`` of ``worlds`` equal to row ``i``, else -1."""
    for j in range(i):
        if (worlds[j, 0] == worlds[i, 0] and worlds[j, 1] == worlds[i, 1]
                and worlds[j, 2] == worlds[i, 2]):
            return j
    return -1


@njit(cache=True, error_model="numpy")
def card_values_batch_kernel(worlds, decision, table, out):
    """:func:`card_values_kernel` for each row of ``worlds`` ((K, 3) int64 hands: sampled
    worlds of one decision) into the rows of ``out`` ((K, 32) int8), with one table:
    the worlds share most positions a few tricks on, so later worlds find them there.
    A world drawn twice (late in a deal few remain) is solved once."""
    for i in range(worlds.shape[0]):
        same = _first_copy(worlds, i)
        if same >= 0:
            out[i, :] = out[same, :]
            continue
        card_values_kernel(worlds[i], decision, table, out[i])


@njit(cache=True, error_model="numpy")
def _card_search(world, decision, c, target, table, seq):
    """Whether the declarer takes at least ``target`` tricks from the current trick on
    after the seat to move plays ``c`` in ``world``, and the bound proved (as
    :func:`_search`)."""
    trick, tlen, leader, played = decision
    h = _stack((3,), np.int64)
    h[:] = world
    lead, won, root = _play_card(h, seq, trick, tlen, leader, c, played.declarer, played.trump)
    res, val = _search(h, seq, root, lead, played, target - won, table)
    return res, val + won


def compile_search() -> None:
    """Compile :func:`_search`, the largest function of the engine (most of the compile
    time of the drivers), for the argument types every driver calls it with, without
    running it: the warm-up does this in a second process while the first compiles the
    players, and the drivers then load it from the cache."""
    from numba import typeof

    endgame = np.zeros(1, dtype=np.uint8)
    endgame.flags.writeable = False  # the endgame table is read-only, as in ``new_table``
    vector = np.zeros(1, dtype=np.int64)
    table = Table(np.full((1, 2), -1, dtype=np.int64), np.zeros((3, 32), dtype=np.int64),
                  endgame, vector)
    _search.compile(tuple(typeof(a) for a in (vector, vector, 0, 0, Game(0, 0, False), 0,
                                              table)))
