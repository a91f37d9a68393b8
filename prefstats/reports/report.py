"""The full report of one dataset (``prefstats report``) and the comparison of several
(``prefstats compare``): each section's tables from the section functions, with their
charts and readings, handed to :func:`prefstats.reports.render.write_report`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl

from prefstats.game.exact import Z95
from prefstats.game.variants import Variant, describe, differences, overrides
from prefstats.reports import bidding_section as bidding
from prefstats.reports import charts, compare, meta, raspasy, seats, whist
from prefstats.reports.exploit import exploit_section
from prefstats.reports.render import Block, Report, Section, write_report
from prefstats.reports.stats import MIN_SAMPLES
from prefstats.sim.storage import DatasetError, load, location, manifest_of

OBSERVATIONAL = ("Figures compare the choices the simulated players made; they are not a "
                 "replay of each hand with the other choice.")
#: Heading tail and first line of the sections whose figures must not read as advice.
OBSERVED = "Observational, not advice: what the simulated players did — "
NOT_ADVICE = ("Observational, not advice: each class's declarers (or whisters) are compared "
              "with the hands of that class that passed, and the players pick which hands "
              "bid, so a gain here says nothing about what a hand of that class should do; "
              "the paired counterfactual figures behind guide.md do. ")
NO_PULKAS = ("No pulka dataset was given (`--pulkas DIR`, made by `simulate-pulkas`), so "
             "pulka results by seat are not shown.")


def _meta(path: Path, manifest: Mapping[str, Any], variant: Variant, rows: int,
          pulkas: Mapping[str, Any] | None) -> list[str]:
    spec = manifest["spec"]
    players = spec["players"]
    params = ", ".join(f"{k}={v:g}" for k, v in players.get("params", {}).items())
    lines = [f"dataset: {path.name} ({rows:,} deals), made by "
             f"`{meta.remake_command(spec, variant)}`",
             f"variant: {describe(variant)}" + (f", {variant.players} players"
                                                 if meta.own_table(variant) else ""),
             f"players: built-in {players['policy']}" + (f" ({params})" if params else "")
             + (f"; misère catchers: {players['misere_catchers']}"
                if "misere_catchers" in players else "")]
    if pulkas is not None:
        lines.append(f"pulkas: made by `{meta.remake_command(pulkas['spec'], variant)}`")
    if overrides(variant):
        lines.append(f"the variant file `{meta.config_name(variant)}` (below) is written "
                     "beside the report")
    return [*lines, f"prefstats {spec['package_version']}; every number: estimate [95% CI]; "
            f"groups with fewer than {MIN_SAMPLES} samples are not shown"]


#: Columns shown for every bidding table.
_BID_COLUMNS = [("n declared", "n", "int"), ("of the class", "bid_share", "share"),
                ("P(make)", "p_make", "share"), ("bid, whists", "ev_bid", "whists"),
                ("pass, whists", "ev_pass", "whists"), ("gain, whists", "gain", "whists")]


def _bidding_blocks(table: pl.DataFrame, variant: str, key: str, name: str, axis: str,
                    stem: str, fmt: str = "int") -> list[Block]:
    """P(make) and the declare-vs-pass gain by ``key`` (a class called ``name``, shown
    as ``fmt``), each with its chart; ``axis`` labels the class axis."""
    chart = partial(charts.line_chart, x=key, group="level", colours=charts.LEVEL_COLOURS,
                    group_label="level ", xlabel=axis)
    return [
        Block(f"{stem}_make", f"Probability of making the contract, by {name}",
              "Share of declared trick contracts made after the talon (a contract nobody "
              "whists counts as made), by level.", table,
              [("level", "level", "int"), (name, key, fmt), *_BID_COLUMNS],
              partial(chart, y="p_make", title=f"{variant}: P(make) by {name}",
                      ylabel="contracts made", percent=True,
                      finding={"kind": "from", "group": 6, "at": 0.9,
                               "text": f"Sixes are made 90% of the time from {{x}} {name}",
                               "none": f"No {name} count makes 90% of sixes"})),
        Block(f"{stem}_gain", f"What the players' declarations earned against their passes, "
              f"by {name}",
              f"Mean deal value to the declarer minus the mean value to players of the same "
              f"{name} who did not declare; above zero, the players' declarations of that level "
              "earned more than their passes.",
              bidding.thresholds(table, by=key),
              [("level", "level", "int"), (f"pays from {name}", key, fmt), *_BID_COLUMNS],
              partial(chart, y="gain", zero_line=True, ylabel="declare − pass (whists per deal)",
                      title=f"{variant}: what declaring is worth, by {name}",
                      finding={"kind": "from", "group": 6,
                               "text": f"Declaring a six paid from {{x}} {name} on",
                               "none": "No class's declared sixes surely beat its passes"}),
              [f"The table lists, per level, the lowest {name} from which every class shown "
               "gains and that class gains with 95% confidence; the chart draws every class."],
              chart_table=table),
    ]


def bidding_section(lf: pl.LazyFrame, variant: str) -> Section:
    rows = bidding.hand_sums(lf)
    misere = bidding.misere_table(lf, rows=rows)
    return Section(OBSERVED + "bidding", NOT_ADVICE + (
                   "A hand's class is read from its ten dealt cards: either hand points (the best "
                   "suit's length, its top honours A K Q and the aces outside it: a count a player"
                   " can make at the table) or the expected tricks of the built-in player's "
                   "evaluator (fitted to the double-dummy solver). 'Of the class' is the share of "
                   "all hands of that class that declared: the players choose which hands bid, so "
                   "a small share means the figures describe the pick of that class."), [
        *_bidding_blocks(bidding.bidding_table(lf, rows=rows), variant, "points",
                         "hand points", "hand points (best-suit length + its A K Q + side aces)",
                         "bidding"),
        *_bidding_blocks(bidding.bidding_table(lf, ("est_tricks",), rows=rows), variant,
                         "est_tricks", "expected tricks",
                         "expected tricks of the dealt hand, best strain (evaluator)",
                         "bidding_tricks", "num:1"),
        Block("bidding_classes", "By full hand class",
              "The same figures by best-suit length, top honours and side aces.",
              bidding.bidding_table(lf, bidding.HAND_CLASS, rows=rows),
              [("level", "level", "int"), ("length", "trumps", "int"), ("A K Q", "top", "int"),
               ("side aces", "side_aces", "int"), *_BID_COLUMNS]),
        Block("observed_misere", "Misère: chance of being caught, by holes",
              "A hole is a suit in which the declarer cannot always play under (its i-th "
              "lowest card is more than 2·i ranks above the seven); short holes have one or "
              "two cards. Read from the dealt hand.", misere,
              [("holes", "holes", "int"), ("short", "short_holes", "int"),
               ("n declared", "n", "int"), ("of the class", "bid_share", "share"),
               ("P(caught)", "p_caught", "share"),
               ("misère, whists", "ev_bid", "whists"), ("pass, whists", "ev_pass", "whists"),
               ("gain, whists", "gain", "whists")],
              partial(charts.bar_chart, x="holes", y="p_caught", group="short_holes",
                      group_label="short holes: ", zero_line=False, colours=charts.HOLE_COLOURS,
                      title=f"{variant}: misère caught, by holes in the hand",
                      xlabel="holes (unsafe suits)", ylabel="misères caught",
                      percent=True, finding={
                          "kind": "ends", "text": "Misères were caught {first:.0%} of the "
                          "time with no hole, {last:.0%} with {x_last} holes"})),
    ])


def whist_section(lf: pl.LazyFrame, variant: str) -> Section:
    table = whist.whist_table(lf)
    return Section(OBSERVED + "whisting", NOT_ADVICE + "Each defender of a trick "
                   "contract, by contract level and his aces and kings.", [
        Block("observed_whist", "Whisting against passing, by high cards",
              "Mean deal value to the defender by his call; gain = whist − pass.", table,
              [("level", "level", "int"), ("A+K", "high_cards", "int"),
               ("n whist", "ev_whist_n", "int"), ("whist", "ev_whist", "whists"),
               ("n pass", "ev_pass_n", "int"), ("pass", "ev_pass", "whists"),
               ("n half", "ev_half_whist_n", "int"), ("half-whist", "ev_half_whist", "whists"),
               ("gain", "gain", "whists")],
              partial(charts.line_chart, x="high_cards", y="gain", group="level",
                      colours=charts.LEVEL_COLOURS, group_label="level ", zero_line=True,
                      title=f"{variant}: what whisting is worth, by high cards",
                      xlabel="defender's aces and kings (5 = five or more)",
                      ylabel="whist − pass (whists per deal)",
                      finding={"kind": "from", "group": 6,
                               "text": "Whisting a six paid from {x} aces and kings on",
                               "none": "No count of aces and kings surely paid to whist a "
                                       "six"})),
        Block("whist_threshold", "The players' whists beat their passes from",
              "Per level, the fewest aces and kings from which whisting beat passing in "
              "every class shown, with 95% confidence at that class.",
              bidding.thresholds(table, by="high_cards"),
              [("level", "level", "int"), ("from A+K", "high_cards", "int"),
               ("gain", "gain", "whists")]),
    ])


def raspasy_section(lf: pl.LazyFrame, variant: str, rules: Mapping[str, Any],
                    pulkas: pl.LazyFrame | None) -> Section:
    unit = raspasy.cost_unit(rules)
    kind = "points" if unit.endswith("points") else "whists"
    tricks = raspasy.raspasy_tricks(lf)
    return Section("What a raspasy costs", "All-pass deals: every player tries to take as few "
                   f"tricks as possible. Costs are {unit} a player writes; the dataset plays "
                   "each deal at one step, and other steps scale it by the ratio of the step "
                   "rates (assuming play does not change with the step).", [
        Block("raspasy_tricks", "Tricks taken per raspasy, by seat",
              "Share of raspasy deals in which a seat took each number of tricks.",
              _by_seat(tricks, "tricks", "share"),
              [("tricks", "tricks", "int"), ("n", "n", "int"),
               *((name, name, "share") for name in tricks["name"].unique(maintain_order=True))],
              partial(charts.bar_chart, x="tricks", y="share", group="name", zero_line=False,
                      title=f"{variant}: tricks taken on a raspasy", percent=True,
                      xlabel="tricks taken", ylabel="raspasy deals",
                      finding={"kind": "mode",
                               "text": "A seat most often takes {x} tricks on a raspasy"}),
              chart_table=tricks),
        Block("raspasy_costs", f"Cost per player per raspasy ({unit})",
              "Mean cost by seat and step of the progression, and the chance of no trick.",
              raspasy.raspasy_costs(lf, rules),
              [("seat", "name", "text"), ("step", "step", "int"), ("n", "n", "int"),
               (f"cost, {unit}", "cost", kind), ("P(no trick)", "p_zero", "share")],
              partial(charts.bar_chart, x="step", y="cost", group="name",
                      zero_line=False, title=f"{variant}: cost of a raspasy by step",
                      xlabel="raspasy step (consecutive all-pass deals)",
                      ylabel=f"cost per player ({unit})",
                      finding={"kind": "ends", "text": "A raspasy costs a player {first:.1f} "
                               f"{unit} at step 1, {{last:.1f}} at step {{x_last}}"})),
        Block("raspasy_chain", "Entering a raspasy chain",
              "Chance that a deal is passed out, expected raspasy in a chain once entered, "
              f"and its expected cost per player ({unit}).",
              raspasy.raspasy_chain(lf, rules, pulkas),
              [("rule", "rule", "text"), ("n", "n", "int"), ("P(raspasy)", "p_raspasy", "share"),
               ("raspasy per chain", "chain_deals", "est:2"),
               (f"chain cost, {unit}", "chain_cost", kind)],
              notes=["The deal dataset plays every deal on its own, without the exit rule; "
                     "the bound row supposes every six becomes a raspasy when a seven is "
                     "required after one. With a pulka dataset, the last row measures the "
                     "continuation in whole pulkas played with the variant's exit rule "
                     "(p = 1 + p₀ − p₀/π from the pulkas' raspasy share π)."]),
    ])


def _by_seat(table: pl.DataFrame, key: str, value: str) -> pl.DataFrame:
    """``value`` (with its interval) in one column per seat name, one row per ``key``."""
    wide = table.pivot("name", index=[key, "n"], values=[value, f"{value}_lo", f"{value}_hi"])
    names = table["name"].unique(maintain_order=True)
    return wide.rename({f"{part}_{name}": name + part.removeprefix(value)
                        for name in names for part in (value, f"{value}_lo", f"{value}_hi")}
                       ).with_columns(enough=pl.col("n") >= MIN_SAMPLES)


def seat_section(lf: pl.LazyFrame, variant: str, pulkas: pl.LazyFrame | None) -> Section:
    table, test = seats.seat_luck(lf)
    blocks = [Block("seat_deals", "Mean deal value by seat",
                    "Whists per deal to each seat; values sum to zero over the table.", table,
                    [("seat", "name", "text"), ("n", "n", "int"),
                     ("mean value, whists", "mean", "whists")],
                    partial(charts.bar_chart, x="name", y="mean", group=None,
                            title=f"{variant}: deal value by seat", xlabel="seat",
                            ylabel="mean value (whists per deal)",
                            finding={"kind": "max", "text": "The {x} gains most from a "
                                     "deal: {y:+.2f} whists"}),
                    [_test_note(test)])]
    if pulkas is None:
        return Section("How much the seat matters", NO_PULKAS, blocks)
    ptable, ptest = seats.pulka_seat_luck(pulkas)
    blocks += [
        Block("seat_pulkas", "Pulka results by place",
              f"Final result of a pulka (whists) by place at the table (the last place deals "
              f"first); {ptest['deals']:.1f} deals a pulka on average, {ptest['raspasy']:.1f} "
              f"of them raspasy; SD of one result {ptest['sd']:.1f} whists.", ptable,
              [("place", "name", "text"), ("n", "n", "int"),
               ("mean result, whists", "mean", "whists")],
              partial(charts.bar_chart, x="name", y="mean", group=None,
                      title=f"{variant}: pulka result by place", xlabel="place at the table",
                      ylabel="mean result (whists per pulka)",
                      finding={"kind": "max", "text": "{x} ends a pulka best: {y:+.1f} "
                               "whists on average"}), [_test_note(ptest)]),
        Block("seat_skill", "Pulkas until skill shows through luck",
              "Pulkas needed to tell an average edge from luck (5% two-sided test, 80% power).",
              seats.pulkas_to_detect(ptest["sd"]).with_columns(n=pl.lit(ptest["n"]),
                                                                enough=pl.lit(True)),
              [("edge, whists per pulka", "edge", "num:0"), ("pulkas", "pulkas", "int")]),
    ]
    return Section("How much the seat matters", "Per deal and per pulka.", blocks)


def _test_note(test: Mapping[str, float]) -> str:
    if math.isnan(test["chi2"]):
        return (f"Does seat matter? Not tested: {test['n']:,} samples, too few or without "
                "variation.")
    return (f"Does seat matter? Wald test that all seat means are zero: χ² = "
            f"{test['chi2']:.2f} on {test['df']} df, p = {test['p_value']:.3g} (n = "
            f"{test['n']:,}).")


def _pulka_dataset(path: str | Path, deals: Mapping[str, Any], variant: Variant
                   ) -> tuple[dict[str, Any], pl.LazyFrame]:
    """The manifest and rows of the pulka dataset at ``path``, refused unless it is of
    pulkas played with the deals' variant and players and some pulka finished."""
    manifest = manifest_of(path)
    meta.expect_kind(path, manifest, "pulkas", "make one with simulate-pulkas")
    theirs = meta.dataset_variant(path, manifest)
    if theirs != variant:
        raise DatasetError(f"{path}: pulkas of {describe(theirs)}, but the deals are of "
                           f"{describe(variant)}; pass pulkas made with the same rules")
    if manifest["spec"]["players"] != deals["spec"]["players"]:
        raise DatasetError(f"{path}: its pulkas were played by other players (policy or "
                           "parameters) than the deals; pass pulkas made with the same players")
    lf = load(path)
    if "finished" in lf.collect_schema().names():
        counts = lf.select(pl.len(), pl.col("finished").sum()).collect().row(0)
        if not counts[1]:
            raise DatasetError(f"{path}: none of its {counts[0]:,} pulkas finished, so there "
                               "are no pulka results; play more deals a pulka or a lower "
                               "--pool-target")
    return manifest, lf


