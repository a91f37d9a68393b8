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
                                                       "(default: analysis/GAME); for a "
                                                       "folder of games, one subfolder "
                                                       "each and the summary."),
    workers: int | None = typer.Option(None, min=1, help="Processes analysing a folder's "
                                                         "games (default: all cores)."),
) -> None:
    """Value every decision of one played deal -- cards and discard double dummy, calls by
    rollouts over the cards the seat could not see -- in whists against its best
    alternative. Given a game (or a folder of games, in parallel), analyse each deal and
    write each player's figures, the tables, a page and the mistakes to train; games
    already analysed with the same settings are skipped."""
    from pathlib import Path

    from rich.console import Console
    from rich.progress import Progress

    from prefstats.analysis.analyze import analyze, deal_summary, load_record
    from prefstats.analysis.game import GAME_DEALS
    from prefstats.analysis.game_record import is_game_file
    from prefstats.analysis.record import record_variant
    from prefstats.game.variants import get_variant
    from prefstats.sim.rollout import POLICIES

    path = Path(record)
    if path.is_dir() or (path.is_file() and is_game_file(path)):
        _analyze_games(path, variant, GAME_DEALS if deals is None else deals, seed, policy,
                       condition, out, workers)
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


def _analyze_games(path, variant, deals, seed, policy, condition, out, workers) -> None:
    """Every game at ``path`` (a game file, or each game ``*.json``/``*.txt`` of a folder)
    analysed deal by deal into its results folder (a folder's games in parallel, those
    already done skipped); each player's figures printed, a folder's summary written."""
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from prefstats.analysis.game import load_game
    from prefstats.analysis.game_record import is_game_file
    from prefstats.reports.games import (
        Settings,
        analyse_games,
        batch_summary,
        check_names,
        done_result,
        result_key,
    )
    from prefstats.sim._workers import usable_cores
    from prefstats.sim.rollout import POLICIES

    if variant is not None:
        raise OptionError("--variant: a game record names its variant in its header")
    if deals < 1:
        raise OptionError(f"--deals must be at least 1, got {deals}")
    if policy not in POLICIES:
        raise OptionError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    workers = workers or usable_cores()
    folder = path.is_dir()
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".json", ".txt")
                   and is_game_file(p)) if folder else [path]
    games = [load_game(f) for f in files]  # every record checked before any analysis
    if not games:
        raise OptionError(f"{path}: no game records (*.json, *.txt) in the folder")
    root = Path(out) if out else Path("analysis") / (path.name if folder else path.stem)
    jobs = [(f, root / f.stem if folder else root) for f in files]
    check_names(jobs)
    settings = Settings(deals, seed, policy, condition)
    results: dict[int, dict] = {}
    for i, (f, dest) in enumerate(jobs):
        result = done_result(dest, result_key(f, settings))
        if result is not None:
            results[i] = result
    todo = [i for i in range(len(jobs)) if i not in results]
    if results:
        typer.echo(f"{len(results)} of {len(jobs)} game(s) already analysed with these "
                   f"settings (their result.json matches): skipped")
    console = Console(stderr=True)
    if todo:
        _compile_notice("analyze")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[step]}"), TimeElapsedColumn())
    total = sum(len(games[i].deals) for i in todo)
    under_way: dict[int, float] = {}
    with Progress(*columns, console=console, transient=True,
                  disable=not sys.stderr.isatty() or not todo) as bar:
        task = bar.add_task(f"{len(todo)} game(s): deals", total=total, step="")
        finished = 0

        def tick(k: int, done: float) -> None:
            if todo[k] in results:
                return  # a worker's last word, come after its game
            under_way[k] = done
            bar.update(task, completed=finished + sum(under_way.values()),
                       step=", ".join(f"{jobs[todo[k]][0].name} deal "
                                      f"{min(int(d) + 1, len(games[todo[k]].deals))}"
                                      for k, d in under_way.items()))

        try:
            for k, result in analyse_games([jobs[i] for i in todo], settings,
                                           workers=workers, progress=tick):
                under_way.pop(k, None)
                finished += result["deals"]
                results[todo[k]] = result
                bar.update(task, completed=finished + sum(under_way.values()))
                bar.console.print(f"{jobs[todo[k]][0].name}: done")
        except KeyboardInterrupt:
            console.print(f"stopped: {len(results)} of {len(jobs)} game(s) done and kept; "
                          f"the same command continues with the others")
            raise typer.Exit(130) from None
    for i, (_, dest) in enumerate(jobs):
        _print_game(results[i], dest)
    if folder:
        batch_summary([results[i] for i in range(len(jobs))], root)
        typer.echo(f"summary of {len(jobs)} game(s): {root}/summary_games.csv, "
                   f"{root}/summary_players.csv")


def _print_game(result: dict, folder) -> None:
    """One game's figures as the command prints them."""
    s = result["settings"]
    typer.echo(f"{result['game']}: {result['deals']} deals, calls valued by {s['deals']} "
               f"rollout deals ({s['policy']} policy)")
    for r in result["players"]:
        rating = "-" if r["rating"] is None else f"{r['rating']:.0f} ({r['band']})"
        lead = "-" if r["lead_dd"] is None else (
            f"{r['lead_dd']:.0%} of {r['leads']} double-dummy best, "
            f"{r['lead_search']:.0%} as the search player")
        typer.echo(f"  {r['name']}: result {r['result']:+.1f} = luck {r['luck']:+.1f} "
                   f"+ own decisions {r['own']:+.1f} + the others' {r['others']:+.1f}; "
                   f"rating {rating} over {r['choices']} real choices; {r['loss']:.2f} "
                   f"whists lost in {r['decisions']} decisions with a choice; leads {lead}")
    typer.echo(f"  tables, page and {result['positions']} position(s) to train "
               f"(train.html): {folder}")
