"""The commands that gauge players: ``strength``, ``player-stats`` and ``exploit``."""

from __future__ import annotations

import json

import numpy as np
import typer

from prefstats.cli._app import _compile_notice, app
from prefstats.errors import OptionError
from prefstats.game.seed import DEFAULT_SEED


@app.command("strength")
def strength_command(
    policy: str = typer.Option(..., help="The built-in player gauged: heuristic, pimc or random."),
    against: str = typer.Option(..., help="The player it is measured against."),
    deals: int = typer.Option(4000, help="Seeded deals to bid (their closed games, misères "
                                         "and raspasy are played out)."),
    samples: int | None = typer.Option(None, help="Deals a PIMC player samples a card "
                                                  "(default 32)."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the deals."),
    variant: str = typer.Option("sochi", help="Preset whose rules are played."),
    misere_catchers: str = typer.Option("hidden", help="How an open misère is caught: "
                                                       "hidden (the catchers cannot see the "
                                                       "discard) or double_dummy."),
    format: str = typer.Option("table", "--format", help="table or json."),
) -> None:
    """Tricks one player's declarer and defence give away against another's, paired on
    the same closed games, its misère declarer and catchers on the same misères;
    raspasy tricks a seat takes under each."""
    import json

    from prefstats.analysis.strength import format_gauge, gauge

    if format not in ("table", "json"):
        raise OptionError(f"--format must be table or json, got {format!r}")
    _compile_notice("strength")
    result = gauge(policy, against, deals=deals, seed=seed, samples=samples, variant=variant,
                   misere_catchers=misere_catchers)
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
