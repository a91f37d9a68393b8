"""The error hierarchy: every refusal of bad input is a ``PrefstatsError`` (and a
``ValueError``); the command line shows one as a single line with exit status 2 and
treats anything else as a bug: its traceback and exit status 1."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import prefstats
import prefstats as ps
from prefstats import errors
from prefstats.cli import app

runner = CliRunner()
PACKAGE = Path(prefstats.__file__).resolve().parent
#: Exceptions prefstats must not raise on its own: a refusal is a PrefstatsError.
BARE = ("ValueError", "TypeError", "KeyError")
#: ``file:line`` of a bare raise that must stay one (none today).
ALLOWED: set[str] = set()


def _bare_raises(source: str, name: str) -> list[str]:
    """``name:line`` of each ``raise ValueError/TypeError/KeyError`` in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id in BARE:
                found.append(f"{name}:{node.lineno}")
    return found


def test_prefstats_raises_no_bare_value_type_or_key_error():
    found = [site for path in sorted(PACKAGE.rglob("*.py"))
             for site in _bare_raises(path.read_text("utf-8"),
                                      path.relative_to(PACKAGE.parent).as_posix())]
    assert set(found) <= ALLOWED, f"raise a prefstats.errors class instead: {found}"


def test_the_scan_finds_a_planted_bare_raise():
    planted = textwrap.dedent("""
        def f(x):
            if x:
                raise ValueError(f"bad {x}")
            raise TypeError
        """)
    assert sorted(_bare_raises(planted, "m.py")) == ["m.py:4", "m.py:5"]
    assert _bare_raises("raise errors.CardError('x')", "m.py") == []


@pytest.mark.parametrize("name", errors.__all__)
def test_each_class_is_a_prefstats_error_and_a_value_error_in_the_facade(name):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.PrefstatsError)
    assert issubclass(cls, ValueError) == (cls is not errors.PrefstatsError)
    assert getattr(ps, name) is cls and name in ps.__all__
    assert ">>>" in cls.__doc__


def test_the_old_homes_hold_the_same_classes():
    from prefstats.analysis.analyze import RecordError
    from prefstats.sim.storage import DatasetError

    assert DatasetError is errors.DatasetError and RecordError is errors.RecordError


def test_card_error():
    with pytest.raises(errors.CardError, match="'Z' is not a rank"):
        ps.parse_cards("♠AZ")
    with pytest.raises(errors.CardError, match="expects a string"):
        ps.parse_cards(5)
    with pytest.raises(errors.CardError, match="fixed in two places"):
        ps.deal(1, seed=1, fixed_hands=(ps.parse_cards("♠A"), ps.parse_cards("♠A"), None))


def test_contract_error():
    with pytest.raises(errors.ContractError, match="expected a level 6"):
        ps.parse_contract("11♠")


def test_variant_error(tmp_path):
    with pytest.raises(errors.VariantError, match="colour: unknown option"):
        ps.get_variant("sochi", colour="red")
    bad = tmp_path / "house.toml"
    bad.write_text('base = "sochi"\nhold = \n')
    with pytest.raises(errors.VariantError, match="not valid TOML"):
        ps.load_variant(bad)


def test_record_error(tmp_path):
    sheet = tmp_path / "pulka.json"
    sheet.write_text('{"variant": "sochi", "deals": [')
    with pytest.raises(errors.RecordError, match=r"pulka\.json"):
        ps.load_pulka(sheet)
    sheet.write_text('{"variant": "sochi", "deals": [{"type": "game", "declarer": 0, '
                     '"contract": "6♠", "tricks": [6, 2, 2], "whist": {"1": "whist", '
                     '"2": "maybe"}}]}')
    with pytest.raises(errors.RecordError, match="deal 1: whist: 'maybe'"):
        ps.load_pulka(sheet)


def test_dataset_error(tmp_path):
    with pytest.raises(errors.DatasetError, match=r"no manifest\.json"):
        ps.load(tmp_path / "none")


