"""Heuristic card play for closed deals (two whisters, ten checked, Stalingrad), raspasy
and -- when no solver settles them -- open deals and misère: compiled functions of an
observation record that use only what the seat may know.

One concept: the heuristic's card play, every seat's rules reading the same sets of
cards a seat may hold.

:func:`possible_cards` gives each other seat's set of cards it may hold, and every rule
reads only those sets. The rules, seat by seat, are in the docs ("The player model",
card play in detail).

>>> import numpy as np
>>> from prefstats.game import engine
>>> from prefstats.game.cards import card_name, parse_cards
>>> obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
>>> obs["kind"], obs["seat"], obs["playing_for"], obs["declarer"] = engine.RASPASY, 1, 1, -1
>>> obs["hand"] = obs["visible"][1] = parse_cards("♠AQ8 ♥K")
>>> obs["legal"] = parse_cards("♠AQ8")
>>> obs["leader"], obs["n_in_trick"], obs["trick_cards"][0] = 0, 1, 6  # K♠ led
>>> obs["gone"] = parse_cards("♠K")
>>> card_name(play_decision(obs, None, None, None))  # duck under the king with the queen
'Q♠'
"""

from __future__ import annotations

import numpy as np
from numba import njit

from prefstats.game.cards import highest_card as _high
from prefstats.game.cards import lowest_card as _low
from prefstats.game.cards import popcount as _pop
from prefstats.game.contracts import LEVEL, TRUMP
from prefstats.game.engine import GAME, MISERE_GAME, R_DUMMY, RASPASY
from prefstats.game.tricks import TALON, beats

FULL = np.int64(0xFFFFFFFF)


# ---- bits -------------------------------------------------------------------------------


@njit(cache=True)
def _suit(s):
    return np.int64(0xFF) << (8 * s)


@njit(cache=True)
def _above(c):
    """Cards of ``c``'s suit ranked above it."""
    return _suit(c >> 3) & ~((np.int64(2) << c) - 1)


@njit(cache=True)
def _below(c):
    """Cards of ``c``'s suit ranked below it."""
    return _suit(c >> 3) & ((np.int64(1) << c) - 1)


# ---- what the seat knows ----------------------------------------------------------------


@njit(cache=True)
def possible_cards(obs, skip=-1):
    """Cards each seat may hold, as the deciding seat sees it: a visible hand exactly,
    a hidden one as every card not played, not seen and not known to be out of play
    (own discard, a raspasy talon shown) and not of a suit it has shown void in, in any
    trick (``obs.voids``); a hidden defender cannot hold the shown talon (it went to the
    declarer). When every unseen card lies with the two hidden seats (the declarer's
    view), cards only one of them may hold are his, and if they are as many as his cards
    he holds nothing else. Seat ``skip`` (Gusarik's dummy on a raspasy) sits the play
    out: it holds nothing in play.

    Returns (possible masks, hidden flags), both indexed by seat.
    """
    seen = np.int64(obs.visible[0]) | np.int64(obs.visible[1]) | np.int64(obs.visible[2])
    gone = np.int64(obs.gone)
    out = np.int64(obs.discard)
    if obs.kind == RASPASY:
        out |= np.int64(obs.talon) & ~gone
    pool = FULL & ~gone & ~seen & ~out
    p0, h0 = _seat_possible(obs, 0, skip, pool)
    p1, h1 = _seat_possible(obs, 1, skip, pool)
    p2, h2 = _seat_possible(obs, 2, skip, pool)
    # The deciding seat is never hidden: at most two are.
    if h0 and h1:
        p0, p1 = _counted(obs, 0, 1, p0, p1, pool)
    elif h0 and h2:
        p0, p2 = _counted(obs, 0, 2, p0, p2, pool)
    elif h1 and h2:
        p1, p2 = _counted(obs, 1, 2, p1, p2, pool)
    return (p0, p1, p2), (h0, h1, h2)


