"""Make a dataset: hold its folder's lock, plan the run, play the chunks to do on a
backend, list each as it lands and fold the entries into the manifest at the end."""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from prefstats.errors import DatasetError, OptionError
from prefstats.sim._lock import dataset_lock, read_only_error
from prefstats.sim._manifest import part_name, write_entry, write_manifest
from prefstats.sim._remote import Remote, location
from prefstats.sim._resume import Plan, now, plan_run
from prefstats.sim._spec import RunSpec
from prefstats.sim._workers import dask_chunks, dask_client, local_chunks, usable_cores

BACKENDS = ("local", "dask")

#: Plays a plan's chunks ``todo`` of a spec in a folder, yielding their entries.
Chunks = Callable[[RunSpec, list[int], Path | Remote], Generator[dict[str, Any], None, None]]


def run(
    spec: RunSpec,
    out: str | Path,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    force: bool = False,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Make (or finish, or extend) the dataset of ``spec`` in ``out`` with ``workers``
    processes of the ``backend`` ("local" or "dask" at ``scheduler``); ``force`` starts
    over, deleting only the dataset's own files; ``progress`` shows a bar (default: when
    stderr is a terminal). The run holds the folder's lock throughout: a second run on
    it is refused. A finished dataset is returned as it is, without a write (a
    read-only copy works)."""
    return run_all(location(out), [(spec, "")], workers=workers, backend=backend,
                   scheduler=scheduler, force=force, progress=progress)[0]


def run_all(out: Path | Remote, specs: list[tuple[RunSpec, str]], *, workers: int | None = None,
            backend: str = "local", scheduler: str | None = None, force: bool = False,
            progress: bool | None = None) -> list[dict[str, Any]]:
    """Make each ``(spec, sub-folder)`` of ``specs`` in turn under ``out``, holding the
    lock of ``out`` until the last is done (a pulka dataset and its ``deals/``)."""
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise OptionError(f"workers must be a positive number of processes, got {workers!r}")
    processes = workers or usable_cores()
    show = sys.stderr.isatty() if progress is None else progress
    with ExitStack() as stack:
        client = None
        if backend == "dask" and scheduler is not None:
            client = dask_client(scheduler)
            stack.callback(client.close)

        def chunks(spec: RunSpec, todo: list[int], folder: Path | Remote):
            if backend == "dask":
                return dask_chunks(spec, todo, client, processes, folder)
            return local_chunks(spec, todo, min(processes, max(1, len(todo))), folder)

        manifests = []
        for spec, sub in specs:
            folder = _folder(out / sub)
            try:
                stack.enter_context(dataset_lock(folder))
            except OSError as exc:
                if not read_only_error(exc):
                    raise
                manifests.append(_read_only(folder, spec, force, exc))
                continue
            manifests.append(_make(folder, plan_run(folder, spec, force), show, chunks))
        return manifests


def _folder(path: Path | Remote) -> Path | Remote:
    """The dataset folder ``path``, created if need be; a file or an uncreatable path
    raises :class:`DatasetError`."""
    try:
        if path.is_file():
            raise DatasetError(f"{path}: a file, not a folder; choose another --out")
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"{path}: cannot create the dataset folder "
                           f"({exc.strerror or exc})") from None
    return path


def _read_only(folder: Path | Remote, spec: RunSpec, force: bool,
               exc: OSError) -> dict[str, Any]:
    """A run in a folder that cannot be written: fine if its dataset is finished."""
    why = f"{folder}: cannot write there ({exc.strerror})"
    if force:
        raise DatasetError(f"{why}; --force needs a writable folder")
    plan = plan_run(folder, spec, force=False)
    if plan.dirty:
        raise DatasetError(f"{why}; only a finished dataset can be rerun in a read-only "
                           "folder: choose a writable --out")
    return plan.manifest


def _make(folder: Path | Remote, plan: Plan, show: bool, chunks: Chunks) -> dict[str, Any]:
    """Carry out ``plan``: play its chunks with ``chunks``, each written by its
    worker, and list each as it lands (its entry as its own file); at the end the
    entries are folded into the manifest."""
    manifest = plan.manifest
    if not plan.dirty:
        return manifest
    manifest["finished"] = None
    write_manifest(folder, manifest)  # the kept chunks, before their entries go
    for p in plan.remove:
        p.unlink(missing_ok=True)
    finished = sum(e["units"] for e in manifest["chunks"])
    results = chunks(plan.spec, plan.todo, folder)
    with _Progress(show, plan.spec.size, finished, plan.spec.kind) as bar:
        try:
            for entry in results:
                write_entry(folder, entry)
                manifest["chunks"].append(entry)
                bar.advance(entry["units"])
        except KeyboardInterrupt:
            kept = len(manifest["chunks"])
            print(f"interrupted: {kept} finished chunk(s) kept in {folder}; rerun the same "
                  "command to resume", file=sys.stderr)
            raise
        finally:
            results.close()  # stops the workers
    manifest["chunks"].sort(key=lambda e: e["index"])
    manifest["finished"] = now()
    write_manifest(folder, manifest)
    for entry in manifest["chunks"]:
        (folder / part_name(entry["index"])).unlink(missing_ok=True)
    return manifest


class _Progress:
    """A rich progress bar with a spinner, the time spent, units/second and ETA, which
    says it is starting the workers until the first chunk lands (a chunk takes seconds:
    the bar never stands still without saying why); silent when ``show`` is false."""


    def __init__(self, show: bool, total: int, done: int, unit: str) -> None:
        self.show, self.total, self.done, self.unit = show, total, done, unit
        self.bar: Any = None

    def __enter__(self) -> _Progress:
        if self.show:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                SpinnerColumn(), TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                TaskProgressColumn(), TimeElapsedColumn(), TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
            )
            self.bar.start()
            self.task = self.bar.add_task(
                self.unit, total=self.total, completed=self.done,
                rate="starting the workers, each plays a chunk before the bar moves")
        return self

    def advance(self, rows: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, rows)
            speed = self.bar.tasks[0].speed
            self.bar.update(self.task, rate=f"{speed:,.0f} {self.unit}/s" if speed else "")

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
