"""Heuristic decisions before the play: bids, the discard, the contract, whist calls.

Compiled functions of an observation record (see :mod:`prefstats.engine`), the rules
array, the parameter array (:mod:`prefstats.players.params`) and the tables of
:func:`heuristic_tables`. Every decision compares expected **deal values** -- the
settlement of the deal's entries alone, in whists, to the deciding seat -- of its
options:

- the estimates of :mod:`prefstats.players.evaluate` give a normal distribution of the
  tricks (declarer's, or the defence's together), with the fit's residual spread;
- the value of each trick count is read from tables that :func:`heuristic_tables`
  scores once per variant with :func:`prefstats.scoring.score_batch` and
  :func:`~prefstats.scoring.deal_values`, so the variant's prices, whist rates, split
  and responsibility rules are the scoring's own.

Bidding: the highest contract worth more than passing (passing risks a raspasy while
nobody has bid, valued by the hand's likely raspasy tricks) caps the bids; the player
makes the lowest legal call up to it (the hold when senior), or misère as his first
call when its catch probability is low and it is worth more. The discard and the
contract maximise the same value after the talon (raising when it pays). A defender
whists, passes or half-whists by the value of each call, guessing the other
defender's call when it is not known yet.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from prefstats import engine
from prefstats.auction import PASS, W_HALF, W_PASS, W_WHIST
from prefstats.cards import lowest_card, popcount
from prefstats.contracts import LEVEL, MISERE, N_CONTRACTS, NO_TRUMP, TRUMP
from prefstats.players import evaluate as ev
from prefstats.players.params import (
    AGGRESSION,
    EXPECT_WHIST,
    MISERE_RISK,
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


def _value_table(variant) -> np.ndarray:
    """Every deal value the decisions read, scored by the variant's own scoring."""
    from prefstats.scoring import GAME, MISERE_GAME, RASPASY, deal_values, score_batch

    n = variant.players
    dealer = 3 if n == 4 else -1
    rows = []  # (kind, contract, tricks per seat, first, second, step, seat whose value)

    def add(kind, contract, tricks, first=-1, second=-1, step=0, seat=0):
        rows.append((kind, contract, [*tricks, 0][:n], first, second, step, seat))

    # Declarer 0, defenders 1 (first) and 2; misère's trick-game rows are never read
    # (filled with 6♠ to keep the layout simple).
    for code in range(N_CONTRACTS):
        for scenario in (D_WHISTED, D_CREDITED):
            roles = (W_WHIST, W_WHIST) if scenario == D_WHISTED else (W_PASS, W_PASS)
            for t in range(N_TRICKS):
                k = 10 - t
                add(GAME, code if code != MISERE else 0, (t, k - k // 2, k // 2), *roles)
    for code in range(N_CONTRACTS):
        for pos in range(2):
            for mine, other in _SCENARIO_ROLES:
                first, second = (mine, other) if pos == 0 else (other, mine)
                if first == W_HALF:  # only the second defender half-whists
                    first, second = second, first
                for k in range(N_TRICKS):
                    for own in range(N_TRICKS):
                        own = min(own, k)
                        split = (own, k - own) if pos == 0 else (k - own, own)
                        add(GAME, code if code != MISERE else 0, (10 - k, *split), first,
                            second, seat=1 + pos)
    for t in range(N_TRICKS):
        add(MISERE_GAME, MISERE, (t, 10 - t - (10 - t) // 2, (10 - t) // 2))
    for step in range(N_STEPS):
        for t in range(N_TRICKS):
            add(RASPASY, 0, (t, 10 - t - (10 - t) // 2, (10 - t) // 2), step=step)
    kind, contract, tricks, first, second, step, seat = (np.array(c) for c in zip(*rows,
                                                                                 strict=True))
    values = deal_values(variant, *score_batch(variant, kind, 0, contract, tricks, first,
                                               second, dealer, step))
    return values[np.arange(len(rows)), seat]


def with_values(eval_tables: np.ndarray, variant=None) -> np.ndarray:
    """``eval_tables`` (:mod:`~prefstats.players.evaluate`'s layout) followed by the deal
    values of ``variant`` (default Sochi) in rows of 256: the heuristic's tables."""
    if variant is None:
        from prefstats.variants import get_variant

        variant = get_variant("sochi")
    values = np.zeros(-(-V_SIZE // 256) * 256)
    values[:V_SIZE] = _value_table(variant)
    return np.vstack([eval_tables, values.reshape(-1, 256)])


@functools.cache
def heuristic_tables(variant=None) -> np.ndarray:
    """The heuristic's tables for ``variant`` (default Sochi), with the shipped
    evaluation tables; cached.

    >>> t = heuristic_tables()
    >>> t.shape[1], t.shape[0] > ev.N_EVAL_ROWS
    (256, True)
    """
    return with_values(ev.load_tables(), variant)


@njit(cache=True, inline="always")
def _value(tables, offset):
    return tables[ev.N_EVAL_ROWS + offset // 256, offset % 256]


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
def _best_in_strain(tables, params, lowest, strain, mean, sd, probs):
    """``(code, value)`` of the best contract in ``strain`` not below code ``lowest``."""
    _trick_probs(mean, sd, probs)
    best_code = -1
    best = -1e18
    for level in range(6, 11):
        code = _contract(level, strain)
        if code >= lowest:
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
def _raspasy_value(tables, params, hand, leads, step, probs):
    """Expected value of a raspasy to this hand: its raspasy tricks are guessed from its
    no-trump strength (the tricks its high cards cannot avoid)."""
    mean = ev.declarer_tricks(tables, hand, NO_TRUMP, leads, False)
    _trick_probs(mean, ev.sigma(tables, ev.POST, NO_TRUMP), probs)
    base = V_RASPASY + min(step, N_STEPS - 1) * N_TRICKS
    total = 0.0
    for t in range(N_TRICKS):
        total += probs[t] * _value(tables, base + t)
    return params[RASPASY_FEAR] * total


# ---- decisions --------------------------------------------------------------------------


@njit(cache=True)
def bid_decision(obs, rules, params, tables):
    """The call: the lowest legal bid up to the highest contract worth more than
    passing, misère when it is worth more still, else pass."""
    legal = obs.legal
    hand = np.int64(obs.hand)
    leads = 1.0 if obs.seat == 0 else 0.0
    calls = np.empty(obs.n_calls, dtype=np.int64)
    for i in range(obs.n_calls):
        calls[i] = obs.calls[i]
    high, _, passed = engine.replay_auction(calls, rules, obs.min_level)[1:4]
    probs = np.empty(N_TRICKS)
    pass_value = 0.0
    if high < 0:  # nobody has bid: passing may end in a raspasy
        others = 2 - popcount(passed)
        pass_value = params[OTHERS_PASS] ** others * _raspasy_value(
            tables, params, hand, leads, obs.raspasy_step, probs)
    top = -1  # the highest contract worth more than passing
    best = -1e18
    for strain in range(5):
        mean = ev.declarer_tricks(tables, hand, strain, leads, True) + params[AGGRESSION]
        if mean < 4.0:  # no contract in this strain can be worth anything
            continue
        _trick_probs(mean, ev.sigma(tables, ev.PRE, strain), probs)
        for level in range(6, min(10, int(mean) + 2) + 1):
            code = _contract(level, strain)
            value = _declarer_value(tables, code, probs, params[EXPECT_WHIST])
            best = max(best, value)
            if value > pass_value and code > top:
                top = code
    if (legal >> MISERE) & 1:
        tricks, catch = ev.misere_risk(tables, hand, leads, True)
        value = _misere_value(tables, tricks, catch)
        if catch <= params[MISERE_RISK] and value > max(best, pass_value):
            return MISERE
    for code in range(top + 1):
        if code != MISERE and (legal >> code) & 1:
            return code
    return PASS


@njit(cache=True)
def discard_decision(obs, rules, params, tables):
    """The two cards to discard: the best for the strain whose best contract (not
    below the bid) is worth most after the discard; on misère, the safest ten."""
    hand = np.int64(obs.hand)
    leads = 1.0 if obs.seat == 0 else 0.0
    if obs.bid == MISERE:
        return ev.best_discard(tables, hand, ev.MISERE_STRAIN, leads)[0]
    probs = np.empty(N_TRICKS)
    best = -1e18
    best_mask = 0
    bias = tables[ev.COEF, ev.BLOCK * ev.POST + ev.K_DISCARD_BIAS]
    for strain in range(5):
        mask, mean = ev.best_discard(tables, hand, strain, leads)
        sd = ev.sigma(tables, ev.POST, strain)
        value = _best_in_strain(tables, params, obs.bid, strain, mean - bias, sd, probs)[1]
        if value > best:
            best, best_mask = value, mask
    return best_mask


@njit(cache=True)
def contract_decision(obs, rules, params, tables):
    """The contract worth most for the hand after the discard (raising when it pays)."""
    hand = np.int64(obs.hand)
    leads = 1.0 if obs.seat == 0 else 0.0
    probs = np.empty(N_TRICKS)
    best = -1e18
    best_code = obs.bid
    for strain in range(5):
        mean = ev.discarded_tricks(tables, hand, strain, leads)
        sd = ev.sigma(tables, ev.POST, strain)
        code, value = _best_in_strain(tables, params, obs.bid, strain, mean, sd, probs)
        if code >= 0 and (obs.legal >> code) & 1 and value > best:
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
    team = ev.defence_tricks(tables, hand, strain, level, 1.0 if obs.declarer == 0 else 0.0)
    team += params[WHIST_APPETITE]
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
