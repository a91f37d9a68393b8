"""The ``prefstats`` commands that deal, simulate, score, solve and report."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import typer

from prefstats.cli._app import FORMAT, Format, HelpGroup, _compile_notice, app, write_data
from prefstats.errors import CardError, OptionError, PrefstatsError
from prefstats.game.seed import DEFAULT_SEED


def _print_deals(deals, count: int) -> None:
    from rich.console import Console
    from rich.table import Table

    from prefstats.game.cards import format_cards
    from prefstats.game.codes import SEAT_NAMES

    table = Table(title=f"{count} deal(s), seed {deals.seed}", show_lines=True)
    table.add_column("deal", justify="right")
    for name in (*SEAT_NAMES[:3], "talon"):
        table.add_column(name)
    for i in range(count):
        cells = [format_cards(h, voids=True) for h in deals.hands[i]]
        table.add_row(str(int(deals.index[i])), *cells, format_cards(deals.talon[i]))
    Console().print(table)


def _hand_features() -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """What ``--where`` can ask of a seat's hands (see ``_WHERE_HELP``), one value a hand."""
    from prefstats.game.cards import ACE, SUIT_NAMES, count_rank, suit_lengths
    from prefstats.reports.classes import bidding_class, high_cards

    def length(suit: int):
        return lambda h: suit_lengths(h)[:, suit]

    return {**{name: length(s) for s, name in enumerate(SUIT_NAMES)},
            "longest": lambda h: suit_lengths(h).max(axis=1),
            "points": lambda h: bidding_class(h)["points"],
            "aces": lambda h: count_rank(h, ACE), "high": high_cards}


_CONDITION = re.compile(r"\s*([a-z]+)\s*([0-9]+)\s*(<=|>=|==|!=|=|<|>)\s*([0-9]+)\s*")
_COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
            "=": np.equal, "==": np.equal, "!=": np.not_equal}


def hand_condition(texts: Sequence[str]) -> Callable[[Any], np.ndarray] | None:
    """The ``where`` of :func:`prefstats.game.deal.deal` for ``--where`` conditions such as
    ``"spades0 >= 6"`` or ``"points1 < 5"`` (FEATURE SEAT OP NUMBER; all must hold);
    ``None`` for none. Raises ``OptionError`` naming a condition it cannot read."""
    if not texts:
        return None
    features = _hand_features()
    tests = []
    for text in texts:
        m = _CONDITION.fullmatch(text.lower())
        if m is None or m[1] not in features or int(m[2]) > 2:
            known = ", ".join(features)
            raise OptionError(f"--where {text!r}: expected FEATURE SEAT OP NUMBER, e.g. "
                              f"'spades0 >= 6' or 'points1 < 5', with SEAT 0, 1 or 2, OP one "
                              f"of < <= = != >= > and FEATURE one of {known}")
        tests.append((features[m[1]], int(m[2]), _COMPARE[m[3]], int(m[4])))

    def where(deals) -> np.ndarray:
        ok = np.ones(len(deals), dtype=bool)
        for feature, seat, compare, number in tests:
            ok &= compare(np.asarray(feature(deals.hands[:, seat]), dtype=np.int64), number)
        return ok

    return where


_WHERE_HELP = ("A condition on a seat's dealt hand, FEATURE SEAT OP NUMBER (repeatable; all "
               "must hold), e.g. 'spades0 >= 6', 'points1 <= 4'. Features: spades, clubs, "
               "diamonds, hearts (suit lengths), longest, points (best-suit length + its A K Q "
               "+ side aces), aces, high (aces and kings).")


def _fixed(option: str, text: str | None) -> int | None:
    """The cards an option fixes (``None``: none), refused with the option's name."""
    from prefstats.game.cards import parse_cards

    if text is None:
        return None
    try:
        return parse_cards(text)
    except CardError as exc:
        raise CardError(f"{option}: {exc}") from None


@app.command("deal")
def deal_command(
    n: int = typer.Option(5, "-n", "--count", min=1, help="How many deals to print."),
    seed: int | None = typer.Option(None, min=0, help="Seed (non-negative); omitted: fresh "
                                    "entropy (printed)."),
    start: int = typer.Option(0, min=0, help="Number of the first deal in the seed's stream."),
    hand0: str | None = typer.Option(None, "--hand0", help='Cards the first hand holds, e.g. '
                                     '"♠AKQJ" (the rest of its ten are dealt).'),
    hand1: str | None = typer.Option(None, "--hand1", help="Cards the second hand holds."),
    hand2: str | None = typer.Option(None, "--hand2", help="Cards the third hand holds."),
    talon: str | None = typer.Option(None, "--talon", help="Cards in the talon (one or two)."),
    where: list[str] | None = typer.Option(None, "--where", help=_WHERE_HELP),
    output: Format = FORMAT,
) -> None:
    """Deal and print hands: seats from the dealer's left, suits sorted, talon shown.

    With fixed cards or conditions, deals are drawn uniformly among those that fit; the
    deal numbers are those of the seed's stream of such deals."""
    from prefstats.game.cards import format_cards
    from prefstats.game.deal import deal

    fixed = tuple(_fixed(f"--hand{s}", h) for s, h in enumerate((hand0, hand1, hand2)))
    condition = hand_condition(where or [])
    _compile_notice("deal")
    dealt = deal(n, seed=seed, start=start, fixed_hands=fixed,
                 fixed_talon=_fixed("--talon", talon), where=condition)
    if output is Format.table:
        _print_deals(dealt, n)
        return
    rows = [{"seed": dealt.seed, "deal_id": int(dealt.index[i]),
             **{f"hand_{s}": format_cards(dealt.hands[i, s]) for s in range(3)},
             "talon": format_cards(dealt.talon[i])} for i in range(n)]
    write_data(output, {"seed": dealt.seed,
                        "deals": [{k: v for k, v in r.items() if k != "seed"} for r in rows]},
               rows, list(rows[0]))