@njit(cache=True)
def _seat_possible(obs, s, skip, pool):
    """Cards seat ``s`` may hold (see :func:`possible_cards`) before the counting, and
    whether its hand is hidden."""
    if s == skip:
        return np.int64(0), False
    if s == obs.seat or obs.visible[s] != 0:
        return np.int64(obs.visible[s]), False
    p = pool & ~_suits(obs.voids[s])
    if obs.kind != RASPASY and s != obs.declarer:
        p &= ~np.int64(obs.talon)
    return p, True


@njit(cache=True)
def _suits(bits):
    """Cards of the suits in ``bits`` (bit ``1 << suit``): each bit spread to its byte."""
    b = np.int64(bits)
    return ((b & 1) | (b & 2) << 7 | (b & 4) << 14 | (b & 8) << 21) * 0xFF


@njit(cache=True)
def _counted(obs, a, b, pa, pb, pool):
    """The two hidden seats' possible cards ``pa``, ``pb`` after counting: when every
    unseen card lies with them, cards only one may hold are his, and if they are as many
    as his cards he holds nothing else."""
    na = 10 - _pop(np.int64(obs.played_by[a]))
    nb = 10 - _pop(np.int64(obs.played_by[b]))
    if _pop(pool) != na + nb:  # some unseen card lies out of play
        return pa, pb
    only_a = pa & ~pb
    only_b = pb & ~pa
    if _pop(only_a) == na:
        return only_a, pb & ~only_a
    if _pop(only_b) == nb:
        return pa & ~only_b, only_b
    return pa, pb


@njit(cache=True)
def _seat_at(obs, i, skip):
    """Seat that played position ``i`` of the current trick (TALON for a led talon card),
    seat ``skip`` sitting the trick out."""
    if obs.leader == TALON:
        return i - 1
    if skip < 0:
        return (obs.leader + i) % 3
    s = obs.leader
    for _ in range(i):
        s = (s + 1) % 3
        if s == skip:
            s = (s + 1) % 3
    return s


@njit(cache=True)
def _trick_state(obs, trump, skip):
    """The card winning the current trick so far and the seat that played it."""
    best = np.int64(obs.trick_cards[0])
    pos = 0
    for i in range(1, obs.n_in_trick):
        c = np.int64(obs.trick_cards[i])
        if beats(c, best, trump):
            best = c
            pos = i
    return best, _seat_at(obs, pos, skip)


@njit(cache=True)
def _may_beat(poss, hidden, x, led, trump):
    """Whether a seat that may hold ``poss`` could beat card ``x`` winning a trick led
    in suit ``led`` -- by following higher, or by ruffing when it may be void (a hidden
    seat with at most one card of the suit left possible counts as maybe void)."""
    follow = poss & _suit(led)
    may_void = follow == 0 or (hidden and _pop(follow) <= 1)
    if x >> 3 == led:
        if poss & _above(x):
            return True
        return trump >= 0 and led != trump and may_void and (poss & _suit(trump)) != 0
    return may_void and (poss & _above(x)) != 0


@njit(cache=True)
def _team(obs, s):
    """Side of seat ``s``: the declarer against the others; on raspasy each alone."""
    if obs.kind == RASPASY:
        return s
    return 0 if s == obs.declarer else 1


@njit(cache=True)
def _n_after(obs, skip):
    """How many seats play to the current trick after the deciding one."""
    size = 4 if obs.leader == TALON else 3 if skip < 0 else 2
    return size - obs.n_in_trick - 1


@njit(cache=True)
def _threatened(obs, poss, hidden, me, x, led, trump, skip):
    """Whether an opponent of ``me`` still to play in this trick could beat card ``x``."""
    s = me
    for _ in range(_n_after(obs, skip)):
        s = (s + 1) % 3
        if s == skip:
            s = (s + 1) % 3
        if _team(obs, s) != _team(obs, me) and _may_beat(poss[s], hidden[s], x, led, trump):
            return True
    return False