def test_illegal_action_error():
    from prefstats.game.auction import PASS, auction_result, parse_call

    sochi = ps.get_variant("sochi")
    with pytest.raises(errors.IllegalActionError, match="not over"):
        auction_result([PASS], sochi)
    with pytest.raises(errors.IllegalActionError, match="illegal call 6♠ by seat 1"):
        auction_result([parse_call("6♠"), parse_call("6♠")], sochi)


def test_option_error():
    from prefstats.players.params import policy_params

    with pytest.raises(errors.OptionError, match="seed must be a non-negative"):
        ps.deal(1, seed=-5)
    with pytest.raises(errors.OptionError, match="unknown player parameter 'nerve'"):
        policy_params("heuristic", nerve=1.0)


def test_a_handler_of_value_error_still_catches_them():
    with pytest.raises(ValueError, match="bad contract") as caught:
        ps.parse_contract("nonsense")
    assert isinstance(caught.value, errors.ContractError)


# ---- the command line -------------------------------------------------------------------


def _deal_raising(monkeypatch, error: BaseException):
    import prefstats.game.deal as dealing

    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(dealing, "deal", refuse)
    return runner.invoke(app, ["deal", "-n", "1", "--seed", "1"])


def test_cli_shows_a_prefstats_error_as_one_line_and_exit_2(monkeypatch):
    result = _deal_raising(monkeypatch, errors.VariantError("hold: planted refusal"))
    assert result.exit_code == 2
    assert result.stderr == "error: hold: planted refusal\n"


@pytest.mark.parametrize("bug", [RuntimeError("planted bug"), ValueError("planted bug"),
                                 KeyError("planted bug")])
def test_cli_keeps_a_bug_as_an_exception_and_exit_1(monkeypatch, bug):
    result = _deal_raising(monkeypatch, bug)
    assert result.exit_code == 1 and result.exception is bug
    assert "error:" not in result.stderr


def test_cli_ctrl_c_exits_130(monkeypatch):
    assert _deal_raising(monkeypatch, KeyboardInterrupt()).exit_code == 130


_SCRIPT = """
import sys
import prefstats.game.deal as dealing
from prefstats import errors
from prefstats.cli import main

def refuse(*args, **kwargs):
    raise {error}

dealing.deal = refuse
sys.argv = ["prefstats", "deal", "-n", "1", "--seed", "1"]
main()
"""


@pytest.mark.parametrize("error, status", [('errors.CardError("♠Z: planted")', 2),
                                           ('RuntimeError("planted bug")', 1)])
def test_the_installed_command_prints_one_line_or_a_traceback(tmp_path, error, status):
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent), "COLUMNS": "100"}
    done = subprocess.run([sys.executable, "-c", _SCRIPT.format(error=error)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == status, done.stderr
    if status == 2:
        assert done.stderr == "error: ♠Z: planted\n"
    else:
        assert "Traceback" in done.stderr and "planted bug" in done.stderr


# ---- small things a new user meets --------------------------------------------------------


@pytest.mark.parametrize("args", [[], ["variants"]])
def test_a_group_without_arguments_prints_its_help_and_succeeds(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output and "Commands" in result.output


def test_variants_list_names_every_preset_with_its_tables():
    import json

    from prefstats.game.variants import PRESETS

    result = runner.invoke(app, ["variants", "list", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)["presets"]}
    assert list(rows) == list(PRESETS)
    assert rows["gusarik"]["players"] == [2] and rows["sochi"]["players"] == [3, 4, 5]
    assert rows["sochi"]["description"].startswith("Sochi (Сочинка")
    assert all(r["description"].endswith(".") and "\n" not in r["description"]
               for r in rows.values())
    table = runner.invoke(app, ["variants", "list"])
    assert table.exit_code == 0 and all(name in table.output for name in PRESETS)
