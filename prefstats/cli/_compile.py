"""Compile before the work starts, where it is seen.

numba compiles a kernel on its first call, once for each version of the compiled code
(:mod:`prefstats._cache`). Left to the work itself, that first call happens in every
worker process at once, each compiling the same functions behind a progress bar that
stands at 0%. So a command first calls each kernel it needs once, on a tiny input, in
its own process (:func:`warm_up`): later calls, in this process or in its workers, load
the machine code from the cache. On a terminal a progress display names what is
compiling and counts the steps ("compiling the players and the solver: 3/5"), with the
time each step took here the last time the cache was made.

:data:`STEPS` holds the steps (a label, the cached kernels the step makes, a call on a
tiny input) and :data:`COMMANDS` which steps each command needs, so a command compiles
only what it uses: ``prefstats deal`` never builds the endgame table.

Each step names the compiled functions it leaves in the cache by reference, imported
only when the step is looked at, so that a command imports the kernel modules it uses
and no others. The module sits in the command line's layer: it calls every layer below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefstats import _cache

#: The variant every step plays: the compiled code takes a variant's rules as data, so
#: any one compiles the code of all.
_VARIANT = "sochi"
#: A hand with every decision of a first call open (bid, misère, pass).
_HAND = "♠AKQJ10 ♣AK ♦A ♥AK"
#: Where the time each step took is recorded, in the folder of the current cache.
TIMES = "compile-times.json"


@dataclass(frozen=True)
class Step:
    """What a step compiles (``label``, as the display names it), ``kernels``: the
    compiled functions it leaves in the cache (a call that imports and returns them;
    none for the endgame table, which is a file) and ``run``, a call of them on a tiny
    input.

    A step that reaches the solver's search (``search``) waits, before ``run``, for a
    second process started with the first such step (:func:`side`), which compiles the
    search and then the misère catchers into the cache; meanwhile this process compiles
    ``parts`` (what needs no search) and, once the search is cached, ``after``. numba
    compiles in one thread, so this is how a compile uses two cores; the second process
    then compiles the rollouts, if the command needs them, while this one compiles the
    rest.
    """

    label: str
    kernels: Callable[[], tuple[Any, ...]]
    run: Callable[[], object]
    search: bool = False
    parts: Callable[[], object] | None = None
    after: Callable[[], object] | None = None

    def done(self) -> bool:
        """Whether the cache already holds what this step makes."""
        kernels = self.kernels()
        if not kernels:
            return (_cache.folder() / "endgames.bin").is_file()
        return _cache.is_compiled(*map(cache_name, kernels))


def cache_name(function: Any) -> str:
    """The compiled ``function`` as :func:`prefstats._cache.is_compiled` names it: its
    module's path below the package, then its name (``"game/deal._deal_kernel"``)."""
    module = function.py_func.__module__.removeprefix("prefstats.").replace(".", "/")
    return f"{module}.{function.py_func.__name__}"


def _variant():
    from prefstats.game.variants import get_variant

    return get_variant(_VARIANT)


def _deal() -> None:
    from prefstats.game.deal import deal

    deal(2, seed=0)


def _endgame(progress: Callable[[int, int], None] | None = None) -> None:
    from prefstats.solver._endgame import endgame_table

    endgame_table(progress)


def _chunk(kind: str, **spec) -> None:
    """One tiny chunk of a dataset of ``kind``, as a worker plays it."""
    from prefstats.sim._spec import RunSpec
    from prefstats.sim._workers import run_chunk

    run_chunk(RunSpec(_variant(), 2, 0, 2, kind=kind, **spec), 0)


def _part(name: str) -> Callable[[], None]:
    def compile_part() -> None:
        from prefstats.sim.play import compile_parts

        compile_parts(_variant(), name)

    return compile_part


def side(parts: tuple[str, ...], steps: tuple[str, ...] = ()) -> None:
    """What the second process of a warm-up compiles: ``parts`` (:func:`side_parts`),
    then each of ``steps`` once the first process has cached the drivers' loop they all
    call (it gives up when the first process is gone)."""
    parent = os.getppid()
    times: dict[str, float] = {}
    started = time.perf_counter()
    for name in parts:
        _part(name)()
        times[f"side: {name}"] = time.perf_counter() - started
        _record(times)  # each as it ends: the first process stops this one when done
        started = time.perf_counter()
    loop = cache_name(*_loop())
    while steps and not _cache.is_compiled(loop):
        if os.getppid() != parent:
            return
        time.sleep(0.1)
    times["side: waiting for the loop"] = time.perf_counter() - started
    for name in steps:
        started = time.perf_counter()
        STEPS[name].run()
        times[f"side: {name}"] = time.perf_counter() - started
        _record(times)


