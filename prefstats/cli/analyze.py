"""``prefstats analyze DEAL.json``: every decision of one played deal against its best
alternative (:func:`prefstats.analysis.analyze.analyze`)."""

from __future__ import annotations

import json
import sys

import typer

from prefstats.cli._app import _compile_notice, app
from prefstats.errors import OptionError
from prefstats.game.seed import DEFAULT_SEED

#: The table's short names of the methods.
METHOD_LABELS = {"double dummy": "DD", "rollout": "rollout", "not analysed": "-"}


def _cell(value, fmt: str) -> str:
    return "" if value is None else format(value, fmt)


def _print_table(frame, head: str, names: list[str]) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title=head, box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("field", "seat", "done", "best", "loss", "± se", "tricks", "by", "kept"):
        table.add_column(col, justify="left" if col in ("field", "seat", "done", "best", "by")
                         else "right")
    for r in frame.iter_rows(named=True):
        se = _cell(r["loss_se"], ".2f") if r["method"] == "rollout" else ""
        tricks = "" if r["tricks_done"] is None else f"{r['tricks_done']}/{r['tricks_best']}"
        kept = "" if r["n"] is None else f"{r['n']:,} {r['acceptance']:.0%}"
        table.add_row(r["field"], names[r["seat"]], r["done"] or "", r["best"] or "",
                      _cell(r["loss"], ".2f"), se, tricks, METHOD_LABELS[r["method"]], kept)
    console = Console()
    console.print(table)
    from prefstats.analysis.analyze import seat_totals

    for r in seat_totals(frame).iter_rows(named=True):
        console.print(f"{names[r['seat']]}: {r['loss']:.2f} whists lost in {r['decisions']} "
                      f"decision(s) valued {r['method']}")
    console.print("loss: whists to the deciding seat (to its side for DD), the best option "
                  "minus the one made "
                  "(± its standard error over the rollout deals kept, share of the deals "
                  "dealt); tricks: the declarer's after the option made / the best; by: DD "
                  "double dummy, rollout, - not analysed (--format json gives the reason, "
                  "the record's line and every option's value)")


