"""Fit the heuristic player's evaluation tables to double-dummy solver results.

Samples seeded deals, solves them (:func:`prefstats.solver.solve_batch`, all cores) and
fits every model of :mod:`prefstats.players.evaluate` by ridge-regularised least squares:

1. ``post``: a declarer's 10 cards (the talon stands for his discard), strain = his
   longest suit mostly, else a random suit or no-trumps; target: the solver's tricks.
2. ``pre``: the declarer takes the talon, discards by the fitted ``post`` tables for the
   strain and plays; target: those tricks, features: the 10 dealt cards. The same
   solves measure how much ``post`` overestimates the hand its discard search chose.
3. ``misere_*``: the safest-looking hand of deals filtered for plausible misères;
   the catch probability is a logistic regression (a bare high card decides it alone).
   Before the talon: the dealt hand takes the talon and discards by those tables.
4. ``defence``: the heuristic player bids, discards and names contracts with the
   tables fitted so far (Sochi); each defender's hand and the contract's level against
   the defence's tricks (the first hand leading, as in play).

Each table entry is shrunk (ridge) towards a per-role prior of suit length, honours and
crude misère danger, so rare holdings get sensible values. ``prefstats fit evaluator``
runs it; the defaults (24,000 post, 30,000 pre, 2 x 5,000 misère and 20,000 defence
deals, seed 2026) take about five minutes on two cores.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numba import njit

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.contracts import LEVEL, NO_TRUMP, TRUMP
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players import evaluate as ev
from prefstats.players.bidding import with_values
from prefstats.players.builtin import HEURISTIC, decide
from prefstats.players.params import heuristic_params
from prefstats.solver import solve_batch

#: The parts of the tables, each fitted on its own deals.
PARTS = ("post", "pre", "defence", "misere")
#: Deals of each part at scale 1: post, pre, misère (twice), defence.
DEALS = (24_000, 30_000, 5_000, 20_000)
Log = Callable[[str], None]
#: Where the shipped tables live (the package's data, in a source tree).
SHIPPED = Path(__file__).resolve().parent / "data" / ev.DATA_FILE
_LEN = np.array([int(h).bit_count() for h in range(256)])
_HONOURS = np.array([[(h >> r) & 1 for r in (7, 6, 5, 4)] for h in range(256)])  # A K Q J
_POINTS = np.array([sum((4, 3, 2, 1)[i] * ((h >> r) & 1) for i, r in enumerate((7, 6, 5, 4)))
                    for h in range(256)])


def _unsafe_suit(h: int) -> bool:
    """Crude misère danger: the i-th lowest card held is above rank 2i (7, 9, J, K safe)."""
    ranks = [r for r in range(8) if h >> r & 1]
    return any(r > 2 * i for i, r in enumerate(ranks))


_UNSAFE = np.array([_unsafe_suit(h) for h in range(256)], dtype=np.int64)


def holdings(hands: np.ndarray) -> np.ndarray:
    """(..., 4) suit holdings of card masks."""
    return (hands[..., None].astype(np.int64) >> (8 * np.arange(4))) & 0xFF


@njit(cache=True)
def _design(tables, model, hands, strains, leads, levels, record, pred):
    """Each hand's estimate into ``pred``, its features into the rows of ``record``
    (``rows``, ``cols``, ``vals``)."""
    rows, cols, vals = record
    for i in range(len(hands)):
        pred[i], n = ev.terms(tables, model, hands[i], strains[i], leads[i], levels[i],
                              (rows[i], cols[i], vals[i]))
        vals[i, n:] = 0.0
        rows[i, n:] = 0
        cols[i, n:] = 0


@njit(cache=True)
def _discards(tables, hands12, strains, leads, out):
    for i in range(len(hands12)):
        out[i] = ev.best_discard(tables, hands12[i], strains[i], leads[i])[0]


@njit(cache=True)
def _post_estimates(tables, hands, leads, out):
    for i in range(len(hands)):
        for s in range(5):
            out[i, s] = ev.declarer_tricks(tables, hands[i], s, leads[i], False)


def fit(tables: np.ndarray, model: int, hands, strains, leads, levels, y, ridge: float,
        log: Log, logistic: bool = False) -> None:
    """Fit ``model``'s entries of ``tables`` (in place) to targets ``y``: least squares,
    or a logistic regression of 0/1 targets (iteratively reweighted least squares)."""
    n = len(y)
    rows = np.zeros((n, ev.MAX_FEATURES), dtype=np.int64)
    cols = np.zeros_like(rows)
    vals = np.zeros((n, ev.MAX_FEATURES))
    _design(tables, model, hands.astype(np.int64), strains.astype(np.int64),
            leads.astype(np.float64), levels.astype(np.int64), (rows, cols, vals), np.zeros(n))
    flat = rows * 256 + cols
    used, inverse = np.unique(flat[vals != 0], return_inverse=True)
    is_table = used // 256 != ev.COEF
    # Prior columns: per table row, suit length (one-hot), the four honours and the
    # crude misère danger.
    table_rows = np.unique(used[is_table] // 256)
    n_prior = 9 + 4 + 1
    prior_base = len(used) + n_prior * np.searchsorted(table_rows, flat // 256)
    r_i, c_i, v_i = [], [], []
    nz = np.nonzero(vals)
    r_i.append(nz[0])
    c_i.append(inverse)
    v_i.append(vals[nz])
    tab = (flat[nz] // 256) != ev.COEF
    obs, h = nz[0][tab], cols[nz][tab]
    base = prior_base[nz][tab]
    r_i.append(obs)
    c_i.append(base + _LEN[h])
    v_i.append(vals[nz][tab])
    for k, column in enumerate((*_HONOURS.T, _UNSAFE)):
        keep = column[h] == 1
        r_i.append(obs[keep])
        c_i.append(base[keep] + 9 + k)
        v_i.append(vals[nz][tab][keep])
    n_cols = len(used) + n_prior * len(table_rows)
    x = sp.csr_matrix((np.concatenate(v_i), (np.concatenate(r_i), np.concatenate(c_i))),
                      shape=(n, n_cols))
    penalty = np.full(n_cols, 1e-6)
    penalty[: len(used)][is_table] = ridge
    beta = np.zeros(n_cols)
    for _ in range(25 if logistic else 1):
        w, z = np.ones(n), y
        if logistic:
            eta = x @ beta
            p = 1 / (1 + np.exp(-eta))
            w = np.maximum(p * (1 - p), 1e-4)
            z = eta + (y - p) / w
        xw = x.multiply(w[:, None]).tocsr()
        beta = np.linalg.solve((xw.T @ x).toarray() + np.diag(penalty), xw.T @ z)
    for j, key in enumerate(used):
        if not is_table[j]:
            tables[key // 256, key % 256] = beta[j]
    for t, row in enumerate(table_rows):
        b = beta[len(used) + n_prior * t:len(used) + n_prior * (t + 1)]
        tables[row] = b[_LEN] + _HONOURS @ b[9:13] + _UNSAFE * b[13]
    for j, key in enumerate(used):
        if is_table[j]:
            tables[key // 256, key % 256] += beta[j]
    pred = np.zeros(n)
    _design(tables, model, hands.astype(np.int64), strains.astype(np.int64),
            leads.astype(np.float64), levels.astype(np.int64), (rows, cols, vals), pred)
    if not np.allclose(pred, x @ beta):
        raise RuntimeError("the compiled estimate disagrees with the fit")
    resid = y - (1 / (1 + np.exp(-pred)) if logistic else pred)
    nt = strains == NO_TRUMP
    block = ev.BLOCK * model
    for k, sel in ((ev.K_SIGMA_TRUMP, ~nt), (ev.K_SIGMA_NT, nt)):
        if sel.any():
            tables[ev.COEF, block + k] = float(np.sqrt(np.mean(resid[sel] ** 2)))
    log(f"  {ev.MODEL_NAMES[model]:14s} n={n:6d}  MAE {np.abs(resid).mean():.3f}  "
          f"(constant predictor {np.abs(y - y.mean()).mean():.3f})  "
          f"sd {resid.std():.3f}")


def _timed_solve(label: str, log: Log, *args, **kw) -> np.ndarray:
    t0 = time.perf_counter()
    out = solve_batch(*args, **kw).astype(np.float64)
    log(f"  solved {len(out)} {label} deals in {time.perf_counter() - t0:.1f} s")
    return out


def fit_post(tables, n: int, seed: int, ridge: float, log: Log) -> None:
    d = deal(n, seed=seed)
    rng = np.random.default_rng(seed)
    hold = holdings(d.hands)  # (n, 3, 4)
    lengths = _LEN[hold]
    strength = _POINTS[hold].sum(-1) + 2 * lengths.max(-1)
    declarer = np.where(rng.random(n) < 0.7, strength.argmax(1), rng.integers(0, 3, n))
    own = hold[np.arange(n), declarer]
    longest = (16 * _LEN[own] + _POINTS[own]).argmax(1)
    u = rng.random(n)
    strain = np.where(u < 0.6, longest, np.where(u < 0.8, rng.integers(0, 4, n), NO_TRUMP))
    leads = declarer == 0
    y = _timed_solve("post", log, d.hands, np.where(strain == NO_TRUMP, -1, strain), 0, declarer)
    fit(tables, ev.POST, d.hands[np.arange(n), declarer], strain, leads, np.full(n, 6), y,
        ridge, log)


def fit_pre(tables, n: int, seed: int, ridge: float, log: Log) -> None:
    d = deal(n, seed=seed)
    rng = np.random.default_rng(seed)
    hands = d.hands.astype(np.int64)
    est = np.zeros((n * 3, 5))
    _post_estimates(tables, hands.reshape(-1), np.tile([1.0, 0.0, 0.0], n), est)
    est = est.reshape(n, 3, 5)
    declarer = np.where(rng.random(n) < 0.75, est.max(-1).argmax(1), rng.integers(0, 3, n))
    idx = np.arange(n)
    strain = np.where(rng.random(n) < 0.7, est[idx, declarer].argmax(-1), rng.integers(0, 5, n))
    leads = (declarer == 0).astype(np.float64)
    dealt = hands[idx, declarer]
    full = dealt | d.talon.astype(np.int64)
    discard = np.zeros(n, dtype=np.int64)
    _discards(tables, full, strain, leads, discard)
    played = hands.copy()
    played[idx, declarer] = full & ~discard
    y = _timed_solve("pre", log, played, np.where(strain == NO_TRUMP, -1, strain), 0, declarer)
    fit(tables, ev.PRE, dealt, strain, leads, np.full(n, 6), y, ridge, log)
    after = np.zeros((n, 5))
    _post_estimates(tables, played[idx, declarer], leads, after)
    bias = (after[idx, strain] - y).mean()
    tables[ev.COEF, ev.BLOCK * ev.POST + ev.K_DISCARD_BIAS] = bias
    log(f"  post after the chosen discard overestimates by {bias:.3f} tricks")


@njit(cache=True)
def _contracts(hands, talon, first, rules, params, tables, states, obs_buf):
    """Run the heuristic's auction, discard and contract on each deal."""
    obs = obs_buf[0]
    for i in range(len(hands)):
        st = states[i]
        engine.reset(st, hands[i], talon[i], first[i], 6, 0)
        while st.phase <= engine.CONTRACT:
            engine.observe(st, rules, obs)
            engine.apply(st, rules, decide(HEURISTIC, obs, rules, params, tables, np.uint64(0)))


