"""Hand charts: each decision by the features that decide it, every cell sampled to a
fixed number of paired counterfactuals.

A *cell* is one class of hands at one decision: a first call by hand points (or the
evaluator's expected tricks) and seat; a whist call by the level defended, the
defender's aces and kings and his length in the declarer's trump; a misère by its hole
pattern; a raspasy by the aces and kings and longest suit of the hand that
can pass into it. Each cell is filled with its own deals (:func:`sample_cells`: the first deals
of the seed's stream that fall in the class, so deals stay uniform within it) until it
holds ``min_n`` pairs or a budget of dealt deals runs out; a cell with fewer pairs is
shown greyed with its n and never advised on.

**Gain** (one definition for every chart): the mean over the cell's (seat, deal) pairs
of ``value(option) − value(pass)``, the same deal played once with the seat's decision
forced to the option and once to a pass (:func:`prefstats.sim.rollout.rollout_states`,
every other decision by the built-in heuristic players), in whists a deal to the seat;
``ci_low``/``ci_high`` its 95% interval (normal, ``gain ± 1.96 SE``), ``n`` the pairs
where both calls were legal. The cell's **advice** is the option with the largest gain
among those with ``n ≥ min_n`` (a pass gains 0); a **rule** is stated from a cell only
when its advice is decided at :data:`~prefstats.reports.counterfactual.DECISIVE_SE`
standard errors: an option's gain over passing is at least 3 SE above zero (or, to
pass, every option's is 3 SE below). Options whose paired difference from the advice
is within 3 SE are named with it as ``ties`` (as good on this evidence).

The first call's options are ``pass`` and ``misere`` (``first_call``: the seat's first
call forced) and the levels ``6``, ``7``, ``8`` (``max_bid``: every call of the seat is
the lowest legal bid up to that level in the strain the evaluator rates best, a pass
once there is none; the contract after the talon is the players' choice). Both
rollouts play the same deals with the same keyed draws, so every option pairs with the
same pass.

The *raspasy* decision is the last first call of the auction when every seat before has
passed (seat 2; Gusarik's seat 1): ``pass`` plays the raspasy, ``6`` (``max_bid``) and
``misere`` avoid it. Only deals where the forced pass ends in a raspasy are kept (in
the others a seat bid before the seat spoke), and only they play the misère and the bid,
so a cell holds the hands of its class that face the choice; ``raspasy_value`` is the
pass branch's mean value to the seat (what the raspasy costs a deal, with its CI).

**Robustness**: every chart is made under the default players (:data:`DEFAULT`) and again
under each of :data:`MODELS` (every player of the table, the seat's own unforced
decisions included, plays the model; its cells filled to fewer pairs).
:func:`robustness` marks a cell's advice ``robust`` when, under every model, no option
beats it by more than 1.96 standard errors of the paired difference on that model's
pairs; a model with fewer than :data:`VERDICT_PAIRS` pairs in the cell gives no verdict
(``robust`` is then null unless another model breaks the advice). ``gain_min`` and
``gain_max`` span the advice's gain (as the rule states it) over the default and every
model, ``breaks`` names the models whose pairs prefer another option.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from prefstats.game.cards import suit_holdings, suit_lengths
from prefstats.game.codes import NO_TRUMP_SUIT, RASPASY
from prefstats.game.contracts import LEVEL, TRUMP
from prefstats.game.deal import Deals, deal
from prefstats.game.engine import KINDS
from prefstats.game.exact import Z95
from prefstats.game.scoring import deal_values, score_states
from prefstats.players.builtin import player_key
from prefstats.players.evaluate import SAFE
from prefstats.players.params import policy_params
from prefstats.reports.classes import high_cards
from prefstats.reports.counterfactual import DECISIVE_SE, by_points, by_tricks, seats_of
from prefstats.reports.stats import with_proportion
from prefstats.sim.rollout import in_pieces, rollout_states

#: Pairs a cell needs before it is advised on (the committed reports; CI uses fewer).
CELL_PAIRS = 1_000
#: Deals of the seed's stream dealt per seat, at most, to fill a chart's cells.
DEAL_BUDGET = 8_000_000
#: Deals rolled out per seat, at most, for the whist chart (whose cells depend on the
#: auction, so they cannot be dealt to order).
WHIST_BUDGET = 300_000
#: The first call's levels (max_bid options) beside pass and misère.
BID_LEVELS = ("6", "7", "8")
#: Deals dealt per seat, at most, for the raspasy chart (only deals of open cells are
#: rolled out; about half of them end with everyone passing before the seat).
RASPASY_BUDGET = 2_000_000
#: Pairs a cell is filled to under each model beside the default (they only decide
#: whether advice is robust).
MODEL_PAIRS = 250
#: Pairs a model needs in a cell to give a verdict on its advice.
VERDICT_PAIRS = 30


@dataclass(frozen=True)
class Model:
    """A table of players: a built-in ``policy`` with its parameters changed by
    ``overrides`` (:func:`~prefstats.players.params.policy_params`); its cells are
    filled to ``share`` of the other models' pairs (search is about 20 times slower)."""

    name: str
    policy: str
    overrides: tuple[tuple[str, float], ...]
    meaning: str
    share: float = 1.0

    def params(self) -> np.ndarray:
        return policy_params(self.policy, **dict(self.overrides))

    def pairs(self, model_n: int) -> int:
        """Pairs a cell is filled to under this model when the others get ``model_n``."""
        return max(2, round(model_n * self.share))


