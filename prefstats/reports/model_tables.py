"""The hand charts' cells under the other tables of players, kept small: one
``models.csv.xz`` per guide folder holds every other model's cells of every chart,
without the columns computed from others (the 95% interval). Each chart's
``<chart>_models.csv`` — the default's cells from ``<chart>.csv`` followed by the other
models' — is made from it, both when the guide is written and by ``make reports``, so
the two are the same file.
"""

from __future__ import annotations

import io
import lzma
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from prefstats.errors import DatasetError
from prefstats.game.exact import Z95
from prefstats.reports.stats import DECIMALS
from prefstats.sim._chunks import atomic_write

FILE = "models.csv.xz"
#: The columns computed again on reading, from ``gain`` and ``se``.
_DERIVED = ("ci_low", "ci_high")


def table_name(chart: str) -> str:
    """The name of ``chart``'s table of every model's cells."""
    return f"{chart}_models"


def write(folder: Path, tables: Mapping[str, pl.DataFrame], default: str
          ) -> dict[str, list[str]]:
    """Store the cells of ``tables`` (by chart) of every model but ``default`` in
    ``folder``'s ``models.csv.xz`` and make each chart's ``<chart>_models.csv`` from it;
    the columns of each, as the manifest records them."""
    columns = {chart: table.columns for chart, table in tables.items()}
    others = [table.filter(pl.col("model") != default).drop(_DERIVED)
              .with_columns(pl.lit(chart).alias("chart"))
              for chart, table in tables.items()]
    text = pl.concat(others, how="diagonal_relaxed").write_csv(float_precision=DECIMALS)
    atomic_write(Path(folder) / FILE, lzma.compress(text.encode("utf-8"), preset=9))
    restore(Path(folder), columns)
    return columns


def restore(folder: Path, columns: Mapping[str, list[str]]) -> list[Path]:
    """Make each chart's ``<chart>_models.csv`` in ``folder`` from its ``<chart>.csv``
    and ``models.csv.xz``: the files written."""
    if not columns:
        return []
    try:
        stored = pl.read_csv(io.BytesIO(lzma.decompress((folder / FILE).read_bytes())),
                             infer_schema_length=None)
    except (OSError, lzma.LZMAError, pl.exceptions.PolarsError) as exc:
        raise DatasetError(f"{folder / FILE}: cannot read the models' cells its "
                           f"charts.json names ({exc})") from None
    written = []
    for chart, names in columns.items():
        default = pl.read_csv(folder / f"{chart}.csv", infer_schema_length=None)
        schema = default.select(names).schema
        others = (stored.filter(pl.col("chart") == chart)
                  .with_columns((pl.col("gain") - Z95 * pl.col("se")).alias("ci_low"),
                                (pl.col("gain") + Z95 * pl.col("se")).alias("ci_high"))
                  .select([pl.col(n).cast(schema[n]) for n in names]))
        path = folder / f"{table_name(chart)}.csv"
        pl.concat([default.select(names), others]).write_csv(path, float_precision=DECIMALS)
        written.append(path)
    return written
