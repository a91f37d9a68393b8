"""``prefstats site``: the explorer's static edition (:mod:`prefstats.serve.site`)."""

from __future__ import annotations

from pathlib import Path

import typer

from prefstats.cli._app import app


@app.command("site")
def site_command(
    out: Path = typer.Argument(Path("site/explorer"), help="Folder to write the pages into."),
    reports: Path = typer.Option(Path("reports"), help="Folder of the committed guides "
                                                       "(<table>/guide.json)."),
) -> None:
    """Write the Charts pages and a lookup of the guides' advice as files that work
    opened from disk (no server, no rollout)."""
    from prefstats.serve.site import write_site

    if not any(reports.glob("*/guide.json")):
        typer.echo(f"reports: no committed guide (<table>/guide.json) under {reports}",
                   err=True)
        raise typer.Exit(2)
    typer.echo(f"site: {write_site(out, reports) / 'index.html'}")
