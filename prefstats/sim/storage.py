"""Datasets on disk: Parquet chunk files and a ``manifest.json``.

A dataset is a folder holding ``chunk-NNNNNN.parquet`` files (zstd, compact dtypes)
and ``manifest.json``: what made it (package and schema version, the variant's full
config, the players and their parameters, the seed, the chunk size, the size asked
for), every finished chunk with its row count, the deals or pulkas it covers and its
SHA-256, and start and end times. Files are written atomically (a temporary file
renamed into place), and the manifest lists a chunk only once its file is complete, so
an interrupted run loses at most the chunks in flight.

Each chunk also carries the run's signature, its number, first deal (or pulka) and row
count in its Parquet metadata. The signature hashes the spec without its size, so a
dataset extended to more deals keeps its chunks. :func:`load` checks everything by
default -- the manifest's structure (each chunk once, plain file names), the spec
against the signature (an edited spec is refused as relabelled), every file's SHA-256
and Parquet footer, and that the run finished -- and returns a polars ``LazyFrame``.

Columns that hold a game code (``kind``, ``contract``, ``bid``, ``first``, ``second``,
``talon_first``, and the lists ``calls`` and ``whist_calls``) are stored as dictionary
columns of the codes' names (:data:`ENUMS`): polars reads them as ``pl.Enum``, pandas
as categoricals. Each Enum lists every code's name in code order, so a name's position
is its code: :func:`to_codes` gives back the engine's integers (-1 for none), which the
reports compute on.

While a run is going, each finished chunk's entry is its own small file,
``manifest-NNNNNN.json`` (written atomically once the chunk file is whole), so a chunk
costs one small write however many came before; :func:`parse_manifest` reads them with
the manifest, and the run folds them into ``manifest.json`` when it ends or resumes.

A dataset's place is a folder or an fsspec URL (:func:`location`): ``s3://bucket/run``,
``gs://…``, ``memory://…``; ``file://`` is a local folder. Local folders keep their
atomic renames and ``fsync``; on object storage a file is one upload, which a reader
sees whole or not at all. Remote filesystems take their settings from fsspec's
configuration and the environment (for S3, ``AWS_ENDPOINT_URL`` and the usual
credentials), or from ``storage_options``.

A run holds a lock in the folder, so two runs never write one dataset; ``--force``
deletes only the files a dataset owns.

This module reads a dataset (:func:`load`) and gathers the names a user of one needs;
each concern has its module: ``_remote`` (where a dataset lives), ``_schema`` (the code
columns), ``_chunks`` (chunk files), ``_manifest``, ``_ownership`` and ``_lock``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from prefstats.errors import DatasetError, OptionError
from prefstats.sim._chunks import check_chunk, sorted_chunks
from prefstats.sim._lock import LOCK as LOCK
from prefstats.sim._manifest import describe as describe
from prefstats.sim._manifest import manifest_of as manifest_of
from prefstats.sim._manifest import progress as progress
from prefstats.sim._manifest import write_manifest as write_manifest
from prefstats.sim._remote import Remote
from prefstats.sim._remote import location as location
from prefstats.sim._schema import CALL as CALL
from prefstats.sim._schema import CARD as CARD
from prefstats.sim._schema import CONTRACT as CONTRACT
from prefstats.sim._schema import ENUMS as ENUMS
from prefstats.sim._schema import KIND as KIND
from prefstats.sim._schema import ROLE as ROLE
from prefstats.sim._schema import enum_columns
from prefstats.sim._schema import to_codes as to_codes

__all__ = ["DatasetError", "load"]

#: How to repair a damaged chunk: its run redoes it.
REPAIR = "rerun the command that made the dataset, with the same arguments, to redo it"


def load(path: str | Path, *, verify: str = "checksum", partial: bool = False,
         storage_options: dict[str, Any] | None = None) -> pl.LazyFrame:
    """Open a dataset's rows as a polars ``LazyFrame`` (nothing is read until collected).

    The code columns are ``pl.Enum`` columns of their names (docs/DATA.md; :func:`to_codes`
    gives their integer codes). The manifest itself is always validated.

    :param path: a folder or an fsspec URL (``s3://bucket/run``; see :func:`location`).
    :param verify: ``"checksum"`` (default) checks every file's SHA-256 and Parquet footer
        against the manifest; ``"footer"`` only sizes and footers; ``"none"`` trusts the
        files.
    :param partial: open an unfinished dataset (an interrupted run); :func:`describe`
        says how much is there.
    :param storage_options: builds the remote filesystem (else fsspec's configuration and
        the environment, e.g. ``AWS_ENDPOINT_URL``).
    :returns: the rows, lazily.
    :raises DatasetError: for missing, corrupt, foreign, edited or unfinished data, naming
        the file and the repair.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.simulate import simulate
    >>> out = tempfile.mkdtemp()
    >>> _ = simulate(get_variant("sochi"), hands=20, seed=1, out=out, chunk_size=10,
    ...              workers=1, progress=False)
    >>> frame = load(out)
    >>> frame.select("kind").collect().height, frame.collect_schema()["kind"]
    (20, Enum(categories=['undecided', 'game', 'misere', 'raspasy']))
    """
    if verify not in ("checksum", "footer", "none"):
        raise OptionError(f"verify must be 'checksum', 'footer' or 'none', got {verify!r}")
    folder = location(path, storage_options)
    manifest = manifest_of(folder)
    chunks = sorted_chunks(manifest["chunks"])
    if verify != "none":
        for entry in chunks:
            problem = check_chunk(folder, entry, manifest["signature"],
                                  checksum=verify == "checksum")
            if problem:
                raise DatasetError(f"{folder}: {problem}; {REPAIR}")
    done, asked = progress(manifest)
    if done != asked and not partial:
        raise DatasetError(f"{folder}: {describe(manifest)}: the run that made it did not "
                           "finish; rerun its command to finish it, or load it with "
                           "partial=True to use the finished chunks")
    if not chunks:
        raise DatasetError(f"{folder}: the dataset has no finished chunk yet")
    if isinstance(folder, Remote):  # read through the same fsspec filesystem
        import pyarrow.dataset as ds
        from pyarrow.fs import FSSpecHandler, PyFileSystem

        files = ds.dataset([(folder / e["file"]).path for e in chunks], format="parquet",
                           filesystem=PyFileSystem(FSSpecHandler(folder.fs)))
        return enum_columns(pl.scan_pyarrow_dataset(files))
    return enum_columns(pl.scan_parquet([str(folder / e["file"]) for e in chunks]))