@app.command("analyze")
def analyze_command(
    record: str = typer.Argument(help="A deal record (JSON), a game record (JSON or text) "
                                      "or a folder of game records; see docs/ANALYZE.md."),
    variant: str | None = typer.Option(None, help="Preset overriding the record's "
                                                  "\"variant\"."),
    deals: int | None = typer.Option(None, help="Deals dealt per call decision for its "
                                                "rollout (default 2000 for a deal, "
                                                "200 for each deal of a game)."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the rollout deals and the "
                                                "players' choices."),
    policy: str = typer.Option("heuristic", help="Continuation policy of the rollouts: "
                                                 "heuristic or random."),
    condition: str = typer.Option("record", help="record: keep the rollout deals on which "
                                                 "the policy made the calls the seat heard; "
                                                 "none: keep every deal."),
    output: str = typer.Option("table", "--format", help="table or json (one deal)."),
    out: str | None = typer.Option(None, "--out", help="Folder for a game's tables and page "
                                                       "(default: analysis/GAME)."),
) -> None:
    """Value every decision of one played deal -- cards and discard double dummy, calls by
    rollouts over the cards the seat could not see -- in whists against its best
    alternative. Given a game (or a folder of games), analyse each deal and write each
    player's loss by decision type, the tables and a page."""
    from pathlib import Path

    from rich.console import Console
    from rich.progress import Progress

    from prefstats.analysis.analyze import analyze, deal_summary, load_record, record_variant
    from prefstats.analysis.game import GAME_DEALS, is_game_file
    from prefstats.game.variants import get_variant
    from prefstats.sim.rollout import POLICIES

    path = Path(record)
    if path.is_dir() or (path.is_file() and is_game_file(path)):
        _analyze_games(path, variant, GAME_DEALS if deals is None else deals, seed, policy,
                       condition, out)
        return
    deals = 2000 if deals is None else deals
    if output not in ("table", "json"):
        raise OptionError(f"--format must be table or json, got {output!r}")
    if deals < 1:
        raise OptionError(f"--deals must be at least 1, got {deals}")
    if policy not in POLICIES:
        raise OptionError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    rec = load_record(record)
    rules = get_variant(variant) if variant else record_variant(rec)
    summary = deal_summary(rec, rules)  # checks the whole record before any rollout
    show = sys.stderr.isatty()
    _compile_notice("analyze")
    with Progress(disable=not show, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("analyse", total=None)
        frame = analyze(rec, rules, deals=deals, seed=seed, policy=policy,
                        condition=condition,
                        progress=lambda done, total: bar.update(task, completed=done,
                                                                total=total))
    names = rec.data.get("names") or [f"seat {s}" for s in range(3)]
    if output == "json":
        summary.update(policy=policy, condition=condition, deals=deals, seed=seed)
        typer.echo(json.dumps({"deal": summary, "decisions": frame.to_dicts()}, indent=2,
                              ensure_ascii=False))
    else:
        _print_table(frame, f"{record}: {summary.get('contract', summary['kind'])}, tricks "
                            f"{summary['tricks']}; calls valued with the {policy} policy "
                            f"({condition} conditioning)", [str(n) for n in names])


def _analyze_games(path, variant, deals, seed, policy, condition, out) -> None:
    """Every game at ``path`` (a game file, or each game ``*.json``/``*.txt`` of a folder)
    analysed deal by deal; each player's losses printed, the tables and page written."""
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    import prefstats
    from prefstats.analysis.game import analyze_game, is_game_file, load_game
    from prefstats.analysis.game_stats import game_tables, rating_scale
    from prefstats.reports.charts import source_line
    from prefstats.reports.game import write_game_page
    from prefstats.sim.rollout import POLICIES

    if variant is not None:
        raise OptionError("--variant: a game record names its variant in its header")
    if deals < 1:
        raise OptionError(f"--deals must be at least 1, got {deals}")
    if policy not in POLICIES:
        raise OptionError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".json", ".txt")
                   and is_game_file(p)) if path.is_dir() else [path]
    games = [load_game(f) for f in files]  # every record checked before any analysis
    if not games:
        raise OptionError(f"{path}: no game records (*.json, *.txt) in the folder")
    console = Console(stderr=True)
    _compile_notice("analyze")
    for file, game in zip(files, games, strict=True):
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[step]}"), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True,
                      disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task(f"{file.name}: deal", total=len(game.deals), step="")

            def tick(k: int, done: int, total: int, task=task, bar=bar) -> None:
                bar.update(task, completed=k - 1 + (done / total if total else 1),
                           step=f"deal {k}: {done:,}/{total:,}")

            frame = analyze_game(game, deals=deals, seed=seed, policy=policy,
                                 condition=condition, progress=tick)
        folder = Path(out) / file.stem if out and len(files) > 1 else \
            Path(out or Path("analysis") / file.stem)
        tables = game_tables(game, frame, seed=seed)
        scale = rating_scale()
        bands = ", ".join(f"{name} up to {top:g}" if top != float("inf") else f"{name} above"
                          for name, top in scale.bands)
        meta = [f"{len(game.deals)} deals, {game.header.get('variant', 'sochi')}; calls valued "
                f"by rollouts of {deals} deals with the {policy} policy ({condition} "
                f"conditioning), cards and discards double dummy",
                f"loss: whists to the deciding player (to his side for double-dummy rows), "
                f"the best option minus the one made; rating: each loss capped at "
                f"{scale.cap:.1f} whists"]
        source = source_line(version=prefstats.__version__, deals=f"{len(game.deals)} deals",
                             seed=seed, command=f"prefstats analyze {file.name} --deals {deals}")
        write_game_page(f"{file.name}: the game analysed", tables, folder, meta=meta,
                        bands=bands, source=source)
        typer.echo(f"{file.name}: {len(game.deals)} deals, calls valued by {deals} rollout "
                   f"deals ({policy} policy)")
        for r in tables["players"].iter_rows(named=True):
            rating = "-" if r["rating"] is None else f"{r['rating']:.0f} ({r['band']})"
            lead = "-" if r["lead_dd"] is None else (
                f"{r['lead_dd']:.0%} of {r['leads']} double-dummy best, "
                f"{r['lead_search']:.0%} as the search player")
            typer.echo(f"  {r['name']}: result {r['result']:+.1f} = luck {r['luck']:+.1f} "
                       f"+ skill {r['skill']:+.1f}; rating {rating} over {r['choices']} real "
                       f"choices; {r['loss']:.2f} whists lost in {r['decisions']} decisions "
                       f"with a choice; leads {lead}")
        typer.echo(f"  tables and page: {folder}")
