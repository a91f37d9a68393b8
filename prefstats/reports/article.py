"""The rule-comparison article (``prefstats compare`` with no datasets): every preset,
3 players and 4 where the preset has them, played on the same deals (one seed). Its title
is the finding on which the tables part most; a summary gives the five headline
findings; each section opens with its finding, then a numbered figure, then the table;
the methods and the commands that remake it come last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from prefstats.analysis.skill import skill_edge
from prefstats.game.engine import RASPASY
from prefstats.game.variants import Variant, describe, differences, get_variant, overrides
from prefstats.reports import charts, compare, meta, panel_charts, seats, sheet
from prefstats.reports.charts import TITLE_CHARS
from prefstats.reports.headlines import Estimate, Finding, finding, main_title
from prefstats.reports.render import Block, Report, Section, write_report
from prefstats.reports.stats import MIN_SAMPLES
from prefstats.sim.storage import DatasetError, load, manifest_of, to_codes

PRESETS = ("sochi", "leningrad", "rostov", "classic", "gusarik")
#: Deals within which a pulka must close (a common tournament cap).
CAP = 18
#: The heading of the last section, where the main text ends.
METHODS = "Methods and commands"
#: Deals the skill edge is played on, at most: it plays each deal four times on one core,
#: and at 50,000 its interval is already a few percent of the edge.
SKILL_DEALS = 50_000


def spoken_name(variant: Variant) -> str:
    """The variant as players name it: "Sochi", "Sochi (4 players)"; a house variant
    by its preset and the options it changes."""
    if overrides(variant):
        return describe(variant)
    name = variant.base.capitalize()
    if variant.players == get_variant(variant.base).players:
        return name
    return f"{name} ({variant.players} players)"


@dataclass(frozen=True)
class Dataset:
    """One variant of the article: its ``simulate`` and ``simulate-pulkas
    --with-deals`` datasets."""

    variant: Variant
    deals: Path
    pulkas: Path

    @property
    def label(self) -> str:
        return spoken_name(self.variant)


def article_variants() -> list[Variant]:
    """Every preset at its own table, and with 4 players where the preset allows."""
    out = []
    for name in PRESETS:
        own = get_variant(name)
        out.append(own)
        if own.players == 3:
            out.append(get_variant(name, players=4))
    return out


def make_datasets(data: str | Path, *, deals: int, pulkas: int, pool_target: int, seed: int,
                  variants: Sequence[Variant] | None = None, **options: Any) -> list[Dataset]:
    """Simulate (or resume) each variant's deals and pulkas under ``data``, all with
    ``seed``; ``options`` go to the simulations (``workers``, ``progress``, ``force``)."""
    from prefstats.sim.simulate import simulate, simulate_pulkas

    out = []
    for v in variants or article_variants():
        key = f"{v.base}-{v.players}p"
        made = Dataset(v, Path(data) / key, Path(data) / f"{key}-pulkas")
        simulate(v, hands=deals, seed=seed, out=made.deals, **options)
        simulate_pulkas(v, pulkas=pulkas, pool_target=pool_target, seed=seed,
                        out=made.pulkas, with_deals=True, chunk_size=max(pulkas // 4, 50),
                        **options)
        out.append(made)
    return out


def _check_paired(sets: Sequence[Dataset]) -> dict[str, Any]:
    """The deal manifests, once every dataset is known to hold the first one's deals
    (made with its seed); else a clear refusal of the paired comparison."""
    manifests = {s.label: manifest_of(s.deals) for s in sets}
    first = sets[0]
    seed = manifests[first.label]["spec"]["seed"]
    for s in sets:
        for path in (s.deals, s.pulkas):
            theirs = manifest_of(path)["spec"]["seed"]
            if theirs != seed:
                raise DatasetError(
                    f"{path} was made with seed {theirs} and {first.deals} with seed {seed}: "
                    "their deals differ, so the article's paired comparison is refused; "
                    "remake them with one --seed")
        if s is not first and not compare.same_deals(load(first.deals), load(s.deals)):
            raise DatasetError(f"{s.deals} and {first.deals} do not hold the same deals, so "
                               "the article's paired comparison is refused")
    return manifests


def _wide(rows: Sequence[tuple[str, str, Mapping[str, tuple]]], labels: Sequence[str]
          ) -> pl.DataFrame:
    """A table with a column per variant: each row a measure, its ``unit`` (a kind of
    figure of :data:`~prefstats.reports.render.FIGURES`) and per variant ``(value,
    lo, hi, n)``; a value on fewer than MIN_SAMPLES samples is left out."""
    data: dict[str, list] = {"measure": [], "unit": []}
    for label in labels:
        data |= {label: [], f"{label}_lo": [], f"{label}_hi": []}
    for measure, unit, values in rows:
        data["measure"].append(measure)
        data["unit"].append(unit)
        for label in labels:
            v, lo, hi, n = values.get(label, (None, None, None, 0))
            ok = n >= MIN_SAMPLES and v is not None and np.isfinite(v)
            data[label].append(float(v) if ok else None)
            data[f"{label}_lo"].append(float(lo) if ok and lo is not None else None)
            data[f"{label}_hi"].append(float(hi) if ok and hi is not None else None)
    return pl.DataFrame(data, schema_overrides={k: pl.Float64 for k in data
                                                if k not in ("measure", "unit")}
                        ).with_columns(enough=pl.lit(True))


def _columns(labels: Sequence[str]) -> list[tuple[str, str, str]]:
    return [("", "measure", "text"), *((label, label, "unit") for label in labels)]


def _long(values: Mapping[str, tuple], name: str = "y") -> pl.DataFrame:
    """``variant``, ``name`` with its interval and ``enough``, a row per variant."""
    return pl.DataFrame({
        "variant": list(values), name: [float(v[0]) for v in values.values()],
        f"{name}_lo": [float(v[1]) for v in values.values()],
        f"{name}_hi": [float(v[2]) for v in values.values()],
        "enough": [bool(v[3] >= MIN_SAMPLES and np.isfinite(v[0])) for v in values.values()]})


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _num(digits: int) -> Callable[[float], str]:
    return lambda x: f"{x:,.{digits}f}"


def _opening(found: Finding | None, what: str) -> str:
    """A section's first sentence: its finding, or why there is none."""
    return found.sentence if found else f"Too few samples to compare {what}."


