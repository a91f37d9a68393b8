"""``prefstats charts``: every chart and table copy of the committed reports, drawn again
from their tables (:mod:`prefstats.reports.restore`), without simulating."""

from __future__ import annotations

import time

import typer

from prefstats.cli._app import _compile_notice, app


@app.command("charts")
def charts_command(
    root: str = typer.Argument("reports", help="A report folder, or a folder of them (each "
                                               "with its charts.json)."),
    quiet: bool = typer.Option(False, "--quiet", help="No line per chart."),
) -> None:
    """Draw every chart (PNG, SVG, PDF) and Parquet copy of the reports under ROOT from
    their committed tables (what `make reports` runs; `make guides` remakes them by
    simulation)."""
    from prefstats.reports.restore import restore

    _compile_notice("charts", quiet)
    start = time.perf_counter()
    written = restore(root, None if quiet else lambda p: typer.echo(f"charts: {p}", err=True))
    typer.echo(f"{len(written)} files written under {root} in "
               f"{time.perf_counter() - start:.0f} s")
