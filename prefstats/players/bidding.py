"""Heuristic decisions before the play: bids, the discard, the contract, whist calls.

One concept: the heuristic's decisions by expected deal values, sharing their tables.

Compiled functions of an observation record (see :mod:`prefstats.game.engine`), the rules
array, the parameter array (:mod:`prefstats.players.params`) and the tables of
:func:`heuristic_tables`. Every decision compares the expected deal values of its
options: the trick estimates of :mod:`prefstats.players.evaluate` (with the fitted
offsets of :mod:`.adjust`) against tables that :func:`heuristic_tables` scores once per
variant with the scoring itself. How each call is chosen, Classic's and Gusarik's
included, is in the docs ("The player model").
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from prefstats.game import engine
from prefstats.game.auction import (
    BLIND_PASS,
    DARK,
    N_CALLS,
    NO_TALON_BID,
    PASS,
    W_HALF,
    W_PASS,
    W_WHIST,
)
from prefstats.game.cards import lowest_card, popcount
from prefstats.game.codes import GAME, MISERE_GAME, RASPASY
from prefstats.game.contracts import LEVEL, MISERE, N_CONTRACTS, NO_TRUMP, OBLIGATION, TRUMP
from prefstats.game.engine import lowest_bid_up_to
from prefstats.players import adjust as adj
from prefstats.players import evaluate as ev
from prefstats.players.params import (
    AGGRESSION,
    BLIND_PASS_P,
    BLIND_PASS_STEP,
    BOMB_RESERVE,
    DARK_BID_P,
    DARK_BID_STEP,
    DARK_BOMB,
    EXPECT_WHIST,
    MISERE_RISK,
    NO_TALON_MARGIN,
    OTHERS_PASS,
    PARTNER_WHIST,
    RASPASY_FEAR,
    WHIST_APPETITE,
)

# ---- value tables --------------------------------------------------------------------

#: Trick counts 0..10 of one side.
N_TRICKS = 11
#: The declarer's scenarios: both defenders whist, or nobody does (credited).
D_WHISTED, D_CREDITED = range(2)
#: A defender's scenarios as (his call, the other's call).
S_BOTH, S_ALONE, S_PASSER, S_NONE, S_HALF, S_OTHER_HALF = range(6)
_SCENARIO_ROLES = (
    (W_WHIST, W_WHIST),
    (W_WHIST, W_PASS),
    (W_PASS, W_WHIST),
    (W_PASS, W_PASS),
    (W_HALF, W_PASS),
    (W_PASS, W_HALF),
)
N_SCENARIOS = len(_SCENARIO_ROLES)
#: Raspasy steps told apart (the last repeats).
N_STEPS = 4
#: Offsets of the value tables in the flattened rows after the evaluation tables.
V_DECL = 0  # [contract][D_*][declarer's tricks]
V_DEF = V_DECL + N_CONTRACTS * 2 * N_TRICKS  # [contract][position][S_*][team][own]
V_MISERE = V_DEF + N_CONTRACTS * 2 * N_SCENARIOS * N_TRICKS * N_TRICKS  # [tricks]
V_RASPASY = V_MISERE + N_TRICKS  # [step][own tricks]
V_SIZE = V_RASPASY + N_STEPS * N_TRICKS
#: Rows of 256 the value tables fill; the fitted offsets (:mod:`.adjust`) follow them.
V_ROWS = -(-V_SIZE // 256)


def _value_table(variant) -> np.ndarray:
    """Every deal value the decisions read, scored by the variant's own scoring."""
    from prefstats.game.scoring import deal_values, score_batch

    n = variant.players
    dummy = variant.has_dummy
    dealer = 3 if variant.dealer_sits_out else -1
    rows = []  # (kind, contract, tricks per seat, first, second, step, seat whose value)

    def add(kind, contract, tricks, first=-1, second=-1, step=0, seat=0):
        rows.append((kind, contract, [*tricks, 0, 0][:n], first, second, step, seat))

    # Declarer 0, defenders 1 (first) and 2; misère's trick-game rows are never read
    # (filled with 6♠ to keep the layout simple).
    for code in range(N_CONTRACTS):
        for scenario in (D_WHISTED, D_CREDITED):
            roles = (W_WHIST, W_WHIST) if scenario == D_WHISTED else (W_PASS, W_PASS)
            for t in range(N_TRICKS):
                k = 10 - t
                tricks = (t, k) if dummy else (t, k - k // 2, k // 2)
                add(GAME, code if code != MISERE else 0, tricks, *roles)
    for code in range(N_CONTRACTS):
        for pos in range(2):
            for mine, other in _SCENARIO_ROLES:
                first, second = (mine, other) if pos == 0 else (other, mine)
                if first == W_HALF:  # only the second defender half-whists
                    first, second = second, first
                if dummy:
                    # Gusarik: the defending player (seat 1) makes the one call and owns
                    # the dummy's tricks, whatever his place; the other's call is moot.
                    first, second = mine, W_PASS
                for k in range(N_TRICKS):
                    for own in range(N_TRICKS):
                        own = min(own, k)
                        split = (own, k - own) if pos == 0 else (k - own, own)
                        if dummy:
                            add(GAME, code if code != MISERE else 0, (10 - k, k), first,
                                second, seat=1)
                        else:
                            add(GAME, code if code != MISERE else 0, (10 - k, *split), first,
                                second, seat=1 + pos)
    def others(t):  # the other players' tricks when one takes t
        return (10 - t,) if dummy else (10 - t - (10 - t) // 2, (10 - t) // 2)

    for t in range(N_TRICKS):
        add(MISERE_GAME, MISERE, (t, *others(t)))
    for step in range(N_STEPS):
        for t in range(N_TRICKS):
            add(RASPASY, 0, (t, *others(t)), step=step)
    kind, contract, tricks, first, second, step, seat = (np.array(c) for c in zip(*rows,
                                                                                 strict=True))
    values = deal_values(variant, *score_batch(variant, kind, 0, contract, tricks, first,
                                               second, dealer, step))
    return values[np.arange(len(rows)), seat]


def with_values(eval_tables: np.ndarray, variant=None, offsets=None) -> np.ndarray:
    """``eval_tables`` (:mod:`~prefstats.players.evaluate`'s layout) followed by the deal
    values of ``variant`` (default Sochi) in rows of 256 and the offsets of its calls
    (:func:`.adjust.row`: ``offsets``, default its shipped fit): the heuristic's tables."""
    if variant is None:
        from prefstats.game.variants import get_variant

        variant = get_variant("sochi")
    values = np.zeros(V_ROWS * 256)
    values[:V_SIZE] = _value_table(variant)
    return np.vstack([eval_tables, values.reshape(-1, 256), adj.row(variant, offsets)[None, :]])


def heuristic_tables(variant=None, offsets=None) -> np.ndarray:
    """The heuristic's tables for ``variant`` (default Sochi), with the shipped
    evaluation tables and ``offsets`` of its calls (default its shipped fit,
    :func:`.adjust.fitted`); cached by variant and offsets.

    >>> t = heuristic_tables()
    >>> t.shape[1], t.shape[0] > ev.N_EVAL_ROWS
    (256, True)
    """
    return _tables(variant, None if offsets is None else adj.checked(offsets).tobytes())


@functools.lru_cache(maxsize=16)
def _tables(variant, offsets: bytes | None) -> np.ndarray:
    """:func:`heuristic_tables`, the offsets keyed by their bytes (a fit's candidates
    change every round: the cache keeps the last few)."""
    return with_values(ev.load_tables(), variant,
                       None if offsets is None else np.frombuffer(offsets))


@njit(cache=True, inline="always")
def _value(tables, offset):
    return tables[ev.N_EVAL_ROWS + offset // 256, offset % 256]


@njit(cache=True, inline="always")
def _offset(tables, cell):
    """The fitted offset of one class (:mod:`.adjust`'s layout)."""
    return tables[ev.N_EVAL_ROWS + V_ROWS, cell]


# ---- distributions and values -----------------------------------------------------------


#: The standard normal distribution function at steps of 1/32 over -8..8.
_PHI_STEP = 32
_PHI = np.array([0.5 * (1.0 + math.erf(x / _PHI_STEP / math.sqrt(2.0)))
                 for x in range(-8 * _PHI_STEP, 8 * _PHI_STEP + 1)])


@njit(cache=True)
def _trick_probs(mean, sd, probs):
    """A normal distribution of tricks discretised over 0..10 into ``probs``."""
    below = 0.0
    scale = _PHI_STEP / max(sd, 0.3)
    top = len(_PHI) - 1
    for t in range(10):
        x = min(max((t + 0.5 - mean) * scale + top / 2, 0.0), top - 1.0)
        i = int(x)
        cdf = _PHI[i] + (x - i) * (_PHI[i + 1] - _PHI[i])
        probs[t] = cdf - below
        below = cdf
    probs[10] = 1.0 - below


@njit(cache=True)
def _strain(code):
    trump = TRUMP[code]
    return NO_TRUMP if trump < 0 else trump


@njit(cache=True)
def _contract(level, strain):
    code = 5 * (level - 6) + strain
    return code + 1 if code >= MISERE else code


@njit(cache=True)
def _declarer_value(tables, code, probs, whisted):
    """Expected value of playing ``code`` with tricks ``probs``; ``whisted`` is the
    chance that the defenders whist (else the declarer is credited)."""
    base = V_DECL + code * 2 * N_TRICKS
    credited = _value(tables, base + D_CREDITED * N_TRICKS)
    total = 0.0
    for t in range(N_TRICKS):
        total += probs[t] * _value(tables, base + D_WHISTED * N_TRICKS + t)
    return whisted * total + (1.0 - whisted) * credited


@njit(cache=True)
def _made_chance(code, probs, whisted):
    """Chance that contract ``code`` with tricks ``probs`` is made or credited (what
    spends the declarer's bomb)."""
    made = 0.0
    for t in range(LEVEL[code], N_TRICKS):
        made += probs[t]
    return whisted * made + (1.0 - whisted)


@njit(cache=True)
def _best_in_strain(tables, params, legal, strain, mean, sd, probs):
    """``(code, value)`` of the best contract in ``strain`` among the codes in mask
    ``legal`` (-1 and a very low value when none is)."""
    _trick_probs(mean, sd, probs)
    best_code = -1
    best = -1e18
    for level in range(6, 11):
        code = _contract(level, strain)
        if (legal >> code) & 1:
            value = _declarer_value(tables, code, probs, params[EXPECT_WHIST])
            if value > best:
                best_code, best = code, value
    return best_code, best


@njit(cache=True)
def _misere_value(tables, tricks, catch):
    """Expected misère value: clean with probability ``1 - catch``, else a failure of
    ``tricks / catch`` tricks on average (failures cost the same per trick)."""
    tricks = max(tricks, catch)
    clean = _value(tables, V_MISERE)
    one = _value(tables, V_MISERE + 1)
    per_trick = _value(tables, V_MISERE + 2) - one
    return (1.0 - catch) * clean + catch * one + (tricks - catch) * per_trick


@njit(cache=True)
def _leads(seat, rules):
    """1.0 when ``seat`` leads trick 1 of a game or misère: the first hand
    (``R_FIRST_HAND``), which in Gusarik is the dummy (B:382), so never a declarer."""
    return 1.0 if seat == rules[engine.R_FIRST_HAND] else 0.0


@njit(cache=True)
def _raspasy_value(tables, params, hand, leads, step, probs, scale):
    """Expected value of a raspasy to this hand: its raspasy tricks are guessed from its
    no-trump strength (the tricks its high cards cannot avoid), times ``scale`` (3/2
    when two play the raspasy, as in Gusarik, where each takes five on average)."""
    mean = scale * ev.declarer_tricks(tables, hand, NO_TRUMP, leads, False)
    _trick_probs(mean, ev.sigma(tables, ev.POST, NO_TRUMP), probs)
    base = V_RASPASY + min(step, N_STEPS - 1) * N_TRICKS
    total = 0.0
    for t in range(N_TRICKS):
        total += probs[t] * _value(tables, base + t)
    return params[RASPASY_FEAR] * total


@njit(cache=True)
def _game_value(tables, code, probs, params, mult, cost):
    """A bidder's value of contract ``code``: times his bomb's multiplier ``mult``, less
    ``cost`` (the bomb's reserve) when the game is made or credited, which spends it."""
    whisted = params[EXPECT_WHIST]
    value = mult * _declarer_value(tables, code, probs, whisted)
    if cost != 0.0:
        value -= cost * _made_chance(code, probs, whisted)
    return value


@njit(cache=True)
def _uniform(key):
    """A uniform number in [0, 1) from a decision's random key."""
    return np.float64(key >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _is_bid(call):
    return call < N_CONTRACTS or call >= NO_TALON_BID


@njit(cache=True)
def _lowest_bid(legal, rules):
    """The legal bid lowest on the ladder, misère last (PASS when there is none)."""
    best = PASS
    best_rank = 1 << 30
    for c in range(N_CALLS):
        if (legal >> c) & 1 and _is_bid(c):
            r = rules[engine.R_RANK + c] + (1 << 20) * (c % NO_TALON_BID == MISERE)
            if r < best_rank:
                best, best_rank = c, r
    return best


@njit(cache=True)
def _blind_call(obs, params, key, high):
    """A blind pass or "dark", decided before looking at the cards: only at a first call
    before anyone bids, with the chances of the parameters (raised by the raspasy step;
    the dark one by the seat's bomb); -1 to look at the cards instead."""
    legal = np.int64(obs.legal)
    can_blind = (legal >> BLIND_PASS) & 1
    can_dark = (legal >> DARK) & 1
    if high >= 0 or not (can_blind or can_dark):
        return -1
    step = obs.raspasy_step
    u = _uniform(key)
    p_blind = params[BLIND_PASS_P] + params[BLIND_PASS_STEP] * step if can_blind else 0.0
    if u < p_blind:
        return BLIND_PASS
    p_dark = 0.0
    if can_dark:
        p_dark = params[DARK_BID_P] + params[DARK_BID_STEP] * step
        if obs.bombs[obs.seat] > 1:
            p_dark *= params[DARK_BOMB]
    if u < p_blind + p_dark:
        return DARK
    return -1


@njit(cache=True)
def _safe_misere_value(tables, params, hand, leads, talon, bomb, cost):
    """The value of a misère on ``hand`` (taking the ``talon`` or not) under the seat's
    ``bomb`` (less ``cost`` when it is made, which spends the bomb); very low when its
    catch chance, with the fitted offset of the hand's class, is above ``misere_risk``."""
    tricks, catch = ev.misere_risk(tables, hand, leads, talon)
    catch = min(max(catch - _offset(tables, adj.misere_cell(adj.hole_class(hand))), 0.0), 1.0)
    value = _misere_value(tables, tricks, catch)
    if bomb > 1:
        value = np.float64(bomb) * value - cost * (1.0 - catch)
    return value if catch <= params[MISERE_RISK] else -1e18


@njit(cache=True)
def _best_above(values, rules, call):
    """The best of ``values`` (per contract code, all with the talon or all without)
    among the contracts a win with bid ``call`` allows: not below it on the ladder."""
    shift = NO_TALON_BID if call >= NO_TALON_BID else 0
    floor = rules[engine.R_RANK + call]
    best = -1e18
    for c in range(N_CONTRACTS):
        if c != MISERE and rules[engine.R_RANK + c + shift] >= floor:
            best = max(best, values[c])
    return best


# ---- decisions --------------------------------------------------------------------------


@njit(cache=True)
def bid_decision(obs, rules, params, tables, key):
    """The call: the lowest legal bid up to the highest contract worth more than
    passing, misère when it is worth more still, else pass.

    Classic: at a first call before anyone bids, a blind pass or "dark" with the chances
    of the parameters, drawn from ``key`` before looking; a seat that said "dark" bids
    the lowest legal bid blind, then passes. A game's value is multiplied by the seat's
    bomb, less ``bomb_reserve`` per extra multiplier times the chance that the game is
    made or credited, which spends the bomb (any raspasy at ordinary rates).
    Bids without the talon are valued on the dealt hand (less ``no_talon_margin``
    tricks); one is made when it is the lowest acceptable call and its best contract is
    worth more than the one the lowest acceptable bid with the talon leads to.
    """
    legal = np.int64(obs.legal)
    seat = obs.seat
    calls = np.empty(obs.n_calls, dtype=np.int64)
    for i in range(obs.n_calls):
        calls[i] = obs.calls[i]
    # the engine checked these calls: replay them without checking again
    state = engine.replay_auction(calls, rules, obs.min_level, obs.n_calls)
    high, passed, dark = state[1], state[3], state[6]
    if (dark >> seat) & 1:  # he bids blind: the lowest bid, then he passes
        return PASS if (legal >> PASS) & 1 else _lowest_bid(legal, rules)
    blind = _blind_call(obs, params, key, high)
    if blind >= 0:
        return blind
    hand = np.int64(obs.hand)
    leads = _leads(seat, rules)
    probs = np.empty(N_TRICKS)
    pass_value = 0.0
    if high < 0:  # nobody has bid: passing may end in a raspasy, which seat 0 leads
        others = 2 - popcount(passed)
        scale = 1.5 if rules[engine.R_DUMMY] >= 0 else 1.0
        pass_value = params[OTHERS_PASS] ** others * _raspasy_value(
            tables, params, hand, 1.0 if seat == 0 else 0.0, obs.raspasy_step, probs, scale)
    bomb = max(np.int64(obs.bombs[seat]), 1)
    mult = np.float64(bomb)
    cost = params[BOMB_RESERVE] * (bomb - 1)
    # The fitted offset of the hand's class: while nobody has bid, or competing.
    shift = params[AGGRESSION] + _offset(tables, adj.call_cell(
        0 if high < 0 else 1, seat, adj.trick_class(tables, hand, leads)))
    top = -1  # the highest contract worth more than passing
    best = -1e18
    for strain in range(5):
        mean = ev.declarer_tricks(tables, hand, strain, leads, True) + shift
        if mean < 4.0:  # no contract in this strain can be worth anything
            continue
        _trick_probs(mean, ev.sigma(tables, ev.PRE, strain), probs)
        for level in range(6, min(10, int(mean) + 2) + 1):
            code = _contract(level, strain)
            value = _declarer_value(tables, code, probs, params[EXPECT_WHIST])
            if bomb > 1:  # (written out: a call here costs a third of the decision)
                value = mult * value - cost * _made_chance(code, probs, params[EXPECT_WHIST])
            best = max(best, value)
            if value > pass_value and code > top:
                top = code
    no_talon = rules[engine.R_RANK + NO_TALON_BID] >= 0  # the ladder has such bids
    top_nt = -1
    if no_talon:
        for strain in range(5):
            mean = (ev.declarer_tricks(tables, hand, strain, leads, False)
                    + shift - params[NO_TALON_MARGIN])
            if mean < 4.0:
                continue
            _trick_probs(mean, ev.sigma(tables, ev.POST, strain), probs)
            for level in range(6, min(10, int(mean) + 2) + 1):
                code = _contract(level, strain)
                value = _game_value(tables, code, probs, params, mult, cost)
                best = max(best, value)
                if value > pass_value and code > top_nt:
                    top_nt = code
    misere = -1  # misère (as a first call) when it is safe and worth more than the rest
    floor = max(best, pass_value)
    if (legal >> MISERE) & 1:
        value = _safe_misere_value(tables, params, hand, leads, True, bomb, cost)
        if value > floor:
            misere, floor = MISERE, value
    if no_talon and (legal >> (MISERE + NO_TALON_BID)) & 1:
        value = _safe_misere_value(tables, params, hand, leads, False, bomb, cost)
        if value > floor:
            misere = MISERE + NO_TALON_BID
    if misere >= 0:
        return misere
    if not no_talon:  # the ladder's codes in order: the lowest legal one up to the top
        for code in range(top + 1):
            if code != MISERE and (legal >> code) & 1:
                return code
        return PASS
    call = lowest_bid_up_to(legal, rules, top, 0)
    if no_talon:
        nt_call = lowest_bid_up_to(legal, rules, top_nt, NO_TALON_BID)
        if nt_call >= 0:
            if call < 0:
                return nt_call
            values = np.empty(N_CONTRACTS)  # with the talon, and without it
            nt_values = np.empty(N_CONTRACTS)
            for strain in range(5):
                for model, out, margin in ((ev.PRE, values, 0.0),
                                           (ev.POST, nt_values, params[NO_TALON_MARGIN])):
                    mean = (ev.declarer_tricks(tables, hand, strain, leads, model == ev.PRE)
                            + shift - margin)
                    _trick_probs(mean, ev.sigma(tables, model, strain), probs)
                    for level in range(6, 11):
                        code = _contract(level, strain)
                        out[code] = _game_value(tables, code, probs, params, mult, cost)
            if _best_above(nt_values, rules, nt_call) > _best_above(values, rules, call):
                return nt_call
    return call if call >= 0 else PASS


@njit(cache=True)
def switch_decision(obs, rules, params, tables):
    """The dark declarer, his cards seen and the talon not yet (B:414), switches to a
    misère in the light when it is one he would call at a first call -- its catch
    chance within ``misere_risk`` -- worth more than the dark game he holds: his best
    contract not below his bid, valued as at a first call, at the dark multiplier."""
    hand = np.int64(obs.hand)
    seat = obs.seat
    leads = _leads(seat, rules)
    bomb = max(np.int64(obs.bombs[seat]), 1)
    cost = params[BOMB_RESERVE] * (bomb - 1)
    misere = _safe_misere_value(tables, params, hand, leads, True, bomb, cost)
    shift = params[AGGRESSION] + _offset(tables, adj.call_cell(
        0, seat, adj.trick_class(tables, hand, leads)))
    probs = np.empty(N_TRICKS)
    values = np.empty(N_CONTRACTS)
    for strain in range(5):
        mean = ev.declarer_tricks(tables, hand, strain, leads, True) + shift
        _trick_probs(mean, ev.sigma(tables, ev.PRE, strain), probs)
        for level in range(6, 11):
            code = _contract(level, strain)
            values[code] = _game_value(tables, code, probs, params,
                                       np.float64(obs.multiplier), cost)
    if misere > _best_above(values, rules, obs.bid):
        return engine.LIGHT_MISERE
    return engine.KEEP_DARK


@njit(cache=True)
def _from_bid(bid):
    """Mask of the trick contracts (codes) not below ``bid`` (a bid with the talon)."""
    return ((np.int64(1) << N_CONTRACTS) - 1) & ~((np.int64(1) << bid) - 1) & ~(
        np.int64(1) << MISERE)


@njit(cache=True)
def discard_decision(obs, rules, params, tables):
    """The two cards to discard: the best for the strain whose best contract (not
    below the bid) is worth most after the discard; on misère, the safest ten."""
    hand = np.int64(obs.hand)
    leads = _leads(obs.seat, rules)
    if obs.bid == MISERE or obs.contract == MISERE:  # bid, or switched to (B:414)
        return ev.best_discard(tables, hand, ev.MISERE_STRAIN, leads)[0]
    probs = np.empty(N_TRICKS)
    best = -1e18
    best_mask = 0
    bias = tables[ev.COEF, ev.BLOCK * ev.POST + ev.K_DISCARD_BIAS]
    allowed = _from_bid(obs.bid)
    for strain in range(5):
        mask, mean = ev.best_discard(tables, hand, strain, leads)
        sd = ev.sigma(tables, ev.POST, strain)
        value = _best_in_strain(tables, params, allowed, strain, mean - bias, sd, probs)[1]
        if value > best:
            best, best_mask = value, mask
    return best_mask


@njit(cache=True)
def contract_decision(obs, rules, params, tables):
    """The contract worth most for the hand after the discard (raising when it pays);
    without the talon (``obs.no_talon``), for the dealt hand as it is."""
    hand = np.int64(obs.hand)
    leads = _leads(obs.seat, rules)
    # The fitted offset of the class of the hand he was dealt (the talon taken back out).
    dealt = (hand | np.int64(obs.discard)) & ~np.int64(obs.talon)
    shift = _offset(tables, adj.contract_cell(obs.seat, adj.trick_class(tables, dealt, leads)))
    probs = np.empty(N_TRICKS)
    best = -1e18
    best_code = lowest_card(obs.legal)
    for strain in range(5):
        if obs.no_talon:
            mean = ev.declarer_tricks(tables, hand, strain, leads, False) + shift
        else:
            mean = ev.discarded_tricks(tables, hand, strain, leads) + shift
        sd = ev.sigma(tables, ev.POST, strain)
        code, value = _best_in_strain(tables, params, obs.legal, strain, mean, sd, probs)
        if code >= 0 and value > best:
            best, best_code = value, code
    return best_code


@njit(cache=True)
def _defence_value(tables, code, pos, scenario, probs, share):
    """Expected value to a defender of ``scenario`` when the defence's tricks follow
    ``probs`` and he takes ``share`` of them."""
    base = V_DEF + ((code * 2 + pos) * N_SCENARIOS + scenario) * N_TRICKS * N_TRICKS
    total = 0.0
    for k in range(N_TRICKS):
        own = min(k, int(share * k + 0.5))
        total += probs[k] * _value(tables, base + k * N_TRICKS + own)
    return total


@njit(cache=True)
def _whist_offset(tables, code, seat, hand):
    """The fitted offset of a defender's class: the level, his seat, his aces and kings."""
    return _offset(tables, adj.whist_cell(LEVEL[code], seat, adj.high_class(hand)))


@njit(cache=True)
def _lone_whist_decision(obs, rules, params, tables, code, strain, hand):
    """Gusarik: the one defender whists with the dummy, passes or leaves the obligatory
    tricks (half), by expected value. The dummy is turned only after his call (B:384),
    so he estimates the defence's tricks from his own hand, as a whister does who does
    not know his partner's; the tricks are all his."""
    leads = _leads(obs.declarer, rules)
    team = (ev.defence_tricks(tables, hand, strain, LEVEL[code], leads)
            + params[WHIST_APPETITE] + _whist_offset(tables, code, obs.seat, hand))
    probs = np.empty(N_TRICKS)
    _trick_probs(team, ev.sigma(tables, ev.DEFENCE, strain), probs)
    values = np.full(3, -1e18)  # by call W_PASS, W_WHIST, W_HALF
    values[W_WHIST] = _defence_value(tables, code, 1, S_ALONE, probs, 1.0)
    values[W_PASS] = _defence_value(tables, code, 1, S_NONE, probs, 1.0)
    values[W_HALF] = _defence_value(tables, code, 1, S_HALF, probs, 1.0)
    best = lowest_card(obs.legal)
    for call in range(3):
        if (obs.legal >> call) & 1 and values[call] > values[best]:
            best = call
    return best


#: Expected defence tricks beyond the obligation from which a lone whister stands closed.
STAND_MARGIN = 2.0


@njit(cache=True)
def lay_decision(obs, rules, params, tables):
    """The lone whister's choice (B:215): lie open, unless his own hand makes the
    defence's obligation safe by :data:`STAND_MARGIN` tricks -- then he stands closed
    and keeps the passer's cards from the declarer, who would otherwise play double
    dummy against them."""
    code = obs.contract
    leads = _leads(obs.declarer, rules)
    team = ev.defence_tricks(tables, np.int64(obs.hand), _strain(code), LEVEL[code], leads)
    if team + params[WHIST_APPETITE] >= OBLIGATION[code] + STAND_MARGIN:
        return engine.LAY_CLOSED
    return engine.LAY_OPEN


@njit(cache=True)
def whist_decision(obs, rules, params, tables):
    """Whist, pass or half-whist: the legal call of highest expected value, from the
    defence's estimated tricks (with the whist appetite) and this hand's share of them.
    When the other defender has not spoken, he is taken to whist with probability
    ``partner_whist``."""
    code = obs.contract
    level = LEVEL[code]
    strain = _strain(code)
    pos = 0 if obs.seat == (obs.declarer + 1) % 3 else 1
    hand = np.int64(obs.hand)
    if rules[engine.R_DUMMY] >= 0:
        return _lone_whist_decision(obs, rules, params, tables, code, strain, hand)
    team = ev.defence_tricks(tables, hand, strain, level, _leads(obs.declarer, rules))
    team += params[WHIST_APPETITE] + _whist_offset(tables, code, obs.seat, hand)
    k_mean = ev.K_MEAN_NT if strain == NO_TRUMP else ev.K_MEAN_TRUMP
    average = tables[ev.COEF, ev.BLOCK * ev.DEFENCE + k_mean + level - 6]
    share = min(1.0, max(0.0, (team - average / 2) / max(team, 0.5)))
    probs = np.empty(N_TRICKS)
    _trick_probs(team, ev.sigma(tables, ev.DEFENCE, strain), probs)
    values = np.full(3, -1e18)  # by call W_PASS, W_WHIST, W_HALF
    if obs.n_whist == 0:  # first to speak
        p = params[PARTNER_WHIST]
        both = _defence_value(tables, code, pos, S_BOTH, probs, share)
        alone = _defence_value(tables, code, pos, S_ALONE, probs, share)
        passer = _defence_value(tables, code, pos, S_PASSER, probs, share)
        none = _defence_value(tables, code, pos, S_NONE, probs, share)
        values[W_WHIST] = p * both + (1 - p) * alone
        values[W_PASS] = p * passer + (1 - p) * none
    elif obs.n_whist == 1:  # second, the first has spoken
        if obs.whist_calls[0] == W_WHIST:
            values[W_WHIST] = _defence_value(tables, code, pos, S_BOTH, probs, share)
            values[W_PASS] = _defence_value(tables, code, pos, S_PASSER, probs, share)
        else:
            values[W_WHIST] = _defence_value(tables, code, pos, S_ALONE, probs, share)
            values[W_PASS] = _defence_value(tables, code, pos, S_NONE, probs, share)
            values[W_HALF] = _defence_value(tables, code, pos, S_HALF, probs, share)
    else:  # the first again, after the other's half-whist: return it or let it stand
        values[W_WHIST] = _defence_value(tables, code, pos, S_ALONE, probs, share)
        values[W_PASS] = _defence_value(tables, code, pos, S_OTHER_HALF, probs, share)
    best = lowest_card(obs.legal)
    for call in range(3):
        if (obs.legal >> call) & 1 and values[call] > values[best]:
            best = call
    return best