def _variant_bars(table: pl.DataFrame, path: Path, *, colours, **labels) -> list[Path]:
    """A bar per table, in the article's column width."""
    return charts.bar_chart(table, path, x="variant", y="y", colours=colours,
                            zero_line=False, column=True, **labels)


def _length_section(sets, pulkas, colours) -> tuple[Section, Finding | None]:
    curves, summary = [], {}
    for s in sets:
        table, row = compare.closing(pulkas[s.label], CAP)
        curves.append(table.with_columns(variant=pl.lit(s.label)))
        summary[s.label] = row
    within = {k: (r["within"], r["within_lo"], r["within_hi"], r["n"]) for k, r in
              summary.items()}
    mean = {k: (r["mean"], r["mean_lo"], r["mean_hi"], r["n"]) for k, r in summary.items()}
    labels = [s.label for s in sets]
    table = _wide([
        ("pulkas played", "count", {k: (r["n"], None, None, r["n"]) for k, r in
                                    summary.items()}),
        ("deals to close a pulka (mean)", "deals", mean),
        ("deals to close a pulka (median)", "deals", {k: (r["median"], None, None, r["n"])
                                                      for k, r in summary.items()}),
        (f"closes within {CAP} deals", "share", within)], labels)
    best = max(within, key=lambda k: within[k][0])
    title = (f"Pulkas of {best} close soonest: {100 * within[best][0]:.0f}% within {CAP} "
             "deals" if within[best][0] > 0 else f"No variant's pulka closes within {CAP} deals")
    caption = (f"The share of pulkas closed by each deal, per table, with 95% bands; the "
               f"dotted line is a cap of {CAP} deals.")
    chart = partial(charts.line_chart, x="deals", y="closed", group="variant",
                    colours=colours, percent=True, marker_at=CAP, title=title,
                    subtitle="Pulkas closed by each deal played, per table",
                    xlabel=f"deals played (dotted: the {CAP}-deal cap)",
                    ylabel="pulkas closed by then", caption=caption, column=True)
    found = finding(mean, lambda b, bv, s, sv: (
        f"A pulka lasts longest in {b}, {bv} deals on average, and is shortest in {s}, "
        f"{sv}."), lambda b, s, t: f"A pulka lasts {t} times as long in {b} as in {s}",
        _num(1))
    return Section("How long does a pulka last?", _opening(found, "how long pulkas last"), [
        Block("length", "Deals to close a pulka", "", table, _columns(labels), chart,
              chart_table=pl.concat(curves), caption=caption)]), found


