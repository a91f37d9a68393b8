"""Commands compile what they need before their work starts, in their own process, and
say so: after the warm-up of a command its work compiles nothing more."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from prefstats.cli import _compile
from prefstats.solver._endgame import OFFSET, load_or_build

ROOT = Path(__file__).resolve().parents[1]

#: A tiny demo, every stage of ``prefstats demo`` on a few rows, in one process
#: (workers=1: what the workers would run).
_TINY_DEMO = """
import sys, tempfile
from pathlib import Path
from prefstats.game.deal import deal
from prefstats.game.exact import deal_feature_table
from prefstats.game.variants import get_variant
from prefstats.reports import guide, report
from prefstats.sim.simulate import simulate, simulate_pulkas

def tiny_demo():
    out = Path(tempfile.mkdtemp())
    v = get_variant("sochi")
    d = deal(100, seed=1)
    deal_feature_table(d.hands, d.talon)
    simulate(v, hands=60, seed=1, out=out / "d", chunk_size=30, workers=1, progress=False)
    simulate_pulkas(v, pulkas=2, pool_target=3, seed=1, out=out / "p", chunk_size=2,
                    workers=1, progress=False)
    guide(out / "d", out / "r", deals=40, misere_deals=8, search_deals=4)
    report(out / "d", out / "r", pulkas=out / "p")
