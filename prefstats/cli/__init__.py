"""The ``prefstats`` command line: ``prefstats --help`` lists the commands."""

from prefstats.cli import analyze, commands, rollout, serve  # each registers its commands
from prefstats.cli._app import app, main
