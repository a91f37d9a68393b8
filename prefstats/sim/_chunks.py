"""Chunk files: their names, atomic writes, the run's metadata in each Parquet footer,
and whether a listed chunk is a whole, unchanged part of its run."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from prefstats.errors import DatasetError
from prefstats.sim._remote import Remote, location

#: Prefix of the temporary files of an atomic write.
TMP_PREFIX = ".prefstats-tmp-"
_META_KEY = b"prefstats"
CHUNK_FILE = re.compile(r"chunk-\d{6,}\.parquet")


def chunk_name(index: int) -> str:
    return f"chunk-{index:06d}.parquet"


def atomic_write(path: Path | Remote, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder (on object
    storage, one upload: it appears whole or not at all)."""
    if isinstance(path, Remote):
        path.write_bytes(data)
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TMP_PREFIX, suffix=path.suffix)
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


def file_sha256(path: Path | Remote) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def chunk_meta(path: Path | Remote) -> tuple[dict[str, Any], int]:
    """The prefstats metadata of one chunk file and its footer's row count; a foreign or
    corrupt file raises."""
    try:
        if isinstance(path, Remote):
            with path.open("rb") as f:
                footer = pq.read_metadata(f)
        else:
            footer = pq.read_metadata(path)
        meta = footer.metadata or {}
        info = json.loads(meta[_META_KEY]) if _META_KEY in meta else None
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DatasetError(f"{path}: corrupt or truncated Parquet file ({exc})") from None
    if not isinstance(info, dict):
        raise DatasetError(f"{path}: a Parquet file that prefstats did not write")
    return info, footer.num_rows


def written_by_prefstats(path: Path | Remote) -> dict[str, Any] | None:
    """The prefstats metadata of the Parquet file ``path``, ``None`` if prefstats did not
    write it (or it cannot be read)."""
    try:
        return chunk_meta(path)[0]
    except DatasetError:
        return None


def check_chunk(folder: Path | Remote, entry: dict[str, Any], run_signature: str, *,
                checksum: bool) -> str | None:
    """Why the chunk listed as ``entry`` is not a valid part of the run signed
    ``run_signature``, or ``None``. ``checksum`` reads the whole file for its SHA-256;
    else only its size and footer."""
    path = location(folder) / entry["file"]
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return f"{entry['file']} is missing"
    if size != entry["bytes"]:
        return f"{entry['file']} has the wrong size (truncated or replaced)"
    if checksum and file_sha256(path) != entry["sha256"]:
        return f"{entry['file']} does not match its checksum (damaged)"
    try:
        meta, rows = chunk_meta(path)
    except DatasetError as exc:
        return str(exc)
    if meta.get("signature") != run_signature or meta.get("chunk") != entry["index"]:
        return f"{entry['file']} belongs to another run"
    if rows != entry["rows"] or meta.get("rows") != rows or meta.get("units") != entry["units"]:
        return f"{entry['file']}: its rows do not match the manifest"
    return None


def sorted_chunks(chunks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(chunks, key=lambda e: e["index"])