"""


def test_every_command_has_its_steps_and_the_endgame_table_comes_first():
    for command, steps in _compile.COMMANDS.items():
        assert steps and set(steps) <= _compile.STEPS.keys(), command
        if "endgame" in steps:  # built with its own progress, before a kernel reads it
            assert steps.index("endgame") < min(steps.index(s) for s in steps
                                                if s in ("play", "pulka", "rollout", "solver",
                                                         "strength", "replay"))
    # dealing and reports need no solver, so no endgame table
    for command in ("deal", "report", "compare"):
        assert "endgame" not in _compile.COMMANDS[command]


def test_the_demo_compiles_nothing_after_its_warm_up():
    """Every kernel the demo calls is in its warm-up: once the warm-up steps have run,
    a tiny demo adds no compiled specialisation to any function."""
    for name in _compile.COMMANDS["demo"]:
        _compile.STEPS[name].run()
    before = _compile.signatures()
    namespace: dict = {}
    exec(_TINY_DEMO, namespace)
    namespace["tiny_demo"]()
    after = _compile.signatures()
    grown = {f: n for f, n in after.items() if n > before.get(f, 0)}
    assert not grown, f"compiled after the warm-up (add them to its steps): {grown}"


def test_the_progress_names_the_step_and_counts_them():
    assert _compile.step_text("the players and the solver", 3, 5) == \
        "compiling the players and the solver: 3/5"
    assert _compile.step_text("the endgame table (built once)", 2, 4, 75.0) == \
        "building the endgame table (built once): 2/4 (took 75 s last time)"
    line = _compile.headline(["deal", "play"], {"deal": 4.0, "play": 200.0})
    assert "2 steps" in line and "about 3 min here last time" in line and "once" in line
    assert "last time" not in _compile.headline(["deal", "play"], {"deal": 4.0})


def _fresh(tmp_path: Path, code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFSTATS_CACHE": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=tmp_path)
    return done.stdout + done.stderr


def test_a_fresh_cache_compiles_with_a_display_and_records_the_time(tmp_path):
    """``prefstats deal`` on an empty cache: the headline and the step on stderr, the
    step's time recorded for the next estimate, no endgame table built; the second run
    finds everything cached and says nothing."""
    code = ("from prefstats import _cache; from prefstats.cli import _compile; "
            "print('times', _compile.warm_up('deal', show=True)); "
            "print('again', _compile.warm_up('deal', show=True)); print('folder', _cache.folder())")
    out = _fresh(tmp_path, code)
    assert "compiling prefstats' engine for this version (1 step)" in out
    assert "again {}" in out
    folder = Path(out.split("folder ")[1].split()[0])
    assert set(json.loads((folder / _compile.TIMES).read_text())) == {"deal"}
    assert not (folder / "endgames.bin").exists()
    files = _compile.cache_files(folder)
    assert any(f.startswith("game/deal._deal_kernel") for f in files)
    assert all(f.startswith("game/") for f in files)  # no solver, no players


def test_the_endgame_build_reports_its_progress_to_the_end(tmp_path):
    seen = []
    table = load_or_build(tmp_path / "t.bin", 3, progress=lambda done, total: seen.append(
        (done, total)))
    assert seen and all(t == int(OFFSET[4]) for _, t in seen)
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == int(OFFSET[4])
    assert table.size == (int(OFFSET[4]) + 1) // 2
    values = np.stack([table & 15, table >> 4], axis=1).reshape(-1)[: int(OFFSET[4])]
    assert (values != 15).all()  # the mark of an entry the build missed


@pytest.mark.slow
def test_a_fresh_cache_warmed_for_the_demo_runs_a_tiny_demo_without_compiling(tmp_path):
    """The whole engine compiled from nothing (minutes): the demo's warm-up, then a
    tiny demo adds no file to the cache."""
    code = _TINY_DEMO + (
        "\nfrom prefstats.cli import _compile\n_compile.warm_up('demo', show=False)\n"
        "before = _compile.cache_files()\ntiny_demo()\n"
        "print('new', sorted(_compile.cache_files() - before))\n")
    assert "new []" in _fresh(tmp_path, code)


def test_the_search_and_the_parts_compile_as_the_drivers_call_them():
    """The warm-up compiles the search in a second process and the players' parts in
    the first, each for the argument types the drivers use: done after the drivers
    themselves, both only load what the drivers cached and add no file (a type that
    differs would add a second compiled version, and the cold start would compile
    everything twice)."""
    from prefstats.game.variants import get_variant
    from prefstats.sim.play import compile_parts
    from prefstats.solver._search import compile_search

    _compile.STEPS["play"].run()
    before = _compile.cache_files()
    assert any(f.startswith("solver/_search._search-") for f in before)
    compile_search()
    for part in ("search", "engine", "catchers", "players"):
        compile_parts(get_variant("sochi"), part)
    assert _compile.cache_files() == before


def test_the_second_process_compiles_the_rollouts_only_after_a_step_compiling_their_loop():
    """The rollouts go to the second process when a driver step before them compiles
    the loop they call (else it would wait for a loop nobody compiles)."""
    assert _compile.handed_over(list(_compile.COMMANDS["demo"])) == ("rollout",)
    assert _compile.handed_over(list(_compile.COMMANDS["simulate-decisions"])) == ("rollout",)
    for command in ("rollout", "analyze", "guide", "exploit"):
        assert _compile.handed_over(list(_compile.COMMANDS[command])) == (), command
    assert _compile.handed_over(["rollout", "play"]) == ()  # the loop comes too late
    assert _compile.handed_over(["pulka", "classes", "rollout"]) == ("rollout",)


def test_the_second_process_compiles_the_catchers_only_for_the_drivers():
    assert _compile.side_parts(list(_compile.COMMANDS["demo"])) == ("search", "catchers")
    assert _compile.side_parts(["rollout"]) == ("search", "catchers")
    for command in ("solve", "deal", "report"):  # the solver alone plays no misère
        assert _compile.side_parts(list(_compile.COMMANDS[command])) == ("search",)


def test_a_driver_step_names_each_phase_it_compiles_or_waits_for():
    """No phase of a driver step's compile stands unnamed on the display, in the order
    they happen (the second process here has nothing left to do)."""

    class Display:
        def __init__(self) -> None:
            self.texts: list[str] = []

        def step(self, text: str) -> None:
            self.texts.append(text)

    side = subprocess.Popen([sys.executable, "-c", "pass"])
    side.wait()
    display = Display()
    _compile._below(_compile.STEPS["play"], side, display, "compiling x: 1/2")  # type: ignore[arg-type]
    assert display.texts == [f"compiling x: 1/2: {p}" for p in
                             ("the engine and the built-in players' decisions",
                              "waiting for the solver's search, compiling in the second process",
                              "the players who search",
                              "waiting for the misère catchers, compiling in the second process")]


def test_the_demo_calls_a_kernel_of_every_step_it_compiles(tmp_path):
    """The demo's warm-up compiles nothing it does not use: a tiny demo alone, in a
    fresh process, calls the kernels of each of its steps (the endgame table, a file,
    is read by every solver call)."""
    code = _TINY_DEMO + (
        "\nimport json\nfrom prefstats.cli import _compile\ntiny_demo()\n"
        "print('unused', json.dumps([n for n in _compile.COMMANDS['demo'] if n != 'endgame'"
        " and not all(k.signatures for k in _compile.STEPS[n].kernels())]))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=tmp_path)
    assert "unused []" in done.stdout


def test_each_step_names_the_compiled_functions_it_makes_by_reference():
    for name, step in _compile.STEPS.items():
        kernels = step.kernels()
        assert bool(kernels) == (name != "endgame"), name
        assert all(hasattr(k, "py_func") and hasattr(k, "signatures") for k in kernels), name
    (dealer,) = _compile.STEPS["deal"].kernels()
    assert _compile.cache_name(dealer) == "game/deal._deal_kernel"