def _exact_table(deals: int, seed: int) -> None:
    """Print a few deals and dealt frequencies against the exact probabilities."""
    import time

    from rich.console import Console
    from rich.table import Table

    from prefstats.game.deal import deal
    from prefstats.game.exact import deal_feature_table

    deal(1, seed=seed)  # compile (or load the cached kernel) outside the timing
    started = time.perf_counter()
    dealt = deal(deals, seed=seed)
    elapsed = time.perf_counter() - started
    _print_deals(dealt, min(3, deals))
    table = Table(title=f"{deals:,} deals (seed {seed}) against exact probabilities")
    for col in ("feature", "value", "observed %", "95% CI %", "exact %", ""):
        table.add_column(col, justify="left" if col in ("feature", "value") else "right")
    for row in deal_feature_table(dealt.hands, dealt.talon).iter_rows(named=True):
        table.add_row(
            row["feature"],
            row["value"],
            f"{100 * row['observed']:.3f}",
            f"{100 * row['ci_low']:.2f}–{100 * row['ci_high']:.2f}",
            f"{100 * row['exact']:.3f}",
            "✓" if row["covered"] else "✗",
        )
    console = Console()
    console.print(table)
    console.print(f"dealt {deals:,} deals in {elapsed:.2f} s ({deals / elapsed / 1e6:.1f} M/s)")


@app.command()
def demo(
    variant: str = typer.Option("sochi", help="Preset to simulate."),
    hands: int = typer.Option(200_000, help="Deals to simulate."),
    pulkas: int = typer.Option(3000, help="Whole pulkas to play (seat luck); 0 for none."),
    pool_target: int = typer.Option(20, help="Pool target of those pulkas."),
    seed: int = typer.Option(DEFAULT_SEED, min=0, help="Seed of the runs."),
    data: str = typer.Option("data", help="Folder for the datasets."),
    out: str = typer.Option("reports", help="Folder for the report."),
    force: bool = typer.Option(False, help="Start the datasets over when they were made "
                               "with other arguments."),
    quiet: bool = typer.Option(False, help="No progress bars."),
) -> None:
    """The main job: simulate a variant (deals and whole pulkas) with the built-in
    players and write its report and bidding guide. Reruns resume the datasets."""
    import time

    from prefstats.game.variants import describe, get_variant
    from prefstats.reports import guide, report
    from prefstats.sim.simulate import simulate, simulate_pulkas, usable_cores

    started = time.perf_counter()
    rules = get_variant(variant)
    deals_dir = Path(data) / variant
    pulkas_dir = Path(data) / f"{variant}-pulkas" if pulkas else None
    folder = Path(out) / variant
    typer.echo(f"prefstats demo: {describe(rules)} -- how its deals end, what a seat wins "
               f"and when to bid, misère, whist or pass, from {hands:,} simulated deals"
               + (f" and {pulkas:,} pulkas" if pulkas else ""))
    typer.echo(f"files: {folder / 'index.html'}, {folder / 'report.md'}, "
               f"{folder / 'guide.md'}; datasets in {deals_dir}"
               + (f" and {pulkas_dir}" if pulkas_dir else ""))
    _compile_notice("demo", quiet)
    _exact_table(1_000_000, seed)
    progress = False if quiet else None
    typer.echo(f"simulating {hands:,} deals of {variant} into {deals_dir}")
    simulate(rules, hands=hands, seed=seed, out=deals_dir, chunk_size=25_000,
             progress=progress, force=force)
    if pulkas_dir is not None:
        typer.echo(f"playing {pulkas:,} pulkas to {pool_target} into {pulkas_dir}")
        simulate_pulkas(rules, pulkas=pulkas, pool_target=pool_target, seed=seed,
                        out=pulkas_dir, chunk_size=250, progress=progress, force=force)
    typer.echo(f"rolling out the guide's decisions into {folder / 'guide.md'}")
    guide(deals_dir, folder, workers=usable_cores())  # first, so that the report links it
    report(deals_dir, folder, pulkas=pulkas_dir)
    typer.echo(f"report: {folder / 'index.html'}, {folder / 'report.md'}, "
               f"{folder / 'guide.md'} ({time.perf_counter() - started:.0f} s)")


