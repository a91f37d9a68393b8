"""Re-drawing a report folder from its committed tables: every chart its ``charts.json``
names (:mod:`~prefstats.reports.manifest`) as PNG, SVG and PDF, the charts' tables of
every model's cells and the Parquet copies of its tables, without a deal dealt or
played. ``make reports`` runs it over ``reports/``; the files it writes are the ones
the repository does not keep.

A folder drawn is stamped (``.charts-stamp``: a digest of its manifest, its tables and
the drawing code, with the files written), so drawing it again is skipped until one of
them changes or a file is missing. With a cache folder (the command's: beside the
compiled code), a folder drawn once is copied, not drawn, into any other copy of the
repository holding the same tables and code.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import polars as pl

from prefstats import _cache
from prefstats.errors import OptionError
from prefstats.reports import manifest, model_tables
from prefstats.reports.charts import sourced
from prefstats.reports.hand_pictures import chart_from_table, picture

STAMP = ".charts-stamp"
#: Days a cached folder is kept unused: the committed reports take ~22 MB a version of the code.
KEPT_DAYS = 3
#: The layers above the reports: code that no chart can import (the layer contract).
_ABOVE = ("cli", "serve")
_CODE_SUFFIXES = (".py", ".mplstyle", ".toml")


def folders(root: str | Path) -> list[Path]:
    """``root`` itself when it holds a ``charts.json``, else each folder under it that
    does, by name."""
    root = Path(root)
    if (root / manifest.NAME).is_file():
        return [root]
    found = sorted(p.parent for p in root.glob(f"*/{manifest.NAME}"))
    if not found:
        raise OptionError(f"root: no {manifest.NAME} in {root} or a folder under it "
                          "(nothing to draw)")
    return found


def draw_chart(folder: Path, entry: dict) -> list[Path]:
    """Draw one chart of ``folder``'s manifest: the files written."""
    name = entry["name"]
    if entry.get("hand"):
        chart = chart_from_table(name, pl.read_csv(folder / f"{name}.csv"), entry["min_n"])
        seats = {int(k): v for k, v in entry["seats"].items()}
        return picture(chart, seats, folder / name, entry["source"], entry["variant"])[0]
    with sourced(entry.get("source")):
        return manifest.chart_function(entry)(manifest.chart_data(folder, entry),
                                              folder / name)


def _copies(folder: Path) -> list[Path]:
    """Make ``folder``'s tables of every model's cells and write the Parquet copies of
    its tables that its manifest names."""
    doc = manifest.read(folder)
    written = model_tables.restore(folder, doc.get("models", {}))
    for name in doc.get("copies", []):
        table = folder / f"{name}.csv"
        if table.is_file():
            pl.read_csv(table).write_parquet(folder / f"{name}.parquet")
            written.append(folder / f"{name}.parquet")
    return written


def restore_folder(folder: Path, progress: Callable[[Path], None] | None = None
                   ) -> list[Path]:
    """Draw every chart of ``folder``'s manifest, make its tables of every model's cells
    and write its tables' Parquet copies: the files written."""
    written: list[Path] = []
    for entry in manifest.read(folder)["charts"]:
        if progress is not None:
            progress(folder / entry["name"])
        written += draw_chart(folder, entry)
    return written + _copies(folder)


