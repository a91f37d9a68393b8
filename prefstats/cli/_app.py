"""The ``prefstats`` command group: error handling, ``--version`` and output formats."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

_PACKAGE = Path(__file__).resolve().parent.parent


def _user_error(exc: BaseException) -> str | None:
    """The one-line message of an everyday mistake, or ``None`` for a real bug.

    Mistakes are prefstats' own refusals (a ``ValueError``, ``DatasetError`` included,
    raised by prefstats' code) and operating-system errors (a missing, unreadable or
    read-only path, a refused connection). A ``ValueError`` raised inside a library
    prefstats calls is a bug of prefstats and keeps its traceback.
    """
    if isinstance(exc, OSError):
        if exc.filename is not None and exc.strerror:
            return f"{exc.filename}: {exc.strerror}"
        return str(exc) or type(exc).__name__
    if isinstance(exc, ValueError):
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        origin = Path(tb.tb_frame.f_code.co_filename).resolve() if tb else None
        if origin is not None and origin.is_relative_to(_PACKAGE):
            return str(exc)
    return None


class _Commands(TyperGroup):
    """The command group: a user's mistake ends the command with its message on stderr
    and exit status 2; Ctrl-C with status 130; anything else keeps its traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        except Exception as exc:
            message = _user_error(exc)
            if message is None:
                raise
            typer.echo(f"error: {message}", err=True)
            raise typer.Exit(2) from None


app = typer.Typer(
    cls=_Commands,
    help="Deal, play and score Preferans hands and turn them into statistics.",
    no_args_is_help=True,
    add_completion=False,
)


def _compile_notice(command: str, quiet: bool = False) -> None:
    """Compile (or load from the cache) every kernel ``command`` needs, in this process,
    before it starts workers: they then load the machine code instead of all compiling
    it at once. On a fresh cache (after an install or an edit of compiled code) a
    progress display on stderr names each step and counts them, unless ``quiet`` or
    stderr is not a terminal (see :mod:`prefstats._compile`)."""
    from prefstats import _compile

    _compile.warm_up(command, show=sys.stderr.isatty() and not quiet)


def _print_version(value: bool) -> None:
    if value:
        from prefstats import __version__

        typer.echo(f"prefstats {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    pass


class Format(StrEnum):
    """How a command writes its data: a table to read, or JSON / CSV for programs."""

    table = "table"
    json = "json"
    csv = "csv"


FORMAT = typer.Option(Format.table, "--format", case_sensitive=False,
                      help="table (to read), json or csv (for programs: the data alone on "
                      "stdout, csv with a header row).")


def write_data(output: Format, document: Mapping[str, Any],
               rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """Write a command's data to stdout: ``document`` as JSON, or ``rows`` (each a mapping
    over ``columns``) as CSV with a header row."""
    if output is Format.json:
        typer.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    typer.echo(buffer.getvalue(), nl=False)


def main() -> None:
    """Run the ``prefstats`` command."""
    app()
