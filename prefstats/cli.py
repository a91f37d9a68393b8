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


def main() -> None:
    app()
