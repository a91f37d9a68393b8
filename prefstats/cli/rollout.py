"""``prefstats rollout``: one hand, many deals -- what should this hand do?

The unseen cards are dealt exactly uniformly, stratified over the talons
(:func:`prefstats.sim.rollout.hand_deals`); every option is played on each deal by
:func:`prefstats.sim.rollout.rollout`. Options are compared on the deals where all of them
were legal (the decision reached, each option open), as paired differences. An option
the best leads by ``STOP_SE`` standard errors is dropped from the later rounds (racing):
the close options get the deals, and a hopeless one (a forced misère, one solver call a
deal) stops costing time.
"""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import typer

from prefstats.cli._app import FORMAT, Format, _compile_notice, app, write_data
from prefstats.errors import OptionError
from prefstats.game.seed import DEFAULT_SEED

#: The best option must lead every other by this many standard errors of the paired
#: difference before the rollout stops early.
STOP_SE = 3.0
#: Deals before the stopping rule is looked at: noise can fake a lead on a few deals.
MIN_DEALS = 500
#: Most deals between two looks at the stopping rule. The first round plays just enough
#: blocks to reach MIN_DEALS and each later one doubles the deals played up to this, so
#: a clear decision stops soon and a close one is not looked at too often.
ROUND_DEALS = 2000


def _se(x: np.ndarray) -> float:
    """The standard error of the mean of ``x`` (infinite for fewer than two values)."""
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.inf


def summary(values: np.ndarray, options: list[str]) -> dict:
    """Per option the mean value, its 95% CI, the paired difference to the best option
    and its CI (normal approximations), and the probability that the ranking is right:
    the product over neighbours in the ranking of P(the higher one is better), taken as
    independent. ``values`` is ``(n, k)`` over the deals where every option played was
    legal; NaN marks an option no longer played (dropped, see :func:`rollout_command`):
    its figures are over the deals it was played on, and it ranks below the options
    played on every deal. ``settled`` says whether an option no longer needs deals: the
    best, one dropped, or one the best leads by ``STOP_SE`` standard errors over at
    least ``MIN_DEALS`` deals; ``decided`` whether every option is settled."""
    n, k = values.shape
    played = ~np.isnan(values)
    full = played.all(axis=0)
    mean = np.array([values[played[:, o], o].mean() if played[:, o].any() else -math.inf
                     for o in range(k)])
    order = sorted(range(k), key=lambda o: (not full[o], -mean[o]))
    best = order[0]
    rows = []
    for o in order:
        x = values[played[:, o], o]
        diff = x - values[played[:, o], best]
        se, d_se = _se(x), _se(diff)
        leads = d_se > 0 and -diff.mean() >= STOP_SE * d_se and len(x) >= MIN_DEALS
        rows.append({"option": options[o], "mean": float(mean[o]),
                     "ci": [float(mean[o] - 1.96 * se), float(mean[o] + 1.96 * se)],
                     "diff_to_best": float(diff.mean()),
                     "diff_ci": [float(diff.mean() - 1.96 * d_se),
                                 float(diff.mean() + 1.96 * d_se)],
                     "diff_se": d_se, "n": len(x), "dropped": not full[o],
                     "settled": bool(o == best or not full[o] or leads)})
    p_right = 1.0
    for hi, lo in itertools.pairwise(order):
        both = played[:, hi] & played[:, lo]
        gap = values[both, hi] - values[both, lo]
        gap_se = _se(gap)
        z = gap.mean() / gap_se if gap_se > 0 else math.inf
        p_right *= 0.5 * (1 + math.erf(z / math.sqrt(2)))
    return {"best": options[best], "rows": rows, "p_ranking_right": p_right,
            "decided": bool(all(r["settled"] for r in rows) and n >= MIN_DEALS and k > 1)}


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
    block = len(hand_deals(mask, seat, 1, talon=known))  # the talons: one deal each
    blocks = -(-deals // block)
    first = max(1, -(-MIN_DEALS // block))
    per_round = max(first, ROUND_DEALS // block)
    chunks, oks = [], []
    active = list(range(len(names)))  # the options still played
    result = None
    done = 0
    show = _show_progress(output)
    from rich.progress import Progress

    with Progress(disable=not show, transient=True) as bar:
        task = bar.add_task("rollout", total=deals)
        while done < blocks:
            step = min(min(done, per_round) if done else first, blocks - done)
            dealt = hand_deals(mask, seat, step, seed=seed, start=done, talon=known)
            dealt = dealt[: deals - done * block]  # the last block may be cut at --deals
            frame = rollout(rules, dealt, seat=seat, decision=decision,
                            options=[names[o] for o in active], seed=seed, policy=policy,
                            workers=workers, misere_catchers=misere_catchers)
            got = frame.select("legal", "value").to_numpy().reshape(-1, len(active), 2)
            values = np.full((len(got), len(names)), np.nan)
            values[:, active] = got[:, :, 1].astype(np.float64)
            chunks.append(values)
            oks.append(got[:, :, 0].astype(bool).all(axis=1))
            done += step
            played = min(done * block, deals)
            bar.update(task, completed=played)
            ok = np.concatenate(oks)
            if ok.sum() >= 2:
                result = summary(np.concatenate(chunks)[ok], names)
                if result["decided"]:
                    break
                # An option the best already leads by STOP_SE standard errors is not
                # played on later deals: the remaining options decide sooner.
                settled = {r["option"] for r in result["rows"][1:] if r["settled"]}
                active = [o for o in active if names[o] not in settled]
    if result is None:
        typer.echo(f"error: the decision was reached with every option legal on "
                   f"{int(ok.sum())} of {played:,} deals; too few to compare", err=True)
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