variants_app = typer.Typer(cls=HelpGroup, help="Rule variants: presets and house rules.",
                           no_args_is_help=True)
app.add_typer(variants_app, name="variants")


def _preset_summary(name: str) -> str:
    """The first sentence of the comment that opens preset ``name``'s TOML file."""
    from importlib import resources

    text = resources.files("prefstats.game.presets").joinpath(f"{name}.toml").read_text("utf-8")
    comment = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("# ").strip())
    first, dot, _ = " ".join(comment).partition(". ")
    return first + dot.strip()


@variants_app.command("list")
def variants_list(output: Format = FORMAT) -> None:
    """List the preset variants: name, the players each may seat, what it is."""
    import dataclasses

    from prefstats.game.variants import PRESETS, Variant, get_variant

    table_sizes = next(f for f in dataclasses.fields(Variant) if f.name == "players")
    rows = []
    for name in PRESETS:
        allowed = []
        for players in table_sizes.metadata["choices"]:
            try:
                get_variant(name, players=players)
            except PrefstatsError:
                continue
            allowed.append(players)
        rows.append({"name": name, "players": allowed, "description": _preset_summary(name)})
    if output is not Format.table:
        write_data(output, {"presets": rows},
                   [{**r, "players": " ".join(map(str, r["players"]))} for r in rows],
                   ["name", "players", "description"])
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="preset variants (prefstats variants show NAME prints one in full)")
    for column in ("name", "players", "description"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["name"], ", ".join(map(str, r["players"])), r["description"])
    Console().print(table)


@variants_app.command("show")
def variants_show(
    name: str = typer.Argument(help="Preset (sochi, leningrad, rostov, classic, gusarik) or a "
                               "variant .toml file."),
    players: int | None = typer.Option(None, help="Players at the table, 3, 4 or 5 (for a preset; "
                                "default: the preset's, 2 for gusarik)."),
) -> None:
    """Print a variant as commented TOML: save it, edit it, load it with load_variant."""
    from prefstats.game.variants import get_variant, load_variant

    try:
        v = load_variant(name) if name.endswith(".toml") else get_variant(name, players=players)
    except (PrefstatsError, OSError) as exc:
        raise typer.BadParameter(str(exc), param_hint="NAME") from None
    typer.echo(v.to_toml(), nl=False)


@app.command("score")
def score_command(
    file: str = typer.Argument(help="Deal outcomes, JSON or TOML: see sheet_from_records."),
    log: bool = typer.Option(False, "--log", help="Also print every entry of the sheet (with "
                             "--format csv: the entries instead of the sheet)."),
    output: Format = FORMAT,
) -> None:
    """Score a pulka: print the sheet (pool, mountain, whists) and the settlement."""
    from prefstats.game.scoring import load_pulka

    try:
        sheet = load_pulka(file)
    except (PrefstatsError, OSError) as exc:
        raise typer.BadParameter(str(exc), param_hint="FILE") from None
    v = sheet.variant
    n = v.players
    scores = sheet.value_exact()
    players = [{"player": i, "pool": float(sheet.pool[i]), "mountain": float(sheet.mountain[i]),
                **{f"whists_on_{j}": float(sheet.whists[i, j]) if j != i else None
                   for j in range(n)},
                "score": float(scores[i]), "score_exact": str(scores[i])} for i in range(n)]
    entries = [{"deal": e.deal, "column": e.column, "player": e.player, "on": e.on,
                "amount": float(e.amount)} for e in sheet.log]
    if output is not Format.table:
        document = {"variant": v.base, "players": n, "deals": sheet.deals,
                    "finished": sheet.finished, "pool_value": v.pool_value,
                    "mountain_value": v.mountain_value, "sheet": players}
        if log:
            document["log"] = entries
        rows, columns = ((entries, ["deal", "column", "player", "on", "amount"]) if log
                         else (players, list(players[0])))
        write_data(output, document, rows, columns)
        return
    _print_sheet(sheet, players, entries if log else None)


def _print_sheet(sheet, players: list[dict], entries: list[dict] | None) -> None:
    from rich.console import Console
    from rich.table import Table

    def num(x) -> str:
        return "" if x is None else f"{float(x):g}"

    v = sheet.variant
    n = v.players
    title = f"{v.base}, {n} players, {sheet.deals} deal(s)" + (
        ", pulka over" if sheet.finished else ""
    )
    table = Table(title=title)
    for col in ("player", "pool", "mountain", *(f"whists on {j}" for j in range(n)), "score"):
        table.add_column(col, justify="right")
    for p in players:
        exact = p["score_exact"]
        score_text = f"{p['score']:+.2f}" + ("" if "/" not in exact else f" ({exact})")
        table.add_row(str(p["player"]), num(p["pool"]), num(p["mountain"]),
                      *(num(p[f"whists_on_{j}"]) for j in range(n)), score_text)
    console = Console()
    console.print(table)
    console.print(f"pool point = {v.pool_value} whists, mountain point = {v.mountain_value}")
    if entries is not None:
        log = Table(title="entries")
        for col in ("deal", "column", "player", "on", "amount"):
            log.add_column(col, justify="right")
        for e in entries:
            log.add_row(str(e["deal"]), e["column"], str(e["player"]),
                        "" if e["on"] is None else str(e["on"]), num(e["amount"]))
        console.print(log)


