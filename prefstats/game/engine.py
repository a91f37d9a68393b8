"""The hand engine: one deal from the auction to the last trick, as a state machine.

One concept: the deal's state machine; every phase reads and writes the one state record.

A deal's whole state is one record of dtype :data:`STATE` (a numpy structured scalar,
so numba code reads and writes its fields directly). :func:`apply` advances it by one
decision -- a call, the discard, the contract, a whist call, a card -- using the shared
rules of :mod:`prefstats.game.auction` and :mod:`prefstats.game.tricks`; :func:`observe` fills an
:data:`OBSERVATION` record with what one seat may know at that moment -- its cards, every
call, and the whole play history in order (``history``/``history_by``, forced cards
included), the voids each seat has shown and the turned talon cards in order. Two drivers use
them: a Python loop that asks :class:`~prefstats.players.Player` objects (any strategy),
and the compiled batch loop of the built-in players. The rules live here once.

Seats 0, 1, 2 are the active players from the dealer's left (first, second, third
hand); with 4 players the dealer sits out as seat 3; in Gusarik (2 players) seat 2 is
the open dummy, which never bids, joins the defence (played by the other player; turned
up once the contract and the whist call are made, B:384) and sits raspasy out. Sitting
on the dealer's left it is the first hand (B:382): it leads trick 1 of a game or misère
(``R_FIRST_HAND``), then seats 0 and 1 follow clockwise. Phases run
``AUCTION → [SWITCH] → DISCARD → CONTRACT → WHIST → [LAY] → PLAY → DONE``; a raspasy
(all pass) goes from the auction straight to play, a game that nobody whists (or a
standing half-whist) straight to ``DONE``; ``SWITCH`` (``dark_switch_to_misere``) is
the dark declarer's choice, his cards seen and the talon not yet, to keep his dark game
or switch to a misère in the light (B:105, B:414); ``LAY`` (``lone_whist_play =
"whister_chooses"``) is the lone whister's choice to stand closed or lie open. Forced
decisions (one legal choice) are made by the engine.

Decisions are ints: a call (see :mod:`prefstats.game.auction`: a bid, ``PASS``, ``BLIND_PASS``,
``DARK``), a discard (mask of the two cards), a contract code (0..25; ``no_talon`` says
whether it is played without the talon), a whist call (``W_PASS``, ``W_WHIST``,
``W_HALF``), a switch (``KEEP_DARK``, ``LIGHT_MISERE``), a card index. A contract
without the talon skips the discard.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import numpy.typing as npt
from numba import njit

from prefstats.game.auction import (
    HOLD_MODES,
    N_CALLS,
    NO_TALON_BID,
    W_WHIST,
    AuctionRules,
    _auction_state,
    dark_misere_floor,
    dummy_seat,
    game_played,
    variant_ladder,
    whist_state,
)
from prefstats.game.cards import lowest_card, popcount
from prefstats.game.codes import (
    GAME,
    MISERE_GAME,
    RASPASY,
    RASPASY_TALON_MODES,
    SUIT_LEAD,
    UNDECIDED,
)
from prefstats.game.codes import (
    KINDS as KINDS,  # the codes by name, for callers of the engine
)
from prefstats.game.contracts import LEVEL, MISERE, N_CONTRACTS, TRUMP
from prefstats.game.tricks import (
    TALON,
    beats,
    legal_cards,
    raspasy_lead_cards,
    raspasy_leader,
    talon_trick_winner,
    trick_winner,
)
from prefstats.game.variants import Variant

AUCTION, DISCARD, CONTRACT, WHIST, PLAY, DONE, LAY, SWITCH = range(8)
PHASES = ("auction", "discard", "contract", "whist", "play", "done", "lay", "switch")
#: The lone whister's decision in phase ``LAY`` (``lone_whist_play = "whister_chooses"``,
#: B:215): stand closed, each defender playing his own cards, or lie open.
LAY_CLOSED, LAY_OPEN = range(2)
#: The dark declarer's decision in phase ``SWITCH`` (``dark_switch_to_misere``, B:414):
#: keep his dark game, or switch to a misère played and caught in the light.
KEEP_DARK, LIGHT_MISERE = range(2)
#: Longest auction: every bid is above the last, a hold repeats one; three passes and
#: three "dark" calls end it.
MAX_CALLS = 2 * (N_CONTRACTS + N_CONTRACTS) + 8
#: Index of the talon's trick count in ``tricks`` (the 4-player dealer on raspasy), and
#: the "seat" of a led talon card in ``history_by``.
TALON_SLOT = 3
#: Longest play history: ten tricks of at most four cards (a led talon card and three).
MAX_HISTORY = 40

STATE = np.dtype(
    [
        ("phase", np.int8),
        ("to_act", np.int8),  # the seat whose call or card it is
        ("controller", np.int8),  # who decides it: the whister for an open passer's cards
        ("min_level", np.int8),  # lowest bid level (raised after a raspasy)
        ("raspasy_step", np.int8),  # consecutive raspasy before this deal
        ("dealt", np.uint32, (3,)),
        ("talon", np.uint32),
        ("talon_first", np.int8),  # the talon card turned (or led) first on a raspasy
        ("hands", np.uint32, (3,)),  # what each seat holds now
        ("n_calls", np.int8),
        ("calls", np.uint8, (MAX_CALLS,)),
        ("declarer", np.int8),
        ("bid", np.int8),
        ("contract", np.int8),
        ("discard", np.uint32),
        ("n_whist", np.int8),
        ("whist_calls", np.int8, (3,)),
        ("first", np.int8),  # final role of the first defender (W_*), -1 if none
        ("second", np.int8),
        ("kind", np.int8),
        ("played", np.bool_),  # cards were played (not a both-pass or standing half)
        ("open", np.bool_),  # the defence (lone whister) or the misère catchers lie open
        ("double_dummy", np.bool_),  # the play was decided by one solver call
        ("trick", np.int8),  # tricks completed
        ("leader", np.int8),  # who leads the current trick (TALON for a talon card)
        ("n_in_trick", np.int8),
        ("trick_cards", np.int8, (4,)),  # in playing order; a led talon card first
        ("gone", np.uint32),  # every card played so far
        ("played_by", np.uint32, (4,)),  # cards played by each seat (index 3: the talon)
        ("tricks", np.uint8, (4,)),  # per seat; index 3: tricks the talon took
        ("no_talon", np.bool_),  # a contract without the talon: it stays unseen
        # seats that bid in the dark (bit per seat); a declarer who switched to a light
        # misère (SWITCH) loses his: his game is no longer dark
        ("dark", np.uint8),
        ("blind", np.uint8),  # seats that passed in the dark
        ("bombs", np.uint8, (3,)),  # multiplier of each seat's oldest unused bomb (1: none)
        ("multiplier", np.int16),  # the game's: the declarer's bomb x 2 if his game is dark
        # The play history (public; see OBSERVATION): forced cards and led talon cards too.
        ("n_played", np.int8),
        ("history", np.int8, (MAX_HISTORY,)),
        ("history_by", np.int8, (MAX_HISTORY,)),
        ("voids", np.uint8, (3,)),
    ],
    align=True,
)

OBSERVATION = np.dtype(
    [
        ("phase", np.int8),
        ("seat", np.int8),  # the deciding seat
        ("playing_for", np.int8),  # whose card it is (differs for an open passer)
        ("hand", np.uint32),  # the deciding seat's own cards now
        ("visible", np.uint32, (3,)),  # current cards of each seat this seat can see
        ("talon", np.uint32),  # talon cards shown so far
        ("discard", np.uint32),  # own discard (declarer only)
        ("min_level", np.int8),
        ("raspasy_step", np.int8),
        ("n_calls", np.int8),
        ("calls", np.uint8, (MAX_CALLS,)),
        ("declarer", np.int8),
        ("bid", np.int8),
        ("contract", np.int8),
        ("kind", np.int8),
        ("n_whist", np.int8),
        ("whist_calls", np.int8, (3,)),
        ("first", np.int8),
        ("second", np.int8),
        ("open", np.bool_),
        ("trick", np.int8),
        ("leader", np.int8),
        ("n_in_trick", np.int8),
        ("trick_cards", np.int8, (4,)),
        ("gone", np.uint32),
        ("played_by", np.uint32, (4,)),
        ("tricks", np.uint8, (4,)),
        ("no_talon", np.bool_),
        ("dark", np.uint8),  # seats that bid in the dark
        ("blind", np.uint8),  # seats that passed in the dark
        ("bombs", np.uint8, (3,)),  # each seat's next bomb multiplier (1: none)
        ("multiplier", np.int16),
        ("legal", np.int64),  # bit mask of the legal decisions (a discard: the hand)
        # What the table has seen of the play, for card play that counts and infers:
        ("n_played", np.int8),  # cards played so far, led talon cards included
        ("history", np.int8, (MAX_HISTORY,)),  # those cards in playing order (-1 beyond)
        ("history_by", np.int8, (MAX_HISTORY,)),  # who played each: seat, TALON_SLOT (3)
        ("voids", np.uint8, (3,)),  # suits (bit 1 << suit) each seat has shown void in
        ("talon_order", np.int8, (2,)),  # shown talon cards in the order turned (-1: unseen)
    ],
    align=True,
)

# Rule options as the compiled engine reads them: ``rules_array(variant)``; the ladder
# rank of every call (:func:`~prefstats.game.auction.ladder_rank`) follows from ``R_RANK``.
(R_PLAYERS, R_HOLD, R_JUMP, R_HALF_WHIST, R_TEN_CHECKED, R_STALINGRAD, R_TALON, R_DUMMY,
 R_DARK_BIDS, R_BLIND_PASS, R_FIRST_LEADS, R_THIRD_FIRST, R_LAY_CHOICE, R_DEALER_STAYS,
 R_DARK_MISERE, R_BOMB_RASPASY, R_FIRST_HAND, R_DARK_SEVEN, R_DARK_SWITCH, R_RANK) = range(20)
N_RULES = R_RANK + N_CALLS

#: The ``rules`` argument of the compiled functions: a variant's options laid out by
#: :func:`rules_array` (a :class:`~prefstats.game.variants.Variant` is the validated
#: configuration it is made from).
RulesArray: TypeAlias = npt.NDArray[np.int64]


def rules_array(variant: Variant) -> RulesArray:
    """The options of ``variant`` that the engine needs, as an int64 array."""
    rules = np.zeros(N_RULES, dtype=np.int64)
    rules[R_DUMMY] = dummy_seat(variant)
    rules[R_DARK_BIDS] = variant.dark_bids
    rules[R_BLIND_PASS] = variant.blind_pass
    rules[R_RANK:] = variant_ladder(variant)
    rules[R_DARK_MISERE] = dark_misere_floor(variant)
    rules[R_BOMB_RASPASY] = variant.blind_pass and variant.bomb_level != "passers"
    rules[R_DARK_SEVEN] = variant.dark_overcall == "seven"
    rules[R_DARK_SWITCH] = variant.dark_switch_to_misere
    rules[R_PLAYERS] = variant.players
    rules[R_HOLD] = HOLD_MODES.index(variant.hold)
    rules[R_JUMP] = variant.jump_bids
    rules[R_HALF_WHIST] = variant.half_whist
    rules[R_TEN_CHECKED] = variant.ten_checked
    rules[R_STALINGRAD] = variant.stalingrad
    rules[R_TALON] = RASPASY_TALON_MODES.index(variant.raspasy_talon)
    # RULES.md §10: raspasy leads, the lone whister's play, the dealer after a raspasy
    rules[R_FIRST_LEADS] = variant.raspasy_first_hand_leads
    rules[R_THIRD_FIRST] = variant.raspasy_third_lead == "first_hand"
    rules[R_LAY_CHOICE] = variant.lone_whist_play == "whister_chooses"
    rules[R_DEALER_STAYS] = variant.dealer_stays
    # The first hand, who leads trick 1 of a game or misère (B:257, B:456): seat 0, or
    # Gusarik's dummy on the dealer's left (B:382), the clockwise order dummy, 0, 1.
    dummy_first = variant.has_dummy and variant.dummy_hand == "first"
    rules[R_FIRST_HAND] = rules[R_DUMMY] if dummy_first else 0
    return rules


# ---- the state machine ----------------------------------------------------------------


@njit(cache=True)
def lowest_bid_up_to(legal, rules, top, shift):
    """The legal trick bid (codes + ``shift``: ``NO_TALON_BID`` for the bids without the
    talon) lowest on the variant's ladder (``rules`` of :func:`rules_array`) and not above
    contract ``top`` + ``shift``; -1 if none. ``legal`` is a mask of calls."""
    if top < 0:
        return -1
    ceiling = rules[R_RANK + top + shift]
    best = -1
    best_rank = 1 << 30
    for c in range(N_CONTRACTS):
        call = c + shift
        if c != MISERE and (legal >> call) & 1:
            r = rules[R_RANK + call]
            if r <= ceiling and r < best_rank:
                best, best_rank = call, r
    return best


@njit(cache=True)
def reset(st, hands, talon, talon_first, min_level, raspasy_step):
    """Start deal ``hands`` (3 masks) / ``talon`` in ``st``; ``talon_first`` is the talon
    card turned first on a raspasy, ``min_level`` the lowest bid level (7 after a
    raspasy in Leningrad), ``raspasy_step`` the raspasy progression step."""
    st.phase = AUCTION
    st.to_act = 0
    st.controller = 0
    st.min_level = min_level
    st.raspasy_step = raspasy_step
    for s in range(3):
        st.dealt[s] = hands[s]
        st.hands[s] = hands[s]
    st.talon = talon
    st.talon_first = talon_first
    st.n_calls = 0
    st.declarer = -1
    st.bid = -1
    st.contract = -1
    st.discard = 0
    st.n_whist = 0
    st.whist_calls[:] = -1
    st.first = -1
    st.second = -1
    st.kind = UNDECIDED
    st.played = False
    st.open = False
    st.double_dummy = False
    st.trick = 0
    st.leader = 0
    st.n_in_trick = 0
    st.trick_cards[:] = -1
    st.gone = 0
    st.played_by[:] = 0
    st.tricks[:] = 0
    st.no_talon = False
    st.dark = 0
    st.blind = 0
    st.bombs[:] = 1
    st.multiplier = 1
    st.n_played = 0
    st.history[:] = -1
    st.history_by[:] = -1
    st.voids[:] = 0


@njit(cache=True)
def _calls(st):
    out = np.empty(st.n_calls, dtype=np.int64)
    for i in range(st.n_calls):
        out[i] = st.calls[i]
    return out


@njit(cache=True)
def _whist_calls(st):
    out = np.empty(st.n_whist, dtype=np.int64)
    for i in range(st.n_whist):
        out[i] = st.whist_calls[i]
    return out


@njit(cache=True)
def replay_auction(calls, rules, min_level, trusted=0):
    """:func:`~prefstats.game.auction._auction_state` of ``calls`` under ``rules``, the first
    ``trusted`` calls known legal."""
    options = AuctionRules(rules[R_HOLD], rules[R_JUMP] != 0, min_level, rules[R_RANK:],
                           rules[R_DUMMY], rules[R_DARK_BIDS] != 0, rules[R_BLIND_PASS] != 0,
                           rules[R_DARK_MISERE], rules[R_DARK_SEVEN] != 0)
    return _auction_state(calls, options, trusted)


@njit(cache=True)
def _auction(st, rules, trusted):
    """The auction's state (see ``replay_auction``), the first ``trusted`` calls known
    legal: every call in ``st`` was checked by :func:`apply` when it was made."""
    return replay_auction(_calls(st), rules, st.min_level, trusted)


@njit(cache=True)
def _whist(st, rules):
    dummy = rules[R_DUMMY]
    if dummy >= 0:  # the dummy's place among the defenders
        dummy = 0 if (st.declarer + 1) % 3 == dummy else 1
    return whist_state(st.contract, _whist_calls(st), rules[R_HALF_WHIST] != 0,
                       rules[R_TEN_CHECKED] != 0, rules[R_STALINGRAD] != 0, dummy)


@njit(cache=True)
def _talon_card(st, trick):
    """The talon card turned (or led) for raspasy trick 0 or 1."""
    other = int(st.talon) & ~(1 << st.talon_first)
    return st.talon_first if trick == 0 else lowest_card(other)


@njit(cache=True)
def _trump(st):
    return TRUMP[st.contract] if st.kind == GAME else -1


@njit(cache=True)
def legal_mask(st, rules):
    """Bit mask of the legal decisions now (a discard: the cards that may go)."""
    phase = st.phase
    if phase == AUCTION:
        return _auction(st, rules, st.n_calls)[4]
    if phase == DISCARD:
        return int(st.hands[st.declarer])
    if phase == CONTRACT:  # not below the bid on the ladder, without the talon if bid so
        shift = NO_TALON_BID if st.no_talon else 0
        mask = 0
        for c in range(N_CONTRACTS):
            if c != MISERE and rules[R_RANK + c + shift] >= rules[R_RANK + st.bid]:
                mask |= 1 << c
        return mask
    if phase == WHIST:
        return _whist(st, rules)[0]
    if phase == LAY:
        return 1 << LAY_CLOSED | 1 << LAY_OPEN
    if phase == SWITCH:
        return 1 << KEEP_DARK | 1 << LIGHT_MISERE
    if phase == PLAY:
        seat = st.to_act
        if st.n_in_trick == 0:
            if st.kind == RASPASY and st.trick < 2 and rules[R_TALON] == SUIT_LEAD:
                return raspasy_lead_cards(int(st.hands[seat]), _talon_card(st, st.trick))
            return int(st.hands[seat])
        return legal_cards(int(st.hands[seat]), st.trick_cards[0] >> 3, _trump(st))
    return 0


@njit(cache=True)
def _other_player(st, rules):
    """Gusarik: the player who is not the declarer (he also plays the dummy)."""
    return 1 - st.declarer if rules[R_DUMMY] == 2 else -1


@njit(cache=True)
def _controller(st, rules, seat):
    """Who decides for ``seat``: a lone whister also plays the open passer's cards, the
    defending player in Gusarik the dummy's."""
    if seat == rules[R_DUMMY]:
        return _other_player(st, rules)
    if st.kind == GAME and st.open and seat != st.declarer:
        return (st.declarer + 1) % 3 if st.first == W_WHIST else (st.declarer + 2) % 3
    return seat


