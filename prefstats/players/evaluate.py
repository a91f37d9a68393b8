"""Hand evaluation of the heuristic player: expected tricks from suit holdings.

Every estimate is a sum of table entries, one per suit, indexed by the suit's 8-bit
holding (bit r = rank r, see :mod:`prefstats.game.cards`) and the suit's role, plus a few
shape and lead corrections. The tables are fitted by least squares to double-dummy
solver results on sampled deals (``prefstats fit evaluator`` rebuilds them) and ship
as ``prefstats/players/data/evaluator.npz``. The models:

- ``POST``: declarer's tricks with a 10-card hand after the discard, per strain;
- ``PRE``: the same before the talon -- expected final tricks of the 10 dealt cards
  after taking the talon and discarding for that strain (fitted directly on that);
- ``DEFENCE``: the two defenders' tricks together, from one defender's hand, the
  strain and the contract's level;
- ``MISERE_TRICKS`` and ``MISERE_CATCH``: a misère hand's expected tricks and the
  log-odds of its taking at least one, after the discard; ``MISERE_PRE_*`` the same
  for the dealt hand before the talon (fitted on the outcome after the best discard).

"Leads" means the declarer is the first hand, who leads to the first trick.

All estimates are compiled functions of one float64 array, ``tables`` (rows of 256
columns, layout below), so the players can call them inside numba.

>>> from prefstats.game.cards import parse_cards
>>> hand = parse_cards("♠AKQJ10 ♣A ♦A ♥A 8 7")
>>> 8.0 < estimate_tricks(hand, 0, leads=True) <= 10.5
True
>>> estimate_tricks(hand, 0, leads=True) > estimate_tricks(hand, 0, leads=False)
True
"""

from __future__ import annotations

import functools
import math
from importlib import resources

import numpy as np
from numba import njit

from prefstats.game.cards import lowest_card, popcount
from prefstats.game.contracts import NO_TRUMP

#: The models (see the module docstring).
POST, PRE, DEFENCE, MISERE_TRICKS, MISERE_CATCH, MISERE_PRE_TRICKS, MISERE_PRE_CATCH = range(7)
MODEL_NAMES = ("post", "pre", "defence", "misere_tricks", "misere_catch", "misere_pre_tricks",
               "misere_pre_catch")
#: Roles of a suit in the trick models: their table row is the model's first row + role.
SIDE, TRUMP, NT = range(3)
#: First table row of each model (the misère models have one role).
MODEL_ROW = (0, 3, 6, 9, 10, 11, 12)
#: Row of the scalar coefficients; each model owns ``BLOCK`` columns from ``BLOCK * model``.
COEF = 13
#: Rows stored in the shipped file (the players may append rows of their own).
N_EVAL_ROWS = 14
BLOCK = 32
# Coefficients of a block: lead corrections, ruffing shape (side voids and singletons
# times trump length), contract level (defence), residual standard deviations.
K_LEAD_TRUMP, K_LEAD_NT, K_VOIDS, K_SINGLES = 0, 1, 2, 3
K_LEVEL_TRUMP = 4  # + level - 6
K_LEVEL_NT = 9  # + level - 6
K_SIGMA_TRUMP, K_SIGMA_NT = 14, 15
K_MEAN_TRUMP, K_MEAN_NT = 16, 21  # + level - 6: the defence's mean tricks in the fit
# How much ``POST`` overestimates a hand whose discard was chosen to maximise it (the
# winner's curse of the search), measured in the fit.
K_DISCARD_BIAS = 26
#: Strain code of misère in the discard search (after the five trick strains).
MISERE_STRAIN = 5
#: Most features one estimate reads.
MAX_FEATURES = 8

DATA_FILE = "evaluator.npz"


@njit(cache=True)
def _term(tables, row, col, weight, record, n):
    """One feature: table entry (row, col) times ``weight``, recorded into ``record``
    (``rows``, ``cols``, ``vals``) unless it is None (numba then compiles the recording
    away)."""
    if record is not None:
        rows, cols, vals = record
        rows[n], cols[n], vals[n] = row, col, weight
    return tables[row, col] * weight


