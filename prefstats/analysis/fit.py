"""Best-response bidding: how much a deviation from the players' calls would earn, class
by class, and the fit that moves their calls until none pays.

**The gauge.** For each decision class the built-in players use, every option of the
decision is forced on the same deals (:func:`prefstats.sim.rollout.rollout`, everything else
by the players) and compared, deal by deal, with the players' own unforced play: the
mean paired difference is what the deviation "in this class, always do that" earns a
deal of the class, in whists, with its 95% CI and n. The classes:

- ``first_call``: the seat's first call (options ``pass``, ``bid``) by context (nobody
  has bid yet, or somebody has), seat and the evaluator's expected tricks
  (:func:`~prefstats.players.adjust.trick_class`); where the variant has them, the calls
  made before looking at the hand (``dark``, ``blind_pass``) by context and seat alone
  (class "hand unseen", every hand pooled: no offset moves them);
- ``max_bid``: how high to compete (options levels 6..10) by seat and expected tricks,
  on the deals where the seat's own first call was a trick bid;
- ``contract``: the contract after the talon (levels 6..10) by seat and expected tricks
  (moved, as competing is, by whether the gain comes from naming more or less);
- ``whist``: the first whist call (``pass``, ``whist``, ``half``) by level, seat and the
  defender's aces and kings;
- ``misere``: by misère holes: ``misere`` (always call it first), ``pass instead`` and
  ``bid instead`` (the players' misère calls replaced).

A class's best deviation is its option of highest mean gain among those with at least
:data:`MIN_N` deals; it is significant in its class when its 95% CI lies above zero,
and significant family-wise when it stays so tested with every class at once
(:func:`familywise`, Holm). The headline (:func:`summary`): the largest gain of each
kind, and the mean gain per decision over the classes (n-weighted; a class counts its
best gain when significant in its class, else 0; the mean of the best gains however
small is given beside it: an upper bound, biased up by taking the best of noisy
options). The target: no class significant family-wise above :data:`TARGET_MAX` and the
mean below :data:`TARGET_MEAN`.

**The fit** (:func:`fit`): fictitious play on a fixed budget of fresh deals a round:
gauge the players as they are, move the offset of each class significant in its class
(:mod:`prefstats.players.adjust`) a step toward its best option, play the next round
with the moved players as the field, until a round's gauge meets the target. The
candidate offsets are passed down to the rollouts (never set in the process), so the
rollouts of a round may share its deals among worker threads.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
from numba import njit

from prefstats.errors import OptionError
from prefstats.game import engine
from prefstats.game.auction import NO_TALON_BID, dummy_seat
from prefstats.game.contracts import LEVEL, MISERE, N_CONTRACTS
from prefstats.game.deal import deal
from prefstats.game.exact import Z95
from prefstats.game.scoring import deal_values, score_states
from prefstats.players import adjust
from prefstats.players.builtin import player_key
from prefstats.sim.rollout import rollout, rollout_states

#: The decision classes gauged, in the report's order.
CLASS_DECISIONS = ("first_call", "max_bid", "contract", "whist", "misere")
#: Fewest deals an option needs in a class to count.
MIN_N = 30
#: The target: no gain significant family-wise above this (whists a deal) ...
TARGET_MAX = 0.5
#: ... and the mean gain below this.
TARGET_MEAN = 0.1
LEVEL_OPTIONS = ["6", "7", "8", "9", "10"]


def seats_of(variant) -> list[int]:
    """The seats that bid (every seat but Gusarik's dummy)."""
    return [s for s in range(3) if s != dummy_seat(variant)]


@njit(cache=True)
def _own_calls(calls, n_calls, rules, min_level, seat, out):
    """Per deal: ``seat``'s first call, whether somebody bid before it (1) or not (0),
    and the highest level of its trick bids (0: none)."""
    for i in range(calls.shape[0]):
        out[i, 0], out[i, 1], out[i, 2] = -1, 0, 0
        bid_before = 0
        history = np.empty(n_calls[i], dtype=np.int64)
        for j in range(n_calls[i]):
            history[j] = calls[i, j]
        for j in range(n_calls[i]):
            call = history[j]
            speaker = engine.replay_auction(history[:j], rules, min_level[i])[0]
            trick = call < N_CONTRACTS or call >= NO_TALON_BID
            if speaker == seat:
                if out[i, 0] < 0:
                    out[i, 0], out[i, 1] = call, bid_before
                code = call % NO_TALON_BID
                if trick and code != MISERE:
                    out[i, 2] = max(out[i, 2], LEVEL[code])
            if trick:
                bid_before = 1


def _unforced(variant, deals, seed, offsets):
    """The players' own play of ``deals``: its states and each seat's deal value."""
    states = rollout_states(variant, deals, seat=seats_of(variant)[0], decision=None,
                            options=[], key=int(player_key(seed)), offsets=offsets)[0][:, 0]
    return states, deal_values(variant, *score_states(variant, states))


def _wide(frame: pl.DataFrame, options: list[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """``value`` ``(n, k)`` (nan where not legal) and ``contract`` ``(n,)`` of a rollout."""
    value = frame["value"].fill_null(np.nan).to_numpy().reshape(n, len(options))
    contract = (frame["contract"].fill_null(-1).to_numpy().reshape(n, len(options))
                .max(axis=1))
    return value, contract


def _rows(decision, seat, labels, cells, options, diff, pull=None) -> pl.DataFrame:
    """Long rows (one per deal and option) of one seat's paired differences, with
    ``pull`` (max_bid and contract, see :func:`_pull`; nan elsewhere)."""
    n, k = diff.shape
    return pl.DataFrame({
        "decision": [decision] * (n * k), "seat": np.full(n * k, seat),
        "cls": np.repeat(labels, k), "cell": np.repeat(cells, k),
        "pull": np.full(n * k, np.nan) if pull is None else pull.reshape(-1),
        "option": np.tile(np.asarray(options, dtype=object), n), "gain": diff.reshape(-1),
    }, schema_overrides={"cls": pl.Utf8, "option": pl.Utf8})


def _pull(levels: list[str], reached: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """``(n, k)``: each deal's gain from capping the competing at a level, signed by the
    way the cap moved the seat's play: + where it took the seat above the level it
    reached by itself (it had stopped there), - where it stopped the seat below it.
    Summed over a class, the sign says whether the gain comes from competing higher or
    lower; the players' mean level alone can't say it, since the level they reached is
    only a floor of their limit on the deals where the others stopped first."""
    return diff * np.sign(np.asarray(levels, dtype=np.int64)[None, :] - reached[:, None])


def _seat_rows(variant, deals, seed, seat, states, values, workers,
               offsets) -> list[pl.DataFrame]:
    """Every class's paired differences of one seat."""
    n = len(deals)
    own = np.empty((n, 3), dtype=np.int64)
    _own_calls(np.ascontiguousarray(states["calls"]).astype(np.int64),
               states["n_calls"].astype(np.int64), engine.rules_array(variant),
               states["min_level"].astype(np.int64), seat, own)
    first, context, top = own[:, 0], own[:, 1], own[:, 2]
    cls = adjust.hand_classes(deals.hands[:, seat], seat)
    tricks, high, holes = cls["tricks"], cls["high"], cls["holes"]
    base = values[:, seat]

    def forced(decision, options):
        frame = rollout(variant, deals, seat=seat, decision=decision, options=options,
                        seed=seed, workers=workers, offsets=offsets)
        value, contract = _wide(frame, options, n)
        return value - base[:, None], contract

    out = []
    ctx_name = np.array(["open", "after a bid"])
    call_cells = adjust.CALL + (context * 3 + seat) * adjust.N_TRICK_CLASSES + tricks
    call_labels = np.char.add(np.char.add(ctx_name[context], f" · seat {seat} · "),
                              np.char.add(tricks.astype(str), " tricks"))
    named = ["pass", "bid"]
    unseen = [o for o, on in (("dark", variant.dark_bids),
                              ("blind_pass", variant.blind_pass)) if on]
    diff, _ = forced("first_call", [*named, *unseen, "misere"])
    out.append(_rows("first_call", seat, call_labels, call_cells, named, diff[:, :2]))
    if unseen:
        # A dark or blind call is made before looking at the hand, so the only deviation
        # a player can make is "always, in this context": its class pools every hand.
        out.append(_rows("first_call", seat,
                         np.char.add(ctx_name[context], f" · seat {seat} · hand unseen"),
                         np.full(n, -1), unseen, diff[:, 2:2 + len(unseen)]))
    is_misere = (first % NO_TALON_BID) == MISERE
    mis = np.column_stack([diff[:, -1], np.where(is_misere, diff[:, 0], np.nan),
                           np.where(is_misere, diff[:, 1], np.nan)])
    out.append(_rows("misere", seat, np.char.add(holes.astype(str), " holes"),
                     adjust.MISERE + holes, ["misere", "pass instead", "bid instead"], mis))
    competes = top > 0
    diff, _ = forced("max_bid", LEVEL_OPTIONS)
    seat_cells = adjust.CALL + (3 + seat) * adjust.N_TRICK_CLASSES + tricks
    tricks_labels = np.char.add(f"seat {seat} · ", np.char.add(tricks.astype(str), " tricks"))
    out.append(_rows("max_bid", seat, tricks_labels[competes], seat_cells[competes],
                     LEVEL_OPTIONS, diff[competes],
                     _pull(LEVEL_OPTIONS, top[competes], diff[competes])))
    diff, _ = forced("contract", LEVEL_OPTIONS)
    # The level the seat named by itself where it declared (elsewhere the branches are
    # not reached and their gains are nan).
    declared = (states["kind"] == engine.GAME) & (states["declarer"] == seat)
    named = np.where(declared, np.asarray(LEVEL)[np.maximum(states["contract"], 0)], 0)
    out.append(_rows("contract", seat, tricks_labels,
                     adjust.CONTRACT + seat * adjust.N_TRICK_CLASSES + tricks, LEVEL_OPTIONS,
                     diff, _pull(LEVEL_OPTIONS, named, diff)))
    whist_options = ["pass", "whist"] + (["half"] if variant.half_whist else [])
    diff, contract = forced("whist", whist_options)
    played = contract >= 0
    level = np.asarray(LEVEL)[np.maximum(contract, 0)]
    out.append(_rows("whist", seat,
                     np.char.add(np.char.add(level.astype(str), f" · seat {seat} · "),
                                 np.char.add(high.astype(str), " A+K"))[played],
                     (adjust.WHIST + ((level - 6) * 3 + seat) * adjust.N_HIGH + high)[played],
                     whist_options, diff[played]))
    return out


def gauge(variant, deals, *, seed: int = 1, workers: int = 1,
          offsets: np.ndarray | None = None) -> pl.DataFrame:
    """The exploitability of the players on ``deals`` (a :class:`~prefstats.game.deal.Deals`):
    one row per (decision, class, option) with ``mean`` gain against the players' own
    play in whists a deal of the class, ``se``, ``lo``, ``hi`` (95% CI), ``n``, the
    adjustment ``cell`` the class moves (-1: none) and ``pull`` (max_bid: the mean of
    :func:`_pull`, > 0 when the gain comes from competing higher than the players do,
    < 0 from lower). ``seed`` keys the players' random draws; ``offsets`` of their calls
    default to the variant's shipped fit (:func:`~prefstats.players.adjust.fitted`)."""
    if len(deals) == 0:
        raise OptionError("deals: the gauge needs at least one deal")
    if offsets is not None:
        offsets = adjust.checked(offsets)
    states, values = _unforced(variant, deals, seed, offsets)
    parts = [p for seat in seats_of(variant)
             for p in _seat_rows(variant, deals, seed, seat, states, values, workers, offsets)]
    long = pl.concat(parts).filter(pl.col("gain").is_not_nan())
    table = long.group_by("decision", "cls", "option").agg(
        cell=pl.col("cell").first(), pull=pl.col("pull").mean(),
        mean=pl.col("gain").mean(), se=pl.col("gain").std() / pl.len().sqrt(), n=pl.len())
    order = {d: i for i, d in enumerate(CLASS_DECISIONS)}
    return table.with_columns(
        se=pl.col("se").fill_null(0.0), lo=pl.col("mean") - Z95 * pl.col("se").fill_null(0.0),
        hi=pl.col("mean") + Z95 * pl.col("se").fill_null(0.0),
        _order=pl.col("decision").replace_strict(order, return_dtype=pl.Int64),
    ).sort("_order", "cls", "option").drop("_order")


def exploitability(variant, deals, *, seed: int = 1, workers: int = 1,
                   unfitted: bool = False) -> tuple[pl.DataFrame, dict[str, Any]]:
    """:func:`gauge` and its :func:`summary`, of the shipped fit or (``unfitted``) of
    the heuristic with zero offsets."""
    table = gauge(variant, deals, seed=seed, workers=workers,
                  offsets=np.zeros(adjust.SIZE) if unfitted else None)
    return table, summary(table)


def best_rows(table: pl.DataFrame) -> pl.DataFrame:
    """Each class's best deviation (options with at least :data:`MIN_N` deals), with
    ``significant`` (its CI above zero), sorted by gain, largest first."""
    return (table.filter(pl.col("n") >= MIN_N).sort("mean", descending=True)
            .group_by("decision", "cls", maintain_order=True).first()
            .with_columns(significant=pl.col("lo") > 0).sort("mean", descending=True))


def familywise(table: pl.DataFrame) -> pl.DataFrame:
    """The (class, option) rows of a gauge whose gain is significant at 95% over every row
    with :data:`MIN_N` deals at once (Holm's step-down test on one-sided normal p-values,
    family-wise error 2.5% a side as a 95% CI's): with a hundred classes and several
    options each, a player who is a perfect best response still shows a few classes
    whose 95% CI clears zero by chance, and in a class of 30..60 deals such a chance
    gain is always several whists. So the target reads "significant" family-wise."""
    from statistics import NormalDist

    rows = table.filter(pl.col("n") >= MIN_N)
    normal = NormalDist()
    p = [(1.0 - normal.cdf(m / s)) if s > 0 else float(m <= 0)
         for m, s in zip(rows["mean"], rows["se"], strict=True)]
    keep = np.zeros(len(p), dtype=bool)
    for rank, i in enumerate(sorted(range(len(p)), key=p.__getitem__)):
        if p[i] > 0.025 / (len(p) - rank):
            break
        keep[i] = True
    return rows.filter(pl.Series(keep))


def summary(table: pl.DataFrame) -> dict[str, Any]:
    """The headline of a gauge: ``largest`` gain significant at 95% in its class (0 when
    none; with its ``largest_class``), ``mean`` and ``mean_best`` (see the module text),
    ``classes`` gauged, ``significant`` classes at 95% each and ``over_target`` (those
    above :data:`TARGET_MAX`); ``corrected`` the classes significant family-wise
    (:func:`familywise`), ``largest_corrected`` their largest gain and
    ``corrected_over_target`` those above the target; ``met``: no class significant
    family-wise above :data:`TARGET_MAX` and ``mean`` below :data:`TARGET_MEAN`."""
    best = best_rows(table)
    sig = best.filter("significant")
    strict = familywise(table).group_by("decision", "cls").agg(pl.col("mean").max())
    weight = best["n"].sum()
    mean = float((sig["mean"] * sig["n"]).sum() / weight) if weight else 0.0
    mean_best = float((best["mean"].clip(lower_bound=0) * best["n"]).sum() / weight
                      ) if weight else 0.0
    top = sig.row(0, named=True) if sig.height else None
    largest = top["mean"] if top else 0.0
    strict_over = int((strict["mean"] > TARGET_MAX).sum())
    return {"largest": largest,
            "largest_class": (f"{top['decision']}: {top['cls']} → {top['option']} "
                              f"[{top['lo']:+.2f}, {top['hi']:+.2f}], n = {top['n']:,}"
                              if top else None),
            "mean": mean, "mean_best": mean_best, "classes": best.height,
            "significant": sig.height, "over_target": int((sig["mean"] > TARGET_MAX).sum()),
            "corrected": strict.height,
            "largest_corrected": float(strict["mean"].max()) if strict.height else 0.0,
            "corrected_over_target": strict_over,
            "met": strict_over == 0 and mean < TARGET_MEAN}


# ---- the fit ---------------------------------------------------------------------------

_TOWARD = {("first_call", "bid"): 1.0, ("first_call", "pass"): -1.0,
           ("whist", "whist"): 1.0, ("whist", "pass"): -1.0,
           ("misere", "misere"): 1.0, ("misere", "pass instead"): -1.0,
           ("misere", "bid instead"): -1.0}
#: A misère offset moves this many catch-probability units per trick of a trick step.
MISERE_SCALE = 0.2
#: An offset is kept within this many tricks (the parameters' own trick range).
LIMIT = 3.0


def _direction(row: dict, table: pl.DataFrame) -> float:
    """Which way ``row``'s best option moves its class's offset: +1 toward calling more
    (bidding, competing higher, whisting, misère), -1 toward less, 0 for no lever."""
    decision, option = row["decision"], row["option"]
    if row["cell"] < 0:
        return 0.0
    if decision in ("max_bid", "contract"):
        return float(np.sign(row["pull"]))
    if decision == "whist" and option == "half":  # between pass and whist
        mine = table.filter((pl.col("decision") == "whist") & (pl.col("cls") == row["cls"]))
        gain = dict(zip(mine["option"], mine["mean"], strict=True))
        return float(np.sign(gain.get("whist", 0.0) - gain.get("pass", 0.0)))
    return _TOWARD.get((decision, option), 0.0)


def _scales() -> np.ndarray:
    """Per cell, the units of a trick step: misère cells move in catch probability."""
    scale = np.ones(adjust.SIZE)
    scale[adjust.MISERE:adjust.CONTRACT] = MISERE_SCALE
    return scale


def directions(table: pl.DataFrame) -> np.ndarray:
    """Per offset cell, the summed direction (+1 more, -1 less) of the significant classes'
    best options. Classes sharing a cell (first calls and competing by one seat's tricks)
    add up; opposite pulls cancel."""
    d = np.zeros(adjust.SIZE)
    for row in best_rows(table).filter("significant").iter_rows(named=True):
        if row["cell"] >= 0:
            d[int(row["cell"])] += _direction(row, table)
    return d


def step(offsets: np.ndarray, table: pl.DataFrame,
         size: float | np.ndarray) -> tuple[np.ndarray, int]:
    """``offsets`` moved ``size`` tricks (a number, or one per cell; misère: times
    ``MISERE_SCALE``) toward each significant class's best option; and how many cells
    moved."""
    d = directions(table)
    scale = _scales()
    new = np.clip(np.asarray(offsets, dtype=np.float64) + d * size * scale,
                  -LIMIT * scale, LIMIT * scale)
    return new, int(np.count_nonzero(d))


def next_sizes(sizes: np.ndarray, last: np.ndarray, table: pl.DataFrame,
               ) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's step for this round and its direction: a cell whose direction flipped
    since its last move halves its step, so an offset that overshoots (the best level
    alternating between two rounds) settles between them instead of swinging."""
    sign = np.sign(directions(table))
    sizes = np.where(sign * last < 0, sizes * 0.5, sizes)
    return sizes, np.where(sign != 0, sign, last)


def fit(variant, *, deals_per_round: int, rounds: int, seed: int = 1,
        start: np.ndarray | None = None, first_step: float = 0.5, decay: float = 0.7,
        workers: int = 1, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Fictitious play (see the module text) from ``start`` (default zeros: the unfitted
    players) for at most ``rounds`` rounds of ``deals_per_round`` fresh deals each (round
    ``r`` plays deals ``r * deals_per_round ..`` of ``seed``'s stream), each cell's step
    ``first_step * decay ** r`` tricks, halved each time its direction flips. Stops when
    a round's gauge meets the targets; the gauge of the last round is the "after" figure,
    measured on deals the fit never moved on; ``workers`` threads share each rollout.
    Returns ``offsets``, ``rounds`` (each round's summary) and ``seconds``."""
    if deals_per_round < 1 or rounds < 1:
        raise OptionError(f"fit: deals_per_round and rounds must be at least 1, got "
                          f"{deals_per_round} and {rounds}")
    offsets = np.zeros(adjust.SIZE) if start is None else np.array(start, dtype=np.float64)
    history, began = [], time.perf_counter()
    sizes, last = np.full(adjust.SIZE, float(first_step)), np.zeros(adjust.SIZE)
    for r in range(rounds + 1):
        block = deal(deals_per_round, seed=seed, start=r * deals_per_round)
        table = gauge(variant, block, seed=seed, workers=workers, offsets=offsets)
        head = summary(table)
        done = head["met"] or r == rounds
        if not done:
            sizes, last = next_sizes(sizes, last, table)
        offsets_next, moved = (offsets, 0) if done else step(offsets, table, sizes)
        size = float(sizes[last != 0].mean()) if (last != 0).any() else 0.0  # the mean step
        history.append({**head, "round": r, "deals": deals_per_round,
                        "first_deal": r * deals_per_round, "moved": moved,
                        "step": 0.0 if done else size,
                        "seconds": round(time.perf_counter() - began, 1)})
        if log:
            log(f"round {r}: largest {head['largest']:+.2f} ({head['largest_class']}), mean "
                f"{head['mean']:.3f} (best-of {head['mean_best']:.3f}), "
                f"{head['significant']} of {head['classes']} classes significant; moved "
                f"{moved} cells, {history[-1]['seconds']:.0f} s")
        if r == 0:
            before = table
        if done:
            break
        offsets = offsets_next
        sizes = sizes * decay
    return {"offsets": offsets, "rounds": history, "before": before, "after": table,
            "seconds": time.perf_counter() - began}