#: The players every chart is made for, and its advice stated under.
DEFAULT = Model("heuristic", "heuristic", (), "the built-in heuristic players, defaults")
#: The other tables a chart is remade under to test whether its advice is robust.
MODELS = (
    Model("whist_less", "heuristic", (("whist_appetite", -0.5),),
          "players who whist less (half a trick off a defender's estimate)"),
    Model("whist_more", "heuristic", (("whist_appetite", 0.5),),
          "players who whist more (half a trick on a defender's estimate)"),
    Model("timid", "heuristic", (("aggression", -0.1),),
          "players who bid timidly (aggression -0.1, default 0.4)"),
    Model("bold", "heuristic", (("aggression", 0.9),),
          "players who bid boldly (aggression 0.9)"),
    Model("search", "pimc", (("samples", 8.0),),
          "search card play: PIMC with 8 sampled deals a card in closed games, bidding "
          "and whisting as the heuristic", share=0.2),
)
#: The player model every chart's advice holds for.
MODEL = DEFAULT.name
#: What a misère chart's model says when its catchers see the discard: their catch rate
#: is an upper bound (the default catchers cannot see it).
UPPER_BOUND = "double-dummy misère catchers (catch rate an upper bound)"
#: Deals classified per call of the dealer while sampling.
_BATCH = 500_000

#: The features of each chart, as guide.json and the tables name them, with the cells
#: merged at the edges (a rare class joins its neighbour: it could not reach its n).
FEATURES = {
    "points": "hand points (best-suit length + its A K Q + aces outside it); 3 means 3 "
              "or fewer, 11 means 11 or more",
    "expected_tricks": "the evaluator's expected tricks of the dealt hand in its best "
                       "strain before the talon, rounded; 2 means 2 or fewer, 10 means 10 "
                       "or more",
    "seat": "the seat from the dealer's left (0 calls first)",
    "level": "the level of the contract defended; 9 means 9 or 10",
    "aces_kings": "the defender's aces and kings; 5 means 5 or more",
    "trumps": "the defender's length in the declarer's trump; 4 means 4 or more, -1 a "
              "no-trump contract",
    "longest": "the hand's longest suit; 3 means 3 or fewer (4-3-3-0 and flatter), 6 "
               "means 6 or more",
    "holes": "suits the misère declarer cannot always play under (3 means 3 or more)",
    "hole": "with one hole, what it is: 'lone 8' .. 'lone A' (a singleton), 'two cards', "
            "'long' (3 or more cards); empty otherwise",
}

