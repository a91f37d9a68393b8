"""The ``prefstats`` command group: error handling, ``--version`` and output formats."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

import typer
from typer.core import TyperGroup

from prefstats.errors import PrefstatsError


def _user_error(exc: BaseException) -> str | None:
    """The one-line message of a user's mistake, or ``None`` for a bug of prefstats.

    Mistakes are prefstats' refusals (a :class:`~prefstats.errors.PrefstatsError`) and
    operating-system errors (a missing, unreadable or read-only path, a refused
    connection). Anything else, a bare ``ValueError`` included, is a bug and keeps its
    traceback.
    """
    if isinstance(exc, PrefstatsError):
        return str(exc)
    if isinstance(exc, OSError):
        if exc.filename is not None and exc.strerror:
            return f"{exc.filename}: {exc.strerror}"
        return str(exc) or type(exc).__name__
    return None


class HelpGroup(TyperGroup):
    """A command group that, called without arguments, prints its help and succeeds."""

    def parse_args(self, ctx, args):
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        return super().parse_args(ctx, args)


class _Commands(HelpGroup):
    """The command group: a user's mistake ends the command with its message on stderr
    and exit status 2; Ctrl-C with status 130; anything else is a bug: its traceback
    and exit status 1."""

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


#: Options several commands share.
WORKERS = typer.Option(None, min=1, help="Local processes (default: all cores).")
QUIET = typer.Option(False, help="No progress bar.")

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
    stderr is not a terminal (see :mod:`prefstats.cli._compile`)."""
    from prefstats.cli import _compile

    _compile.warm_up(command, show=sys.stderr.isatty() and not quiet)


def report_output(command: str, write, *files: str) -> None:
    """Compile what ``command`` needs, run its report writer and print the files
    written."""
    _compile_notice(command)
    folder = write()
    typer.echo(", ".join(f"{folder}/{f}" for f in files))



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