def dataset_report(path: str | Path, *, pulkas: str | Path | None = None,
                   lf: pl.LazyFrame | None = None) -> Report:
    """The report of the dataset at ``path`` (a folder or an fsspec URL; ``lf`` overrides
    its rows, e.g. a sample), computed from lazy queries run by polars' streaming engine
    and hand classes summed a batch at a time, so memory does not grow with the deals;
    ``pulkas``: a ``simulate-pulkas`` dataset of the same variant and players for the
    pulka part of seat luck."""
    path = location(path)  # a folder or a URL such as s3://bucket/run
    manifest, variant = meta.deal_dataset(path, "pass a pulka dataset with --pulkas")
    lf = load(path) if lf is None else lf
    rules = manifest["spec"]["variant"]
    name = meta.short_name(variant)
    rows = lf.select(pl.len()).collect().item()
    pulka_manifest, plf = (_pulka_dataset(pulkas, manifest, variant) if pulkas
                           else (None, None))
    notes = _meta(path, manifest, variant, rows, pulka_manifest)
    spec = manifest["spec"]
    source = charts.source_line(
        version=spec["package_version"], deals=f"{rows:,} deals of {describe(variant)}",
        seed=spec["seed"], command=f"{meta.remake_command(spec, variant)} && prefstats report "
                                   f"{path.name}" + (" --pulkas ..." if pulkas else ""))
    with pl.Config(engine_affinity="streaming"):  # every query a batch at a time
        sections = [raspasy_section(lf, name, rules, plf), seat_section(lf, name, plf),
                    exploit_section(variant, 5), bidding_section(lf, name),
                    whist_section(lf, name)]
    return Report(f"prefstats report: {describe(variant)}", notes, sections,
                  meta.variant_files(variant), source=source, summary=rules_paragraph(variant))