def _rollout() -> None:
    from prefstats.game.cards import parse_cards
    from prefstats.sim.rollout import hand_deals, rollout

    rollout(_variant(), hand_deals(parse_cards(_HAND), 0, 1)[:2], seat=0,
            decision="first_call", options=["pass", "bid", "misere"])


def _classes() -> None:
    import numpy as np

    from prefstats.reports.classes import estimated_tricks

    estimated_tricks(np.zeros(1, dtype=np.uint32), np.zeros(1))


def _solver() -> None:
    from prefstats.game.cards import parse_cards as p
    from prefstats.solver import card_values_batch, solve_batch, solve_leads

    hands = [p("♠AK"), p("♠Q ♥A"), p("♠8 ♥7")]
    solve_leads(hands, trump=None, leader=0, declarer=0)
    solve_batch([hands], None, 0, 0)
    card_values_batch([hands], trump=None, leader=0, declarer=0)


def _replay() -> None:
    """A deal played decision by decision through the Python driver (as ``analyze``
    replays a record)."""
    from prefstats.game.deal import deal
    from prefstats.players.builtin import BuiltinPlayer
    from prefstats.sim.play import play_hand

    d = deal(1, seed=0)
    play_hand([int(h) for h in d.hands[0]], int(d.talon[0]),
              [BuiltinPlayer() for _ in range(3)], _variant())


def _strength() -> None:
    from prefstats.analysis.strength import gauge

    gauge("heuristic", "random", deals=2, seed=0, samples=2, variant=_VARIANT)


def _dealer() -> tuple[Any, ...]:
    from prefstats.game.deal import _deal_kernel

    return (_deal_kernel,)


def _players() -> tuple[Any, ...]:
    from prefstats.sim.play import _batch_kernel

    return (_batch_kernel,)


def _pulkas() -> tuple[Any, ...]:
    from prefstats.sim.pulka import _pulka_kernel

    return (_pulka_kernel,)


def _rollouts() -> tuple[Any, ...]:
    from prefstats.sim.rollout import _rollout_kernel

    return (_rollout_kernel,)


def _hand_classes() -> tuple[Any, ...]:
    from prefstats.reports.classes import _best_strain_tricks

    return (_best_strain_tricks,)


def _solver_batch() -> tuple[Any, ...]:
    from prefstats.solver._batch import _batch_kernel, _leads_one

    return (_leads_one, _batch_kernel)


def _engine() -> tuple[Any, ...]:
    from prefstats.game.engine import apply

    return (apply,)


def _gauge() -> tuple[Any, ...]:
    from prefstats.analysis.strength import play_out

    return (play_out,)


def _search() -> tuple[Any, ...]:
    from prefstats.solver._search import _search

    return (_search,)


def _catchers() -> tuple[Any, ...]:
    from prefstats.players.misere import hidden_misere_card

    return (hidden_misere_card,)


def _loop() -> tuple[Any, ...]:
    from prefstats.sim.play import play_on

    return (play_on,)


#: A step of a driver (a kernel playing whole deals): everything below it compiled in
#: two processes.
_DRIVER = {"search": True, "parts": _part("engine"), "after": _part("players")}

#: Every step, by name.
STEPS: dict[str, Step] = {
    "deal": Step("the dealer", _dealer, _deal),
    "endgame": Step("the endgame table (built once, about 385 million positions)", tuple,
                    _endgame),
    "play": Step("the players and the solver", _players, lambda: _chunk("deals"), **_DRIVER),
    "pulka": Step("whole pulkas", _pulkas, lambda: _chunk("pulkas", pool_target=1),
                  **_DRIVER),
    "rollout": Step("rollouts", _rollouts, _rollout, **_DRIVER),
    "classes": Step("the report's hand classes", _hand_classes, _classes),
    "solver": Step("the double-dummy solver", _solver_batch, _solver, search=True),
    "replay": Step("the engine, decision by decision", _engine, _replay),
    "strength": Step("the strength gauge", _gauge, _strength),
}

#: The steps each command needs, in order (the endgame table before the first kernel
#: that reads it, so it is built with its own progress).
COMMANDS: dict[str, tuple[str, ...]] = {
    "deal": ("deal",),
    "solve": ("endgame", "solver"),
    "simulate": ("deal", "endgame", "play"),
    "simulate-pulkas": ("deal", "endgame", "pulka"),
    "simulate-decisions": ("deal", "endgame", "play", "rollout"),
    "rollout": ("endgame", "rollout"),
    "analyze": ("endgame", "solver", "replay", "rollout"),
    "guide": ("deal", "endgame", "classes", "rollout"),
    "report": ("classes",),
    "charts": ("deal", "classes"),
    "compare": ("classes",),
    "compare-article": ("deal", "endgame", "play", "pulka", "strength", "classes"),
    "player-stats": ("deal", "endgame", "play"),
    "strength": ("deal", "endgame", "strength"),
    "exploit": ("deal", "endgame", "rollout"),
    "demo": ("deal", "endgame", "classes", "play", "pulka", "rollout"),
}


