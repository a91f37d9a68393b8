"""The lock a run holds in its dataset folder, so two runs never write one dataset."""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prefstats.errors import DatasetError
from prefstats.sim._manifest import typed
from prefstats.sim._remote import Remote, location

#: The lock file a run holds in its dataset folder.
LOCK = ".prefstats.lock"


def _process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot; Linux), ``None`` if unknown:
    tells a live holder from a new process that reuses its pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _alive(pid: int, started: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    now = _process_start(pid)
    return started is None or now is None or now == started


def _holder(path: Path | Remote) -> tuple[bytes, dict[str, Any] | None]:
    """The lock file's bytes and its holder (``None`` while unreadable or half written)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return b"", {}
    try:
        info = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return data, None
    return data, info if isinstance(info, dict) and typed(info.get("pid"), int) else None


def _stale(path: Path | Remote, info: dict[str, Any] | None) -> bool:
    """Whether the lock's holder is gone: a dead process of this host, or a lock left
    unreadable (its taker died while writing it) for more than 10 s."""
    if info is None:
        try:
            return time.time() - path.stat().st_mtime > 10
        except FileNotFoundError:
            return False
    return info.get("host") == socket.gethostname() and not _alive(
        info["pid"], info.get("process_start"))


def _break(path: Path | Remote, seen: bytes) -> None:
    """Remove the stale lock ``path`` if it still holds ``seen``. Breakers take turns
    (``flock`` on the folder), so none removes a lock another took meanwhile; on object
    storage there is no such turn, so the check and the removal are as close as can be."""
    if isinstance(path, Remote):
        try:
            if path.read_bytes() == seen:
                path.unlink()
        except FileNotFoundError:
            pass
        return
    import fcntl

    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if path.read_bytes() == seen:
                path.unlink()
        except FileNotFoundError:
            pass
    finally:
        os.close(fd)  # releases the flock


def _take(path: Path | Remote) -> bytes:
    """Create the lock ``path`` (``O_CREAT | O_EXCL``: of two runs exactly one gets it),
    breaking a stale one; returns what it holds. A live holder: :class:`DatasetError`."""
    pid = os.getpid()
    mine = json.dumps({
        "pid": pid, "host": socket.gethostname(), "process_start": _process_start(pid),
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "token": uuid.uuid4().hex}).encode()
    for _ in range(200):
        try:
            if isinstance(path, Remote):
                path.create(mine)
                if path.read_bytes() != mine:  # another run's write landed over ours
                    continue
                return mine
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            seen, info = _holder(path)
            if info == {}:
                continue  # released meanwhile
            if _stale(path, info):
                _break(path, seen)
            elif info is None:
                time.sleep(0.05)  # its taker is writing it
            else:
                raise DatasetError(
                    f"{path.parent}: in use by another prefstats run (pid {info['pid']} on "
                    f"{info.get('host')}, started {info.get('started')}); wait for it to "
                    f"finish, or if that process is gone, delete {path}") from None
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(mine)
        return mine
    raise DatasetError(f"{path}: cannot take the lock; if no run is using "
                       f"{path.parent}, delete it")


@contextmanager
def dataset_lock(folder: Path | Remote) -> Iterator[None]:
    """Hold the lock of the dataset in ``folder`` (its pid, host and start time) for the
    block, released on exit, error and Ctrl-C; a process killed outright leaves a stale
    lock the next run of its host takes over. On object storage the lock is one object
    created only if absent where the store can (S3 conditional writes), else checked
    just before it is written. A folder where no file can be created raises
    ``PermissionError`` (or ``OSError`` EROFS)."""
    path = location(folder) / LOCK
    mine = _take(path)
    try:
        yield
    finally:
        try:
            if path.read_bytes() == mine:
                path.unlink()
        except FileNotFoundError:
            pass


def read_only_error(exc: OSError) -> bool:
    """Whether ``exc`` says a folder cannot be written."""
    return isinstance(exc, PermissionError) or exc.errno in (errno.EROFS, errno.EACCES)