_EDGES = {"points": (3, 11), "expected_tricks": (2, 10), "level": (6, 9),
          "aces_kings": (0, 5), "trumps": (0, 4), "holes": (0, 3), "longest": (3, 6)}
#: Features whose lowest cell holds every class below it too.
_MERGED_BELOW = ("points", "expected_tricks", "longest")
_RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
#: Misère hole patterns: code -> (holes, hole), in the chart's order.
PATTERNS = ((0, ""), *((1, f"lone {r}") for r in _RANKS[1:]), (1, "two cards"),
             (1, "long"), (2, ""), (3, ""))
_MISERE = KINDS.index("misere")


def label(feature: str, value) -> str:
    """A cell value as the charts write it (``≤3``, ``11+``, ``NT``)."""
    if feature == "trumps" and value == -1:
        return "NT"
    low, high = _EDGES.get(feature, (None, None))
    if value == high:
        return f"{value}+"
    if value == low and feature in _MERGED_BELOW:
        return f"≤{value}"
    return str(value)


def _clip(feature: str, values: np.ndarray) -> np.ndarray:
    low, high = _EDGES[feature]
    return np.clip(np.asarray(values, dtype=np.int64), low, high)


def hole_pattern(hands: np.ndarray) -> np.ndarray:
    """Each hand's misère hole pattern, an index of ``PATTERNS``: no hole; one hole by
    what it is (a singleton by its card, two cards, three or more); two; three or more."""
    held = suit_holdings(hands)
    unsafe = ~SAFE[held]
    holes = unsafe.sum(axis=1)
    hole = np.where(unsafe, held, 0).max(axis=1)  # the one hole's holding (if one)
    length = np.bitwise_count(hole)
    single = np.log2(np.maximum(hole, 1)).astype(np.int64)  # a lone 8 is 1 (a lone 7 is safe)
    one = np.where(length == 1, single, np.where(length == 2, 8, 9))
    return np.select([holes == 0, holes == 1, holes == 2], [0, one, 10], 11).astype(np.int64)


def _share(min_n: int, seats: int) -> int:
    """Deals a seat is dealt of a cell pooled over ``seats``: its share of ``min_n`` and
    5% more, for the pairs where the option turns out illegal."""
    return math.ceil(1.05 * min_n / seats)


def sample_cells(seed: int, classify: Callable[[Deals], np.ndarray], targets: np.ndarray,
                 *, budget: int = DEAL_BUDGET, batch: int = _BATCH
                 ) -> tuple[Deals, np.ndarray, int]:
    """The first ``targets[c]`` deals of ``seed``'s stream whose class is ``c``
    (``classify`` maps deals to a class each, -1 for none), dealing at most ``budget``
    deals: the deals kept, their classes, and the deals dealt. Deals are kept in stream
    order, so within a class they are uniform, as unconditioned deals of that class."""
    targets = np.asarray(targets, dtype=np.int64)
    have = np.zeros(len(targets), dtype=np.int64)
    kept, classes, dealt = [], [], 0
    while dealt < budget and (have < targets).any():
        chunk = deal(min(batch, budget - dealt), seed=seed, start=dealt)
        dealt += len(chunk)
        cls = np.asarray(classify(chunk), dtype=np.int64)
        ok = np.flatnonzero(cls >= 0)
        order = ok[np.argsort(cls[ok], kind="stable")]
        sorted_cls = cls[order]
        first = np.searchsorted(sorted_cls, sorted_cls)  # each class's first position
        rank = np.arange(len(order)) - first + have[sorted_cls]
        take = np.sort(order[rank < targets[sorted_cls]])
        np.add.at(have, cls[take], 1)
        kept.append(chunk[take])
        classes.append(cls[take])
    if not kept:
        return deal(0, seed=seed), np.zeros(0, dtype=np.int64), 0
    return (Deals(np.concatenate([k.hands for k in kept]),
                  np.concatenate([k.talon for k in kept]), kept[0].seed,
                  np.concatenate([k.index for k in kept]),
                  np.concatenate([k.talon_first for k in kept])),
            np.concatenate(classes), dealt)


