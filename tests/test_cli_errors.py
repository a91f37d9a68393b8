"""Everyday mistakes on the command line: each is refused with a one-line message and
exit status 2, never a traceback or a crash; real bugs keep their traceback; a first run
says that it compiles."""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from prefstats import _cache
from prefstats.cli import _app as cli
from prefstats.cli import app
from prefstats.errors import PrefstatsError
from prefstats.game.deal import deal
from prefstats.game.variants import Rate, get_variant
from prefstats.players.params import (
    PARAMETERS,
    PIMC_PARAMETERS,
    RANGES,
    check_params,
    policy_params,
)

runner = CliRunner()


def _refused(*args: str) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())  # rich's box, unwrapped


SIMULATE = ("simulate", "--hands", "10", "--workers", "1", "--quiet")


@pytest.mark.parametrize("value", ["aggression=nan", "aggression=inf", "aggression=-inf",
                                   "expect_whist=nan", "blind_pass=5", "aggression=1e9",
                                   "misere_risk=-0.1"])
def test_player_parameters_out_of_range_are_refused(tmp_path, value):
    out = _refused(*SIMULATE, "--out", tmp_path / "d", "--param", value)
    assert "out of range: allowed" in out and value.split("=")[0] in out
    assert not (tmp_path / "d").exists()


def test_every_parameter_has_a_range_holding_its_default():
    assert set(RANGES) == set(PARAMETERS) | set(PIMC_PARAMETERS)
    for name, (_, default, _) in {**PARAMETERS, **PIMC_PARAMETERS}.items():
        low, high = RANGES[name]
        assert low <= default <= high and math.isfinite(low) and math.isfinite(high)
        policy_params("pimc", **{name: low})
        policy_params("pimc", **{name: high})
        for bad in (low - 1e-9, high + 1e-9, float("nan")):
            with pytest.raises(ValueError, match=f"{name} = .* allowed"):
                policy_params("pimc", **{name: bad})
    with pytest.raises(ValueError, match="expected 14 values"):
        check_params(np.zeros(3))


def test_param_needs_a_number(tmp_path):
    assert "NAME=NUMBER" in _refused(*SIMULATE, "--out", tmp_path, "--param", "aggression")
    assert "NAME=NUMBER" in _refused(*SIMULATE, "--out", tmp_path, "--param", "aggression=x")


def test_config_missing_or_a_folder(tmp_path):
    assert "does not exist" in _refused(*SIMULATE, "--out", tmp_path / "d", "--config",
                                        tmp_path / "none.toml")
    assert "is a directory" in _refused(*SIMULATE, "--out", tmp_path / "d", "--config",
                                        tmp_path)


def test_config_with_variant_or_players_is_refused(tmp_path):
    config = tmp_path / "v.toml"
    config.write_text('base = "leningrad"\nstalingrad = true\n')
    for extra in (("--variant", "sochi"), ("--players", "4")):
        assert "leave out --variant" in _refused(*SIMULATE, "--out", tmp_path / "d",
                                                 "--config", config, *extra)


@pytest.mark.parametrize("workers", ["0", "-2"])
def test_workers_must_be_positive(tmp_path, workers):
    _refused("simulate", "--hands", "10", "--out", tmp_path, "--workers", workers)
    _refused("simulate-pulkas", "--pulkas", "2", "--out", tmp_path, "--workers", workers)


def test_scheduler_needs_the_dask_backend(tmp_path):
    assert "--backend dask" in _refused(*SIMULATE, "--out", tmp_path,
                                        "--scheduler", "tcp://localhost:1")


def test_gusarik_is_two_handed():
    with pytest.raises(ValueError, match="gusarik is played by 2"):
        get_variant("gusarik", players=3)
    assert get_variant("gusarik", players=2).players == 2
    assert "gusarik is played by 2" in _refused("simulate", "--variant", "gusarik",
                                                "--players", "3", "--out", "x")


def test_solve_misere_has_no_trump():
    hands = ["♠AKQJ10987 ♣AK", "♣QJ10987 ♦AKQJ", "♦10987 ♥AKQJ109"]
    assert "without trumps" in _refused("solve", *hands, "--misere", "--trump", "S")
    result = runner.invoke(app, ["solve", *hands, "--misere", "--declarer", "1"])
    assert result.exit_code == 0, result.output


def test_deal_seed_and_start_out_of_range():
    _refused("deal", "--seed", "-5")
    assert "2**63" in _refused("deal", "--start", str(2**64 - 1))
    with pytest.raises(ValueError, match="seed"):
        deal(1, seed=-5)
    with pytest.raises(ValueError, match="2\\*\\*63"):
        deal(2, seed=1, start=2**63 - 2)
    last = deal(1, seed=1, start=2**63 - 2)
    assert int(last.index[0]) == 2**63 - 2


def test_deal_nothing_with_a_condition():
    d = deal(0, seed=1, where=lambda d: d.talon > 0)
    assert len(d) == 0 and d.hands.shape == (0, 3)


