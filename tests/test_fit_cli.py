"""`prefstats exploit`: the gauge on the command line, and its refusals (exit 2)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from prefstats.cli import app

runner = CliRunner()


@pytest.mark.parametrize("args,message", [
    (["--deals", "0"], "--deals must be at least 1"),
    (["--format", "xml"], "--format must be table or json"),
    (["--variant", "bridge"], "unknown variant"),
])
def test_bad_input_is_refused(args, message):
    result = runner.invoke(app, ["exploit", *args])
    assert result.exit_code == 2, result.output
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())
    assert message in text and "Traceback" not in text


def test_the_gauge_as_json():
    result = runner.invoke(app, ["exploit", "--deals", "150", "--unfitted", "--format",
                                 "json", "--top", "3"])
    assert result.exit_code == 0, result.output
    head = json.loads(result.output)
    assert {"largest", "mean", "mean_best", "classes", "met"} <= set(head)
    assert len(head["classes_top"]) <= 3 and head["mean"] <= head["mean_best"] + 1e-12