#: What the table of differences says, by how many comparisons are paired.
_PAIRED_TEXT = {
    "all": "Datasets made with the same seed hold the same deals (deal i of a seed is "
           "dealt alike in every variant), so each figure's difference is taken deal by "
           "deal, on the deals both hold; shares differ in percentage points (pp). CI "
           "shrink is how much narrower the paired 95% CI is than an unpaired comparison "
           "of the same deals.",
    "some": "Datasets made with the baseline's seed hold its deals and are compared deal by "
            "deal (paired true; CI shrink is how much narrower that CI is than an unpaired "
            "one); the others hold other deals, so their differences are unpaired. Shares "
            "differ in percentage points (pp).",
    "none": "The datasets hold different deals (made with different seeds), so no deal can "
            "be compared with itself: each difference is unpaired, a two-sample normal 95% "
            "interval from each dataset's own variance (shares in percentage points, pp). "
            "Datasets made with one seed would be compared deal by deal, with narrower "
            "intervals.",
}


def comparison_report(paths: Sequence[str | Path], paired: bool = False) -> Report:
    """Variant comparison of the datasets at ``paths``, each labelled by its variant in
    words (and its folder when two share one); the rules that differ are listed.
    ``paired``: refuse datasets that do not hold the first one's deals."""
    datasets: dict[str, pl.LazyFrame] = {}
    variants: dict[str, Variant] = {}
    lines = []
    for p in paths:
        manifest, variant = meta.deal_dataset(p, "compare deal datasets")
        spec = manifest["spec"]
        label = describe(variant)
        if label in datasets:
            label = f"{label} ({Path(p).name})"
        while label in datasets:
            label += "'"
        datasets[label], variants[label] = load(p), variant
        rows = datasets[label].select(pl.len()).collect().item()
        lines.append(f"{label}: {p} ({rows:,} deals, seed {spec['seed']}), made by "
                     f"`{meta.remake_command(spec, variant)}`")
    names = list(datasets)
    if paired:
        seeds = {p: manifest_of(p)["spec"]["seed"] for p in paths}
        for p, name in zip(paths[1:], names[1:], strict=True):
            if seeds[p] != seeds[paths[0]] or not compare.same_deals(datasets[names[0]],
                                                                     datasets[name]):
                raise DatasetError(f"{p} (seed {seeds[p]}) does not hold the deals of "
                                   f"{paths[0]} (seed {seeds[paths[0]]}), so no paired "
                                   "comparison; remake it with the same --seed, or compare "
                                   "without --paired")
    colours = charts.colours_for(names, _variant_colours(variants))
    metrics = compare.variant_metrics(datasets)
    blocks = [Block("compare_metrics", "Headline figures side by side",
                    "Each figure per dataset with its 95% CI: shares in percent of what the "
                    "metric names (n counts those cases), amounts in whists or points. A "
                    "figure is a ratio of per-deal sums, with a delta-method SE.", metrics,
                    [("variant", "variant", "text"), ("metric", "metric", "text"),
                     ("n", "n", "int"), ("value", "value", "unit")],
                    partial(_shares_chart, colours=colours))]
    differ = differences(variants)
    if differ:
        blocks.insert(0, Block(
            "compare_rules", "Rules that differ",
            "Every rule option whose value is not the same in all datasets.",
            pl.DataFrame({"option": list(differ),
                          **{n: [differ[o][n] for o in differ] for n in names}}),
            [("option", "option", "text"), *((n, n, "text") for n in names)]))
    else:
        lines.append("rules: the same in every dataset")
    if len(names) > 1:
        paired = compare.paired_differences(datasets)
        share = paired["paired"].mean()
        how = "all" if share == 1 else "none" if share == 0 else "some"
        blocks.append(Block(
            "compare_paired", f"{'Deal by deal' if how == 'all' else 'Differences'} "
            f"against {names[0]}", _PAIRED_TEXT[how], paired,
            [("variant", "variant", "text"), ("metric", "metric", "text"), ("n", "n", "int"),
             ("paired", "paired", "text"), ("difference", "diff", "unit_diff"),
             ("CI shrink", "ci_shrink", "share")],
            partial(_paired_chart, baseline=names[0])))
    first = manifest_of(paths[0])["spec"]
    source = charts.source_line(version=first["package_version"], deals=", ".join(
        f"{datasets[n].select(pl.len()).collect().item():,} deals of {n}" for n in names),
        seed=first["seed"], command="prefstats compare " + " ".join(str(p) for p in paths))
    return Report("prefstats variant comparison: " + " vs ".join(names), lines,
                  [Section("Variant comparison", OBSERVATIONAL, blocks)],
                  meta.variant_files(*variants.values()), source=source)