@njit(cache=True)
def terms(tables, model, hand, strain, leads, level, record):
    """``(estimate, number of features)`` of ``model`` for ``hand``: a weighted sum of
    entries of ``tables``, recorded into ``record`` (``rows``, ``cols``, ``vals``)
    unless it is None. ``strain`` is a suit or ``NO_TRUMP`` (ignored by the misère
    models), ``level`` the contract level (read by ``DEFENCE`` only). The fit builds its
    design matrix from this function, so fitted tables and estimates cannot disagree."""
    base = MODEL_ROW[model]
    block = BLOCK * model
    total = 0.0
    n = 0
    if model >= MISERE_TRICKS:
        for s in range(4):
            total += _term(tables, base, (hand >> (8 * s)) & 0xFF, 1.0, record, n)
            n += 1
        total += _term(tables, COEF, block + K_LEAD_TRUMP, leads, record, n)
        return total, n + 1
    if strain == NO_TRUMP:
        for s in range(4):
            total += _term(tables, base + NT, (hand >> (8 * s)) & 0xFF, 1.0, record,
                           n)
            n += 1
        total += _term(tables, COEF, block + K_LEAD_NT, leads, record, n)
        n += 1
        if model == DEFENCE:
            total += _term(tables, COEF, block + K_LEVEL_NT + level - 6, 1.0, record, n)
            n += 1
        return total, n
    trump_len = popcount((hand >> (8 * strain)) & 0xFF)
    voids = 0
    singles = 0
    for s in range(4):
        h = (hand >> (8 * s)) & 0xFF
        total += _term(tables, base + (TRUMP if s == strain else SIDE), h, 1.0, record, n)
        n += 1
        if s != strain:
            length = popcount(h)
            voids += length == 0
            singles += length == 1
    total += _term(tables, COEF, block + K_LEAD_TRUMP, leads, record, n)
    total += _term(tables, COEF, block + K_VOIDS, voids * trump_len, record, n + 1)
    total += _term(tables, COEF, block + K_SINGLES, singles * trump_len, record,
                   n + 2)
    n += 3
    if model == DEFENCE:
        total += _term(tables, COEF, block + K_LEVEL_TRUMP + level - 6, 1.0, record,
                       n)
        n += 1
    return total, n


@njit(cache=True)
def estimate(tables, model, hand, strain, leads, level):
    """The estimate of ``model`` for ``hand`` (see :func:`terms`)."""
    return terms(tables, model, hand, strain, leads, level, None)[0]


@njit(cache=True)
def sigma(tables, model, strain):
    """Residual standard deviation of ``model``'s estimates in the fit (a suit or NT)."""
    k = K_SIGMA_NT if strain == NO_TRUMP else K_SIGMA_TRUMP
    return tables[COEF, BLOCK * model + k]


@njit(cache=True)
def declarer_tricks(tables, hand, strain, leads, before_talon):
    """Expected tricks of declarer ``hand`` (10 cards) in ``strain``: after the discard,
    or, ``before_talon``, the expected final tricks of the dealt hand."""
    return estimate(tables, PRE if before_talon else POST, hand, strain, leads, 6)


@njit(cache=True)
def discarded_tricks(tables, hand, strain, leads):
    """:func:`declarer_tricks` after the discard, less the fit's measured overestimate
    of hands whose discard the search chose (for decisions that follow that search)."""
    return (declarer_tricks(tables, hand, strain, leads, False)
            - tables[COEF, BLOCK * POST + K_DISCARD_BIAS])


@njit(cache=True)
def defence_tricks(tables, hand, strain, level, declarer_leads):
    """Expected tricks of both defenders together against a contract of ``level`` in
    ``strain``, from one defender's ``hand``."""
    return estimate(tables, DEFENCE, hand, strain, declarer_leads, level)


def _safe_holdings() -> np.ndarray:
    safe = np.ones(256, dtype=bool)
    for h in range(256):
        ranks = [r for r in range(8) if h >> r & 1]
        safe[h] = all(r <= 2 * i for i, r in enumerate(ranks))
    return safe


#: SAFE[h]: a misère holding (8-bit, rank bits 7..A) the declarer can always play under:
#: its i-th lowest card is at most rank 2i, as the defenders spend two cards a round.
SAFE = _safe_holdings()


@njit(cache=True)
def every_suit_safe(hand):
    """Whether each suit of ``hand`` is :data:`SAFE` (a void is)."""
    safe = True
    for suit in range(4):
        safe &= SAFE[(np.int64(hand) >> (8 * suit)) & 0xFF]
    return safe


