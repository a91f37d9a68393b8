"""``prefstats guide``: a one-page bidding and whisting guide (``guide.md``) -- when to
bid, when a misère pays, when to whist, half-whist or pass.

Its advice comes only from paired counterfactual figures
(:mod:`prefstats.reports.counterfactual`): the first deals of the dataset's own deal
stream played with the decision forced to each option and to a pass, every other
decision by the built-in heuristic players. A rule is stated only where the gain is at
least :data:`~prefstats.reports.counterfactual.DECISIVE_SE` standard errors from zero.
What the dataset's players chose and earned (sections 1 and 2 of the report) follows
under a heading that says it is observational, not advice.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from prefstats.errors import OptionError
from prefstats.game.deal import deal
from prefstats.game.variants import Variant, describe
from prefstats.players.pimc import DEFAULT_WORLDS
from prefstats.reports.bidding_section import bidding_table, hand_sums, misere_table, thresholds
from prefstats.reports.counterfactual import (
    DECISIVE_SE,
    by_holes,
    by_honours,
    by_level,
    by_points,
    by_tricks,
    decisive,
    gains,
    policy_table,
    regroup,
    seat_rollouts,
    seat_table,
    threshold,
)
from prefstats.reports.meta import deal_dataset
from prefstats.reports.stats import MIN_SAMPLES
from prefstats.reports.whist import MAX_HIGH, whist_table
from prefstats.sim._chunks import atomic_write
from prefstats.sim.storage import load

#: Deals rolled out per seat for bidding and whisting (misère: :data:`MISERE_DEALS`).
GUIDE_DEALS = 15_000
#: Deals rolled out per seat for misère against pass (and at most a fifth of the trick
#: deals): a misère branch costs about ten trick branches.
MISERE_DEALS = 3_000
#: Deals rolled out per seat under the search player for the player-model table (and at
#: most a tenth of the trick deals): its card play costs about forty heuristic deals.
SEARCH_DEALS = 1_500
#: The player model the counterfactual figures hold for.
PLAYER_MODEL = ("every other decision by the built-in heuristic players with default "
                "parameters")
#: The same, as each advice sentence names it.
MODEL = "with the built-in heuristic players making every other decision"
#: The heading of the observational part.
OBSERVED = "What the simulated players did — observational, not advice"


def _ci(row: dict, col: str, digits: int = 1, scale: float = 1.0) -> str:
    return (f"{row[col] * scale:+.{digits}f} [{row[f'{col}_lo'] * scale:+.{digits}f}, "
            f"{row[f'{col}_hi'] * scale:+.{digits}f}]")


def figure(row: dict) -> str:
    """A gain row as the advice quotes it: mean in whists a deal, 95% CI, n and SE."""
    z = row["mean"] / row["se"] if row["se"] > 0 else float("inf")
    return (f"{row['mean']:+.1f} whists a deal, 95% CI [{row['lo']:+.1f}, {row['hi']:+.1f}], "
            f"n = {row['n']:,}, SE {row['se']:.2f} ({z:+.1f} SE)")


def advice(table: pl.DataFrame, name: str, do: str, dont: str, upward: bool = True,
           option: str = "the option") -> list[str]:
    """The verdict on one option against passing from its :func:`gains` ``table`` (classes
    called ``name``), then one line per class. ``do`` and ``dont`` are the advice ("Bid",
    "Pass rather than bid"); ``option`` names the option in the figures ("bidding");
    with ``upward`` False the classes run downward (misère: the fewer holes, the better),
    so the threshold is the most holes up to which it pays. Each sentence says what to
    do, for which hands, from which figure and under which player model (:data:`MODEL`)."""
    order = table.sort("cls", descending=not upward)
    start = threshold(order, upward=upward)
    enough = order.filter(pl.col("n") >= MIN_SAMPLES)
    hands = "or more" if upward else "or fewer"
    beyond = "above" if upward else "below"
    if start is not None and decisive(start):
        verdict = (f"- **{do} with {start['cls']} {hands} {name}** ({MODEL}): at "
                   f"{start['cls']} {name}, {option} gains {figure(start)} over passing, "
                   f"and the gain is positive with 95% confidence in every class {beyond} "
                   f"with {MIN_SAMPLES}+ pairs.")
    elif start is not None:
        verdict = (f"- **No advice** ({MODEL}): with {start['cls']} {hands} {name}, {option} "
                   f"gains over passing with 95% confidence, but at {start['cls']} {name} "
                   f"the gain, {figure(start)}, is less than {DECISIVE_SE:g} SE from zero.")
    elif len(enough) and all(r["mean"] < 0 and decisive(r)
                             for r in enough.iter_rows(named=True)):
        closest = enough.sort("mean", descending=True).row(0, named=True)
        verdict = (f"- **{dont} with every hand** ({MODEL}): {option} loses to passing by "
                   f"{DECISIVE_SE:g}+ SE in every class with {MIN_SAMPLES}+ pairs; the "
                   f"closest, {closest['cls']} {name}: {figure(closest)}.")
    elif len(enough):
        verdict = (f"- **No advice** ({MODEL}): there is no class of {name} from which "
                   f"{option} gains over passing with 95% confidence in it and every class "
                   f"{beyond}.")
    else:
        verdict = (f"- **No advice**: too few deals reached the decision (fewer than "
                   f"{MIN_SAMPLES} a class).")
    return [verdict, *(f"  - {r['cls']} {name}: {figure(r)}"
                       for r in order.sort("cls").iter_rows(named=True)), ""]


def counterfactual_lines(variant: Variant, seed: int, deals: int = GUIDE_DEALS,
                         misere_deals: int = MISERE_DEALS, workers: int = 1,
                         search_deals: int = SEARCH_DEALS) -> list[str]:
    """The guide's advice: first call (bid, misère) and whist call against passing, on the
    first ``deals`` (misère: ``misere_deals``) deals of the stream of ``seed``; the
    first-call gain under other continuation policies, the search player's on the first
    ``search_deals`` (at most ``deals``)."""
    search_deals = min(search_deals, deals)
    stream = deal(max(deals, misere_deals), seed=seed)
    lines = [f"Every figure below is a paired counterfactual: the first {deals:,} deals of "
             f"this dataset's deal stream (seed {seed}; misère: the first {misere_deals:,}) "
             "played at every seat once with the seat's decision forced to the option and "
             f"once forced to a pass, {PLAYER_MODEL}. The gain is the mean difference in "
             "whists a deal to the seat, with its 95% CI; n counts the (seat, deal) pairs "
             "where both calls were legal. A threshold is the lowest class from which the "
             "gain is positive with 95% confidence and stays positive in every class above "
             f"it (classes with fewer than {MIN_SAMPLES} pairs are ignored); a rule is given "
             f"only where that gain is at least {DECISIVE_SE:g} standard errors from zero. "
             "The figures hold for this player model: against other players they can differ.",
             "", "## First call: bid or pass", "",
             "The lowest bid of a trick game at the seat's first call, against passing, by "
             "hand points (best-suit length + its A K Q + aces outside it):", ""]
    first = seat_rollouts(variant, stream[:deals], "first_call", ["pass", "bid"], by_points,
                          seed=seed, workers=workers)
    lines += advice(gains(first, "pass", "bid"), "points", "Bid at your first call",
                    "Pass rather than bid", option="bidding")
    lines += ["The same deals by the evaluator's expected tricks (the built-in evaluator's "
              "estimate of the dealt hand's final tricks in its best strain, rounded):", ""]
    lines += advice(gains(regroup(first, by_tricks), "pass", "bid"), "expected tricks",
                    "Bid at your first call", "Pass rather than bid", option="bidding")
    lines += ["## First call: misère or pass", "",
              "Misère at the seat's first call against passing, by holes (suits in which the "
              "declarer cannot always play under):", ""]
    mis = seat_rollouts(variant, stream[:misere_deals], "first_call", ["pass", "misere"],
                        by_holes, seed=seed, workers=workers)
    lines += advice(gains(mis, "pass", "misere"), "hole(s)", "Call misère", "Pass rather than "
                    "call misère", upward=False, option="misère")
    calls = ["pass", "whist"] + (["half"] if variant.half_whist else [])
    whist = seat_rollouts(variant, stream[:deals], "whist", calls, by_honours, seed=seed,
                          workers=workers)
    lines += ["## Whisting", "",
              "The first whist call as a defender of a trick game (every level pooled), "
              f"against passing, by the defender's aces and kings ({MAX_HIGH} = "
              f"{MAX_HIGH} or more):", "", "Whist:", ""]
    lines += advice(gains(whist, "pass", "whist"), "aces and kings", "Whist", "Pass rather "
                    "than whist", option="whisting")
    if variant.half_whist:
        lines += ["Half-whist:", "", *advice(gains(whist, "pass", "half"), "aces and kings",
                                             "Half-whist", "Pass rather than half-whist",
                                             option="half-whisting")]
    lines += [seat_table("Whist against pass by the level defended and the defender's seat "
                         "(whists a deal, 95% CI)", by_level(whist), range(6, 11), "pass",
                         "whist", "level"), ""]
    random = seat_rollouts(variant, stream[:deals], "first_call", ["pass", "bid"], by_points,
                           seed=seed, workers=workers, policy="random")
    search = seat_rollouts(variant, stream[:search_deals], "first_call", ["pass", "bid"],
                           by_points, seed=seed, workers=workers, policy="pimc")
    lines += ["## The player model is an assumption", "",
              "The first-call gain of bidding by hand points on the same deals, with every "
              "other decision by the heuristic players; by players who choose uniformly "
              "among the legal calls and cards (a sanity check, not a model of real "
              "players); and, on the first "
              f"{search_deals:,} of those deals, by the search player (`policy = \"pimc\"`: "
              "the heuristic's calls, and every card of a closed game chosen by sampling "
              f"{DEFAULT_WORLDS} deals consistent with what the seat knows and solving each "
              "double dummy: card play stronger than the heuristic's). "
              "Where they differ, the figure is a property of the players as much as of "
              "the hand.", "",
              policy_table("Bid against pass at the first call, by continuation policy "
                           "(whists a deal, 95% CI)",
                           {"heuristic": first, "random": random, "search (PIMC)": search},
                           range(4, 11), "pass", "bid", "points"), ""]
    return lines


def _bidding_rules(bids: pl.DataFrame, key: str, name: str) -> list[str]:
    """One line per level: in which classes ``key`` (called ``name``) the simulated
    players who declared that level earned more than those of the class who passed
    (observational: a description of the players' choices, worded as such)."""
    lines = []
    start = {r["level"]: r for r in thresholds(bids, by=key).iter_rows(named=True)}
    said = ("what the players' own choices earned, not what a hand should do (that is "
            "the paired figures above)")
    for level in range(6, 11):
        seen = bids.filter((pl.col("level") == level) & pl.col("enough"))
        if level in start:
            r = start[level]
            lines.append(f"- **{level} declared** with {r[key]}+ {name} beat passing: from "
                         f"{r[key]} {name} on, the players who declared {level} earned "
                         f"{_ci(r, 'gain')} whists a deal more than those of the class who "
                         f"passed (95% CI, n = {r['n']:,}) and made it {100 * r['p_make']:.0f}% "
                         f"[{100 * r['p_make_lo']:.0f}, {100 * r['p_make_hi']:.0f}]; they "
                         f"declared it with {100 * r['bid_share']:.2g}% of such hands. This is "
                         f"{said}.")
        elif len(seen.filter(pl.col("gain_lo") > 0)):
            paid = seen.filter(pl.col("gain_lo") > 0)
            lines.append(f"- **{level}: no single threshold**: no class from which the "
                         f"players' {level} declarations earned more than their passes in it "
                         f"and every class above; they earned more (whists a deal, 95% CI) "
                         f"only with " + ", ".join(
                             f"{r[key]} {name} ({_ci(r, 'gain')}, n = {r['n']:,})"
                             for r in paid.iter_rows(named=True)) + f". This is {said}.")
        elif len(seen):
            best = seen.sort("gain", descending=True).row(0, named=True)
            lines.append(f"- **{level} declared never beat passing** with 95% confidence in "
                         f"the players' own choices; their best class, {best[key]} {name}, "
                         f"gives {_ci(best, 'gain')} whists a deal (n = {best['n']:,}).")
        else:
            lines.append(f"- **{level}**: too few declared deals to say.")
    return [*lines, ""]


def observed_lines(lf: pl.LazyFrame) -> list[str]:
    """What the dataset's players chose and earned, by hand class, under :data:`OBSERVED`."""
    rows = hand_sums(lf)
    misere, whists = misere_table(lf, rows=rows), whist_table(lf)
    lines = [f"## {OBSERVED}", "",
             "These figures compare the calls the simulated players chose: each class's "
             "declarers (or whisters) against the hands of that class that passed. The "
             "players pick which hands bid, so a class average says nothing about what a "
             "hand of that class should do; read them as a description of the players, "
             "never as advice. Expected tricks = the built-in evaluator's estimate for the "
             "dealt hand in its best strain; gains in whists per deal, 95% CIs "
             f"(classes with fewer than {MIN_SAMPLES} deals are ignored).", ""]
    for key, name, title in (("points", "points", "hand points"),
                             ("est_tricks", "expected tricks", "the evaluator's expected tricks")):
        lines += [f"### Declaring, by {title}", "",
                  *_bidding_rules(bidding_table(lf, (key,), rows=rows), key, name)]
    lines += ["### Misère", ""]
    shown = misere.filter("enough")
    if not len(shown):
        lines.append("- Too few misères to say.")
    for r in shown.iter_rows(named=True):
        verdict = "paid" if r["gain_lo"] > 0 else "lost" if r["gain_hi"] < 0 else "was even"
        lines.append(f"- {r['holes']} hole(s), {r['short_holes']} short: caught "
                     f"{100 * r['p_caught']:.0f}%, gain {_ci(r, 'gain')}: {verdict} "
                     f"(n = {r['n']:,}).")
    lines += ["", "### Whisting", ""]
    start = {r["level"]: r for r in thresholds(whists, by="high_cards").iter_rows(named=True)}
    for level in range(6, 11):
        seen = whists.filter((pl.col("level") == level) & pl.col("enough"))
        if level in start:
            r = start[level]
            lines.append(f"- **{level} whisted** with {r['high_cards']}+ aces and kings beat "
                         f"passing: gain {_ci(r, 'gain')} (n = {r['ev_whist_n']:,} whists).")
        elif len(seen):
            lines.append(f"- **{level}**: whisting never beat passing in a class with "
                         "enough deals.")
        else:
            lines.append(f"- **{level}**: too few defended deals to say.")
        half = whists.filter((pl.col("level") == level) & (pl.col("ev_half_whist_n")
                                                            >= MIN_SAMPLES)
                             & (pl.col("ev_pass_n") >= MIN_SAMPLES))
        for r in half.iter_rows(named=True):
            lines.append(f"  - half-whist with {r['high_cards']} A+K: "
                         f"{_ci(r, 'ev_half_whist')} against passing {_ci(r, 'ev_pass')} "
                         f"(n = {r['ev_half_whist_n']:,} and {r['ev_pass_n']:,}).")
    return lines


def guide_lines(lf: pl.LazyFrame, variant: Variant, seed: int, deals: int = GUIDE_DEALS,
                misere_deals: int = MISERE_DEALS, workers: int = 1,
                search_deals: int = SEARCH_DEALS) -> list[str]:
    """The guide's markdown lines: the counterfactual advice for ``variant`` on the deal
    stream of ``seed``, then the observational figures of the deals in ``lf``."""
    return [f"# {describe(variant)}: when to bid and when to whist", "",
            *counterfactual_lines(variant, seed, deals, misere_deals, workers, search_deals),
            "",
            *observed_lines(lf)]


def guide(path: str | Path, out: str | Path, deals: int = GUIDE_DEALS,
          misere_deals: int = MISERE_DEALS, workers: int = 1,
          search_deals: int = SEARCH_DEALS) -> Path:
    """Write ``guide.md`` for the deal dataset at ``path`` into the folder ``out``: the
    advice from its first ``deals`` deals (at most the dataset's size; for misère
    ``misere_deals``, at most a fifth of those; under the search player
    ``search_deals``, at most a tenth) rolled out at every seat under the dataset's
    variant and seed, then the dataset's observational figures.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.simulate import simulate
    >>> data, out = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> _ = simulate(get_variant("sochi"), hands=60, seed=1, out=data, workers=1,
    ...              progress=False)
    >>> guide(data, out, deals=10, misere_deals=2, search_deals=1).name
    'guide.md'
    """
    manifest, variant = deal_dataset(path, "the guide reads deals (made by prefstats simulate)")
    for name, n in (("deals", deals), ("misere_deals", misere_deals),
                    ("search_deals", search_deals)):
        if not isinstance(n, int) or n < 1:
            raise OptionError(f"{name} must be a positive number of deals, got {n!r}")
    lf = load(path)
    n = max(1, min(deals, lf.select(pl.len()).collect().item()))
    # the dataset's own deals: a guide never rolls out deals the dataset does not hold
    text = "\n".join(guide_lines(lf, variant, int(manifest["spec"]["seed"]),
                                 n, max(1, min(misere_deals, n // 5)), workers,
                                 max(1, min(search_deals, n // 10)))) + "\n"
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    target = target / "guide.md"
    atomic_write(target, text.encode("utf-8"))
    return target