def _variant_colours(variants: Mapping[str, Variant]) -> dict[str, str]:
    """Each preset's own colour for the first dataset of that preset."""
    fixed: dict[str, str] = {}
    for label, v in variants.items():
        colour = charts.variant_colour(v.base, v.players)
        if colour and colour not in fixed.values():
            fixed[label] = colour
    return fixed


def _shares_chart(table: pl.DataFrame, path: Path, colours: Mapping[str, str]) -> list[Path]:
    shares = table.filter(pl.col("unit") == "share")
    return charts.bar_chart(shares, path, x="metric", y="value", group="variant",
                            colours=colours, zero_line=False, percent=True,
                            title="Shares by variant, with 95% CIs", xlabel="",
                            ylabel="share of the cases named")


def _paired_chart(table: pl.DataFrame, path: Path, baseline: str) -> list[Path]:
    spread = table.filter(pl.col("metric").str.starts_with("spread") & pl.col("paired"))
    widths = pl.concat([spread.select("variant", "enough", how=pl.lit(how),
                                      width=pl.col(f"se_{how}") * Z95)
                        for how in ("unpaired", "paired")])
    return charts.bar_chart(widths, path, x="variant", y="width", group="how",
                            colours={"unpaired": "#bbbbbb", "paired": "#333333"},
                            errors=False, zero_line=False,
                            title=f"Same deals, narrower intervals: spread against {baseline}",
                            xlabel=f"variant compared with {baseline}",
                            ylabel="95% CI half-width (whists)")