def test_rate_dividing_by_zero():
    with pytest.raises(ValueError, match="divides by zero"):
        Rate.parse("c/0", "whist_rate")
    with pytest.raises(ValueError, match="whist_rate"):
        get_variant("sochi", whist_rate="3c/0")


def test_a_real_bug_keeps_its_traceback(monkeypatch):
    import prefstats.game.deal as dealing

    def bug(*args, **kwargs):
        return np.zeros(-1)  # numpy's own ValueError: not a refusal by prefstats

    monkeypatch.setattr(dealing, "deal", bug)
    result = runner.invoke(app, ["deal", "-n", "1", "--seed", "1"])
    assert result.exit_code == 1 and isinstance(result.exception, ValueError)


def test_the_safety_net_names_prefstats_refusals_and_path_errors(tmp_path):
    with pytest.raises(PrefstatsError) as refused:
        get_variant("sochi", hold="bogus")
    assert cli._user_error(refused.value) == str(refused.value)
    try:
        (tmp_path / "no" / "file").read_text()
    except OSError as exc:
        assert cli._user_error(exc).endswith("file: No such file or directory")
    try:
        np.zeros(-1)
    except ValueError as exc:
        assert cli._user_error(exc) is None
    assert cli._user_error(KeyError("x")) is None
    assert cli._user_error(ValueError("raised by prefstats, but not a refusal")) is None


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_first_run_says_it_compiles(tmp_path, monkeypatch):
    """A command whose kernels are not in the cache compiles them first, with the
    display on a terminal; once they are cached, not a word; never a word off a
    terminal or with --quiet."""
    monkeypatch.setattr(_cache, "folder", lambda: tmp_path)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    cli._compile_notice("deal")
    assert "compiling prefstats' engine for this version (1 step" in terminal.getvalue()
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "deal._deal_kernel-0a1b2c3d.py311.nbi").write_bytes(b"")
    assert _cache.is_compiled("game/deal._deal_kernel")
    warm = _Terminal()
    monkeypatch.setattr("sys.stderr", warm)
    cli._compile_notice("deal")
    assert warm.getvalue() == ""
    (tmp_path / "game" / "deal._deal_kernel-0a1b2c3d.py311.nbi").unlink()
    quiet = _Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    cli._compile_notice("deal", quiet=True)
    monkeypatch.setattr("sys.stderr", io.StringIO())  # not a terminal
    cli._compile_notice("deal")
    assert quiet.getvalue() == ""


def test_the_compile_check_names_the_real_cached_functions():
    from prefstats.sim.play import _batch_kernel
    from prefstats.solver._batch import _leads_one

    deal(1, seed=1)  # compiled or loaded: its index file is in the cache now
    assert _cache.is_compiled("game/deal._deal_kernel")
    for function, folder in ((_batch_kernel, _cache.folder() / "sim"),
                             (_leads_one, _cache.folder() / "solver")):
        assert function._cache.cache_path == str(folder)


@pytest.mark.parametrize("command", [("deal",), ("solve", "--seed", "1"), ("score", "x.json"),
                                     ("rollout", "♠AKQJ10 ♣AK ♦AK ♥A")])
def test_an_unknown_format_is_refused(command):
    out = _refused(*command, "--format", "xml")
    assert "xml" in out and "table" in out and "json" in out and "csv" in out


@pytest.mark.parametrize("args, says", [
    (("--hand0", "♠AKQJZ"), "--hand0: bad card token"),
    (("--hand2", "♥7 8 9 10 J Q K A ♠7 8 9"), "more than 10 cards"),
    (("--hand0", "♠A", "--hand1", "♠A"), "fixed in two places"),
    (("--talon", "♠AKQ"), "talon fixed with more than 2 cards"),
    (("--where", "spades >= 6"), "FEATURE SEAT OP NUMBER"),
    (("--where", "spades3 >= 6"), "SEAT 0, 1 or 2"),
    (("--where", "hcp0 >= 6"), "FEATURE one of spades"),
    (("--where", "points0 >= x"), "FEATURE SEAT OP NUMBER"),
    (("--where", "points0 >> 2"), "FEATURE SEAT OP NUMBER"),
])
def test_deal_constraints_that_cannot_be_read(args, says):
    assert says in _refused("deal", "-n", "2", "--seed", "1", *args)


def test_deal_refuses_an_impossible_condition_early():
    """Nine spades: no deal of the first block passes, refused in a line with exit 2."""
    assert "impossible" in _refused("deal", "-n", "2", "--seed", "1", "--where", "spades0 >= 9")


def test_solve_takes_hands_or_a_dealt_deal():
    hands = ["♠AKQJ10 ♣AK ♦A ♥87", "♠98 ♣QJ10 ♦KQJ ♥AK", "♠7 ♣987 ♦1098 ♥QJ10"]
    assert "not both" in _refused("solve", *hands, "--seed", "1")
    assert "needs --seed" in _refused("solve", *hands, "--deal", "3")
    assert "expected three hands" in _refused("solve", *hands[:2])
    assert "expected three hands" in _refused("solve")
    assert "hand 1: bad card token" in _refused("solve", hands[0], "♠9X", hands[2])
    _refused("solve", "--seed", "1", "--deal", "-1")