def _raspasy_section(sets, deals, pulka_deals, colours) -> tuple[Section, Finding | None]:
    labels = [s.label for s in sets]
    chains = {s.label: compare.raspasy_chains(pulka_deals[s.label]) for s in sets}
    share = {k: (c["share"], c["share_lo"], c["share_hi"], c["n"]) for k, c in chains.items()}
    chain = {k: (c["chain"], c["chain_lo"], c["chain_hi"], c["runs"])
             for k, c in chains.items()}
    costs: dict[str, dict[str, tuple]] = {}
    for s in sets:
        rasp = to_codes(deals[s.label]).filter(pl.col("kind") == RASPASY)
        table, _ = seats.seat_luck(rasp)
        for r in table.iter_rows(named=True):
            costs.setdefault(r["name"], {})[s.label] = (r["mean"], r["mean_lo"], r["mean_hi"],
                                                        r["n"])
    table = _wide([("raspasy, share of pulka deals", "share", share),
                   ("raspasy in a run (mean)", "deals", chain),
                   *((f"value of a raspasy to the {seat} (whists, paired)", "whists", v)
                     for seat, v in costs.items())], labels)
    most = max(share, key=lambda k: share[k][0])
    caption = ("Raspasy (all pass) as a share of the deals of whole pulkas, with 95% "
               "intervals; the table adds how long their runs are and what a raspasy costs "
               "each seat on the same deals.")
    found = finding(share, lambda b, bv, s, sv: (
        f"Raspasy come most often in {b}, {bv} of deals, and least often in {s}, {sv}."),
        lambda b, s, t: f"Raspasy are {t} times as common in {b} as in {s}", _pct)
    return Section("How often do raspasy come, and what do they cost?",
                   _opening(found, "how often raspasy come"), [
        Block("raspasy", "Raspasy: how often, how long, what they cost", "", table,
              _columns(labels),
              partial(_variant_bars, colours=colours, percent=True,
                      title=f"Raspasy are most frequent in {most} "
                            f"({100 * share[most][0]:.0f}% of deals)",
                      subtitle="Raspasy (all pass) as a share of the deals of whole pulkas",
                      xlabel="", ylabel="raspasy (share of deals in pulkas)",
                      caption=caption),
              chart_table=_long(share), caption=caption)]), found


