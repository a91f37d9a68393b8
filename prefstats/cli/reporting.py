"""The commands that write pages from datasets: ``report``, ``compare`` and ``guide``."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from pathlib import Path

import typer

from prefstats.cli._app import (
    QUIET,
    WORKERS,
    app,
    report_output,
)
from prefstats.errors import OptionError
from prefstats.game.seed import DEFAULT_SEED


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

    report_output("report", lambda: report(dataset, out, pulkas=pulkas), "index.html",
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
    deals: int = typer.Option(200_000, min=100, help="Deals a variant (article)."),
    pulkas: int = typer.Option(2_000, min=10, help="Whole pulkas a variant (article)."),
    pool_target: int = typer.Option(20, min=1, help="Pool target of those pulkas."),
    seed: int = typer.Option(DEFAULT_SEED, min=0, help="Seed of every variant's deals."),
    paired: bool = typer.Option(False, help="Refuse DATASETS that do not hold the same "
                                            "deals (made with one seed) instead of comparing "
                                            "them unpaired."),
    workers: int | None = WORKERS,
    quiet: bool = QUIET,
) -> None:
    """With no DATASETS: simulate every preset (3 players, and 4 where a preset has
    them) on the same deals and write the rule-comparison article (index.html,
    article.md). With DATASETS: compare them side by side, deal by deal where they
    hold the same deals."""
    if datasets:
        from prefstats.reports import comparison

        report_output("compare", lambda: comparison(datasets, out, paired=paired),
                       "index.html", "report.md")
        return
    from prefstats.reports.article import write_article
    from prefstats.reports.render import site_index

    command = (f"prefstats compare --deals {deals} --pulkas {pulkas} --pool-target "
               f"{pool_target} --seed {seed}")
    report_output("compare-article",
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
        report_output("guide", lambda: guide(dataset, out).parent, "guide.md")
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
        report_output("guide",
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
        from prefstats.sim._chunks import atomic_write

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
