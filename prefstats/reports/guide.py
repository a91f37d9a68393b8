"""``prefstats guide``: sections 1 and 2 distilled into a one-page bidding and whisting
guide (``guide.md``) -- when to bid each level, when a misère pays, when to whist,
half-whist or pass -- every rule with the figure (and its 95% CI and sample) behind it.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from prefstats.reports.bidding import bidding_table, hand_rows, misere_table, thresholds
from prefstats.reports.meta import deal_dataset
from prefstats.reports.stats import MIN_SAMPLES
from prefstats.reports.whist import whist_table
from prefstats.storage import atomic_write, load
from prefstats.variants import describe


def _ci(row: dict, col: str, digits: int = 1, scale: float = 1.0) -> str:
    return (f"{row[col] * scale:+.{digits}f} [{row[f'{col}_lo'] * scale:+.{digits}f}, "
            f"{row[f'{col}_hi'] * scale:+.{digits}f}]")


def _bidding_rules(bids: pl.DataFrame, key: str, name: str) -> list[str]:
    """One line per level: from which class ``key`` (called ``name``) declaring pays."""
    lines = []
    start = {r["level"]: r for r in thresholds(bids, by=key).iter_rows(named=True)}
    for level in range(6, 11):
        seen = bids.filter((pl.col("level") == level) & pl.col("enough"))
        if level in start:
            r = start[level]
            lines.append(f"- **Bid {level}** with {r[key]}+ {name}: made "
                         f"{100 * r['p_make']:.0f}% [{100 * r['p_make_lo']:.0f}, "
                         f"{100 * r['p_make_hi']:.0f}], gain {_ci(r, 'gain')} (n = {r['n']:,}; "
                         f"the players bid it with {100 * r['bid_share']:.2g}% of such hands).")
        elif len(seen.filter(pl.col("gain_lo") > 0)):
            paid = seen.filter(pl.col("gain_lo") > 0)
            lines.append(f"- **{level}: no single threshold** (the gain does not stay above zero "
                         f"from any class up); it paid with " + ", ".join(
                             f"{r[key]} {name} ({_ci(r, 'gain')}, n = {r['n']:,})"
                             for r in paid.iter_rows(named=True)) + ".")
        elif len(seen):
            best = seen.sort("gain", descending=True).row(0, named=True)
            lines.append(f"- **Do not bid {level}**: no class gains with 95% confidence; the "
                         f"best, {best[key]} {name}, gives {_ci(best, 'gain')} "
                         f"(n = {best['n']:,}).")
        else:
            lines.append(f"- **{level}**: too few declared deals to say.")
    return [*lines, ""]


def guide_lines(lf: pl.LazyFrame, variant: str) -> list[str]:
    """The guide's markdown lines for the deals in ``lf``."""
    rows = hand_rows(lf)
    misere, whists = misere_table(lf, rows=rows), whist_table(lf)
    lines = [f"# {variant}: when to bid and when to whist", "",
             "Hand points = best-suit length + its A K Q + aces outside it (dealt cards); "
             "expected tricks = the built-in evaluator's estimate for the dealt hand in its "
             "best strain. "
             "Gains are whists per deal against passing, with 95% CIs; n is the number of "
             f"deals behind the figure (classes with fewer than {MIN_SAMPLES} are ignored). "
             "They describe what the simulated players' choices earned: where the players bid a "
             "level with few hands of a class, the figure holds for the hands they picked.", "",
             "## Bidding", ""]
    for key, name, title in (("points", "points", "hand points"),
                             ("est_tricks", "expected tricks", "the evaluator's expected tricks")):
        lines += [f"By {title}:", "",
                  *_bidding_rules(bidding_table(lf, (key,), rows=rows), key, name)]
    lines += ["## Misère", ""]
    shown = misere.filter("enough")
    if not len(shown):
        lines.append("- Too few misères to say.")
    for r in shown.iter_rows(named=True):
        verdict = "pays" if r["gain_lo"] > 0 else "does not pay" if r["gain_hi"] < 0 else "is even"
        lines.append(f"- {r['holes']} hole(s), {r['short_holes']} short: caught "
                     f"{100 * r['p_caught']:.0f}%, gain {_ci(r, 'gain')}: **{verdict}** "
                     f"(n = {r['n']:,}).")
    lines += ["", "## Whisting", ""]
    start = {r["level"]: r for r in thresholds(whists, by="high_cards").iter_rows(named=True)}
    for level in range(6, 11):
        seen = whists.filter((pl.col("level") == level) & pl.col("enough"))
        if level in start:
            r = start[level]
            lines.append(f"- **Whist {level}** with {r['high_cards']}+ aces and kings: gain "
                         f"{_ci(r, 'gain')} (n = {r['ev_whist_n']:,} whists).")
        elif len(seen):
            lines.append(f"- **Pass on {level}**: whisting never beat passing in a class with "
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


def guide(path: str | Path, out: str | Path) -> Path:
    """Write ``guide.md`` for the deal dataset at ``path`` into the folder ``out``."""
    _, variant = deal_dataset(path, "the guide reads deals (made by prefstats simulate)")
    text = "\n".join(guide_lines(load(path), describe(variant))) + "\n"
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    target = target / "guide.md"
    atomic_write(target, text.encode("utf-8"))
    return target