def _luck_section(sets, pulkas, edges, colours) -> tuple[Section, Finding | None]:
    labels = [s.label for s in sets]
    found = {s.label: compare.skill_against_luck(pulkas[s.label], edges[s.label])
             for s in sets}

    def of(key: str) -> dict[str, tuple]:
        return {k: (f[key], f[f"{key}_lo"], f[f"{key}_hi"], f["n"]) for k, f in found.items()}

    need = of("need")
    deals_edge = {k: (e["edge"], e["low"], e["high"], e["deals"]) for k, e in edges.items()}
    table = _wide([
        ("edge over the careless player (whists a deal he decides, paired)", "whists",
         deals_edge),
        ("deals a pulka (mean)", "deals", of("deals")),
        ("edge over a pulka (whists)", "whists", of("pulka_edge")),
        ("SD of one player's pulka result: the cards (whists)", "whists", of("sd")),
        ("pulkas before the better player is ahead at 95% confidence", "est:1", need),
        ("the cards' share of a pulka result (of its mean square)", "share", of("cards"))],
        labels)
    shown = [k for k in need if np.isfinite(need[k][0])]
    fewest = min(shown, key=lambda k: need[k][0], default=labels[0])
    most = max(shown, key=lambda k: need[k][0], default=labels[0])
    caption = ("Pulkas a player better by the measured edge needs to be ahead with 95% "
               "confidence (fewer: skill shows sooner), with 95% intervals; the model is in "
               "the methods.")
    headline = finding(need, lambda b, bv, s, sv: (
        f"Skill shows soonest in {s}, where the better player is ahead at 95% confidence "
        f"after {sv} pulkas, and latest in {b}, after {bv}."),
        lambda b, s, t: f"Skill shows {t} times sooner in {s} than in {b}", _num(1))
    return Section("How much do the cards decide, and how much skill?",
                   _opening(headline, "how soon skill shows"), [
        Block("luck", "Luck against skill", "", table, _columns(labels),
              partial(_variant_bars, colours=colours,
                      title=f"Skill shows soonest in {fewest}: {need[fewest][0]:,.1f} pulkas",
                      subtitle=(f"Pulkas before the better player is ahead at 95% "
                                f"confidence; latest in {most}, {need[most][0]:,.1f}"),
                      xlabel="", ylabel="pulkas before the better player is ahead",
                      caption=caption),
              chart_table=_long(need), caption=caption)]), headline


def _seats_section(sets, pulkas) -> Section:
    labels = [s.label for s in sets]
    seat_rows: dict[str, dict[str, tuple]] = {name: {} for name in seats.SEATS}
    tests = {}
    for s in sets:
        places, test = seats.pulka_seat_luck(pulkas[s.label])
        names = seats.starting_seats(s.variant)
        tests[s.label] = (test["p_value"], None, None, test["n"])
        for r in places.iter_rows(named=True):
            seat_rows.setdefault(names[r["seat"]], {})[s.label] = (
                r["mean"], r["mean_lo"], r["mean_hi"], r["n"])
    seat_rows = {name: v for name, v in seat_rows.items() if v}
    told = [k for k, t in tests.items() if t[3] >= MIN_SAMPLES and t[0] < 0.05]
    seat_text = (f"The seat a player starts in matters measurably only in {', '.join(told)}; "
                 "elsewhere the seat adds nothing measurable to the cards." if told else
                 "In no table does the seat a player starts in win or lose measurably.")
    seat_title = (f"The starting seat matters measurably only in {', '.join(told)}"
                  if told else "No starting seat wins or loses measurably in any table")
    if len(seat_title) > TITLE_CHARS:
        seat_title = f"The starting seat matters measurably in {len(told)} tables of {len(sets)}"
    caption = ("Mean pulka result by the seat a player starts in, with 95% intervals. The "
               "dealer deals the first deal (with 4 players he sits it out); in Gusarik the "
               "dummy is the first hand.")
    return Section("Does the seat matter?", seat_text, [
        Block("seats", "The seat's advantage", "",
              _wide([*((f"mean result, starting as {name} (whists)", "whists", v)
                       for name, v in seat_rows.items()),
                     ("p-value: the seat does not matter", "p", tests)], labels),
              _columns(labels),
              partial(charts.bar_chart, x="variant", y="y", group="seat",
                      colours=dict(zip(seats.SEATS, charts.SEAT_COLOURS, strict=True)),
                      zero_line=True, horizontal=True, dots=True, title=seat_title,
                      subtitle="Mean pulka result by the seat a player starts in",
                      xlabel="", ylabel="mean pulka result (whists)", caption=caption,
                      column=True),
              chart_table=pl.concat([_long(v).with_columns(seat=pl.lit(name))
                                     for name, v in seat_rows.items()]),
              caption=caption)])


