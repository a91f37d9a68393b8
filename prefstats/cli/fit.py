"""``prefstats fit``: remake the data the package ships from simulations.

- ``fit evaluator``: the heuristic player's evaluation tables, fitted to double-dummy
  solver results (:mod:`prefstats.players.evaluator_fit`);
- ``fit bidding``: the offsets of the players' calls of one table of players, refitted by
  counterfactual rollouts (:mod:`prefstats.analysis.fit`);
- ``fit rating``: the performance rating's cap, scale and bands of one table, calibrated
  on deals of the search, heuristic and random players
  (:mod:`prefstats.analysis.rating_calibration`).

Each writes into the package's data folder unless given ``--out``; refit after a change
to the card play or the evaluator, and commit the file with the command it records.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import typer

from prefstats.cli._app import HelpGroup, app

fit_app = typer.Typer(cls=HelpGroup, no_args_is_help=True,
                      help="Remake the data the package ships: the evaluator's tables, the "
                      "players' call offsets, the rating's bands.")
app.add_typer(fit_app, name="fit")


@fit_app.command("evaluator")
def evaluator_command(
    seed: int = typer.Option(2026, help="Seed of every part's deals (part k: seed + k)."),
    scale: float = typer.Option(1.0, help="Multiply every part's deals (24,000 post, 30,000 "
                                "pre, 2 x 5,000 misère, 20,000 defence) by this."),
    ridge: float = typer.Option(20.0, help="Shrinkage of each table entry to its prior."),
    part: list[str] = typer.Option(["post", "pre", "defence", "misere"], "--part",
                                   help="Refit only these parts (repeat the option), keeping "
                                   "the rest of the shipped tables."),
    out: Path | None = typer.Option(None, help="The file to write (default: the shipped "
                                    "prefstats/players/data/evaluator.npz)."),
) -> None:
    """Fit the heuristic player's evaluation tables to double-dummy solver results."""
    from prefstats.players.evaluator_fit import SHIPPED, fit_evaluator

    fit_evaluator(out or SHIPPED, seed=seed, scale=scale, ridge=ridge, parts=part,
                  log=lambda line: typer.echo(line, err=True))


@fit_app.command("bidding")
def bidding_command(
    variant: str = typer.Option("sochi", help="Preset whose players' calls are refitted."),
    players: int | None = typer.Option(None, help="Players at the table (default: the "
                                       "preset's)."),
    deals: int = typer.Option(20_000, min=1, help="Fresh deals per round."),
    rounds: int = typer.Option(6, min=1, help="Most rounds that move the offsets."),
    seed: int = typer.Option(1, help="Seed of the rounds' deals."),
    step: float = typer.Option(0.5, help="First step, in tricks."),
    workers: int = typer.Option(1, min=1, help="Threads sharing each rollout."),
    warm: bool = typer.Option(False, help="Start from the shipped offsets instead of zeros "
                              "(a refit after a card-play change; use a new --seed for "
                              "deals the old fit never saw)."),
    out: Path | None = typer.Option(None, help="Folder of the fitted file (default: the "
                                    "package's prefstats/players/data)."),
) -> None:
    """Refit the built-in players' calls by counterfactual rollouts."""
    from prefstats import __version__
    from prefstats.analysis.fit import fit, summary
    from prefstats.game.variants import get_variant
    from prefstats.players import adjust
    from prefstats.players.evaluator_fit import SHIPPED
    from prefstats.reports.exploit import format_gauge, top_classes

    table = get_variant(variant, players=players)
    command = (f"prefstats fit bidding --variant {variant} --players {table.players} "
               f"--deals {deals} --rounds {rounds} --seed {seed} --step {step}"
               + (" --warm" if warm else ""))
    start = np.array(adjust.fitted(table)) if warm else None
    result = fit(table, deals_per_round=deals, rounds=rounds, seed=seed, start=start,
                 first_step=step, workers=workers, log=lambda line: typer.echo(line, err=True))
    meta = {"command": command, "warm": warm, "version": __version__,
            "seconds": round(result["seconds"]), "rounds": len(result["rounds"]),
            "history": result["rounds"], "before": summary(result["before"]),
            "after": summary(result["after"]), "before_top": top_classes(result["before"]),
            "after_top": top_classes(result["after"])}
    path = (out or SHIPPED.parent) / adjust.data_file(table.base, table.players)
    adjust.save(path, result["offsets"], meta)
    start_name = "the shipped offsets" if warm else "the unfitted heuristic"
    typer.echo(format_gauge(result["before"], f"before the fit ({start_name})"))
    typer.echo("")
    typer.echo(format_gauge(result["after"], "after the fit (fresh deals)"))
    typer.echo(f"\nwrote {path} in {result['seconds']:,.0f} s")


@fit_app.command("rating")
def rating_command(
    variant: str = typer.Option("sochi", help="Preset whose table is calibrated."),
    players: int | None = typer.Option(None, help="Players at the table (default: the "
                                       "preset's)."),
    pulkas: int = typer.Option(12, min=2, help="Pulkas per player."),
    deals: int = typer.Option(10, min=1, help="Deals per pulka."),
    rollout: int = typer.Option(50, min=1, help="Rollout deals per call decision."),
    seed: int = typer.Option(1000, help="Seed of pulka 0 (pulka j: seed + j)."),
    check: bool = typer.Option(False, help="Only print the players' order; write nothing."),
    workers: int | None = typer.Option(None, min=1, help="Processes, one pulka each at a "
                                       "time (default: all cores)."),
    results: Path | None = typer.Option(None, help="The file of the pulkas done, one JSON "
                                        "line each, read first and added to as pulkas "
                                        "finish (default: under ~/.cache/prefstats/"
                                        "calibrate_rating/)."),
    out: Path | None = typer.Option(None, help="The file to write (default: the table's "
                                    "shipped prefstats/analysis/data/rating-<preset>-"
                                    "<players>.toml)."),
) -> None:
    """Calibrate the performance rating of a whole game at one table: cap, scale, bands."""
    from prefstats.analysis.rating_calibration import calibrate, rating_toml, shipped
    from prefstats.game.variants import get_variant

    table = get_variant(variant, players=players)
    summary = calibrate(table, pulkas, deals, rollout, seed, workers=workers,
                        results=results, log=lambda line: typer.echo(line, err=True))
    typer.echo(json.dumps(summary, indent=1))
    if check:
        return
    command = (f"prefstats fit rating --variant {table.base} --players {table.players} "
               f"--pulkas {pulkas} --deals {deals} --rollout {rollout} --seed {seed}")
    target = out or shipped(table)
    target.write_text(rating_toml(summary, command), "utf-8")
    typer.echo(f"wrote {target}")