@njit(cache=True)
def _set_turn(st, rules, seat):
    st.to_act = seat
    st.controller = _controller(st, rules, seat)


@njit(cache=True)
def _next_in_trick(st, rules, seat):
    """Who plays after ``seat``: clockwise, past the dummy on a Gusarik raspasy."""
    nxt = (seat + 1) % 3
    if nxt == rules[R_DUMMY] and st.kind == RASPASY:
        nxt = (nxt + 1) % 3
    return nxt


@njit(cache=True)
def _trick_size(st, rules):
    if st.leader == TALON:
        return 4  # the talon card and three players
    return 2 if st.kind == RASPASY and rules[R_DUMMY] >= 0 else 3


@njit(cache=True)
def _start_trick(st, rules, leader):
    st.n_in_trick = 0
    st.trick_cards[:] = -1
    st.leader = leader
    if leader == TALON:  # a talon card is led for the 4-player dealer; seat 0 follows
        card = _talon_card(st, st.trick)
        st.trick_cards[0] = card
        st.n_in_trick = 1
        st.gone |= np.uint32(1 << card)
        st.played_by[TALON_SLOT] |= np.uint32(1 << card)
        _record(st, TALON_SLOT, card)
        _set_turn(st, rules, 0)
    else:
        _set_turn(st, rules, leader)