#: The scoring's rewards the incentives section lists, from :data:`compare.METRICS`.
_REWARDS = ("value of a made six (declarer)", "value of a failed whist (whister)",
            "value of a caught misère (declarer)", "game value to the declarer (a trick game)",
            "defenders whisting (of defenders' calls)", "misère (of deals)",
            "trick games made (of trick games)")


def _incentives_section(sets, deals, colours) -> tuple[Section, Finding | None]:
    labels = [s.label for s in sets]
    metrics = compare.variant_metrics({s.label: deals[s.label] for s in sets})
    rows = []
    for name in _REWARDS:
        part = metrics.filter(pl.col("metric") == name)
        if len(part):
            rows.append((name, part["unit"][0], {r["variant"]: (
                r["value"], r["value_lo"], r["value_hi"], r["n"]) for r in part.iter_rows(
                    named=True)}))
    six: Mapping[str, Estimate] = rows[0][2] if rows else {}
    found = finding(six, lambda b, bv, s, sv: (
        f"A made six is worth most in {b}, {bv} whists to the declarer, and least in {s}, "
        f"{sv}."), lambda b, s, t: f"A made six pays {t} times as much in {b} as in {s}",
        _num(1))
    shown = {k: v for k, v in six.items() if v[3] >= MIN_SAMPLES and np.isfinite(v[0])}
    richest = max(shown, key=lambda k: shown[k][0], default=None)
    title = (f"A made six pays most in {richest}: {shown[richest][0]:,.1f} whists"
             if richest else "What a six, a failed whist and a caught misère are worth")
    caption = ("What a made six, a failed whist and a caught misère are worth to the "
               "player, in whists, on the same deals in every table, with 95% intervals; "
               f"each panel has its own scale, and a bar needs {MIN_SAMPLES} cases.")
    bars = metrics.filter(pl.col("metric").is_in(_REWARDS[:3])).rename(
        {"value": "y", "value_lo": "y_lo", "value_hi": "y_hi"})
    return Section("What does each variant reward?", _opening(found, "what a six pays"), [
        Block("incentives", "What the scoring pays", "", _wide(rows, labels),
              _columns(labels),
              partial(panel_charts.panel_bars, panel="metric", x="variant", y="y",
                      colours=colours, title=title,
                      subtitle="What a made six, a failed whist and a caught misère are "
                               "worth to the player, in whists",
                      panels=dict(zip(_REWARDS[:3], ("A made six, to the declarer",
                                                      "A failed whist, to the whister",
                                                      "A caught misère, to the declarer"),
                                      strict=True)),
                      counted=dict(zip(_REWARDS[:3], ("made sixes", "failed whists",
                                                       "caught misères"), strict=True)),
                      caption=caption),
              chart_table=bars, caption=caption)]), found


def _swings_section(sets, pulkas, colours) -> tuple[Section, Finding | None]:
    labels = [s.label for s in sets]
    found = {s.label: compare.swings(pulkas[s.label]) for s in sets}
    worst = {k: (f["worst"], f["worst_lo"], f["worst_hi"], f["n"]) for k, f in found.items()}
    best = {k: (f["best"], f["best_lo"], f["best_hi"], f["n"]) for k, f in found.items()}
    sd = {k: (f["sd"], f["sd_lo"], f["sd_hi"], f["n"]) for k, f in found.items()}
    deepest = min((k for k in worst if np.isfinite(worst[k][0])), key=lambda k: worst[k][0],
                  default=labels[0])
    losses = {k: (-v, -hi, -lo, n) for k, (v, lo, hi, n) in worst.items()}
    caption = ("The 1st percentile of one player's result at the end of a pulka, in whists, "
               "with 95% intervals: one pulka in 100 ends lower.")
    headline = finding(losses, lambda b, bv, s, sv: (
        f"The deepest losses come in {b}, where one pulka in 100 loses more than {bv} "
        f"whists, against {sv} in {s}."),
        lambda b, s, t: f"The worst pulkas lose {t} times as much in {b} as in {s}", _num(0))
    return Section("How big are the swings?", _opening(headline, "the worst pulkas"), [
        Block("swings", "The spread of a pulka's settlement", "",
              _wide([("SD of the settlement", "whists", sd),
                     ("worst 1% (1st percentile)", "whists", worst),
                     ("best 1% (99th percentile)", "whists", best)], labels),
              _columns(labels),
              partial(_variant_bars, colours=colours,
                      title=charts.minus(f"Deepest losses in {deepest}: 1 pulka in 100 "
                                         f"below {worst[deepest][0]:,.0f}"),
                      subtitle="The worst 1% of one player's pulka results, in whists",
                      xlabel="", ylabel="1st percentile of a result (whists)",
                      caption=caption),
              chart_table=_long(worst), caption=caption)]), headline


