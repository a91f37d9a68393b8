"""``prefstats rollout``: one hand, many deals -- what should this hand do?

The rollout itself is :func:`prefstats.analysis.racing.race`: options compared on the
deals where all of them were legal (the decision reached, each option open), as paired
differences, raced until decided at ``STOP_SE`` standard errors or the deals asked for.
"""

from __future__ import annotations

import sys

import typer

# MIN_DEALS and summary stay importable from here, where 0.3 defined them.
from prefstats.analysis.racing import MIN_DEALS, STOP_SE, race, summary  # noqa: F401
from prefstats.cli._app import FORMAT, Format, _compile_notice, app, write_data
from prefstats.errors import OptionError
from prefstats.game.seed import DEFAULT_SEED


def _show_progress(output: Format) -> bool:
    """Whether the rollout shows its progress: a table written to a terminal."""
    return sys.stdout.isatty() and output is Format.table


def _print_text(result: dict, head: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=head)
    for col in ("option", "mean", "95% CI", "vs best", "95% CI ", "n"):
        table.add_column(col, justify="left" if col == "option" else "right")
    for r in result["rows"]:
        table.add_row(r["option"], f"{r['mean']:+.2f}", "[{:+.2f}, {:+.2f}]".format(*r["ci"]),
                      f"{r['diff_to_best']:+.2f}", "[{:+.2f}, {:+.2f}]".format(*r["diff_ci"]),
                      f"{r['n']:,}{'*' if r['dropped'] else ''}")
    console = Console()
    console.print(table)
    if any(r["dropped"] for r in result["rows"]):
        console.print(f"* dropped once the best led it by {STOP_SE:g} standard errors: "
                      "its figures are over the deals it was played on")
    verdict = "decided" if result["decided"] else "not decided"
    console.print(f"best: {result['best']} ({verdict}: the best leads every other option by "
                  f"{STOP_SE:g} standard errors); P(ranking right) "
                  f"{result['p_ranking_right']:.3f}; {result['deals']:,} deals played, "
                  f"{result['rows'][0]['n']:,} with every option legal")


@app.command("rollout")
def rollout_command(
    hand: str = typer.Argument(help='The seat\'s ten cards, e.g. "♠AKQ ♣AK7 ♦A ♥K87".'),
    seat: int = typer.Option(0, help="The seat from the dealer's left (0 first hand)."),
    variant: str = typer.Option("sochi", help="Preset: sochi, leningrad, rostov, classic, "
                                              "gusarik."),
    decision: str = typer.Option("first_call", help="first_call, whist, max_bid (options: "
                                 "levels 6..10) or contract (policy, levels, or contracts "
                                 "like 7♥)."),
    options: str | None = typer.Option(None, help="Comma-separated options (default: all the "
                                                  "variant has)."),
    talon: str | None = typer.Option(None, help="The talon when it is known (two cards)."),
    deals: int = typer.Option(100_000, help="At most this many deals (blocks of every "
                                            "talon once)."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the deals and the players' "
                                                "random choices."),
    policy: str = typer.Option("heuristic", help="Continuation policy: heuristic, random or pimc."),
    misere_catchers: str = typer.Option("hidden", help="Misère catchers: hidden (they "
                                        "cannot see the discard) or double_dummy (they "
                                        "see it: an upper bound on the catch rate)."),
    workers: int | None = typer.Option(None, min=1, help="Threads (default: all cores); the "
                                       "figures are the same for any number."),
    output: Format = FORMAT,
) -> None:
    """Play every option of one decision of HAND on many deals of the unseen cards and
    rank the options by their mean value in whists, as paired differences."""
    from prefstats.game.cards import format_cards, parse_cards
    from prefstats.game.variants import get_variant
    from prefstats.sim._workers import usable_cores
    from prefstats.sim.rollout import default_options, hand_deals, option_codes, rollout

    workers = workers or usable_cores()

    if deals < 1:
        raise OptionError(f"--deals must be at least 1, got {deals}")
    rules = get_variant(variant)
    if options is None:
        names = default_options(rules, decision)
    else:
        names = [o.strip() for o in options.split(",")]
    option_codes(rules, decision, names)
    mask = parse_cards(hand)
    known = parse_cards(talon) if talon else None
    hand_deals(mask, seat, 0, talon=known)  # checks the hand and the talon
    rollout(rules, hand_deals(mask, seat, 0, talon=known), seat=seat, decision=decision,
            options=names, policy=policy,
            misere_catchers=misere_catchers)  # checks the seat, the policy, the catchers
    _compile_notice("rollout", quiet=not _show_progress(output))
    result, played, ok = None, 0, 0
    show = _show_progress(output)
    from rich.progress import Progress

    with Progress(disable=not show, transient=True) as bar:
        task = bar.add_task("rollout", total=deals)
        for step in race(rules, mask, seat, decision, names, deals=deals, seed=seed,
                         policy=policy, workers=workers, misere_catchers=misere_catchers,
                         talon=known):
            played, result, ok = step
            bar.update(task, completed=played)
    if result is None:
        typer.echo(f"error: the decision was reached with every option legal on "
                   f"{ok} of {played:,} deals; too few to compare", err=True)
        raise typer.Exit(1)
    result.update(deals=played, hand=format_cards(mask), seat=seat, variant=variant,
                  decision=decision, policy=policy, misere_catchers=misere_catchers,
                  talon=format_cards(known) if known is not None else None)
    if output is not Format.table:
        rows = [{"option": r["option"], "mean": r["mean"], "ci_lo": r["ci"][0],
                 "ci_hi": r["ci"][1], "diff_to_best": r["diff_to_best"],
                 "diff_lo": r["diff_ci"][0], "diff_hi": r["diff_ci"][1],
                 "diff_se": r["diff_se"], "n": r["n"], "dropped": r["dropped"]}
                for r in result["rows"]]
        write_data(output, result, rows, list(rows[0]))
    else:
        _print_text(result, f"{format_cards(mask)}, seat {seat}, {variant}, {decision} "
                            f"({policy} policy), value in whists to the seat")