@njit(cache=True)
def _raspasy_leader(st, rules, winner):
    return raspasy_leader(st.trick, winner, rules[R_TALON], rules[R_FIRST_LEADS],
                          rules[R_THIRD_FIRST] != 0)


@njit(cache=True)
def _start_play(st, rules):
    st.phase = PLAY
    st.played = True
    st.trick = 0
    if st.kind == RASPASY:  # noqa: SIM108 -- Gusarik's dummy sits a raspasy out
        first = _raspasy_leader(st, rules, 0)
    else:  # the first hand leads a game or misère
        first = rules[R_FIRST_HAND]
    _start_trick(st, rules, first)


@njit(cache=True)
def _end_trick(st, rules):
    size = st.n_in_trick
    c = st.trick_cards
    if size == 4:  # talon card and three players
        winner = talon_trick_winner(c[0], c[1], c[2], c[3])
    elif size == 2:  # Gusarik raspasy: the dummy sits out, no trumps
        winner = _next_in_trick(st, rules, st.leader) if beats(c[1], c[0], -1) else st.leader
    else:
        winner = (st.leader + trick_winner(c[0], c[1], c[2], _trump(st))) % 3
    st.tricks[TALON_SLOT if winner == TALON else winner] += 1
    st.trick += 1
    if st.trick == 10:
        st.phase = DONE
        st.to_act = -1
        st.controller = -1
        return
    leader = winner
    if st.kind == RASPASY:
        leader = _raspasy_leader(st, rules, winner)
    _start_trick(st, rules, leader)