@dataclass
class _Played:
    """Each deal's branches at one seat: ``value`` (n, k) to the seat (nan where the
    option was not legal), the ``contract`` and ``declarer`` of the deal as the
    decision found it, whether the branch was a ``misere`` the seat declared and
    ``caught`` (the declarer took a trick), and whether it ended in a ``raspasy``."""

    value: np.ndarray
    contract: np.ndarray
    declarer: np.ndarray
    caught: np.ndarray
    raspasy: np.ndarray


def _play(variant, deals: Deals, seat: int, decision: str, options: Sequence[str],
          seed: int, workers: int, model: Model = DEFAULT,
          misere_catchers: str = "hidden") -> _Played:
    """:func:`~prefstats.sim.rollout.rollout_states` of ``deals`` in pieces shared by
    ``workers`` threads (:func:`~prefstats.sim.rollout.in_pieces`: the compiled driver
    releases the GIL, and the result is the same for any ``workers``) by ``model``'s
    players, scored as :func:`~prefstats.sim.rollout.rollout` scores them."""
    key = int(player_key(seed))
    params = model.params()

    def piece(part: Deals) -> tuple[np.ndarray, ...]:
        states, legal = rollout_states(variant, part, seat=seat, decision=decision,
                                       options=options, key=key, policy=model.policy,
                                       params=params, misere_catchers=misere_catchers)
        flat = states.reshape(-1)
        value = deal_values(variant, *score_states(variant, flat))[:, seat]
        value = np.where(legal, value.reshape(legal.shape), np.nan)
        caught = (legal & (states["kind"] == _MISERE) & (states["declarer"] == seat)
                  & (states["tricks"][..., seat] > 0))
        return (value, states["contract"][:, 0].copy(), states["declarer"][:, 0].copy(),
                caught, legal & (states["kind"] == RASPASY))

    parts = in_pieces(piece, deals, workers)
    if not parts:
        k = len(options)
        return _Played(np.zeros((0, k)), np.zeros(0, np.int8), np.zeros(0, np.int8),
                       np.zeros((0, k), bool), np.zeros((0, k), bool))
    return _Played(*(np.concatenate([p[j] for p in parts]) for j in range(5)))


def _stats(diff: np.ndarray) -> tuple[float, float, int]:
    n = len(diff)
    if n < 2:
        return (float(diff.mean()) if n else math.nan), math.nan, n
    return float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(n)), n


def cell_table(wide: pl.DataFrame, features: Sequence[str], options: Sequence[str],
               min_n: int, base: str = "pass", model: str = MODEL) -> pl.DataFrame:
    """The tidy table of one chart from ``wide`` (one row per (seat, deal) pair, the
    ``features`` and one value column per option, null where not legal): per cell and
    non-base option its ``gain`` over ``base`` with ``se``, ``ci_low``, ``ci_high``,
    ``n`` and ``enough`` (n ≥ ``min_n``); per cell the ``advice``, whether a rule is
    stated from it (``decided``), its ``ties`` and ``model`` (see the module text)."""
    rows = []
    for key, part in wide.group_by(list(features), maintain_order=True):
        values = {o: part[o].to_numpy().astype(float) for o in [base, *options]}
        cell = dict(zip(features, key, strict=True))
        est = {}
        for o in options:
            est[o] = _stats((values[o] - values[base])[~np.isnan(values[o] - values[base])])
        eligible = [o for o in options if est[o][2] >= min_n]
        advice = max(eligible, key=lambda o: est[o][0], default=base)
        if advice == base or est[advice][0] <= 0:
            advice = base
            decided = bool(eligible) and all(est[o][0] <= -DECISIVE_SE * est[o][1]
                                             for o in eligible)
        else:
            decided = est[advice][0] >= DECISIVE_SE * est[advice][1]
        ties = []
        for o in [base, *eligible]:
            if o == advice:
                continue
            both = values[advice] - values[o]
            mean, se, n = _stats(both[~np.isnan(both) & ~np.isnan(values[base])])
            if not (n >= 2 and abs(mean) >= DECISIVE_SE * se):
                ties.append(o)
        decided = decided and base not in ties
        for o in options:
            gain, se, n = est[o]
            rows.append({**cell, "option": o, "gain": gain, "se": se,
                         "ci_low": gain - Z95 * se, "ci_high": gain + Z95 * se, "n": n,
                         "enough": n >= min_n, "advice": advice, "decided": decided,
                         "ties": ",".join(ties), "model": model})
    if not rows:
        return pl.DataFrame(schema={**{f: pl.Int64 for f in features}, "option": pl.Utf8,
                                    "gain": pl.Float64, "se": pl.Float64,
                                    "ci_low": pl.Float64, "ci_high": pl.Float64,
                                    "n": pl.Int64, "enough": pl.Boolean, "advice": pl.Utf8,
                                    "decided": pl.Boolean, "ties": pl.Utf8,
                                    "model": pl.Utf8})
    return pl.DataFrame(rows).sort([*features, "option"])


