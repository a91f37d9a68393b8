"""Where a dataset lives: a local folder, or a folder on an fsspec filesystem (a bucket)
seen through the few ``pathlib.Path`` methods a dataset uses."""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fsspec

from prefstats.errors import DatasetError

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


class Remote:
    """A file or folder on an fsspec filesystem, with the few ``pathlib.Path`` methods a
    dataset uses, so that the same code reads and writes a local folder and a bucket."""

    def __init__(self, fs: fsspec.AbstractFileSystem, path: str) -> None:
        self.fs, self.path = fs, path.rstrip("/")

    def __truediv__(self, name: str) -> Remote:
        return Remote(self.fs, f"{self.path}/{name}") if name else self

    def __str__(self) -> str:
        return self.fs.unstrip_protocol(self.path)

    def __repr__(self) -> str:
        return f"Remote({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Remote) and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(str(self))

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix

    @property
    def parent(self) -> Remote:
        return Remote(self.fs, self.path.rsplit("/", 1)[0])

    @property
    def shared(self) -> bool:
        """Whether other processes see its files (an in-memory filesystem is this
        process's own)."""
        return "memory" not in _protocols(self.fs)

    def read_bytes(self) -> bytes:
        return self.fs.cat_file(self.path)

    def write_bytes(self, data: bytes) -> None:
        self.fs.pipe_file(self.path, data)

    def create(self, data: bytes) -> None:
        """Write ``data`` unless the file exists (:class:`FileExistsError`): exclusive
        where the store offers it, else a check just before the write."""
        try:
            with self.fs.open(self.path, "xb") as f:
                f.write(data)
        except (ValueError, NotImplementedError):  # no exclusive mode in this store
            if self.fs.exists(self.path):
                raise FileExistsError(str(self)) from None
            self.write_bytes(data)

    def open(self, mode: str = "rb"):
        return self.fs.open(self.path, mode)

    def stat(self) -> os.stat_result:
        info = self.fs.info(self.path)
        when = info.get("LastModified") or info.get("mtime") or info.get("created")
        mtime = when.timestamp() if isinstance(when, dt.datetime) else float(when or time.time())
        return os.stat_result((0, 0, 0, 0, 0, 0, info["size"], mtime, mtime, mtime))

    def exists(self) -> bool:
        return self.fs.exists(self.path)

    def is_dir(self) -> bool:
        return self.fs.isdir(self.path)

    def is_file(self) -> bool:
        return self.fs.isfile(self.path)

    def iterdir(self) -> Iterator[Remote]:
        try:
            names = self.fs.ls(self.path, detail=False, refresh=True)
        except FileNotFoundError:
            return iter(())
        finally:  # no cached listing: files come and go (the lock), ask the store each time
            self.fs.invalidate_cache(self.path)
        return (Remote(self.fs, n) for n in names if n.rstrip("/") != self.path)

    def glob(self, pattern: str) -> Iterator[Remote]:
        import fnmatch

        return (p for p in self.iterdir() if fnmatch.fnmatchcase(p.name, pattern))

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.fs.rm_file(self.path)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        self.fs.makedirs(self.path, exist_ok=exist_ok)


def _protocols(fs: fsspec.AbstractFileSystem) -> tuple[str, ...]:
    return (fs.protocol,) if isinstance(fs.protocol, str) else tuple(fs.protocol)


def location(path: str | Path | Remote, storage_options: dict[str, Any] | None = None
             ) -> Path | Remote:
    """Where the dataset ``path`` lives: a local ``Path`` for a folder or a ``file://``
    URL, a :class:`Remote` for any other fsspec URL (``s3://bucket/run``, ``gs://…``,
    ``memory://…``) built with ``storage_options``. A URL whose filesystem is unknown,
    or not installed, raises :class:`DatasetError` before anything is written."""
    if isinstance(path, Path | Remote):
        return path
    text = str(path)
    scheme = _URL.match(text)
    if not scheme:
        return Path(text)
    try:
        fs, root = fsspec.url_to_fs(text, **(storage_options or {}))
    except ImportError as exc:
        raise DatasetError(f"{text}: the {scheme[1]}:// filesystem is not installed ({exc})"
                           ) from None
    except (ValueError, TypeError) as exc:
        raise DatasetError(f"{text}: unknown storage {scheme[1]}:// ({exc}); give a folder "
                           "or a URL fsspec knows, such as s3://bucket/run") from None
    if "file" in _protocols(fs):
        return Path(root)
    return Remote(fs, root)