@njit(cache=True)
def _sure_lead(obs, poss, hidden, me, c, trump):
    """Whether card ``c`` led by ``me`` wins the trick whatever the opponents hold."""
    for k in range(1, 3):
        s = (me + k) % 3
        if _team(obs, s) != _team(obs, me) and _may_beat(poss[s], hidden[s], c, c >> 3, trump):
            return False
    return True


@njit(cache=True)
def _top_equivalent(mine, outstanding):
    """The lowest card of ``mine`` equivalent to its highest one: walking down from the
    top, cards no one else holds are skipped and ours continue the run."""
    c = _high(mine)
    low = c
    while c & 7:
        c -= 1
        bit = np.int64(1) << c
        if mine & bit:
            low = c
        elif outstanding & bit:
            break
    return low


@njit(cache=True)
def _sequence_card(mine, outstanding):
    """Lead from ``mine`` (one suit): the bottom of a top run of two or more cards
    (to force out a higher card), otherwise the lowest card."""
    top = _top_equivalent(mine, outstanding)
    if top != _high(mine):
        return top
    return _low(mine)


# ---- trick games ------------------------------------------------------------------------


@njit(cache=True)
def _tenace(mine, outstanding):
    """Whether ``mine`` (one suit) holds a tenace: a card below its top run with exactly
    one outstanding card between them (A-Q over the king, K-J over the queen)."""
    top = _top_equivalent(mine, outstanding)
    below = mine & _below(top)
    if below == 0:
        return False
    nxt = _high(below)
    return _pop(outstanding & _below(top) & _above(nxt)) == 1


@njit(cache=True)
def _suit_worth(obs, poss, hidden, me, hand, s, trump):
    """What keeping our cards of suit ``s`` is worth, the part they share (see
    :func:`_discard_value`), and the lowest of them that wins whatever the opponents
    hold (32: none)."""
    mine = hand & _suit(s)
    v = _pop(mine)  # low cards of short suits go first (voids for ruffing)
    if s == trump:
        v += 20
    top = _top_equivalent(mine, FULL & ~np.int64(obs.gone) & ~hand)
    winners = top if _sure_lead(obs, poss, hidden, me, top, trump) else 32
    # Guard an honour that is not a winner yet: keep the small cards under it.
    if (mine & np.int64(0b11100000) << (8 * s)) and _pop(mine) <= 3:
        v += 8
    return v, winners


@njit(cache=True)
def _discard_value(c, shared, winners):
    """How much card ``c`` is worth keeping when it does not win (lower goes first): its
    rank, its suit's ``shared`` worth, 30 more for a winner (from ``winners`` up)."""
    return (c & 7) + shared + (30 if c >= winners else 0)


@njit(cache=True)
def _cheapest(obs, poss, hidden, me, hand, legal, trump, keep=0):
    """The card to play when not trying to win: the lowest card of the led suit or of a
    forced ruff, else the least valuable discard, the cards of suits in ``keep`` (bits
    ``1 << suit``) worth 15 more."""
    for s in range(4):
        if legal & ~_suit(s) == 0:
            return _low(legal)
    best = -1
    best_v = 1 << 30
    rest = legal
    while rest:  # suit by suit, each card from the lowest up
        s = _low(rest) >> 3
        cards = rest & _suit(s)
        rest &= ~_suit(s)
        shared, winners = _suit_worth(obs, poss, hidden, me, hand, s, trump)
        shared += 15 * ((keep >> s) & 1)
        while cards:
            c = _low(cards)
            cards &= cards - 1
            v = _discard_value(c, shared, winners)
            if v < best_v:
                best_v = v
                best = c
    return best