def _rules_section(sets) -> Section:
    labels = [s.label for s in sets]
    differ = differences({s.label: s.variant for s in sets})
    table = pl.DataFrame({"option": list(differ),
                          **{k: [differ[o][k] for o in differ] for k in labels}})
    return Section("Which rules differ?", f"The {len(sets)} tables differ in {len(differ)} "
                   "rule options (`prefstats variants show NAME` explains each).", [
        Block("rules", "Rules that differ", "", table,
              [("option", "option", "text"), *((k, k, "text") for k in labels)])])


def _paired_section(sets, deals) -> Section:
    return Section(f"Deal by deal against {sets[0].label}",
                   "Every headline figure's difference from the first table on the same "
                   "deals (shares in percentage points), and how much narrower pairing "
                   "makes the interval than an unpaired comparison.", [
        Block("paired", f"Differences from {sets[0].label}", "",
              compare.paired_differences(deals),
              [("variant", "variant", "text"), ("metric", "metric", "text"),
               ("n", "n", "int"), ("paired", "paired", "text"),
               ("difference", "diff", "unit_diff"), ("CI shrink", "ci_shrink", "share")])])


def _methods_section(sets, manifests, sizes: str, command: str, n_deals: int) -> Section:
    spec = manifests[sets[0].label]["spec"]
    paragraphs = [
        f"Every table is played on the same deals: seed {spec['seed']}, {sizes}, by the "
        f"built-in {spec['players']['policy']} players. The article is made by `{command}`; "
        "the commands below remake each table's data.",
        "Deal figures (what a raspasy costs each seat, the skill edge, what the scoring "
        "pays, the differences deal by deal) come from `prefstats simulate` datasets of one "
        "seed, which hold the same deals: they are paired. Pulka figures (length, raspasy "
        "shares and runs, luck, the seat, swings) come from `prefstats simulate-pulkas "
        "--with-deals` datasets of the same seed: pulka j is dealt the same cards in every "
        "table, but a rule that changes who bids or when a pulka ends soon sends them "
        "apart, so each table's interval stands on its own.",
        f"Every number is an estimate with its 95% interval; a figure on fewer than "
        f"{MIN_SAMPLES} samples is left out. Raspasy are counted in whole pulkas, with the "
        "exit rule and the progression in force. The swings are percentiles with "
        "distribution-free intervals. The players are simulated, not people: these are the "
        "rules' effects on one fixed way of playing.",
        "Luck against skill is a model. Every place of a pulka is played by the same "
        "built-in player, so the whole spread (SD) of a player's pulka result is the "
        f"cards' and the seat's. Skill is measured apart, on the first {n_deals:,} deals: "
        "the built-in heuristic's edge over a careless player (the same heuristic rating "
        "his hand a trick too high when he bids and when he whists: aggression 1.4 for "
        "0.4, whist appetite 1 for 0), put in each seat in turn among built-in players "
        "(`prefstats.analysis.skill`). That edge a deal, times the mean deals a pulka, "
        "times the share of deals a place decides (3 of 4 with 4 players), is the edge "
        "over a pulka; the pulkas the better player needs to be ahead with 95% confidence "
        "are (1.96·SD / edge)², and the cards' share of his pulka result is SD² / (SD² + "
        "edge²). Intervals: bootstrap over the pulkas with the edge's own (normal) "
        "uncertainty. The deals start fresh (no raspasy progression, no bombs). The search "
        "player (`pimc`) would be the natural stronger player but is too slow for every "
        "table here; `prefstats strength --policy pimc --against heuristic` gauges it.",
        "The seat: a player's seat is the one he starts the pulka in, named as in its first "
        "deal: first hand, second hand (third hand with 4 players) and the dealer, who "
        "deals it (with 4 players he sits it out; in Gusarik the dummy is the first hand). "
        "The p-value tests that every seat's mean is zero. Each table's bid and whist "
        "thresholds by hand are its hand charts (`prefstats guide --variant NAME`).",
        "What the Preferans books have printed for decades, figure by figure, is checked "
        "with the same dealing and players in [What the books say, checked]"
        "(../books/article.md) (`prefstats books`)."]
    commands = pl.DataFrame({
        "table": [s.label for s in sets for _ in (0, 1)],
        "data": ["deals", "pulkas"] * len(sets),
        "command": [meta.remake_command(manifest_of(path)["spec"], s.variant) + extra
                    for s in sets for path, extra in ((s.deals, ""),
                                                      (s.pulkas, " --with-deals"))]})
    return Section(METHODS, "\n\n".join(paragraphs), [
        Block("commands", "Commands", "", commands,
              [("table", "table", "text"), ("data", "data", "text"),
               ("command", "command", "text")])])


