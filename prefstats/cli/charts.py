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
    workers: int | None = typer.Option(None, min=1, help="Processes drawing the charts "
                                                         "(default: every usable core)."),
    force: bool = typer.Option(False, "--force", help="Draw again the folders whose tables "
                                                      "and drawing code are unchanged "
                                                      "(and keep them in the cache)."),
) -> None:
    """Draw every chart (PNG, SVG, PDF) and Parquet copy of the reports under ROOT from
    their committed tables (what `make reports` runs; `make guides` remakes them by
    simulation). A folder already drawn from the same tables by the same code is left as
    it is, or copied from the cache beside the compiled code when another copy of the
    repository drew it."""
    from prefstats.reports.restore import cache_folder, restore
    from prefstats.sim._workers import usable_cores

    _compile_notice("charts", quiet)
    start = time.perf_counter()
    written, kept = restore(root, None if quiet else lambda p: typer.echo(f"charts: {p}",
                                                                          err=True),
                            workers=workers or usable_cores(), force=force,
                            cache=cache_folder())
    same = f"; {len(kept)} folders already drawn (--force draws them again)" if kept else ""
    typer.echo(f"{len(written)} files written under {root} in "
               f"{time.perf_counter() - start:.0f} s{same}")