@njit(cache=True)
def _suit_to_establish(hand, opp, outstanding, trump):
    """Whether the declarer holds a side suit to set up by giving up a trick: the
    defence holds a card above his top one, and he has a sequence to force it out or
    three cards or more."""
    for s in range(4):
        mine = hand & _suit(s)
        if mine == 0 or s == trump or (opp & _above(_high(mine))) == 0:
            continue
        if _pop(mine) >= 3 or _sequence_card(mine, outstanding) != _low(mine):
            return True
    return False


@njit(cache=True)
def _void_side(hand, trump):
    """Whether ``hand`` is void in a side suit (his trumps may ruff it)."""
    void = False
    for s in range(4):
        void |= s != trump and hand & _suit(s) == 0
    return void


@njit(cache=True)
def _declarer_lead(obs, poss, hidden, me, hand, legal, trump):
    """The declarer's lead in a trick game."""
    outstanding = FULL & ~np.int64(obs.gone) & ~hand
    opp = poss[(me + 1) % 3] | poss[(me + 2) % 3]
    keep = False  # trumps kept for ruffing: a side suit is pushed, nothing cashed
    # The declarer draws trumps with the master when he has at least as many as the
    # defence together, without it when he has two more (else they stay for ruffing;
    # two rather than three saves tricks). Each rule of this function is kept for the
    # tricks it saves against the heuristic defence, paired game by game
    # (scripts/declarer_gap.py), or against PIMC where so said.
    if trump >= 0:
        mine = hand & _suit(trump)
        theirs = opp & _suit(trump)
        # The defence is out of trumps: he runs his own down to two, so the defenders
        # must discard (the last two stay for ruffing and control): better than running
        # all of them, or down to one or three.
        if mine and not theirs and _pop(mine) >= 3:
            return _high(mine)
        if mine and theirs:
            top = _top_equivalent(mine, outstanding)
            n, k = _pop(mine), _pop(theirs)
            if _sure_lead(obs, poss, hidden, me, top, trump):
                # With the master: as many as theirs, or one fewer under two masters
                # (A-K-x against four). Not drawing with the master alone on top (A-J-x
                # against K-Q-x), as PIMC often chooses, loses tricks -- but with a void
                # side suit, as many trumps as theirs and fewer masters (A-Q-10-7 against
                # four) stay for ruffing while he pushes a side suit: +0.005 to +0.008
                # tricks a closed game on seeds 11-13, paired (cashing side winners first
                # instead loses 0.009; keeping them without the void too, 0.012).
                if n >= k or (n + 1 == k and _masters(mine, outstanding) >= 2):
                    keep = n == k and _masters(mine, outstanding) < k and _void_side(
                        hand, trump)
                    if not keep:
                        return top
            else:
                # Without the master he draws when he has two more; never when all of
                # theirs are above his (leading one only spends his own). Drawing with
                # as many when one of theirs is above leads a losing trump instead of
                # cashing a side master (PIMC's largest regret); waiting for three more
                # instead of two loses tricks too. He leads the top of them, not a low
                # one.
                lo = theirs & ~_above(_high(mine))
                if lo and n >= k + 2:
                    return top
                # But a run of three under their one higher trump (K-Q-J against the
                # ace) forces it out at no cost, before any side winner is cashed (after
                # the cashing it saves nothing; a run of two with one trump more, less).
                if lo and n >= k and _pop(theirs & _above(top)) == 1 and _pop(
                        mine & ~_below(top)) >= 3:
                    return top
    # Cash a sure winner outside trumps, longest suit first (the shortest first, for fear
    # of a later ruff, saves fewer tricks), or the master card of a suit the defenders
    # still hold though one may ruff it (measured against PIMC); trumps stay for ruffing.
    # The winners keep while a suit is set up (they are the entries and stoppers, whether
    # or not a defender can ruff).
    # A suit of masters goes before one that leaves a loser under its ace (A-x cashed
    # early was PIMC's second largest regret).
    cash = -1
    cash_len = 99
    if _suit_to_establish(hand, opp, outstanding, trump):
        cash_len = 0
    for s in range(4):
        mine = hand & _suit(s)
        if mine == 0 or s == trump:
            continue
        top = _top_equivalent(mine, outstanding)
        n = _pop(mine)
        key = 20 - n + (0 if _masters(mine, outstanding) == n else 8)
        if key >= cash_len:
            continue
        if _sure_lead(obs, poss, hidden, me, top, trump) or (
                (opp & _above(top)) == 0 and (opp & _suit(s)) != 0):
            cash = top
            cash_len = key
    if cash >= 0 and trump >= 0:
        # A trump before a side winner: with two left when the defence has none (with
        # the rule above), and to force out a higher trump over his four or more when
        # the defence has one trump, or one fewer than he.
        mine = hand & _suit(trump)
        theirs = opp & _suit(trump)
        if _pop(mine) >= 2 and not theirs:
            return _high(mine)
        if theirs & _above(_high(mine)) and _pop(mine) >= 4 and (
                _pop(theirs) == 1 or _pop(theirs) == _pop(mine) - 1):
            return _top_equivalent(mine, outstanding)
    if cash >= 0 and not keep:
        return cash
    best = -1
    best_score = -(1 << 30)
    for s in range(4):
        mine = hand & _suit(s)
        if mine == 0:
            continue
        n = _pop(mine)
        card = _sequence_card(mine, outstanding)
        # Push the longest side suit; trumps only when nothing else is left.
        score = n - (20 if s == trump else 0)
        # A sequence forces out their honour; leading low away from a tenace or a
        # short honour gives it up (measured against PIMC).
        if card != _low(mine):
            score += 2
        elif _tenace(mine, outstanding) or (
                n <= 2 and mine & np.int64(0b11100000) << (8 * s)):
            score -= 3
        if score > best_score:
            best_score = score
            best = card
    return best


