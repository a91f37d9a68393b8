"""``prefstats books``: what the Preferans books say, checked against the project
(:mod:`prefstats.analysis.books`), written as ``books.json``, a page and an article."""

from __future__ import annotations

import shlex
import sys

import typer

from prefstats.cli._app import app
from prefstats.errors import OptionError
from prefstats.game.seed import DEFAULT_SEED


@app.command("books")
def books_command(
    out: str = typer.Option("reports/books", help="Folder of books.json, index.html and "
                            "article.md."),
    variant: str = typer.Option("sochi", help="Preset whose rules, scoring and players play."),
    scale: float = typer.Option(1.0, help="Size of every simulation relative to the "
                                "committed report (0.01 for a quick look)."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of every deal and player."),
    workers: int | None = typer.Option(None, min=1, help="Threads of the misère rollouts "
                                       "(default: all cores); the figures are the same for "
                                       "any number."),
    quiet: bool = typer.Option(False, help="No progress lines."),
) -> None:
    """Set every figure of the Preferans books beside the project's: exact enumeration,
    the rules, or play by the project's players, each with a verdict."""
    from prefstats import __version__
    from prefstats.analysis.books_sections import book_rows
    from prefstats.game.variants import get_variant
    from prefstats.reports.books import tally, write_books
    from prefstats.sim._workers import usable_cores

    if not scale > 0:
        raise OptionError(f"--scale must be positive, got {scale:g}")
    get_variant(variant)  # a clear error for an unknown preset

    def log(text: str) -> None:
        if not quiet:
            typer.echo(text, err=True)

    rows, curve = book_rows(variant, scale=scale, seed=seed,
                            workers=workers or usable_cores(), log=log)
    records = [r.record() for r in rows]
    meta = {"variant": variant, "seed": seed, "scale": scale, "version": __version__,
            "command": "prefstats books " + shlex.join(sys.argv[2:]) if len(sys.argv) > 2
            else "prefstats books"}
    path = write_books(records, curve, out, meta)
    t = tally(records)
    typer.echo(f"{len(records)} rows into {path}: {t['confirmed']} confirmed, "
               f"{t['refuted']} refuted, {t['not comparable']} not comparable")