@dataclass
class Chart:
    """One decision's chart: its tidy ``table`` (:func:`cell_table`), the ``features``
    that make its cells (rows, columns, panels), ``options``, the deals dealt to fill
    it (``dealt``, a seat), ``extra`` tables, the ``wide`` pairs the table is made of,
    the ``model`` that played them and, once made under other tables of players, every
    model's cells (``models``: :func:`with_robustness`)."""

    decision: str
    name: str
    features: list[str]
    options: list[str]
    table: pl.DataFrame
    dealt: int
    min_n: int
    extra: dict[str, pl.DataFrame]
    wide: pl.DataFrame
    model: str = MODEL
    models: pl.DataFrame | None = None


def _wide(values: np.ndarray, options: Sequence[str], **columns) -> pl.DataFrame:
    return pl.DataFrame({**columns, **{o: pl.Series(values[:, j], nan_to_null=True)
                                       for j, o in enumerate(options)}})


def first_call_chart(variant, seed: int, min_n: int, feature: str = "points", *,
                     budget: int = DEAL_BUDGET, workers: int = 1,
                     levels: Sequence[str] = BID_LEVELS, model: Model = DEFAULT) -> Chart:
    """The first call by ``feature`` (``points`` or ``expected_tricks``) x seat: pass,
    bid up to each of ``levels``, misère; each (class, seat) cell dealt to ``min_n``."""
    low, high = _EDGES[feature]
    frames, dealt = [], 0
    for seat in seats_of(variant):
        def classify(d: Deals, seat: int = seat) -> np.ndarray:
            hands = d.hands[:, seat]
            raw = by_points(hands) if feature == "points" else by_tricks(hands, seat)
            return _clip(feature, raw) - low

        deals, cls, n = sample_cells(seed, classify, np.full(high - low + 1, min_n),
                                     budget=budget)
        dealt = max(dealt, n)
        first = _play(variant, deals, seat, "first_call", ["pass", "misere"], seed, workers,
                      model)
        bids = _play(variant, deals, seat, "max_bid", levels, seed, workers, model)
        frames.append(_wide(np.hstack([first.value, bids.value]), ["pass", "misere", *levels],
                            seat=np.full(len(deals), seat), deal=deals.index,
                            **{feature: cls + low}))
    options = [*levels, "misere"]
    wide = pl.concat(frames)
    return Chart("first_call", f"first_call_{feature}", [feature, "seat"], options,
                 cell_table(wide, [feature, "seat"], options, min_n, model=model.name), dealt,
                 min_n, {}, wide, model.name)