@njit(cache=True)
def _defence_history(obs, me, trump):
    """What the finished tricks tell a whister: the suits (bits ``1 << suit``) his
    partner led, the side suits the declarer led, and whether the declarer led trumps."""
    partner = 3 - me - obs.declarer
    partner_led = 0
    declarer_led = 0
    drew = False
    done = obs.n_played - obs.n_in_trick
    for t in range(0, done - 2, 3):
        suit = np.int64(obs.history[t]) >> 3
        if obs.history_by[t] == partner:
            partner_led |= 1 << suit
        elif obs.history_by[t] == obs.declarer:
            if suit == trump:
                drew = True
            else:
                declarer_led |= 1 << suit
    return partner_led, declarer_led, drew


@njit(cache=True)
def _masters(mine, outstanding):
    """How many cards of ``mine`` (one suit) win in turn from the top: those above every
    outstanding card of the suit."""
    n = 0
    rest = mine
    while rest and not outstanding & _above(_high(rest)):
        n += 1
        rest &= ~(np.int64(1) << _high(rest))
    return n


@njit(cache=True)
def _defence_lead(obs, poss, hidden, me, hand, legal, trump):
    """A whister's lead in a trick game. Each rule is kept for the declarer's tricks it
    saves with the others in place (``scripts/defence_gap_gauge.py``, paired game by
    game)."""
    decl = obs.declarer
    partner = 3 - me - decl
    partner_led, declarer_led, drew = _defence_history(obs, me, trump)
    outstanding = FULL & ~np.int64(obs.gone) & ~hand
    declarer_trumps = trump >= 0 and (poss[decl] & _suit(trump)) != 0
    trumps_left = trump >= 0 and ((hand | poss[partner]) & _suit(trump)) != 0 and not drew
    # The setting tricks: when the masters in hand beat the contract (with the tricks
    # taken), cash them before the declarer discards on his long suit.
    need = 11 - np.int64(LEVEL[obs.contract]) - obs.tricks[me] - obs.tricks[partner]
    masters = 0
    for s in range(4):
        mine = hand & _suit(s)
        if mine:
            k = _masters(mine, outstanding)
            if s != trump and declarer_trumps:
                k = min(k, _pop(poss[decl] & _suit(s)))  # then he may ruff
            masters += k
    best = -1
    best_score = -(1 << 30)
    for s in range(4):
        mine = hand & _suit(s)
        if mine == 0:
            continue
        n = _pop(mine)
        card = _sequence_card(mine, outstanding)
        score = n  # length: the defence's tricks come from long suits too
        if s == trump:
            score -= 20
        top = _top_equivalent(mine, outstanding)
        if s == trump and declarer_trumps and _masters(mine, outstanding) == n:
            # Trumps that are all masters are led while the declarer may hold trumps:
            # each draws one of his, which would ruff the defence's winners. A master
            # with a lower trump beside it waits (leading it gives tricks away).
            score += 40
        if _sure_lead(obs, poss, hidden, me, top, trump):
            # A winner keeps: cashing it early often sets up the declarer's next card
            # (measured against double dummy with scripts/defence_gap.py), the more so
            # once the defence's trumps are gone or being drawn; from the sixth trick on
            # it is cashed before the declarer discards on his long suit.
            card = top
            if obs.trick < 5:
                score -= 1 if trumps_left else 4
            if masters >= need:
                score += 30
        elif card != _low(mine):
            score += 3  # top of a sequence: forces out the declarer's honour
        elif decl == (me + 2) % 3:
            score -= 2  # a low card up to the declarer, who plays last, is his
        # No rule against leading away from a guarded honour, nor for leading a singleton
        # to ruff: both cost tricks.
        if decl == (me + 1) % 3 and not mine & np.int64(0b11100000) << (8 * s):
            score += 2  # a weak suit through the declarer, up to the partner
        if (partner_led >> s) & 1:
            score += 4  # return the partner's suit
        if (declarer_led >> s) & 1:
            score -= 2  # not the declarer's own side suit
        if poss[decl] & _suit(s) == 0:
            # The declarer is void: at no-trumps he must throw a card; in a suit game
            # he must ruff, shortening his trumps (better than avoiding the suit).
            score += 5
        if score > best_score:
            best_score = score
            best = card
    return best


