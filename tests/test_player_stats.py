"""`prefstats player-stats`: the heuristic's realism figures, formerly a script."""

from __future__ import annotations

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from prefstats.analysis.player_stats import player_stats
from prefstats.cli import app
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players import adjust

runner = CliRunner()


def _share(text: str, what: str) -> float:
    return float(re.search(rf"{what}\s+([\d.]+) %", text).group(1))


def test_the_figures_follow_the_offsets():
    d, sochi = deal(600, seed=7), get_variant("sochi")
    keen = np.zeros(adjust.SIZE)
    keen[adjust.CALL:adjust.WHIST] = 3.0
    shipped = player_stats(d, sochi, key=7, solve=False)
    assert shipped == player_stats(d, sochi, key=7, offsets=adjust.fitted(sochi), solve=False)
    assert _share(player_stats(d, sochi, key=7, offsets=keen, solve=False), "bid") > _share(
        shipped, "bid")


def test_the_command_covers_classic_and_two_players():
    result = runner.invoke(app, ["player-stats", "--deals", "300", "--preset", "classic/4",
                                 "--preset", "gusarik", "--unfitted"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "classic/4 (unfitted players): 300 deals" in out and "dark bid in" in out
    assert "gusarik (unfitted players)" in out and "defender with the dummy" in out
    assert "evaluator vs solver on" in out


@pytest.mark.parametrize("args,message", [(["--deals", "0"], "--deals must be at least 1"),
                                          (["--preset", "sochi/x"], "name/players"),
                                          (["--preset", "bridge"], "unknown")])
def test_bad_input_is_refused(args, message):
    result = runner.invoke(app, ["player-stats", *args])
    assert result.exit_code == 2 and message in result.output, result.output