@njit(cache=True)
def _finish_auction(st, rules, high, high_bidder, passed):
    if passed == 0b111:
        st.kind = RASPASY
        if st.blind and rules[R_BOMB_RASPASY]:  # a bomb raspasy: a single bomb's (B:398)
            st.multiplier = 2
        _start_play(st, rules)
        return
    st.declarer = high_bidder
    st.bid = high
    st.multiplier = st.bombs[high_bidder] * (2 if (st.dark >> high_bidder) & 1 else 1)
    if high >= NO_TALON_BID:  # the talon stays face down; no discard
        st.no_talon = True
        if high == MISERE + NO_TALON_BID:
            _start_misere(st, rules)  # the first hand leads, as on any misère
            return
        st.phase = CONTRACT
    elif rules[R_DARK_SWITCH] and _bid_dark(st) and high != MISERE:
        st.phase = SWITCH  # he looks at his cards before the talon (B:414)
    else:
        _take_talon(st)
    _set_turn(st, rules, high_bidder)


@njit(cache=True)
def _take_talon(st):
    st.hands[st.declarer] |= st.talon
    st.phase = DISCARD


@njit(cache=True)
def _switch(st, action):
    """The dark declarer keeps his game, or switches to a misère that counts as an
    ordinary one: "played in the light, and caught in the light" (B:414); "the talon is
    opened and the double stake disappears" (B:105)."""
    if action == LIGHT_MISERE:  # his bid stays the auction's; he plays misère
        st.contract = MISERE
        st.dark ^= np.uint8(1 << st.declarer)
        st.multiplier = st.bombs[st.declarer]
    _take_talon(st)