def article_report(sets: Sequence[Dataset], command: str) -> Report:
    """The article over ``sets`` (the first is the baseline of the paired table);
    refused unless every dataset holds the first one's deals."""
    manifests = _check_paired(sets)
    deals = {s.label: load(s.deals) for s in sets}
    pulkas = {s.label: load(s.pulkas) for s in sets}
    pulka_deals = {s.label: load(s.pulkas / "deals") for s in sets}
    spec = manifests[sets[0].label]["spec"]
    edges = {s.label: skill_edge(s.variant, deals=min(spec["hands"], SKILL_DEALS),
                                 seed=spec["seed"]) for s in sets}
    colours = {s.label: charts.variant_colour(s.variant.base, s.variant.players)
               for s in sets}
    pspec = manifest_of(sets[0].pulkas)["spec"]
    sizes = (f"{spec['hands']:,} deals and {pspec['pulkas']:,} pulkas to "
             f"{pspec['pool_target']} a table")
    source = charts.source_line(version=spec["package_version"], deals=sizes,
                                seed=spec["seed"], command=command)
    made = [_length_section(sets, pulkas, colours),
            _raspasy_section(sets, deals, pulka_deals, colours),
            _luck_section(sets, pulkas, edges, colours),
            _incentives_section(sets, deals, colours),
            _swings_section(sets, pulkas, colours)]
    found = [f for _, f in made]
    sections = [section for section, _ in made]
    sections.insert(3, _seats_section(sets, pulkas))
    for number, block in enumerate((b for section in sections for b in section.blocks), 1):
        block.title = f"Figure {number}. {block.title}"
    summary = (f"{len(sets)} tables of Preferans, each played on the same {sizes} by the "
               "same built-in players. The five headline findings:")
    return Report(
        main_title(found, "At this size no rule difference between the tables is told "
                          "apart"),
        [f.short for f in found if f is not None],
        [*sections, _paired_section(sets, deals), _rules_section(sets),
         _methods_section(sets, manifests, sizes, command,
                          next(iter(edges.values()))["deals"])],
        meta.variant_files(*(s.variant for s in sets)), source=source,
        markdown="article.md", summary=summary)


def write_article(out: str | Path, data: str | Path, *, deals: int, pulkas: int,
                  pool_target: int, seed: int, command: str, **options: Any) -> Path:
    """Simulate every variant (or resume) under ``data`` and write the article into
    ``out`` (``index.html``, ``article.md`` and the page to print, ``summary.pdf``)."""
    sets = make_datasets(data, deals=deals, pulkas=pulkas, pool_target=pool_target,
                         seed=seed, **options)
    report = article_report(sets, command)
    out = write_report(report, out)
    sheet.write_sheet(report, [s.label for s in sets], Path(out))
    return out
