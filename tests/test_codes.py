"""The codes are named once (``prefstats.game.codes``), numba compiles them, and every module
that spoke of a code before speaks of the same value."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
from numba import njit

from prefstats.game import auction, codes, contracts, engine, scoring, tricks
from prefstats.game.codes import (
    GAME,
    NO_TRUMP,
    NO_TRUMP_SUIT,
    RASPASY,
    SEAT_NAMES,
    W_HALF,
    Kind,
    RaspasyTalon,
    Seat,
    Strain,
    WhistCall,
)

PACKAGE = Path(__file__).resolve().parents[1] / "prefstats"


@njit(cache=False)
def _kind_after(kinds, passed):
    # A code beside a narrower integer (an int8 array's element) in one expression: an
    # IntEnum member would not unify with int8 here, its plain constant does.
    out = np.empty(2, dtype=np.uint8)
    out[0] = RASPASY if passed else kinds[0]
    out[1] = kinds[0] == GAME
    return out


def test_compiled_code_reads_the_codes_as_plain_constants():
    assert _kind_after(np.array([GAME], dtype=np.int8), True).tolist() == [3, 1]
    assert _kind_after(np.array([2], dtype=np.int8), False).tolist() == [2, 0]
    assert {type(c) for c in (GAME, RASPASY, W_HALF, NO_TRUMP, codes.SUIT_LEAD,
                              codes.WITH_DUMMY)} == {int}


def test_the_two_no_trumps_are_two_names():
    """The fifth strain (a contract's, 4) and the trick kernels' "no trump suit" (-1)."""
    assert NO_TRUMP == Strain.NO_TRUMP == 4 and NO_TRUMP_SUIT == -1
    assert contracts.NO_TRUMP is NO_TRUMP and type(NO_TRUMP) is int
    assert not hasattr(tricks, "NO_TRUMP")
    assert contracts.TRUMP[contracts.contract_code(7, NO_TRUMP)] == NO_TRUMP_SUIT
    assert tricks.trick_winner(30, 7, 24, NO_TRUMP_SUIT) == 0  # K♥ led, A♠ and 7♥ follow


def test_every_module_uses_the_one_code():
    assert engine.GAME is scoring.GAME is GAME == Kind.GAME and engine.KINDS[RASPASY] == "raspasy"
    assert auction.W_HALF is W_HALF == WhistCall.HALF
    assert auction.WHIST_CALL_NAMES == ("pass", "whist", "half")
    assert tricks.RASPASY_TALON_MODES == ("suit_lead", "dealer", "none")
    assert tricks.DEALER_TALON == RaspasyTalon.DEALER
    assert SEAT_NAMES[Seat.FIRST_HAND] == "first hand" and len(SEAT_NAMES) == len(Seat)
    assert SEAT_NAMES[Seat.NEXT_TO_DEAL] == "next to deal"


def test_no_module_defines_a_code_again():
    """No module outside ``codes`` assigns a name that ``codes`` exports (importing it
    is not defining it)."""
    tree = ast.parse(Path(codes.__file__).read_text("utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.ClassDef)} | {
        name.id for n in tree.body if isinstance(n, ast.Assign | ast.AnnAssign)
        for target in (n.targets if isinstance(n, ast.Assign) else [n.target])
        for name in ast.walk(target) if isinstance(name, ast.Name)} - {"__all__"}
    twice = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "codes.py":
            continue
        for node in ast.parse(path.read_text("utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and name.id in names:
                        twice.append(f"{path.relative_to(PACKAGE)}: {name.id}")
    assert not twice
