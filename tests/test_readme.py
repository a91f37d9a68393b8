"""The README and the documentation pages' examples run as written: the README's first
example, the tutorial's command-line session and the how-to guides' Python, each in a
fresh folder.

Only the sizes shrink, by the substitutions listed here (each must occur in its page,
so an edit there cannot slip past them); nothing else is changed. An expression followed
by a literal comment (``ps.format_cards(hand)  # '♠AKQJ10 ♣AK ♦AK ♥A'``) must evaluate to
that literal.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text("utf-8")
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text("utf-8")

#: Page text → the smaller size the test runs instead.
PYTHON_SIZES = {"hands=100_000": "hands=2_000", "deal(2_000,": "deal(200,"}
SHELL_SIZES = {"--hands 1000000": "--hands 400", "--pulkas 100000": "--pulkas 20",
               "--deals 20000": "--deals 600"}
#: The Python of the tutorial and the how-to guides, each with the sizes it runs at instead.
GUIDES = {"tutorial.md": {"deal(2000,": "deal(200,"},
          "how-to/bid-or-pass.md": {"deal(3000,": "deal(100,"},
          "how-to/load-results.md": {"hands=5_000": "hands=1_000"},
          "how-to/house-variant.md": {}}
#: A user's own files that a page's example reads.
USER_FILES = {"house.toml": 'base = "sochi"\nplayers = 4\nwhist_split = "gentleman"\n'
                            'half_whist = true\nmisere_failed = 20\n'}


def block(text: str, heading: str, language: str) -> str:
    """The first ``language`` code block after the heading ``heading`` of ``text``."""
    section = re.split(rf"\n#+ {re.escape(heading)}\n", text, maxsplit=1)[1]
    m = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert m, f"no {language} block under '{heading}'"
    return m[1]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def shrink(text: str, sizes: dict[str, str]) -> str:
    for old, new in sizes.items():
        assert old in text, f"the example no longer says {old!r}"
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


def run_python(source: str, folder: Path) -> subprocess.CompletedProcess:
    for name, text in USER_FILES.items():
        (folder / name).write_text(text, "utf-8")
    script = folder / "example.py"
    script.write_text(with_checks(source), "utf-8")
    return run([sys.executable, str(script)], folder)


def test_the_readme_is_a_front_page():
    assert len(README.splitlines()) <= 150
    example = block(README, "A first example", "python")
    assert len([line for line in example.splitlines() if line.strip()]) <= 12
    assert (ROOT / "LICENSE").read_text("utf-8").startswith("MIT License")
    assert "\n## [Unreleased]\n" in (ROOT / "CHANGELOG.md").read_text("utf-8")


def test_the_literal_checks_are_found():
    source = with_checks(block(README, "A first example", "python"))
    assert "assert (ps.format_cards(hand)) == '♠AKQJ10 ♣AK ♦AK ♥A'" in source


def test_first_example_runs(tmp_path):
    done = run_python(shrink(block(README, "A first example", "python"), PYTHON_SIZES),
                      tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "bid" in done.stdout and "pass" in done.stdout


def test_the_readme_says_how_to_reach_the_command():
    """`make run` installs into .venv, so the README shows both ways to call it there."""
    path_block = block(README, "Getting `prefstats` on your PATH", "sh")
    assert "source .venv/bin/activate" in path_block and ".venv/bin/prefstats " in path_block
    assert "VENV := .venv" in (ROOT / "Makefile").read_text("utf-8")
    two = block(README, "Two commands", "sh")
    assert two.startswith("make run ") and "\nmake test " in two


def test_every_command_the_pages_name_exists(tmp_path):
    pages = [README, TUTORIAL, *(p.read_text("utf-8") for p in (ROOT / "docs").rglob("*.md"))]
    named = {m[1] for page in pages for text in blocks(page, "sh")
             for m in re.finditer(r"(?:^|\s|/)prefstats ([a-z][a-z-]+)", text)}
    assert {"rollout", "simulate", "analyze", "report", "guide", "compare"} <= named
    done = run(["prefstats", "--help"], tmp_path)  # the installed command
    assert done.returncode == 0, done.stderr[-500:]
    from typer.testing import CliRunner

    from prefstats.cli import app

    for command in sorted(named):  # each in this process: a process each took ~2 s
        result = CliRunner().invoke(app, [command, "--help"])
        assert result.exit_code == 0, (command, result.output[-500:])


@pytest.mark.parametrize("page", sorted(GUIDES))
def test_the_guides_python_runs(page, tmp_path):
    text = (ROOT / "docs" / page).read_text("utf-8")
    (source,) = blocks(text, "python")
    done = run_python(shrink(source, GUIDES[page]), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


def session_script(folder: Path, text: str) -> Path:
    script = folder / "session.sh"
    script.write_text("set -euo pipefail\n" + text, "utf-8")
    return script


@pytest.mark.slow  # 3 minutes on the shared 2-core machine (a dozen processes, 1 min to
def test_command_line_session_runs(tmp_path):  # the first simulation): `make test-all`
    """The tutorial's whole session: version, deal, solve, variants, score, the
    simulations, report, comparison and guide."""
    text = shrink(block(TUTORIAL, "Every command once", "sh"), SHELL_SIZES)
    done = run(["bash", str(session_script(tmp_path, text))], tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert "declarer (seat 0) takes" in done.stdout and "pool point" in done.stdout
    assert (tmp_path / "mine.toml").read_text().startswith("#")
    for written in ("reports/sochi-1m/index.html", "reports/compare/report.md", "guide.md"):
        assert (tmp_path / written).exists(), written


def test_the_data_commands_of_the_session_run(tmp_path):
    """The session's lines before the first simulation (version, deal, solve, variants,
    score), as written: quick, so they run in every `make test`."""
    text = block(TUTORIAL, "Every command once", "sh").split("\nprefstats simulate ", 1)[0]
    done = run(["bash", str(session_script(tmp_path, text + "\n"))], tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert "declarer (seat 0) takes" in done.stdout and "pool point" in done.stdout
    strong = (tmp_path / "strong.csv").read_text("utf-8").splitlines()
    assert strong[0] == "seed,deal_id,hand_0,hand_1,hand_2,talon" and len(strong) == 1001
    assert '"hand_0": "♠AKQJ' in done.stdout and "card,tricks,optimal" in done.stdout


def test_the_session_shows_every_data_command():
    session = block(TUTORIAL, "Every command once", "sh").splitlines()
    commands = [line.split()[1] for line in session if line.startswith("prefstats ")]
    assert {"deal", "solve", "variants", "score", "simulate", "simulate-pulkas", "report",
            "compare", "guide", "rollout"} <= set(commands)
    for command in ("deal", "solve", "score", "rollout"):  # each shows its data formats
        assert any(line.startswith(f"prefstats {command} ") and "--format" in line
                   for line in session), command


DATA = (ROOT / "docs" / "DATA.md").read_text("utf-8")


def test_column_dictionary_example_runs(tmp_path):
    m = re.search(r"```python\n(.*?)```", DATA, re.S)
    script = tmp_path / "data_example.py"
    script.write_text(m[1], "utf-8")
    done = run([sys.executable, str(script)], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "raspasy" in done.stdout and "♠" in done.stdout  # decoded kinds and hands