def rules_paragraph(variant: Variant) -> str:
    """The variant's rules in one paragraph: its preset file's own words, the table,
    and any house rules."""
    text = (resources.files("prefstats.game.presets") / f"{variant.base}.toml").read_text(
        "utf-8")
    head = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        head.append(line.lstrip("# ").strip())
    words = " ".join(head) or describe(variant)
    table = {2: "two players and an open dummy", 3: "three players",
             4: "four players, the dealer sitting each deal out",
             5: "five players, the dealer and the next to deal sitting each deal out"
             }[variant.players]
    house = overrides(variant)
    extra = (" House rules: " + ", ".join(f"`{k} = {v}`" for k, v in house.items()) + "."
             if house else "")
    return f"**Rules.** {words} Played here by {table}.{extra}"


def _hand_charts(out: Path) -> list[tuple[str, str]]:
    """The hand charts ``prefstats guide --variant`` wrote into ``out`` (from its
    guide.json), as (title, image)."""
    doc = out / "guide.json"
    if not doc.is_file():
        return []
    names = dict.fromkeys(r["chart"] for r in json.loads(doc.read_text("utf-8"))["records"]
                          if r.get("chart"))
    return [(f"Hand chart: {n.replace('_', ' ')} (paired counterfactual, see guide.md)",
             f"{n}.png") for n in names if (out / f"{n}.png").is_file()]