def fit_defence(tables, n: int, seed: int, ridge: float, log: Log) -> None:
    """Defence against the contracts the heuristic itself bids and names (Sochi values)."""
    d = deal(n, seed=seed)
    states = np.zeros(n, dtype=engine.STATE)
    _contracts(d.hands, d.talon, d.talon_first.astype(np.int64),
               engine.rules_array(get_variant("sochi")), heuristic_params(),
               with_values(tables), states, np.zeros(1, dtype=engine.OBSERVATION))
    g = states[states["kind"] == engine.GAME]
    m = len(g)
    idx = np.arange(m)
    declarer = g["declarer"].astype(np.int64)
    hands = g["dealt"].astype(np.int64)
    played = hands.copy()
    played[idx, declarer] = (hands[idx, declarer] | g["talon"]) & ~g["discard"].astype(np.int64)
    trump = TRUMP[g["contract"]].astype(np.int64)
    strain = np.where(trump < 0, NO_TRUMP, trump)
    level = LEVEL[g["contract"]].astype(np.int64)
    leads = (declarer == 0).astype(np.float64)
    y = _timed_solve("defence", log, played, trump, 0, declarer)
    defenders = np.concatenate([(declarer + 1) % 3, (declarer + 2) % 3])
    both = np.concatenate([idx, idx])
    fit(tables, ev.DEFENCE, hands[both, defenders], np.tile(strain, 2), np.tile(leads, 2),
        np.tile(level, 2), np.tile(10 - y, 2), ridge, log)
    block = ev.BLOCK * ev.DEFENCE
    for lv in range(6, 11):  # the team's mean tricks, to tell one defender's share
        for k, sel in ((ev.K_MEAN_TRUMP, strain != NO_TRUMP),
                       (ev.K_MEAN_NT, strain == NO_TRUMP)):
            at = sel & (level == lv)
            tables[ev.COEF, block + k + lv - 6] = (10 - y[at]).mean() if at.any() else 10 - lv