def needed(command: str) -> list[str]:
    """The steps of ``command`` whose kernels (or table) the cache does not hold yet."""
    return [name for name in COMMANDS[command] if not STEPS[name].done()]


def _measured() -> dict[str, float]:
    """The seconds each step took when a cache was last made on this machine (the
    newest record among the caches of every version), or an empty dict."""
    records = sorted((_cache.base() / "numba").glob(f"*/{TIMES}"),
                     key=lambda p: p.stat().st_mtime, reverse=True)
    for path in records:
        try:
            return {k: float(v) for k, v in json.loads(path.read_text("utf-8")).items()}
        except (OSError, ValueError, AttributeError, TypeError):
            continue
    return {}


def _record(times: dict[str, float]) -> None:
    """Add ``times`` to the record of the current cache (:data:`TIMES`)."""
    path = _cache.folder() / TIMES
    try:
        old = json.loads(path.read_text("utf-8")) if path.is_file() else {}
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_text(json.dumps({**old, **times}, indent=1), "utf-8")
        partial.replace(path)
    except (OSError, ValueError):  # a read-only cache: no estimate next time
        pass


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def headline(todo: list[str], measured: dict[str, float]) -> str:
    """The line shown before compiling ``todo``: what happens, how long it took here
    last time when that is known, and that it happens once."""
    known = [measured[n] for n in todo if n in measured]
    estimate = (f"; about {_minutes(sum(known))} here last time" if len(known) == len(todo)
                else "")
    return (f"compiling prefstats' engine for this version ({len(todo)} step"
            f"{'s' if len(todo) > 1 else ''}{estimate}); once only: later runs load it "
            "from the cache")


def step_text(label: str, done: int, total: int, last: float | None = None) -> str:
    """The progress line of the step under way: ``"compiling rollouts: 3/5"`` and the
    time it took last time, so that a step standing still says why."""
    verb = "building" if label.startswith("the endgame table") else "compiling"
    text = f"{verb} {label}: {done}/{total}"
    return text + (f" (took {_minutes(last)} last time)" if last else "")


def warm_up(command: str, *, show: bool | None = None) -> dict[str, float]:
    """Compile (or load from the cache) every kernel ``command`` needs, before it starts
    workers; returns the seconds each step that had to be made took (nothing when the
    cache holds them all). ``show``: the progress display on stderr (default: when
    stderr is a terminal)."""
    todo = needed(command)
    if not todo:
        return {}
    show = sys.stderr.isatty() if show is None else show
    measured = _measured()
    times: dict[str, float] = {}
    phases: dict[str, float] = {}  # of the steps compiled in two processes, recorded too
    handed = handed_over(todo)
    side = (_start_side(side_parts(todo), handed) if any(STEPS[n].search for n in todo)
            else None)
    try:
        with _Display(show, headline(todo, measured), len(todo)) as display:
            for i, name in enumerate(todo):
                step = STEPS[name]
                text = step_text(step.label, i + 1, len(todo), measured.get(name))
                display.step(text)
                started = time.perf_counter()
                if name == "endgame":
                    _endgame(display.part)
                elif name in handed and side is not None:
                    display.step(f"{text}, in the second process")
                    _await(side, step.done)
                    step.run()
                else:
                    if step.search and side is not None:
                        below = _below(step, side, display, text)
                        phases.update({f"{name}: {k}": v for k, v in below.items()})
                        display.step(f"{text}: {RUN}")
                    ran = time.perf_counter()
                    step.run()
                    if step.search and side is not None:
                        phases[f"{name}: run"] = time.perf_counter() - ran
                times[name] = time.perf_counter() - started
                display.advance()
    finally:
        if side is not None and side.poll() is None:  # not needed, or interrupted
            side.kill()
            side.wait()
    _record({**times, **phases})
    return times


#: What a driver step's phases compile, as the display names them.
PHASES = {"parts": "the engine and the built-in players' decisions",
          "search": "waiting for the solver's search, compiling in the second process",
          "after": "the players who search",
          "catchers": "waiting for the misère catchers, compiling in the second process"}