@njit(cache=True)
def _start_misere(st, rules):
    st.contract = MISERE
    st.kind = MISERE_GAME
    # The catchers lay their hands down; a dark misère is caught in the dark (B:105, B:414).
    st.open = not _bid_dark(st)
    _start_play(st, rules)


@njit(cache=True)
def _bid_dark(st):
    return (st.dark >> st.declarer) & 1 != 0


@njit(cache=True)
def _start_whist(st, rules):
    st.kind = GAME
    speaker, first, second = _whist(st, rules)[1:4]
    if _bid_dark(st) and LEVEL[st.contract] == 6 and rules[R_DUMMY] < 0:
        speaker, first, second = -1, W_WHIST, W_WHIST  # a dark six: both whist, closed (B:414)
    if speaker < 0:  # no whist calls (ten checked, a dark six): both defend, closed
        st.first = first
        st.second = second
        _start_play(st, rules)
        return
    st.phase = WHIST
    _set_turn(st, rules, (st.declarer + 1 + speaker) % 3)


@njit(cache=True)
def _finish_whist(st, rules, first, second):
    st.first = first
    st.second = second
    if not game_played(first, second):
        st.phase = DONE  # not played: the declarer is credited with his contract
        st.to_act = -1
        st.controller = -1
        return
    # A lone whister's defence lies open (A:S3), or he chooses (B:215); Gusarik's
    # defender never shows his own hand, only the turned dummy (B:384).
    lone = (first == W_WHIST) != (second == W_WHIST) and rules[R_DUMMY] < 0
    if lone and rules[R_LAY_CHOICE]:
        st.phase = LAY
        _set_turn(st, rules, (st.declarer + 1) % 3 if first == W_WHIST else (st.declarer + 2) % 3)
        return
    st.open = lone
    _start_play(st, rules)