@functools.cache
def _drawing_code() -> bytes:
    """A digest of what draws the charts besides their tables: every module of the
    package the reports layer may import (all but the layers above it), its style sheet
    and presets, and matplotlib's version."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(version("matplotlib").encode())
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if path.suffix in _CODE_SUFFIXES and rel.parts[0] not in _ABOVE and path.is_file():
            digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


def _key(folder: Path) -> str:
    """The digest of ``folder``'s manifest and tables and of the drawing code."""
    digest = hashlib.sha256(_drawing_code())
    for path in [folder / manifest.NAME, *sorted(folder.glob("*.csv*"))]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def is_drawn(folder: Path) -> bool:
    """Whether ``folder``'s files were drawn from its present tables by the present code
    and are all there."""
    try:
        stamp = json.loads((folder / STAMP).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return stamp.get("key") == _key(folder) and \
        all((folder / name).is_file() for name in stamp.get("files", []))


def _stamp(folder: Path, written: list[Path]) -> None:
    names = sorted(p.relative_to(folder).as_posix() for p in written)
    (folder / STAMP).write_text(json.dumps({"key": _key(folder), "files": names}) + "\n",
                                "utf-8")


def cache_folder() -> Path:
    """Where the command keeps the folders it drew, by digest, for other copies of the
    repository: ``charts`` beside the compiled code (``$PREFSTATS_CACHE``)."""
    return _cache.base() / "charts"


def _cached(folder: Path, entry: Path) -> list[Path] | None:
    """Copy into ``folder`` the files kept at ``entry`` (drawn from the same tables by the
    same code): the files copied, or None when nothing whole is kept there."""
    try:
        names = json.loads((entry / STAMP).read_text("utf-8"))["files"]
        if any(Path(name).is_absolute() or ".." in Path(name).parts for name in names):
            return None  # a foreign stamp: nothing is copied out of the folder
        for name in names:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(entry / name, folder / name)
        os.utime(entry)  # in use: not pruned
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return [folder / name for name in names]


def _keep(folder: Path, written: list[Path], entry: Path) -> None:
    """Keep the files just drawn into ``folder`` (and its stamp) at ``entry``; a disk
    that cannot take them keeps nothing."""
    partial = entry.with_name(f"{entry.name}.{os.getpid()}")
    try:
        shutil.rmtree(partial, ignore_errors=True)
        for path in [*written, folder / STAMP]:
            target = partial / path.relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        shutil.rmtree(entry, ignore_errors=True)
        partial.rename(entry)
        _cache.prune(entry, days=KEPT_DAYS)
    except (OSError, ValueError):  # a file outside the folder is not kept either
        shutil.rmtree(partial, ignore_errors=True)


def restore(root: str | Path, progress: Callable[[Path], None] | None = None, *,
            workers: int = 1, force: bool = False, cache: Path | None = None
            ) -> tuple[list[Path], list[Path]]:
    """Draw each of :func:`folders` of ``root`` not :func:`is_drawn` (every one when
    ``force``), its charts shared among ``workers`` processes, and stamp it: the files
    written, and the folders left as they were. With a ``cache`` folder, a folder whose
    tables and code were drawn before is copied from it (unless ``force``), and one drawn
    is kept there."""
    every = folders(root)
    todo = [f for f in every if force or not is_drawn(f)]
    keys = {folder: _key(folder) for folder in todo}  # before the files drawn join them
    copied: dict[Path, list[Path]] = {}
    if cache is not None and not force:
        for folder in todo:
            found = _cached(folder, cache / keys[folder])
            if found is not None:
                copied[folder] = found
                _stamp(folder, found)
    draw = [f for f in todo if f not in copied]
    jobs = [(folder, entry) for folder in draw for entry in manifest.read(folder)["charts"]]
    drawn: dict[Path, list[Path]] = {folder: _copies(folder) for folder in draw}
    for (folder, _), paths in zip(jobs, _draw_all(jobs, progress, workers), strict=True):
        drawn[folder] += paths
    for folder, written in drawn.items():
        _stamp(folder, written)
        if cache is not None:
            _keep(folder, written, cache / keys[folder])
    done = copied | drawn
    return [p for f in todo for p in done[f]], [f for f in every if f not in done]


def _draw_all(jobs: list[tuple[Path, dict]], progress: Callable[[Path], None] | None,
              workers: int) -> list[list[Path]]:
    """:func:`draw_chart` of each job, in this process or over ``workers``: the files of
    each, in the jobs' order."""
    if workers <= 1 or len(jobs) <= 1:
        results = []
        for folder, entry in jobs:
            if progress is not None:
                progress(folder / entry["name"])
            results.append(draw_chart(folder, entry))
        return results
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    from prefstats.sim._workers import worker_setup

    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)),
                               initializer=worker_setup, initargs=(os.getpid(),))
    try:
        futures = {pool.submit(draw_chart, *job): i for i, job in enumerate(jobs)}
        results: list[list[Path]] = [[] for _ in jobs]
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            if progress is not None:
                progress(jobs[i][0] / jobs[i][1]["name"])
        return results
    finally:
        pool.shutdown(wait=True, kill_workers=True)