@njit(cache=True)
def misere_risk(tables, hand, leads, before_talon=False):
    """``(expected tricks, probability of taking one or more)`` of a misère ``hand``
    after the discard, or, ``before_talon``, of the dealt hand once the talon is taken
    and the best two discarded."""
    if every_suit_safe(hand):
        # He plays under every lead (the talon's two cards he may discard again), so no
        # defence catches it; only his own first lead can spoil a suit, in 0.14 % of
        # random layouts (tests/test_evaluate.py). The per-suit models miss this: they
        # price a safe suit with high cards by the hands where another suit lets him in.
        return 0.0, 0.0
    model = MISERE_PRE_TRICKS if before_talon else MISERE_TRICKS
    tricks = max(0.0, estimate(tables, model, hand, 0, leads, 6))
    catch = 1.0 / (1.0 + math.exp(-estimate(tables, model + 1, hand, 0, leads, 6)))
    return tricks, catch


@njit(cache=True)
def discard_value(tables, hand, strain, leads):
    """What the discard search maximises for a 10-card ``hand``: the expected tricks in
    a trick strain, minus the catch probability and expected tricks on misère."""
    if strain == MISERE_STRAIN:
        tricks, catch = misere_risk(tables, hand, leads)
        return -(catch + 0.1 * tricks)
    return declarer_tricks(tables, hand, strain, leads, False)


@njit(cache=True, inline="always")
def _end_card(holding, suit, highest):
    """Index of the lowest (or highest) card of ``suit`` in 8-bit ``holding``, -1 if void."""
    if holding == 0:
        return -1
    if not highest:
        return 8 * suit + lowest_card(holding)
    r = 0
    while holding >> (r + 1):
        r += 1
    return 8 * suit + r


@njit(cache=True)
def best_discard(tables, hand, strain, leads):
    """``(discard mask, value)``: the two cards of the 12-card ``hand`` whose discard
    leaves the best :func:`discard_value` for ``strain`` (0..4, or ``MISERE_STRAIN``).

    Only the lowest cards of their suits are tried (the highest on misère): a higher
    card of a suit serves a declarer at least as well as a lower one, so this leaves
    ten discards to try instead of 66."""
    highest = strain == MISERE_STRAIN
    best = -1e9
    best_mask = 0
    for s in range(4):
        h = (hand >> (8 * s)) & 0xFF
        a = _end_card(h, s, highest)  # the card of suit s to go first
        if a < 0:
            continue
        for t in range(s, 4):
            if t == s:  # both from suit s
                b = _end_card(h & ~(1 << (a - 8 * s)), s, highest)
            else:
                b = _end_card((hand >> (8 * t)) & 0xFF, t, highest)
            if b < 0:
                continue
            mask = (1 << a) | (1 << b)
            value = discard_value(tables, hand & ~mask, strain, leads)
            if value > best:
                best = value
                best_mask = mask
    return best_mask, best


@functools.cache
def _shipped() -> np.ndarray:
    with resources.files("prefstats.players.data").joinpath(DATA_FILE).open("rb") as f:
        tables = np.load(f)["tables"]
    tables.flags.writeable = False
    return tables


def load_tables() -> np.ndarray:
    """The shipped evaluation tables (read-only, loaded once)."""
    return _shipped()


def estimate_tricks(hand: int, strain: int, *, leads: bool, before_talon: bool = False,
                    tables: np.ndarray | None = None) -> float:
    """Expected declarer tricks of a 10-card ``hand`` in ``strain`` (suit 0..3 or
    ``NO_TRUMP``); see :func:`declarer_tricks`."""
    t = load_tables() if tables is None else tables
    return float(declarer_tricks(t, np.int64(hand), strain, float(leads), before_talon))


def estimate_misere(hand: int, *, leads: bool, before_talon: bool = False,
                    tables: np.ndarray | None = None) -> tuple[float, float]:
    """``(expected tricks, catch probability)`` of misère ``hand``.

    >>> from prefstats.game.cards import parse_cards
    >>> tricks, catch = estimate_misere(parse_cards("♠7 9 J ♣7 9 J ♦7 9 ♥7 8"), leads=False)
    >>> catch < 0.2
    True
    """
    t = load_tables() if tables is None else tables
    tricks, catch = misere_risk(t, np.int64(hand), float(leads), before_talon)
    return float(tricks), float(catch)


def estimate_defence(hand: int, strain: int, level: int, *, declarer_leads: bool,
                     tables: np.ndarray | None = None) -> float:
    """Expected tricks of both defenders against ``level`` in ``strain``, from ``hand``."""
    t = load_tables() if tables is None else tables
    return float(defence_tricks(t, np.int64(hand), strain, level, float(declarer_leads)))