@njit(cache=True)
def _record(st, seat, card):
    st.history[st.n_played] = card
    st.history_by[st.n_played] = seat
    st.n_played += 1


@njit(cache=True)
def _show_voids(st, rules, seat, card):
    """The suits ``seat`` shows void in by playing ``card`` now: the suit led if he does
    not follow it, trumps too if he does not ruff either; on a raspasy under
    ``suit_lead``, the turned talon card's suit if he leads another to trick 1 or 2."""
    suit = card >> 3
    if st.n_in_trick > 0:
        led = st.trick_cards[0] >> 3
        if suit != led:
            st.voids[seat] |= np.uint8(1 << led)
            trump = _trump(st)
            if trump >= 0 and suit != trump:
                st.voids[seat] |= np.uint8(1 << trump)
    elif st.kind == RASPASY and st.trick < 2 and rules[R_TALON] == SUIT_LEAD:
        turned = _talon_card(st, st.trick) >> 3
        if suit != turned:
            st.voids[seat] |= np.uint8(1 << turned)


@njit(cache=True)
def apply(st, rules, action):
    """Make decision ``action`` for the seat to act. Returns 0, or -1 when it is not legal
    (the state is then unchanged)."""
    phase = st.phase
    if phase == AUCTION:
        # One replay both checks the call (as the last of the history) and gives the
        # state after it: the legal calls before it are not computed apart.
        if action < 0 or action > 62:
            return -1
        n = st.n_calls
        before = st.calls[n]
        st.calls[n] = action
        st.n_calls = n + 1
        speaker, high, high_bidder, passed, _, bad, dark, blind = _auction(st, rules, n)
        if bad >= 0:
            st.calls[n] = before
            st.n_calls = n
            return -1
        st.dark = dark
        st.blind = blind
        if speaker < 0:
            _finish_auction(st, rules, high, high_bidder, passed)
        else:
            _set_turn(st, rules, speaker)
        return 0
    legal = legal_mask(st, rules)
    if phase == DISCARD:
        if action < 0 or action & ~legal or popcount(action) != 2:
            return -1
    elif action < 0 or action > 62 or not (legal >> action) & 1:
        return -1
    if phase == DISCARD:
        st.hands[st.declarer] &= np.uint32(~action & 0xFFFFFFFF)
        st.discard = action
        if st.bid == MISERE or st.contract == MISERE:  # bid, or switched to (B:414)
            _start_misere(st, rules)
        else:
            st.phase = CONTRACT
    elif phase == CONTRACT:
        st.contract = action
        _start_whist(st, rules)
    elif phase == LAY:
        st.open = action == LAY_OPEN
        _start_play(st, rules)
    elif phase == SWITCH:
        _switch(st, action)
    elif phase == WHIST:
        st.whist_calls[st.n_whist] = action
        st.n_whist += 1
        speaker, first, second = _whist(st, rules)[1:4]
        if speaker < 0:
            _finish_whist(st, rules, first, second)
        else:
            _set_turn(st, rules, (st.declarer + 1 + speaker) % 3)
    else:
        seat = st.to_act
        _show_voids(st, rules, seat, action)
        _record(st, seat, action)
        bit = np.uint32(1 << action)
        st.hands[seat] &= ~bit
        st.gone |= bit
        st.played_by[seat] |= bit
        st.trick_cards[st.n_in_trick] = action
        st.n_in_trick += 1
        if st.n_in_trick == _trick_size(st, rules):
            _end_trick(st, rules)
        else:
            _set_turn(st, rules, _next_in_trick(st, rules, seat))
    return 0


