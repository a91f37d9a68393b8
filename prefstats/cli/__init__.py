"""The ``prefstats`` command line: ``prefstats --help`` lists the commands."""

from prefstats.cli import (  # each registers its commands
    analyze,
    books,
    charts,
    commands,
    datasets,
    fit,
    gauges,
    reporting,
    rollout,
    serve,
    site,
)
from prefstats.cli._app import app, main
