"""The command's entry points: ``prefstats --version`` and ``python -m prefstats``."""

import subprocess
import sys

from typer.testing import CliRunner

import prefstats
from prefstats.cli import app


def test_version_prints_the_package_version():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output == f"prefstats {prefstats.__version__}\n"


def test_version_is_listed_in_help():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0 and "--version" in result.output


def test_commands_still_run_after_the_version_option():
    result = CliRunner().invoke(app, ["deal", "-n", "1", "--seed", "5"])
    assert result.exit_code == 0 and "seed 5" in result.output


def test_python_dash_m_runs_the_command():
    done = subprocess.run([sys.executable, "-m", "prefstats", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"prefstats {prefstats.__version__}\n"
    bad = subprocess.run([sys.executable, "-m", "prefstats", "no-such-command"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "no-such-command" in bad.stderr
