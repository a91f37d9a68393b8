"""The ``prefstats`` commands that deal, simulate, score, solve and report."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import typer

from prefstats.cli._app import (
    FORMAT,
    Format,
    HelpGroup,
    _compile_notice,
    app,
    write_data,
)
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
    from concurrent.futures import ThreadPoolExecutor

    from prefstats.game.variants import describe, get_variant
    from prefstats.reports import guide, report
    from prefstats.sim._workers import usable_cores
    from prefstats.sim.simulate import simulate, simulate_pulkas

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
    typer.echo(f"rolling out the guide's decisions into {folder / 'guide.md'} while "
               f"writing the report and its charts into {folder}")
    # the charts are drawn while the rollouts run compiled, without the GIL; the guide
    # stays in this thread, where Ctrl-C stops it
    with ThreadPoolExecutor(1) as pool:
        written = pool.submit(report, deals_dir, folder, pulkas=pulkas_dir, guide=True)
        guide(deals_dir, folder, workers=usable_cores())
        written.result()
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