def _simulation_setup(variant: str | None, config: Path | None, players: int | None,
                      policy: str, param: list[str] | None, backend: str,
                      scheduler: str | None):
    """The variant and player parameters of a simulation command (raises OptionError)."""
    from prefstats.game.variants import get_variant, load_variant
    from prefstats.players.params import parameters, policy_params

    if config is not None and (variant is not None or players is not None):
        raise OptionError("--config names the variant and its players; leave out --variant "
                          "and --players (or put them in the file as base and players)")
    if scheduler is not None and backend != "dask":
        raise OptionError("--scheduler is a dask scheduler's address; it needs --backend dask")
    rules = load_variant(config) if config else get_variant(variant or "sochi", players=players)
    overrides = {}
    for item in param or []:
        name, _, value = item.partition("=")
        try:
            overrides[name.strip()] = float(value)
        except ValueError:
            raise OptionError(f"--param expects NAME=NUMBER, got {item!r}") from None
    if overrides and not parameters(policy):
        raise OptionError(f"--param applies to the heuristic and pimc players, not {policy!r}")
    return rules, policy_params(policy, **overrides) if parameters(policy) else None


def _run_simulation(make, command: str, unit: str, out: str, quiet: bool) -> None:
    """Compile what ``command`` needs, run ``make()`` (a simulation) and summarise the
    dataset."""
    _compile_notice(command, quiet)
    manifest = make()
    rows = sum(c["rows"] for c in manifest["chunks"])
    size = sum(c["bytes"] for c in manifest["chunks"])
    typer.echo(f"{out}: {rows:,} {unit} in {len(manifest['chunks'])} chunk(s), "
               f"{size / max(rows, 1):.1f} bytes a row on disk")


_VARIANT = typer.Option(None, help="Preset: sochi (the default), leningrad, rostov, classic "
                        "or gusarik.")
_CONFIG = typer.Option(None, exists=True, dir_okay=False, readable=True,
                       help="A variant TOML file (base preset plus overrides), instead of "
                       "--variant and --players.")
_PLAYERS = typer.Option(None, help="Players at the table: 3, 4 or 5 (default: the preset's; "
                        "gusarik is 2).")
_SEED = typer.Option(DEFAULT_SEED, min=0, help="Seed: the same seed deals the same hands.")
_OUT = typer.Option(..., help="Dataset folder or fsspec URL, e.g. s3://bucket/run "
                    "(created; a rerun resumes).")
_WORKERS = typer.Option(None, min=1, help="Local processes (default: all cores).")
_BACKEND = typer.Option("local", help="local (joblib processes) or dask.")
_SCHEDULER = typer.Option(None, help="Dask scheduler address, e.g. tcp://host:8786 "
                          "(default: a local cluster); needs --backend dask.")
_POLICY = typer.Option("heuristic", help="Built-in players: heuristic, random, or pimc (the "
                       "heuristic with searched card play in closed deals; --param samples=K).")
_PARAM = typer.Option(None, help="Player parameter NAME=VALUE (repeatable); each has a "
                      "range, see prefstats.players.params.")
_FORCE = typer.Option(False, help="Start over, replacing an existing dataset.")
_QUIET = typer.Option(False, help="No progress bar.")


