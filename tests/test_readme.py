"""The README's examples run as written: its Python quick start and its command-line
session, in a fresh folder.

Only the sizes shrink, by the substitutions listed here (each must occur in the README,
so an edit there cannot slip past them); nothing else is changed. A
quick-start expression followed by a literal comment (``format_cards(hand)  #
'♠AKQ ♣7 ♥1098'``) must evaluate to that literal.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")

#: README text → the smaller size the test runs instead.
PYTHON_SIZES = {"hands=100_000": "hands=2_000"}
SHELL_SIZES = {"--hands 1000000": "--hands 400", "--pulkas 100000": "--pulkas 20",
               "--deals 20000": "--deals 600"}
#: The user's own file that the quick start loads (``base = "sochi"`` plus overrides).
USER_FILES = {"my-rules.toml": 'base = "sochi"\nhold = "none"\n'}


def block(heading: str, language: str) -> str:
    """The first ``language`` code block after the README heading ``heading``."""
    section = README.split(f"\n## {heading}\n", 1)[1]
    m = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert m, f"no {language} block under '{heading}'"
    return m[1]


def shrink(text: str, sizes: dict[str, str]) -> str:
    for old, new in sizes.items():
        assert old in text, f"README example no longer says {old!r}"
        text = text.replace(old, new)
    return text


_LITERAL = re.compile(r"#\s*('(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?)")


def with_checks(source: str) -> str:
    """``source`` with every expression statement whose line ends in a literal comment
    turned into an assertion of that literal."""
    lines = source.splitlines()
    checks = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Expr):
            comment = lines[node.end_lineno - 1][node.end_col_offset:]
            m = _LITERAL.match(comment.strip())
            if m:
                checks.append((node.lineno, node.end_lineno, ast.get_source_segment(source, node),
                               m[1]))
    for start, end, expr, literal in reversed(checks):
        lines[start - 1 : end] = [f"assert ({expr}) == {literal}, ({expr!r}, {literal})"]
    return "\n".join(lines) + "\n"


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               COLUMNS="200")
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_literal_checks_are_found():
    source = with_checks(block("Quick start", "python"))
    assert "assert (format_cards(hand)) == '♠AKQ ♣7 ♥1098'" in source
    assert "assert (solve(" in source


def test_quick_start_runs(tmp_path):
    for name, text in USER_FILES.items():
        (tmp_path / name).write_text(text, "utf-8")
    script = tmp_path / "quick_start.py"
    script.write_text(with_checks(shrink(block("Quick start", "python"), PYTHON_SIZES)), "utf-8")
    done = run([sys.executable, str(script)], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


def session_script(folder: Path, text: str) -> Path:
    script = folder / "session.sh"
    script.write_text("set -euo pipefail\n" + text, "utf-8")
    return script


@pytest.mark.slow  # 3 minutes on the shared 2-core machine (a dozen processes, 1 min to
def test_command_line_session_runs(tmp_path):  # the first simulation): `make test-all`
    """The whole session: version, deal, solve, variants, score, the simulations, report,
    comparison and guide."""
    text = shrink(block("Quick start", "sh"), SHELL_SIZES)
    done = run(["bash", str(session_script(tmp_path, text))], tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert "declarer (seat 0) takes" in done.stdout and "pool point" in done.stdout
    assert (tmp_path / "mine.toml").read_text().startswith("#")
    for written in ("reports/sochi-1m/index.html", "reports/compare/report.md", "guide.md"):
        assert (tmp_path / written).exists(), written


def test_the_data_commands_of_the_session_run(tmp_path):
    """The session's lines before the first simulation (version, deal, solve, variants,
    score), as written: quick, so they run in every `make test`."""
    text = block("Quick start", "sh").split("\nprefstats simulate ", 1)[0]
    done = run(["bash", str(session_script(tmp_path, text + "\n"))], tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert "declarer (seat 0) takes" in done.stdout and "pool point" in done.stdout
    strong = (tmp_path / "strong.csv").read_text("utf-8").splitlines()
    assert strong[0] == "seed,deal_id,hand_0,hand_1,hand_2,talon" and len(strong) == 1001
    assert '"hand_0": "♠AKQJ' in done.stdout and "card,tricks,optimal" in done.stdout


def test_the_session_shows_every_data_command():
    commands = [line.split()[1] for line in block("Quick start", "sh").splitlines()
                if line.startswith("prefstats ")]
    assert {"deal", "solve", "variants", "score", "simulate", "simulate-pulkas", "report",
            "compare", "guide", "rollout"} <= set(commands)
    for command in ("deal", "solve", "score", "rollout"):  # each shows its data formats
        assert any(line.startswith(f"prefstats {command} ") and "--format" in line
                   for line in block("Quick start", "sh").splitlines()), command


DATA = (Path(__file__).resolve().parents[1] / "docs" / "DATA.md").read_text("utf-8")


def test_column_dictionary_example_runs(tmp_path):
    m = re.search(r"```python\n(.*?)```", DATA, re.S)
    script = tmp_path / "data_example.py"
    script.write_text(m[1], "utf-8")
    done = run([sys.executable, str(script)], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "raspasy" in done.stdout and "♠" in done.stdout  # decoded kinds and hands