@njit(cache=True)
def _winners(obs, legal, trump):
    """The legal cards that would win the current trick so far, with the card and seat
    now winning it."""
    best, winner = _trick_state(obs, trump, -1)
    winners = np.int64(0)
    rest = legal
    while rest:
        c = _low(rest)
        rest &= rest - 1
        if beats(c, best, trump):
            winners |= np.int64(1) << c
    return winners, best, winner


@njit(cache=True)
def _cheapest_safe_winner(obs, poss, hidden, me, winners, led, trump):
    """The lowest of ``winners`` no opponent still to play can beat, else -1."""
    rest = winners
    while rest:
        c = _low(rest)
        rest &= rest - 1
        if not _threatened(obs, poss, hidden, me, c, led, trump, -1):
            return c
    return -1


@njit(cache=True)
def _declarer_follow(obs, poss, hidden, me, hand, legal, trump):
    """The declarer's card to a trick someone else led."""
    winners, best, _ = _winners(obs, legal, trump)
    led = obs.trick_cards[0] >> 3
    c = _cheapest_safe_winner(obs, poss, hidden, me, winners, led, trump)
    follow = legal & _suit(led)
    outstanding = FULL & ~np.int64(obs.gone) & ~hand
    if c >= 0 and obs.n_in_trick == 1 and c >> 3 == led:
        # Second hand with a tenace over the one card between (A-Q under the king) he
        # finesses: the queen wins when the leader holds the king, and the ace still
        # wins later when the third hand does.
        top = _top_equivalent(follow, outstanding)
        if c >= top and _tenace(follow, outstanding):
            low = _high(follow & _below(top))
            if beats(low, best, trump):
                return low
    if c >= 0:
        return c
    if obs.n_in_trick == 1 and follow:
        # Second hand with touching honours under one outstanding card (K-Q under the
        # ace) splits them: a low card would let the third hand win cheaply.
        top = _top_equivalent(follow, outstanding)
        if top != _high(follow) and beats(top, best, trump) and _pop(
                outstanding & _above(_high(follow))) == 1:
            return top
    return _cheapest(obs, poss, hidden, me, hand, legal, trump)


