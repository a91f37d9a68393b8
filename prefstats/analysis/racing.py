"""One hand's rollout raced to a decision: every option played on the same deals of the
unseen cards (:func:`prefstats.sim.rollout.hand_deals`), in rounds, until the best
option leads every other by ``STOP_SE`` standard errors of the paired difference or a
budget of deals is played. An option the best leads by ``STOP_SE`` is dropped from the
later rounds (racing): the close options get the deals, and a hopeless one (a forced
misère, one solver call a deal) stops costing time. ``prefstats rollout`` and the
explorer's live rollout both run :func:`race`, so the same seed gives the same figures.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

import numpy as np

from prefstats.game.exact import Z95

#: The best option must lead every other by this many standard errors of the paired
#: difference before the rollout stops early.
STOP_SE = 3.0
#: Deals before the stopping rule is looked at: noise can fake a lead on a few deals.
MIN_DEALS = 500
#: Most deals between two looks at the stopping rule. The first round plays just enough
#: blocks to reach MIN_DEALS and each later one doubles the deals played up to this, so
#: a clear decision stops soon and a close one is not looked at too often.
ROUND_DEALS = 2000


def _se(x: np.ndarray) -> float:
    """The standard error of the mean of ``x`` (infinite for fewer than two values)."""
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.inf


def summary(values: np.ndarray, options: list[str]) -> dict:
    """Per option the mean value, its 95% CI, the paired difference to the best option
    and its CI (normal approximations), and the probability that the ranking is right:
    the product over neighbours in the ranking of P(the higher one is better), taken as
    independent. ``values`` is ``(n, k)`` over the deals where every option played was
    legal; NaN marks an option no longer played (dropped, see :func:`rollout_command`):
    its figures are over the deals it was played on, and it ranks below the options
    played on every deal. ``settled`` says whether an option no longer needs deals: the
    best, one dropped, or one the best leads by ``STOP_SE`` standard errors over at
    least ``MIN_DEALS`` deals; ``decided`` whether every option is settled."""
    n, k = values.shape
    played = ~np.isnan(values)
    full = played.all(axis=0)
    mean = np.array([values[played[:, o], o].mean() if played[:, o].any() else -math.inf
                     for o in range(k)])
    order = sorted(range(k), key=lambda o: (not full[o], -mean[o]))
    best = order[0]
    rows = []
    for o in order:
        x = values[played[:, o], o]
        diff = x - values[played[:, o], best]
        se, d_se = _se(x), _se(diff)
        leads = d_se > 0 and -diff.mean() >= STOP_SE * d_se and len(x) >= MIN_DEALS
        rows.append({"option": options[o], "mean": float(mean[o]),
                     "ci": [float(mean[o] - Z95 * se), float(mean[o] + Z95 * se)],
                     "diff_to_best": float(diff.mean()),
                     "diff_ci": [float(diff.mean() - Z95 * d_se),
                                 float(diff.mean() + Z95 * d_se)],
                     "diff_se": d_se, "n": len(x), "dropped": not full[o],
                     "settled": bool(o == best or not full[o] or leads)})
    p_right = 1.0
    for hi, lo in itertools.pairwise(order):
        both = played[:, hi] & played[:, lo]
        gap = values[both, hi] - values[both, lo]
        gap_se = _se(gap)
        z = gap.mean() / gap_se if gap_se > 0 else math.inf
        p_right *= 0.5 * (1 + math.erf(z / math.sqrt(2)))
    return {"best": options[best], "rows": rows, "p_ranking_right": p_right,
            "decided": bool(all(r["settled"] for r in rows) and n >= MIN_DEALS and k > 1)}


def race(rules, hand: int, seat: int, decision: str, names: Sequence[str], *, deals: int,
         seed: int, policy: str = "heuristic", workers: int = 1,
         misere_catchers: str = "hidden", talon: int | None = None
         ) -> Iterator[tuple[int, dict | None, int]]:
    """Roll ``hand`` out round by round; after each round yield the deals played, the
    :func:`summary` so far (``None`` while fewer than two deals had every option legal)
    and those deals' count. Stops once decided or at ``deals``; closing the iterator
    between rounds stops it there."""
    from prefstats.sim.rollout import hand_deals, rollout

    names = list(names)
    block = len(hand_deals(hand, seat, 1, talon=talon))  # the talons: one deal each
    blocks = -(-deals // block)
    first = max(1, -(-MIN_DEALS // block))
    per_round = max(first, ROUND_DEALS // block)
    chunks, oks = [], []
    active = list(range(len(names)))  # the options still played
    done = 0
    while done < blocks:
        step = min(min(done, per_round) if done else first, blocks - done)
        dealt = hand_deals(hand, seat, step, seed=seed, start=done, talon=talon)
        dealt = dealt[: deals - done * block]  # the last block may be cut at the budget
        frame = rollout(rules, dealt, seat=seat, decision=decision,
                        options=[names[o] for o in active], seed=seed, policy=policy,
                        workers=workers, misere_catchers=misere_catchers)
        got = frame.select("legal", "value").to_numpy().reshape(-1, len(active), 2)
        values = np.full((len(got), len(names)), np.nan)
        values[:, active] = got[:, :, 1].astype(np.float64)
        chunks.append(values)
        oks.append(got[:, :, 0].astype(bool).all(axis=1))
        done += step
        ok = np.concatenate(oks)
        result = summary(np.concatenate(chunks)[ok], names) if ok.sum() >= 2 else None
        yield min(done * block, deals), result, int(ok.sum())
        if result is None:
            continue
        if result["decided"]:
            return
        # An option the best already leads by STOP_SE standard errors is not played on
        # later deals: the remaining options decide sooner.
        settled = {r["option"] for r in result["rows"][1:] if r["settled"]}
        active = [o for o in active if names[o] not in settled]
