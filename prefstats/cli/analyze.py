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
    record: str = typer.Argument(help="The deal record (JSON; see docs/ANALYZE.md)."),
    variant: str | None = typer.Option(None, help="Preset overriding the record's "
                                                  "\"variant\"."),
    deals: int = typer.Option(2000, help="Deals dealt per call decision for its rollout."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the rollout deals and the "
                                                "players' choices."),
    policy: str = typer.Option("heuristic", help="Continuation policy of the rollouts: "
                                                 "heuristic or random."),
    condition: str = typer.Option("record", help="record: keep the rollout deals on which "
                                                 "the policy made the calls the seat heard; "
                                                 "none: keep every deal."),
    output: str = typer.Option("table", "--format", help="table or json."),
) -> None:
    """Value every decision of one played deal -- cards and discard double dummy, calls by
    rollouts over the cards the seat could not see -- in whists against its best
    alternative."""
    from rich.console import Console
    from rich.progress import Progress

    from prefstats.analysis.analyze import analyze, deal_summary, load_record, record_variant
    from prefstats.game.variants import get_variant
    from prefstats.sim.rollout import POLICIES

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