def misere_chart(variant, seed: int, min_n: int, *, budget: int = DEAL_BUDGET,
                 workers: int = 1, model: Model = DEFAULT,
                 misere_catchers: str = "hidden") -> Chart:
    """Misère against pass at the first call by hole pattern, every seat pooled (each
    seat's share of ``min_n`` dealt at that seat), with the catch rate: of catchers who
    cannot see the discard, or with ``misere_catchers="double_dummy"`` an upper bound
    (its ``model`` says so)."""
    seats = seats_of(variant)
    frames, dealt = [], 0
    for seat in seats:
        deals, cls, n = sample_cells(
            seed, lambda d, seat=seat: hole_pattern(d.hands[:, seat]),
            np.full(len(PATTERNS), _share(min_n, len(seats))), budget=budget)
        dealt = max(dealt, n)
        played = _play(variant, deals, seat, "first_call", ["pass", "misere"], seed, workers,
                       model, misere_catchers)
        frames.append(_wide(played.value, ["pass", "misere"], pattern=cls,
                            caught=played.caught[:, 1]))
    holes = pl.DataFrame({"pattern": range(len(PATTERNS)),
                          "holes": [h for h, _ in PATTERNS], "hole": [w for _, w in PATTERNS]})
    wide = pl.concat(frames).join(holes, on="pattern", how="left")
    label = model.name if misere_catchers == "hidden" else f"{model.name}, {UPPER_BOUND}"
    table = cell_table(wide, ["pattern"], ["misere"], min_n, model=label)
    catches = (wide.filter(pl.col("misere").is_not_null() & pl.col("pass").is_not_null())
               .group_by("pattern").agg(catches=pl.col("caught").sum(), played=pl.len()))
    catches = with_proportion(catches, "catches", "played", "catch_rate").select(
        "pattern", "catch_rate", catch_low="catch_rate_lo", catch_high="catch_rate_hi")
    table = (holes.join(table, on="pattern").join(catches, on="pattern", how="left")
             .sort("pattern").drop("pattern"))
    return Chart("misere", "misere", ["holes", "hole"], ["misere"], table, dealt, min_n, {},
                 wide, label)


def whist_chart(variant, seed: int, min_n: int, *, budget: int = WHIST_BUDGET,
                workers: int = 1, batch: int = 50_000, model: Model = DEFAULT) -> Chart:
    """The first whist call of a defender of a trick game by the level defended x his
    aces and kings x his length in the declarer's trump, against passing (half-whist
    where the variant has it): the seed's stream rolled out at every seat until every
    cell holds ``min_n`` pairs or ``budget`` deals a seat are played. Deals whose
    defender's aces and kings fall in a row of cells already full are not played (that
    class is a cell feature, so the others stay uniform within their cells)."""
    options = ["whist", *(["half"] if variant.half_whist else [])]
    calls = ["pass", *options]
    a_low, a_high = _EDGES["aces_kings"]
    cells = (_EDGES["level"][1] - 5, a_high - a_low + 1, _EDGES["trumps"][1] + 2)
    frames = []
    for seat in seats_of(variant):
        count = np.zeros(cells, dtype=np.int64)
        start = 0
        while start < budget and (count < min_n).any():
            chunk = deal(min(batch, budget - start), seed=seed, start=start)
            start += len(chunk)
            hands = chunk.hands[:, seat]
            ak = _clip("aces_kings", high_cards(hands))
            open_rows = (count < min_n).any(axis=(0, 2))
            chunk = chunk[np.flatnonzero(open_rows[ak - a_low])]
            if not len(chunk):
                continue
            played = _play(variant, chunk, seat, "whist", calls, seed, workers, model)
            hit = ~np.isnan(played.value[:, 0])
            chunk, value = chunk[np.flatnonzero(hit)], played.value[hit]
            contract = played.contract[hit].astype(np.int64)
            hands = chunk.hands[:, seat]
            trump = TRUMP[contract].astype(np.int64)
            length = np.take_along_axis(suit_lengths(hands),
                                        np.maximum(trump, 0)[:, None], axis=1)[:, 0]
            level = _clip("level", LEVEL[contract])
            ak = _clip("aces_kings", high_cards(hands))
            trumps = np.where(trump == NO_TRUMP_SUIT, -1, _clip("trumps", length))
            whisted = ~np.isnan(value[:, 1])
            np.add.at(count, (level[whisted] - 6, ak[whisted] - a_low, trumps[whisted] + 1), 1)
            frames.append(_wide(value, calls, level=level, aces_kings=ak, trumps=trumps,
                                after_declarer=(seat - played.declarer[hit]) % 3))
    features = ["level", "aces_kings", "trumps"]
    wide = pl.concat(frames) if frames else _wide(np.zeros((0, len(calls))), calls,
                                                 **{f: np.zeros(0, np.int64)
                                                    for f in [*features, "after_declarer"]})
    by_seat = cell_table(wide, ["level", "after_declarer"], options, min_n, model=model.name)
    return Chart("whist", "whist", features, options,
                 cell_table(wide, features, options, min_n, model=model.name), start, min_n,
                 {"whist_by_position": by_seat}, wide, model.name)