def fit_misere(tables, n: int, seed: int, ridge: float, log: Log) -> None:
    """After the discard, then before the talon (the dealt hand, its best discard)."""
    pool = deal(40 * n, seed=seed)
    danger = _UNSAFE[holdings(pool.hands)].sum(-1)  # (40n, 3)
    best = danger.min(1)
    # One crudely unsafe suit is where misère decisions are made; hands without any
    # anchor the safe holdings (they are always clean).
    n_safe = n // 10
    keep = np.concatenate([np.flatnonzero(best == 1)[: n - n_safe],
                           np.flatnonzero(best == 0)[:n_safe]])
    _fit_misere(tables, ev.MISERE_TRICKS, pool.hands[keep], danger[keep].argmin(1), y_of=None,
                ridge=ridge, log=log)
    # Before the talon: one or two unsafe suits, the talon may mend them; a few worse
    # hands keep the estimate sane where misère is hopeless.
    keep = np.concatenate([np.flatnonzero(best == 1)[n: 2 * n - n // 2],
                           np.flatnonzero(best == 2)[: n // 2 - n_safe],
                           np.flatnonzero(best == 3)[:n_safe]])
    seat = danger[keep].argmin(1)
    hands = pool.hands[keep].astype(np.int64)
    rows = np.arange(len(keep))
    full = hands[rows, seat] | pool.talon[keep].astype(np.int64)
    discard = np.zeros(len(keep), dtype=np.int64)
    _discards(tables, full, np.full(len(keep), ev.MISERE_STRAIN), (seat == 0) * 1.0, discard)
    played = hands.copy()
    played[rows, seat] = full & ~discard
    _fit_misere(tables, ev.MISERE_PRE_TRICKS, hands, seat, y_of=played, ridge=ridge, log=log)


def _fit_misere(tables, model, hands, seat, y_of, ridge, log: Log) -> None:
    """Fit ``model`` and its catch model (the next) on ``hands``' declarer ``seat``; the
    solver plays ``y_of`` (default: the hands themselves)."""
    y = _timed_solve(ev.MODEL_NAMES[model], log, hands if y_of is None else y_of, -1, 0, seat,
                     misere=True)
    own = hands[np.arange(len(hands)), seat]
    leads = seat == 0
    zeros = np.zeros(len(hands), dtype=np.int64)
    fit(tables, model, own, zeros, leads, zeros + 6, y, ridge, log)
    fit(tables, model + 1, own, zeros, leads, zeros + 6, (y > 0).astype(float), ridge / 10,
        log, logistic=True)


def fit_evaluator(out: Path = SHIPPED, *, seed: int = 2026, scale: float = 1.0,
                  ridge: float = 20.0, parts: Sequence[str] = PARTS,
                  log: Log = print) -> Path:
    """Fit ``parts`` of the evaluation tables on ``scale`` times the default deals and
    write them to ``out`` (the rest kept from the shipped tables); return ``out``."""
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise OptionError(f"parts: unknown {', '.join(unknown)} (one of {', '.join(PARTS)})")
    if not 0 < scale <= 100:
        raise OptionError(f"scale must be above 0 and at most 100, got {scale}")
    n_post, n_pre, n_mis, n_def = (max(int(k * scale), 1) for k in DEALS)
    log(f"fitting on {n_post} post-talon, {n_pre} pre-talon, 2 x {n_mis} misère and {n_def} "
        f"defence deals, seed {seed}")
    t0 = time.perf_counter()
    full = set(parts) == set(PARTS)
    tables = np.zeros((ev.N_EVAL_ROWS, 256)) if full else ev.load_tables().copy()
    if "post" in parts:
        fit_post(tables, n_post, seed, ridge, log)
    if "pre" in parts:
        fit_pre(tables, n_pre, seed + 1, ridge, log)
    if "misere" in parts:
        fit_misere(tables, n_mis, seed + 2, ridge, log)
    if "defence" in parts:  # last: the heuristic's bidding reads the other models
        fit_defence(tables, n_def, seed + 3, ridge, log)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, tables=tables, seed=seed,
                        deals=np.array([n_post, n_pre, n_mis, n_def]))
    log(f"wrote {out} in {time.perf_counter() - t0:.0f} s")
    return out