def report(path: str | Path, out: str | Path, *, pulkas: str | Path | None = None,
           guide: bool = False) -> Path:
    """Write the report of the dataset at ``path`` into ``out``.

    The report opens with the hand charts and links the guide when ``out`` holds them
    (``prefstats guide``), or the guide when ``guide`` says it is being written there.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.simulate import simulate
    >>> data, out = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> _ = simulate(get_variant("sochi"), hands=60, seed=1, out=data, workers=1,
    ...              progress=False)
    >>> report(data, out).name  # doctest: +ELLIPSIS
    '...'

    :param path: a deals dataset (``prefstats simulate``).
    :param out: the report's folder (``index.html``, ``report.md``, charts, CSV).
    :param pulkas: a pulka dataset of the same variant (``prefstats simulate-pulkas``),
        for the pulka results by seat and the raspasy chains.
    :param guide: link the guide even before ``out`` holds it (it is being written
        there, as the demo does beside the report).
    :returns: ``out``.
    :raises DatasetError: for a dataset that is missing, damaged or of another variant.
    """
    written = dataset_report(path, pulkas=pulkas)
    written.lead = _hand_charts(Path(out))
    if guide or (Path(out) / "guide.md").is_file():
        written.links.append(("when to bid, misère, whist or pass (the guide)", "guide.md"))
    else:
        written.meta.append(f"the guide (when to bid, whist or pass) is written beside the "
                            f"report by `prefstats guide {path} --out {out}`")
    return write_report(written, out)


def comparison(paths: Sequence[str | Path], out: str | Path, paired: bool = False) -> Path:
    """Write the comparison of the datasets at ``paths`` into ``out`` (``paired``: see
    :func:`comparison_report`).

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.simulate import simulate
    >>> data, out = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> _ = simulate(get_variant("sochi"), hands=60, seed=1, out=data, workers=1,
    ...              progress=False)
    >>> other = tempfile.mkdtemp()
    >>> _ = simulate(get_variant("rostov"), hands=60, seed=1, out=other, workers=1,
    ...              progress=False)
    >>> comparison([data, other], out).name  # doctest: +ELLIPSIS
    '...'
    """
    return write_report(comparison_report(paths, paired), out)
