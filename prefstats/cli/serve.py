"""``prefstats serve``: the explorer, a local web application (:mod:`prefstats.serve`)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import typer

from prefstats.cli._app import app


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@app.command("serve")
def serve_command(
    host: str = typer.Option("127.0.0.1", help="Address to bind; anything but loopback "
                                               "lets other machines in (a warning)."),
    port: int = typer.Option(8000, min=0, max=65535, help="Port to listen on."),
    reports: Path = typer.Option(Path("reports"), help="Folder of the committed guides "
                                                       "(<table>/guide.json)."),
    data: Path = typer.Option(Path("data/serve"), help="The server's own folder: jobs' "
                                                       "results, uploaded variants."),
    workers: int | None = typer.Option(None, min=1, help="Jobs run at once (default: the "
                                                         "cores)."),
) -> None:
    """Serve the explorer: your hand, your deal, the charts, in a browser."""
    import uvicorn

    from prefstats.serve import create_app

    if not _loopback(host):
        typer.echo(f"warning: binding {host} lets other machines use this server; it has "
                   "no login", err=True)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"the explorer at http://{shown}:{port}/  (Ctrl-C stops it)")
    # Keep-alive outlasts a page's polling pauses, so connections are not cut mid-request.
    uvicorn.run(create_app(reports, data, workers=workers), host=host, port=port,
                log_level="warning", timeout_keep_alive=30)