@app.command("simulate")
def simulate_command(
    variant: str | None = _VARIANT,
    config: Path | None = _CONFIG,
    players: int | None = _PLAYERS,
    hands: int = typer.Option(100_000, help="Deals to simulate."),
    seed: int = _SEED,
    out: str = _OUT,
    chunk_size: int | None = typer.Option(None, min=1, help="Deals per chunk file (default: "
                                          "the dataset's own, else an eighth of --hands, "
                                          "10,000 to 2,000,000)."),
    workers: int | None = _WORKERS,
    backend: str = _BACKEND,
    scheduler: str | None = _SCHEDULER,
    policy: str = _POLICY,
    param: list[str] | None = _PARAM,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """Simulate deals of a variant into a Parquet dataset (one row per deal)."""
    from prefstats.sim.simulate import simulate

    def make():
        rules, params = _simulation_setup(variant, config, players, policy, param, backend,
                                          scheduler)
        return simulate(rules, hands=hands, seed=seed, out=out, chunk_size=chunk_size,
                        policy=policy, params=params, workers=workers, backend=backend,
                        scheduler=scheduler, force=force, progress=False if quiet else None)

    _run_simulation(make, "simulate", "deals", out, quiet)


@app.command("simulate-pulkas")
def simulate_pulkas_command(
    variant: str | None = _VARIANT,
    config: Path | None = _CONFIG,
    players: int | None = _PLAYERS,
    pulkas: int = typer.Option(10_000, help="Pulkas to play to the end."),
    pool_target: int = typer.Option(20, help="Pool each player plays to (the pulka size)."),
    seed: int = _SEED,
    out: str = _OUT,
    chunk_size: int = typer.Option(1000, help="Pulkas per chunk file."),
    workers: int | None = _WORKERS,
    backend: str = _BACKEND,
    scheduler: str | None = _SCHEDULER,
    policy: str = _POLICY,
    param: list[str] | None = _PARAM,
    with_deals: bool = typer.Option(False, help="Also write every deal, into OUT/deals."),
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """Play whole pulkas (dealer rotation, raspasy progression, help, closing) into a
    Parquet dataset, one row per pulka with each place's result in whists."""
    from prefstats.sim.simulate import simulate_pulkas

    def make():
        rules, params = _simulation_setup(variant, config, players, policy, param, backend,
                                          scheduler)
        return simulate_pulkas(rules, pulkas=pulkas, pool_target=pool_target, seed=seed,
                               out=out, chunk_size=chunk_size, policy=policy, params=params,
                               with_deals=with_deals, workers=workers, backend=backend,
                               scheduler=scheduler, force=force,
                               progress=False if quiet else None)

    _run_simulation(make, "simulate-pulkas", "pulkas", out, quiet)


@app.command("report")
def report_command(
    dataset: str = typer.Argument(help="Dataset folder made by `prefstats simulate`."),
    out: str = typer.Option(..., help="Report folder (index.html, report.md, charts, CSV)."),
    pulkas: str | None = typer.Option(None, help="Pulka dataset (simulate-pulkas): pulka "
                                      "results by seat, raspasy chains under the exit rule."),
) -> None:
    """Write the statistics report of a dataset: tables with 95% CIs and charts (and
    update the site index beside OUT when there is one)."""
    from prefstats.reports import report
    from prefstats.reports.render import site_index

    _report_output("report", lambda: report(dataset, out, pulkas=pulkas), "index.html",
                   "report.md")
    if (Path(out).parent / "index.html").is_file():  # a site of reports: link this one too
        site_index(Path(out).parent)


@app.command("compare")
def compare_command(
    datasets: list[str] | None = typer.Argument(None, help="Dataset folders to compare (the "
                                                "first is the baseline); none: make the "
                                                "article of every preset."),
    out: str = typer.Option("reports/compare", help="Report folder."),
    data: str = typer.Option("data/compare", help="Folder of the article's datasets "
                                                  "(made, or resumed)."),
    deals: int = typer.Option(20_000, min=100, help="Deals a variant (article)."),
    pulkas: int = typer.Option(400, min=10, help="Whole pulkas a variant (article)."),
    pool_target: int = typer.Option(20, min=1, help="Pool target of those pulkas."),
    seed: int = typer.Option(DEFAULT_SEED, min=0, help="Seed of every variant's deals."),
    paired: bool = typer.Option(False, help="Refuse DATASETS that do not hold the same "
                                            "deals (made with one seed) instead of comparing "
                                            "them unpaired."),
    workers: int | None = _WORKERS,
    quiet: bool = _QUIET,
) -> None:
    """With no DATASETS: simulate every preset (3 players, and 4 where a preset has
    them) on the same deals and write the rule-comparison article (index.html,
    article.md). With DATASETS: compare them side by side, deal by deal where they
    hold the same deals."""
    if datasets:
        from prefstats.reports import comparison

        _report_output("compare", lambda: comparison(datasets, out, paired=paired),
                       "index.html", "report.md")
        return
    from prefstats.reports.article import write_article
    from prefstats.reports.render import site_index

    command = (f"prefstats compare --deals {deals} --pulkas {pulkas} --pool-target "
               f"{pool_target} --seed {seed}")
    _report_output("compare-article",
                   lambda: write_article(out, data, deals=deals, pulkas=pulkas,
                                         pool_target=pool_target, seed=seed, command=command,
                                         workers=workers, progress=False if quiet else None),
                   "index.html", "article.md")
    typer.echo(f"site index: {site_index(Path(out).parent)}")


@app.command("guide")
def guide_command(
    dataset: str | None = typer.Argument(None, help="Dataset folder made by `prefstats "
                                                    "simulate` (its players' choices close "
                                                    "the page)."),
    out: str = typer.Option(".", help="Folder for guide.md (and the charts)."),
    variant: str | None = typer.Option(None, help="Make the hand charts of this preset: "
                                                  "every decision by the features that "
                                                  "decide it, as pictures, tables and "
                                                  "guide.json."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the charts' deal stream."),
    min_n: int = typer.Option(1000, "--min-n", min=2, help="Pairs a chart cell needs."),
    budget: int = typer.Option(8_000_000, min=1, help="Deals dealt per seat, at most, to "
                                                      "fill the cells of a chart."),
    whist_budget: int = typer.Option(300_000, min=1, help="Deals rolled out per seat, at "
                                                          "most, for the whist chart."),
    raspasy_budget: int = typer.Option(2_000_000, min=1, help="Deals dealt, at most, for "
                                                              "the raspasy chart."),
    models: str = typer.Option("all", help="Other tables of players the advice is tested "
                                           "under for robustness: 'all', 'none' or names "
                                           "(comma-separated) of whist_less, whist_more, "
                                           "timid, bold, search."),
    model_n: int = typer.Option(250, "--model-n", min=2, help="Pairs a cell is filled to "
                                                              "under each other table."),
    players: int | None = typer.Option(None, help="Players at the table: 3 or 4 (default: "
                                                  "the preset's; gusarik is 2)."),
    workers: int = typer.Option(1, min=1, help="Rollout threads."),
    quiet: bool = typer.Option(False, help="No progress display, no timings on stderr."),
    timings: str | None = typer.Option(None, help="JSON file for the time each table of "
                                                  "players' charts took (e.g. "
                                                  "reports/bench/guide-sochi.json)."),
) -> None:
    """Write guide.md: when to bid, misère, whist or pass, each rule with its figure. With
    --variant: the hand charts (PNG, SVG, CSV, Parquet, guide.json) and a guide led by
    them; a DATASET adds its players' choices, labelled as observational."""
    from prefstats.reports import guide

    if variant is None:
        if dataset is None:
            raise OptionError("name a DATASET, or a --variant to chart")
        _report_output("guide", lambda: guide(dataset, out).parent, "guide.md")
        return
    from prefstats.game.variants import get_variant
    from prefstats.reports.guide import observed_lines
    from prefstats.reports.hand_charts import MODELS
    from prefstats.reports.hand_guide import write_guide
    from prefstats.sim.storage import load

    rules = get_variant(variant, players=players)
    known = {m.name: m for m in MODELS}
    names = {"all": list(known), "none": []}.get(models, [m for m in models.split(",") if m])
    unknown = [m for m in names if m not in known]
    if unknown:
        raise OptionError(f"unknown player model(s) {', '.join(unknown)}; choose 'all', "
                          f"'none' or from {', '.join(known)}")
    observed = observed_lines(load(dataset)) if dataset else None
    command = (f"prefstats guide --variant {variant}"
               + (f" --players {players}" if players else "")
               + f" --seed {seed} --min-n {min_n} --budget {budget} --whist-budget "
               f"{whist_budget} --raspasy-budget {raspasy_budget} --models {models} "
               f"--model-n {model_n}")
    with _chart_progress(quiet, timings, command + f" --workers {workers}") as progress:
        _report_output("guide",
                       lambda: write_guide(rules, out, seed, min_n=min_n, workers=workers,
                                           budget=budget, whist_budget=whist_budget,
                                           raspasy_budget=raspasy_budget,
                                           models=tuple(known[m] for m in names),
                                           model_n=model_n, command=command,
                                           observed=observed, progress=progress).parent,
                       "guide.md", "guide.json")


@contextmanager
def _chart_progress(quiet: bool, timings: str | None, command: str):
    """The guide's progress: on a terminal a bar naming the chart under way; elsewhere a
    line a chart (a long run's log). Then each table of players' time on stderr (the
    default players' is the figure the charts' budget is about) and, to ``timings``, as
    JSON with the version, command, date and machine."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(stderr=True)
    spent: dict[str, float] = {}
    start = last = time.monotonic()
    cpu = time.process_time()
    current: list[str] = []

    def lap() -> None:
        nonlocal last
        now = time.monotonic()
        if current:
            spent[current[0]] = spent.get(current[0], 0.0) + now - last
        last = now

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                  transient=True, disable=quiet or not console.is_terminal) as bar:
        task = bar.add_task("hand charts", total=None)

        def progress(done: int, total: int, chart: str, model: str) -> None:
            lap()
            current[:] = [model] if model else []
            text = f"chart {chart}, players {model}" if chart else "pictures and tables"
            bar.update(task, completed=done, total=total, description=text)
            if not quiet and not console.is_terminal:
                count = f"{done + 1}/{total} " if chart else ""
                typer.echo(f"guide: {count}{text} "
                           f"({_minutes(time.monotonic() - start)} in)", err=True)

        yield progress
    wall = time.monotonic() - start
    if not quiet:
        for model, seconds in spent.items():
            typer.echo(f"guide: the charts under {model} took {_minutes(seconds)}", err=True)
        typer.echo(f"guide: {_minutes(wall)} in all", err=True)
    if timings:
        import datetime
        import os

        from prefstats import __version__
        from prefstats.sim.storage import atomic_write

        one, five, fifteen = os.getloadavg()
        doc = {"version": __version__, "command": command,
               "date": datetime.date.today().isoformat(),
               "machine": f"{os.cpu_count()} cores, load average {one:.2f}, {five:.2f}, "
                          f"{fifteen:.2f} (1, 5, 15 min) at the end",
               "wall_seconds": {**{m: round(t, 1) for m, t in spent.items()},
                                "all": round(wall, 1)},
               "cpu_seconds": round(time.process_time() - cpu, 1)}
        Path(timings).parent.mkdir(parents=True, exist_ok=True)
        atomic_write(Path(timings), (json.dumps(doc, indent=1) + "\n").encode("utf-8"))


def _minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s"


@app.command("strength")
def strength_command(
    policy: str = typer.Option(..., help="The built-in player gauged: heuristic, pimc or random."),
    against: str = typer.Option(..., help="The player it is measured against."),
    deals: int = typer.Option(4000, help="Seeded deals to bid (their closed games and raspasy "
                                         "are played out)."),
    samples: int | None = typer.Option(None, help="Deals a PIMC player samples a card "
                                                  "(default 32)."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the deals."),
    variant: str = typer.Option("sochi", help="Preset whose rules are played."),
    format: str = typer.Option("table", "--format", help="table or json."),
) -> None:
    """Tricks one player's declarer and defence give away against another's, paired on
    the same closed games; raspasy tricks a seat takes under each."""
    import json

    from prefstats.analysis.strength import format_gauge, gauge

    if format not in ("table", "json"):
        raise OptionError(f"--format must be table or json, got {format!r}")
    _compile_notice("strength")
    result = gauge(policy, against, deals=deals, seed=seed, samples=samples, variant=variant)
    typer.echo(json.dumps(result, indent=2) if format == "json" else format_gauge(result))


@app.command("player-stats")
def player_stats_command(
    preset: list[str] | None = typer.Option(
        None, "--preset", help="Preset played (repeat for several; name/4 for four players); "
                               "default every preset."),
    deals: int = typer.Option(20_000, help="Seeded deals played under each preset."),
    seed: int = typer.Option(7, help="Seed of the deals and the players' draws."),
    step: int = typer.Option(0, help="Raspasy step of every deal."),
    bombs: int = typer.Option(1, help="Every seat's bomb multiplier (classic)."),
    unfitted: bool = typer.Option(False, help="Play the unfitted heuristic (zero offsets) "
                                              "instead of the shipped fit."),
    solve: bool = typer.Option(True, help="Check the evaluator's tricks against the solver's."),
) -> None:
    """How the built-in heuristic bids, whists and scores under each preset: shares of
    bids, raspasy, misère, levels, made and whisted games, and its evaluator against the
    double-dummy solver."""
    from prefstats.analysis.player_stats import player_stats
    from prefstats.game.deal import deal
    from prefstats.game.variants import PRESETS, get_variant
    from prefstats.players import adjust

    if deals < 1:
        raise OptionError(f"--deals must be at least 1, got {deals}")
    variants = []
    for spec in preset or PRESETS:
        name, _, players = spec.partition("/")
        if players and not players.isdigit():
            raise OptionError(f"--preset {spec!r}: expected a preset name or name/players")
        variants.append((spec, get_variant(name, players=int(players) if players else None)))
    _compile_notice("player-stats")
    d = deal(deals, seed=seed)
    for i, (spec, variant) in enumerate(variants):
        if i:
            typer.echo()
        fitted = not unfitted and adjust.fit_meta(variant) is not None
        typer.echo(f"{spec} ({'fitted' if fitted else 'unfitted'} players): {deals:,} deals, "
                   f"seed {seed}, raspasy step {step}, bombs {bombs}")
        typer.echo(player_stats(d, variant, key=seed, raspasy_step=step, bombs=bombs,
                                offsets=np.zeros(adjust.SIZE) if unfitted else None,
                                solve=solve))


@app.command("exploit")
def exploit_command(
    variant: str = typer.Option("sochi", help="Preset whose players are gauged."),
    players: int | None = typer.Option(None, help="Players at the table (default the preset's)."),
    deals: int = typer.Option(20_000, help="Seeded deals, each played once per option of "
                                           "every decision class of every seat."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the deals and the players' "
                                                      "draws."),
    unfitted: bool = typer.Option(False, help="Gauge the unfitted heuristic (zero offsets) "
                                              "instead of the shipped fit."),
    top: int = typer.Option(12, min=1, help="Classes listed, largest gain first."),
    workers: int = typer.Option(1, min=1, help="Worker threads sharing the deals."),
    format: str = typer.Option("table", "--format", help="table or json."),
) -> None:
    """How much the best deviation from the players' calls earns, class by class: every
    option of first calls, competing, the contract, whist calls and misère forced on
    the same deals against the players' own play (whists a deal, 95% CIs)."""
    from prefstats.analysis.fit import exploitability
    from prefstats.game.deal import deal
    from prefstats.game.variants import get_variant
    from prefstats.players.adjust import fit_meta
    from prefstats.reports.exploit import format_gauge, top_classes

    if format not in ("table", "json"):
        raise OptionError(f"--format must be table or json, got {format!r}")
    if deals < 1:
        raise OptionError(f"--deals must be at least 1, got {deals}")
    rules = get_variant(variant, players=players)
    _compile_notice("exploit")
    table, head = exploitability(rules, deal(deals, seed=seed), seed=seed, workers=workers,
                                 unfitted=unfitted)
    if format == "json":
        typer.echo(json.dumps({**head, "classes_top": top_classes(table, top)}, indent=2))
        return
    fitted = not unfitted and fit_meta(rules) is not None
    typer.echo(format_gauge(table, f"{variant}: best deviations from the "
                            f"{'fitted' if fitted else 'unfitted'} players ({deals:,} deals, "
                            f"seed {seed})", top))


def _report_output(command: str, write, *files: str) -> None:
    """Compile what ``command`` needs, run its report writer and print the files
    written."""
    _compile_notice(command)
    folder = write()
    typer.echo(", ".join(f"{folder}/{f}" for f in files))


@app.command("solve")
def solve_command(
    hands: list[str] | None = typer.Argument(None, help='Three hands, seats 0 1 2, e.g. '
                                             '"♠AKQJ10 ♣AK ♦A ♥87"; or --seed and --deal.'),
    seed: int | None = typer.Option(None, min=0, help="Solve the dealt hands of a deal of "
                                    "this seed's stream (as `prefstats deal --seed` prints "
                                    "them) instead of typed hands."),
    deal_id: int | None = typer.Option(None, "--deal", min=0, help="The deal's number in the "
                                       "seed's stream (default 0; needs --seed)."),
    trump: str | None = typer.Option(None, help="Trump suit: S C D H (or ♠ ♣ ♦ ♥), or NT "
                                     "(the default; a misère has no trumps)."),
    leader: int = typer.Option(0, min=0, max=2, help="Seat that leads the first trick."),
    declarer: int = typer.Option(0, min=0, max=2, help="Seat of the declarer."),
    misere: bool = typer.Option(False, "--misere", help="Misère: no trumps, declarer ducks."),
    output: Format = FORMAT,
) -> None:
    """Double-dummy result of one position and the declarer's tricks after each first card.

    A dealt deal (--seed, --deal) is solved on the ten dealt cards of each hand, the talon
    left out."""
    from prefstats.game.cards import SUIT_LETTERS, SUITS, card_name, format_cards
    from prefstats.solver import solve_leads

    if seed is not None:
        if hands:
            raise OptionError("give three hands or --seed with --deal, not both")
        from prefstats.game.deal import deal

        dealt = deal(1, seed=seed, start=deal_id or 0)
        masks = [int(h) for h in dealt.hands[0]]
    elif deal_id is not None:
        raise OptionError("--deal is a deal's number in a seed's stream; it needs --seed")
    else:
        if len(hands or []) != 3:
            raise OptionError(f"expected three hands (or --seed and --deal), got "
                              f"{len(hands or [])}")
        masks = [_fixed(f"hand {s}", h) for s, h in enumerate(hands)]
    t = (trump or "NT").strip().upper()
    if t in ("NT", "N", "-", "БК"):
        suit = None
    elif len(t) == 1 and t in SUIT_LETTERS + SUITS:
        suit = (SUIT_LETTERS + SUITS).index(t) % 4
    else:
        raise OptionError(f"trump must be one of S C D H ♠ ♣ ♦ ♥ NT, got {trump!r}")
    if misere and suit is not None:
        raise OptionError(f"a misère is played without trumps; leave out --trump {trump}")
    _compile_notice("solve")
    leads = solve_leads(masks, trump=suit, leader=leader, declarer=declarer, misere=misere)
    # The leader picks the best card for his side: the declarer's side wants tricks on a
    # trick contract, the defenders want the misère declarer to take them.
    wants_tricks = (leader == declarer) != misere
    best = max(leads.values()) if wants_tricks else min(leads.values())
    cards = sorted(leads, key=lambda c: (c >> 3, -c))  # ♠ ♣ ♦ ♥, high to low
    optimal = [card_name(c) for c in cards if leads[c] == best]
    if output is not Format.table:
        rows = [{"card": card_name(c), "tricks": leads[c], "optimal": leads[c] == best}
                for c in cards]
        document = {"hands": [format_cards(m) for m in masks], "seed": seed,
                    "deal_id": None if seed is None else deal_id or 0,
                    "trump": None if suit is None else SUITS[suit], "misere": misere,
                    "leader": leader, "declarer": declarer, "tricks": best,
                    "optimal": optimal, "leads": rows}
        write_data(output, document, rows, ["card", "tricks", "optimal"])
        return
    if seed is not None:
        typer.echo(f"deal {deal_id or 0} of seed {seed}: "
                   + " | ".join(format_cards(m, voids=True) for m in masks))
    typer.echo(f"declarer (seat {declarer}) takes {best} trick(s)")
    typer.echo(f"optimal first cards of seat {leader}: {' '.join(optimal)}")
    typer.echo("tricks per first card: " + "  ".join(f"{card_name(c)} {leads[c]}" for c in cards))