@njit(cache=True)
def _defence_cheapest(obs, poss, hidden, me, hand, legal, trump):
    """A whister's card when not trying to win: the lowest of the led suit or of a forced
    ruff, else the least valuable discard, keeping length in a suit where the declarer
    may hold as many cards (0.012; weighed 15, not 3, once the declarer runs his trumps,
    prefstats 0.2.0: 0.021 and 0.019 on seeds 5 and 23, 200,000 deals)."""
    keep = 0
    for s in range(4):
        if _pop(poss[obs.declarer] & _suit(s)) >= _pop(hand & _suit(s)):
            keep |= 1 << s
    return _cheapest(obs, poss, hidden, me, hand, legal, trump, keep)


@njit(cache=True)
def _defence_follow(obs, poss, hidden, me, hand, legal, trump):
    """A whister's card to a trick someone else led."""
    winners, best, winner = _winners(obs, legal, trump)
    led = obs.trick_cards[0] >> 3
    partner_wins = winner != me and winner != obs.declarer
    if partner_wins and not _threatened(obs, poss, hidden, me, best, led, trump, -1):
        return _defence_cheapest(obs, poss, hidden, me, hand, legal, trump)  # no overtaking
    if obs.n_in_trick == 1 and obs.leader == obs.declarer and led != trump:
        # Second hand low when my cheapest winner is no master and an outstanding card
        # between it and the declarer's may win the trick for the partner.
        w = winners & _suit(led)
        outstanding = FULL & ~np.int64(obs.gone) & ~hand
        if w and outstanding & _above(_low(w)) and outstanding & _below(_low(w)) & _above(best):
            return _defence_cheapest(obs, poss, hidden, me, hand, legal, trump)
    c = _cheapest_safe_winner(obs, poss, hidden, me, winners, led, trump)
    if c >= 0:
        return c
    if winners and obs.n_in_trick == 1 and obs.leader != obs.declarer:
        # The partner led and the declarer plays last: play high to force his honour.
        outstanding = FULL & ~np.int64(obs.gone) & ~hand
        return _top_equivalent(winners & _suit(_high(winners) >> 3), outstanding)
    return _defence_cheapest(obs, poss, hidden, me, hand, legal, trump)


# ---- raspasy and misère -----------------------------------------------------------------


@njit(cache=True)
def _duck(obs, poss, hidden, me, legal, skip):
    """Follow without trumps trying not to win: the highest card that loses; when every
    card wins, the highest if the trick is ours anyway, else the lowest; when void,
    throw the most dangerous card."""
    best, _ = _trick_state(obs, -1, skip)
    led = best >> 3
    follow = legal & _suit(led)
    if follow == 0:
        return _most_dangerous(obs, poss, me, legal)
    under = follow & _below(best)
    if under:
        return _high(under)
    top = _high(follow)
    if _threatened(obs, poss, hidden, me, _low(follow), led, -1, skip):
        return _low(follow)
    return top


@njit(cache=True)
def _most_dangerous(obs, poss, me, legal):
    """The card likeliest to win a trick later: fewest outside cards above it, then the
    highest, from a short suit (it cannot be ducked under)."""
    others = poss[(me + 1) % 3] | poss[(me + 2) % 3]
    best = -1
    best_v = -(1 << 30)
    rest = legal
    while rest:
        c = _low(rest)
        rest &= rest - 1
        v = -16 * _pop(others & _above(c)) + 2 * (c & 7) - _pop(legal & _suit(c >> 3))
        if v > best_v:
            best_v = v
            best = c
    return best


