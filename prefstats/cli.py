"""The ``prefstats`` command line."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Deal, play and score Preferans hands and turn them into statistics.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
def demo() -> None:
    """The main job: for now, deal a few hands and print deal statistics."""
    typer.echo("prefstats demo")


variants_app = typer.Typer(help="Rule variants: presets and house rules.", no_args_is_help=True)
app.add_typer(variants_app, name="variants")


@variants_app.command("show")
def variants_show(
    name: str = typer.Argument(help="Preset (sochi, leningrad, rostov) or a variant .toml file."),
    players: int = typer.Option(3, help="Players at the table, 3 or 4 (for a preset)."),
) -> None:
    """Print a variant as commented TOML: save it, edit it, load it with load_variant."""
    from prefstats.variants import get_variant, load_variant

    try:
        v = load_variant(name) if name.endswith(".toml") else get_variant(name, players=players)
    except (ValueError, OSError) as exc:
        raise typer.BadParameter(str(exc), param_hint="NAME") from None
    typer.echo(v.to_toml(), nl=False)


@app.command("score")
def score_command(
    file: str = typer.Argument(help="Deal outcomes, JSON or TOML: see sheet_from_records."),
    log: bool = typer.Option(False, "--log", help="Also print every entry of the sheet."),
) -> None:
    """Score a pulka: print the sheet (pool, mountain, whists) and the settlement."""
    from rich.console import Console
    from rich.table import Table

    from prefstats.scoring import load_pulka

    try:
        sheet = load_pulka(file)
    except (ValueError, OSError) as exc:
        raise typer.BadParameter(str(exc), param_hint="FILE") from None

    def num(x) -> str:
        return f"{float(x):g}"

    v = sheet.variant
    n = v.players
    title = f"{v.base}, {n} players, {sheet.deals} deal(s)" + (
        ", pulka over" if sheet.finished else ""
    )
    table = Table(title=title)
    for col in ("player", "pool", "mountain", *(f"whists on {j}" for j in range(n)), "score"):
        table.add_column(col, justify="right")
    for i, score in enumerate(sheet.value_exact()):
        whists = [num(sheet.whists[i, j]) if j != i else "" for j in range(n)]
        score_text = f"{float(score):+.2f}" + ("" if score.denominator == 1 else f" ({score})")
        table.add_row(str(i), num(sheet.pool[i]), num(sheet.mountain[i]), *whists, score_text)
    console = Console()
    console.print(table)
    console.print(f"pool point = {v.pool_value} whists, mountain point = {v.mountain_value}")
    if log:
        entries = Table(title="entries")
        for col in ("deal", "column", "player", "on", "amount"):
            entries.add_column(col, justify="right")
        for e in sheet.log:
            on = "" if e.on is None else str(e.on)
            entries.add_row(str(e.deal), e.column, str(e.player), on, num(e.amount))
        console.print(entries)


def main() -> None:
    app()