def raspasy_chart(variant, seed: int, min_n: int, *, budget: int = RASPASY_BUDGET,
                  workers: int = 1, batch: int = 50_000, model: Model = DEFAULT) -> Chart:
    """Whether to pass into a raspasy: the last first call of the auction after every
    seat before passed, by the hand's aces and kings x its longest suit; pass (the
    raspasy) against bidding up to 6 and misère, with the raspasy's value to the hand
    (see the module text). The seed's stream is rolled out until every cell holds
    ``min_n`` pairs or ``budget`` deals are dealt; deals of full cells are not played."""
    seat = seats_of(variant)[-1]
    options = ["6", "misere"]
    a_low, a_high = _EDGES["aces_kings"]
    l_low, l_high = _EDGES["longest"]
    cols = l_high - l_low + 1
    count = np.zeros((a_high - a_low + 1) * cols, dtype=np.int64)
    frames, start = [], 0
    while start < budget and (count < min_n).any():
        chunk = deal(min(batch, budget - start), seed=seed, start=start)
        start += len(chunk)
        hands = chunk.hands[:, seat]
        cell = ((_clip("aces_kings", high_cards(hands)) - a_low) * cols
                + _clip("longest", suit_lengths(hands).max(axis=1)) - l_low)
        chunk = chunk[np.flatnonzero(count[cell] < min_n)]
        if not len(chunk):
            continue
        passed = _play(variant, chunk, seat, "first_call", ["pass"], seed, workers, model)
        faced = np.flatnonzero(passed.raspasy[:, 0])  # every seat before passed
        if not len(faced):
            continue
        # Only the deals that face the choice play the other branches (a misère with
        # hidden catchers costs milliseconds a deal); each branch of a deal is keyed by
        # the deal alone, so it plays as it would beside the others.
        chunk = chunk[faced]
        misere = _play(variant, chunk, seat, "first_call", ["misere"], seed, workers, model)
        bids = _play(variant, chunk, seat, "max_bid", ["6"], seed, workers, model)
        hands = chunk.hands[:, seat]
        ak = _clip("aces_kings", high_cards(hands))
        longest = _clip("longest", suit_lengths(hands).max(axis=1))
        np.add.at(count, (ak - a_low) * cols + longest - l_low, ~np.isnan(bids.value[:, 0]))
        frames.append(_wide(np.hstack([passed.value[faced], misere.value, bids.value]),
                            ["pass", "misere", "6"],
                            aces_kings=ak, longest=longest))
    features = ["aces_kings", "longest"]
    wide = pl.concat(frames) if frames else _wide(np.zeros((0, 3)), ["pass", "misere", "6"],
                                                 **{f: np.zeros(0, np.int64) for f in features})
    cost = wide.group_by(features).agg(
        raspasy_value=pl.col("pass").mean(),
        raspasy_se=pl.col("pass").std() / pl.col("pass").count().sqrt())
    table = (cell_table(wide, features, options, min_n, model=model.name)
             .join(cost, on=features, how="left")
             .with_columns(raspasy_low=pl.col("raspasy_value") - Z95 * pl.col("raspasy_se"),
                           raspasy_high=pl.col("raspasy_value") + Z95 * pl.col("raspasy_se"))
             .drop("raspasy_se").sort([*features, "option"]))
    return Chart("raspasy", "raspasy", features, options, table, start, min_n, {}, wide,
                 model.name)