@njit(cache=True)
def forced(st, rules):
    """The only legal decision when there is exactly one (whist calls and cards), else -1."""
    if st.phase != PLAY and st.phase != WHIST:
        return -1
    legal = legal_mask(st, rules)
    if legal & (legal - 1):
        return -1
    return lowest_card(legal)


@njit(cache=True)
def advance_forced(st, rules):
    """Make every forced decision until a real choice (or the end) comes."""
    while st.phase != DONE:
        action = forced(st, rules)
        if action < 0:
            return
        apply(st, rules, action)


# ---- what a seat may know -------------------------------------------------------------


@njit(cache=True)
def _visible(st, rules, seat, other):
    """Whether ``seat`` sees the current cards of seat ``other``."""
    if st.phase == DONE:
        return True
    if other == seat:
        return st.phase != AUCTION or not (st.dark >> seat) & 1  # a dark bidder is blind
    if other == rules[R_DUMMY] and st.kind == GAME:
        return st.phase == PLAY  # turned after the contract and the whist call (B:384)
    if not st.open or st.phase != PLAY:
        return False
    if st.kind == MISERE_GAME:
        # Catchers lie open once the first card is led (before it if a catcher leads).
        return other != st.declarer and (st.declarer != rules[R_FIRST_HAND] or st.gone != 0)
    return other != st.declarer  # a lone whister: both defence hands lie open


