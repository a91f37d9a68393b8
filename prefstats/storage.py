"""Datasets on disk: Parquet chunk files and a ``manifest.json``.

A dataset is a folder holding ``chunk-NNNNNN.parquet`` files (zstd, compact dtypes)
and ``manifest.json``: what made it (package and schema version, the variant's full
config, the players and their parameters, the seed, the chunk size), every finished
chunk with its row count and SHA-256, and start and end times. Files are written
atomically (a temporary file renamed into place), and the manifest lists a chunk only
once its file is complete, so an interrupted run loses at most the chunks in flight.

Each chunk also carries the run's signature in its Parquet metadata, so a file from
another run, or a Parquet file that prefstats did not write, is refused by name.
:func:`load` checks all of this and returns a polars ``LazyFrame`` over the chunks.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

#: 2: columns ``no_talon``, ``dark``, ``blind``, ``multiplier`` and Gusarik's dummy (issue #8).
SCHEMA_VERSION = 2
FORMAT = "prefstats-dataset"
MANIFEST = "manifest.json"
_META_KEY = b"prefstats"


class DatasetError(ValueError):
    """A dataset that cannot be used as asked: missing, corrupt, foreign or mismatched."""


def chunk_name(index: int) -> str:
    return f"chunk-{index:06d}.parquet"


def signature(spec: dict[str, Any]) -> str:
    """A short hash of everything that defines a dataset's content."""
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def table_bytes(table: pa.Table, meta: dict[str, Any]) -> bytes:
    """``table`` as Parquet (zstd) with ``meta`` in its key-value metadata."""
    table = table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=6)
    return sink.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of ``folder``, ``None`` when there is none; a broken one raises."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: not a readable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DatasetError(f"{path}: not a prefstats dataset manifest")
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise DatasetError(
            f"{path}: schema version {manifest.get('schema_version')} is not the "
            f"{SCHEMA_VERSION} this prefstats reads; remake the dataset"
        )
    return manifest


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    atomic_write(Path(folder) / MANIFEST, json.dumps(manifest, indent=1).encode())


def chunk_meta(path: Path) -> dict[str, Any]:
    """The prefstats metadata of one chunk file; a foreign or corrupt file raises."""
    try:
        meta = pq.read_schema(path).metadata or {}
    except (pa.ArrowInvalid, OSError) as exc:
        raise DatasetError(f"{path}: corrupt or truncated Parquet file ({exc})") from None
    if _META_KEY not in meta:
        raise DatasetError(f"{path}: a Parquet file that prefstats did not write")
    return json.loads(meta[_META_KEY])


def check_chunk(folder: Path, entry: dict[str, Any], run: str, *, checksum: bool) -> str | None:
    """Why the chunk listed as ``entry`` is not a valid part of run ``run``, or ``None``."""
    path = Path(folder) / entry["file"]
    if not path.exists():
        return f"{entry['file']} is missing"
    if checksum:
        if file_sha256(path) != entry["sha256"]:
            return f"{entry['file']} does not match its checksum"
    elif path.stat().st_size != entry["bytes"]:
        return f"{entry['file']} has the wrong size"
    try:
        meta = chunk_meta(path)
    except DatasetError as exc:
        return str(exc)
    if meta.get("signature") != run or meta.get("chunk") != entry["index"]:
        return f"{entry['file']} belongs to another run"
    return None


def load(path: str | Path, *, verify: str = "footer") -> pl.LazyFrame:
    """A polars ``LazyFrame`` over a dataset's rows (nothing is read until collected).

    ``verify``: ``"footer"`` (default) reads each chunk's Parquet footer and checks it
    belongs to the run; ``"checksum"`` also checks every file's SHA-256; ``"none"``
    trusts the manifest. Missing, corrupt, foreign or unfinished data raises
    :class:`DatasetError` naming the file.
    """
    folder = Path(path)
    manifest = read_manifest(folder)
    if manifest is None:
        raise DatasetError(f"{folder}: no {MANIFEST}; not a prefstats dataset")
    if verify not in ("footer", "checksum", "none"):
        raise ValueError(f"verify must be 'footer', 'checksum' or 'none', got {verify!r}")
    chunks = manifest["chunks"]
    if not chunks:
        raise DatasetError(f"{folder}: the dataset has no finished chunk yet")
    if verify != "none":
        for entry in chunks:
            problem = check_chunk(folder, entry, manifest["signature"],
                                  checksum=verify == "checksum")
            if problem:
                raise DatasetError(f"{folder}: {problem}")
    return pl.scan_parquet([str(folder / e["file"]) for e in sorted_chunks(chunks)])


def sorted_chunks(chunks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(chunks, key=lambda e: e["index"])


def manifest_of(path: str | Path) -> dict[str, Any]:
    """The manifest of the dataset at ``path`` (raises if there is none)."""
    manifest = read_manifest(Path(path))
    if manifest is None:
        raise DatasetError(f"{path}: no {MANIFEST}; not a prefstats dataset")
    return manifest