def _pairs(part: pl.DataFrame, a: str, b: str) -> tuple[float, float, int]:
    """Mean, SE and n of ``a − b`` over the pairs of ``part`` where both are legal."""
    diff = (part[a].to_numpy().astype(float) - part[b].to_numpy().astype(float))
    return _stats(diff[~np.isnan(diff)])


def robustness(chart: Chart, others: Sequence[Chart]) -> pl.DataFrame:
    """Per cell of ``chart`` (the default players'): whether its advice is ``robust``
    under every chart of ``others`` (the same chart under other models), ``breaks`` (the
    models whose pairs prefer another option by 1.96 SE), ``unmeasured`` (those with
    fewer than :data:`VERDICT_PAIRS` pairs in the cell) and ``gain_min``/``gain_max``,
    the advice's gain as a rule states it (over passing; a pass's over the best option)
    under the default and every measured model. A cell with no option of ``min_n`` pairs
    is never robust-tested (null)."""
    features = chart.features
    parts = [o.wide.partition_by(features, as_dict=True) for o in others]
    rows = []
    for key, cell in chart.table.group_by(features, maintain_order=True):
        advice = cell["advice"][0]
        enough = cell.filter(pl.col("enough"))
        row = dict(zip(features, key, strict=True))
        if enough.is_empty():
            rows.append({**row, "robust": None, "gain_min": None, "gain_max": None,
                         "breaks": "", "unmeasured": ""})
            continue
        best = enough.sort("gain", descending=True)["option"][0]
        a, b = (advice, "pass") if advice != "pass" else ("pass", best)
        gains = [_pairs(chart.wide.filter(*(pl.col(f) == v for f, v in row.items())),
                        a, b)[0]]
        breaks, unmeasured = [], []
        for other, by_cell in zip(others, parts, strict=True):
            part = by_cell.get(tuple(key))
            if part is None or _pairs(part, a, b)[2] < VERDICT_PAIRS:
                unmeasured.append(other.model)
                continue
            gains.append(_pairs(part, a, b)[0])
            for o in ["pass", *chart.options]:
                if o == advice:
                    continue
                mean, se, n = _pairs(part, o, advice)
                if n >= VERDICT_PAIRS and mean > Z95 * se:
                    breaks.append(other.model)
                    break
        rows.append({**row, "robust": False if breaks else (None if unmeasured else True),
                     "gain_min": min(gains), "gain_max": max(gains),
                     "breaks": ",".join(breaks), "unmeasured": ",".join(unmeasured)})
    schema = pl.Schema({**chart.table.select(features).schema, "robust": pl.Boolean(),
                        "gain_min": pl.Float64(), "gain_max": pl.Float64(),
                        "breaks": pl.String(), "unmeasured": pl.String()})
    return pl.DataFrame(rows, schema=schema)


def with_robustness(chart: Chart, others: Sequence[Chart]) -> Chart:
    """``chart`` with :func:`robustness`'s columns in its table and every model's cells
    (the default's and ``others``') as its ``models``."""
    order = chart.table.with_row_index("_order")
    chart.table = (order.join(robustness(chart, others), on=chart.features, how="left")
                   .sort("_order").drop("_order"))
    columns = [c for c in chart.table.columns if c in others[0].table.columns] if others \
        else chart.table.columns
    chart.models = pl.concat(
        [t.select(columns) for t in (chart.table, *(o.table for o in others))])
    return chart