@njit(cache=True)
def observe(st, rules, obs):
    """Fill ``obs`` with what the deciding seat (``st.controller``) may know now."""
    seat = st.controller
    obs.phase = st.phase
    obs.seat = seat
    obs.playing_for = st.to_act
    obs.hand = st.hands[seat] if _visible(st, rules, seat, seat) else 0
    for s in range(3):
        obs.visible[s] = st.hands[s] if _visible(st, rules, seat, s) else 0
    if st.kind == RASPASY:
        shown = 0
        if rules[R_TALON] == SUIT_LEAD:
            for t in range(min(st.trick + 1, 2)):
                shown |= 1 << _talon_card(st, t)
        else:
            shown = int(st.played_by[TALON_SLOT])
        obs.talon = shown
    else:
        # shown once taken -- by a dark declarer to nobody (B:103, B:412)
        shown = st.declarer >= 0 and not st.no_talon and st.phase != SWITCH
        if shown and _bid_dark(st) and seat != st.declarer:
            shown = st.phase == DONE
        obs.talon = st.talon if shown else 0
    obs.discard = st.discard if seat == st.declarer else 0
    obs.min_level = st.min_level
    obs.raspasy_step = st.raspasy_step
    obs.n_calls = st.n_calls
    obs.calls[:] = st.calls
    obs.declarer = st.declarer
    obs.bid = st.bid
    obs.contract = st.contract
    obs.kind = st.kind
    obs.n_whist = st.n_whist
    obs.whist_calls[:] = st.whist_calls
    obs.first = st.first
    obs.second = st.second
    obs.open = st.open
    obs.trick = st.trick
    obs.leader = st.leader
    obs.n_in_trick = st.n_in_trick
    obs.trick_cards[:] = st.trick_cards
    obs.gone = st.gone
    obs.played_by[:] = st.played_by
    obs.tricks[:] = st.tricks
    obs.no_talon = st.no_talon
    obs.dark = st.dark
    obs.blind = st.blind
    obs.bombs[:] = st.bombs
    obs.multiplier = st.multiplier
    obs.legal = legal_mask(st, rules)
    obs.n_played = st.n_played
    obs.history[:] = st.history
    obs.history_by[:] = st.history_by
    obs.voids[:] = st.voids
    for t in range(2):  # turned first, then the other (a game's talon: both at once)
        card = _talon_card(st, t)
        obs.talon_order[t] = card if (obs.talon >> card) & 1 else -1
