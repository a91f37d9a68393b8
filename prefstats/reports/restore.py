"""Re-drawing a report folder from its committed tables: every chart its ``charts.json``
names (:mod:`~prefstats.reports.manifest`) as PNG, SVG and PDF, and the Parquet copies
of its tables, without a deal dealt or played. ``make reports`` runs it over
``reports/``; the files it writes are the ones the repository does not keep.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from prefstats.errors import OptionError
from prefstats.reports import manifest
from prefstats.reports.charts import sourced
from prefstats.reports.hand_pictures import chart_from_table, picture


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


def restore_folder(folder: Path, progress: Callable[[Path], None] | None = None
                   ) -> list[Path]:
    """Draw every chart of ``folder``'s manifest and write its tables' Parquet copies:
    the files written."""
    doc = manifest.read(folder)
    written: list[Path] = []
    for entry in doc["charts"]:
        name = entry["name"]
        if progress is not None:
            progress(folder / name)
        if entry.get("hand"):
            chart = chart_from_table(name, pl.read_csv(folder / f"{name}.csv"), entry["min_n"])
            seats = {int(k): v for k, v in entry["seats"].items()}
            written += picture(chart, seats, folder / name, entry["source"],
                               entry["variant"])[0]
        else:
            with sourced(entry.get("source")):
                written += manifest.chart_function(entry)(manifest.chart_data(folder, entry),
                                                          folder / name)
    for name in doc.get("copies", []):
        table = folder / f"{name}.csv"
        if table.is_file():
            pl.read_csv(table).write_parquet(folder / f"{name}.parquet")
            written.append(folder / f"{name}.parquet")
    return written


def restore(root: str | Path, progress: Callable[[Path], None] | None = None) -> list[Path]:
    """:func:`restore_folder` for each of :func:`folders` of ``root``."""
    return [p for folder in folders(root) for p in restore_folder(folder, progress)]