#: The last phase of a step: its tiny run compiles what is left, its driver above all.
RUN = "the driver, on a tiny input"


def side_parts(todo: list[str]) -> tuple[str, ...]:
    """What the second process compiles first, in this order: the search, and the misère
    catchers when a driver of ``todo`` plays hidden misères (the solver alone needs no
    catchers)."""
    return ("search", "catchers") if any(STEPS[n].after for n in todo) else ("search",)


def handed_over(todo: list[str]) -> tuple[str, ...]:
    """The steps of ``todo`` the second process compiles: the rollouts, when a step
    before them compiles the drivers' loop they call (this process meanwhile compiles
    the steps after that one)."""
    first = next((i for i, n in enumerate(todo) if STEPS[n].after is not None), len(todo))
    return tuple(n for n in todo[first + 1:] if n == "rollout")


def _below(step: Step, side: subprocess.Popen, display: _Display, text: str) -> dict[str, float]:
    """Compile what a step's driver calls, this process and the second one each their
    share (:class:`Step`), the ``display`` naming each phase after the step's ``text``;
    returns the seconds each phase took, by phase."""
    phases: dict[str, float] = {}

    def phase(name: str, work: Callable[[], object]) -> None:
        display.step(f"{text}: {PHASES[name]}")
        started = time.perf_counter()
        work()
        phases[name] = time.perf_counter() - started

    if step.parts is not None:
        phase("parts", step.parts)
    phase("search", lambda: _await(side, lambda: _cache.is_compiled(cache_name(*_search()))))
    if step.after is not None:
        phase("after", step.after)
        phase("catchers",
              lambda: _await(side, lambda: _cache.is_compiled(cache_name(*_catchers()))))
    return phases


def _await(process: subprocess.Popen, done: Callable[[], bool]) -> None:
    """Wait until ``done()`` or the second ``process`` has ended."""
    while process.poll() is None and not done():
        time.sleep(0.1)


def _start_side(parts: tuple[str, ...], steps: tuple[str, ...]) -> subprocess.Popen | None:
    """The second process (:func:`side`) compiling ``parts`` into this cache, then
    ``steps`` (run from the folder above this package, so it imports this very copy), or
    None if it cannot start: then this process compiles everything, as it would anyway if
    the second one failed."""
    try:
        return subprocess.Popen([sys.executable, "-c", "from prefstats.cli import _compile; "
                                 f"_compile.side({parts!r}, {steps!r})"],
                                cwd=_cache.PACKAGE.parent, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


class _Display:
    """The warm-up's rich progress: the headline, then one bar over the steps with the
    step under way, a spinner and the time spent (so it never stands still without
    saying why); a step with parts of its own (the endgame table) moves a second bar."""

    def __init__(self, show: bool, headline: str, total: int) -> None:
        self.show, self.headline, self.total = show, headline, total
        self.bar = None
        self.sub = None

    def __enter__(self) -> _Display:
        if self.show:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            console = Console(stderr=True)
            console.print(self.headline, style="dim", highlight=False)
            self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                TimeElapsedColumn(), console=console, transient=True,
                                redirect_stdout=False, redirect_stderr=False)
            self.bar.start()
            self.task = self.bar.add_task("", total=self.total)
        return self

    def step(self, text: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=text)

    def part(self, done: int, total: int) -> None:
        """Progress within the step (``done`` of ``total``)."""
        if self.bar is not None:
            if self.sub is None:
                self.sub = self.bar.add_task("  positions", total=total)
            self.bar.update(self.sub, completed=done, total=total)

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)
            if self.sub is not None:
                self.bar.remove_task(self.sub)
                self.sub = None

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def dispatchers() -> dict[str, object]:
    """Every compiled function of the prefstats modules imported so far, by
    ``module.name`` (numba dispatchers, told by their attributes: importing numba here
    would put this module in the cache's key)."""
    found = {}
    for name, module in list(sys.modules.items()):
        if name == "prefstats" or name.startswith("prefstats."):
            for obj in list(vars(module).values()):
                if hasattr(obj, "py_func") and hasattr(obj, "signatures"):
                    found[f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"] = obj
    return found


def signatures(functions: Iterable[str] | None = None) -> dict[str, int]:
    """How many specialisations each compiled function has in this process (those of
    ``functions`` only, when given)."""
    every = dispatchers()
    names = every if functions is None else [f for f in functions if f in every]
    return {name: len(every[name].signatures) for name in names}


def cache_files(folder: Path | None = None) -> set[str]:
    """The compiled functions' files in the cache (relative paths)."""
    root = folder or _cache.folder()
    return {p.relative_to(root).as_posix() for p in root.rglob("*.nb[ic]")}
