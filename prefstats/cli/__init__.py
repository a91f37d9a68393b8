"""The ``prefstats`` command line: ``prefstats --help`` lists the commands."""

from prefstats.cli import analyze, charts, commands, rollout  # each registers its commands
from prefstats.cli._app import app, main