@njit(cache=True)
def _safe_lead(obs, poss, hidden, me, legal):
    """Lead the card others are likeliest to overtake: a seat holding only higher cards
    of the suit must win; lower outside cards are a risk."""
    best = -1
    best_v = -(1 << 30)
    for s in range(4):
        mine = legal & _suit(s)
        if mine == 0:
            continue
        c = _low(mine)
        v = 0
        forced = False
        higher = 0
        lower = 0
        for k in range(1, 3):
            o = (me + k) % 3
            suit = poss[o] & _suit(s)
            higher |= suit & _above(c)
            lower |= suit & _below(c)
            if not hidden[o] and suit and suit & _below(c) == 0:
                forced = True  # a visible hand that can only go over
        if forced:
            v = 1000
        elif higher == 0:
            v = -1000  # the trick is ours
        elif lower == 0:
            v = 500  # whoever holds the suit must go over
        v += _pop(higher) - 3 * _pop(lower)
        if v > best_v:
            best_v = v
            best = c
    return best


@njit(cache=True)
def _catcher_play(obs, poss, hidden, me, legal):
    """A misère catcher: force the declarer to take a trick."""
    decl = obs.declarer
    if obs.n_in_trick == 0:
        # Lead the suit where the catchers' lowest cards are lowest and the declarer
        # may still hold cards.
        partner = poss[3 - decl - me]
        best = -1
        best_v = 1 << 30
        for s in range(4):
            mine = legal & _suit(s)
            if mine == 0 or poss[decl] & _suit(s) == 0:
                continue
            c = _low(mine)
            low = c
            theirs = partner & _suit(s)
            if theirs and _low(theirs) > low:
                low = _low(theirs)
            if low < best_v:
                best_v = low
                best = c
        return best if best >= 0 else _high(legal)
    best, winner = _trick_state(obs, -1, -1)
    follow = legal & _suit(best >> 3)
    declarer_after = False
    for k in range(1, _n_after(obs, -1) + 1):
        declarer_after |= (me + k) % 3 == decl
    if follow == 0:
        return _high(legal)  # keep the low cards for catching
    if winner == decl:
        under = follow & _below(best)
        return _high(under) if under else _low(follow)
    if declarer_after:
        return _low(follow)
    return _high(follow)


@njit(cache=True)
def _raspasy_dummy(obs, rules):
    """Gusarik's dummy on a raspasy (it sits the play out, two cards a trick), else -1;
    ``rules`` may be None (no dummy)."""
    if rules is None:
        return -1
    if obs.kind != RASPASY:
        return -1
    return rules[R_DUMMY]


@njit(cache=True)
def play_decision(obs, rules, params, tables):
    """The card seat ``obs.playing_for`` plays (see the module docstring for the rules)."""
    legal = np.int64(obs.legal)
    if legal & (legal - 1) == 0:
        return _low(legal)
    me = obs.playing_for
    hand = np.int64(obs.visible[me])
    kind = obs.kind
    skip = _raspasy_dummy(obs, rules)
    poss, hidden = possible_cards(obs, skip)
    if kind == RASPASY or (kind == MISERE_GAME and me == obs.declarer):
        if obs.n_in_trick == 0:
            return _safe_lead(obs, poss, hidden, me, legal)
        return _duck(obs, poss, hidden, me, legal, skip)
    if kind == MISERE_GAME:
        return _catcher_play(obs, poss, hidden, me, legal)
    trump = np.int64(TRUMP[obs.contract]) if kind == GAME else np.int64(-1)
    if me == obs.declarer:
        if obs.n_in_trick == 0:
            return _declarer_lead(obs, poss, hidden, me, hand, legal, trump)
        return _declarer_follow(obs, poss, hidden, me, hand, legal, trump)
    if obs.n_in_trick == 0:
        return _defence_lead(obs, poss, hidden, me, hand, legal, trump)
    return _defence_follow(obs, poss, hidden, me, hand, legal, trump)
