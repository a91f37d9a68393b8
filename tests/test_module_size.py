"""Modules of one concern each: none over 600 lines unless it is one concept, said in
its module docstring ("One concept: ...")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "prefstats"
LIMIT = 600
#: The modules over the limit that are one concept each, as their docstrings say.
ONE_CONCEPT = (
    "game/engine.py",
    "game/variants.py",
    "players/bidding.py",
    "players/cardplay.py",
    "sim/rollout.py",
)


def _lines(path: Path) -> int:
    return len(path.read_text("utf-8").splitlines())


def test_every_long_module_is_listed_as_one_concept():
    long = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
            if _lines(p) > LIMIT}
    unlisted = sorted(long - set(ONE_CONCEPT))
    assert not unlisted, f"split these along their seams: {unlisted}"


@pytest.mark.parametrize("name", ONE_CONCEPT)
def test_a_listed_module_is_long_and_says_its_one_concept(name):
    path = PACKAGE / name
    assert _lines(path) > LIMIT, f"{name} is short now: take it off the list"
    doc = ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""
    assert "One concept: " in doc, f"{name}: say its one concept in the module docstring"
