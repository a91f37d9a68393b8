"""Where a run's chunks are played: each by a worker that writes its own file and hands
back only the chunk's manifest entry, in this process, a pool of local processes or on
a Dask cluster."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

from prefstats.errors import DatasetError, OptionError
from prefstats.sim._chunks import atomic_write, chunk_name, sha256, table_bytes
from prefstats.sim._remote import Remote
from prefstats.sim._schema import SCHEMA_VERSION, enum_table
from prefstats.sim._spec import RunSpec


def usable_cores() -> int:
    """The cores this process may run on: the default number of workers of every
    command that runs in parallel."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_chunk(spec: RunSpec, index: int) -> tuple[int, bytes, int, int]:
    """Play and score chunk ``index``; returns ``(index, parquet bytes, rows, units)``:
    the file's rows and the deals or pulkas it covers. It reads and writes no file.
    """
    start = index * spec.chunk
    count = min(spec.chunk, spec.size - start)
    table = enum_table(spec.rows(start, count))  # the decisions' kind and contract too
    meta = {"signature": spec.signature, "chunk": index, "first_unit": start, "units": count,
            "rows": table.num_rows, "kind": spec.kind, "schema_version": SCHEMA_VERSION}
    return index, table_bytes(table, meta), table.num_rows, count


def write_chunk(spec: RunSpec, index: int, folder: Path | Remote) -> dict[str, Any]:
    """Play chunk ``index`` and write its file, atomically, into the dataset ``folder``;
    returns only its manifest entry. Runs anywhere that reaches ``folder`` (a worker
    process, a Dask worker writing to a bucket)."""
    index, data, rows, units = run_chunk(spec, index)
    name = chunk_name(index)
    atomic_write(folder / name, data)
    return {"index": index, "file": name, "rows": rows, "units": units, "bytes": len(data),
            "sha256": sha256(data)}


def worker_setup(main: int) -> None:
    """In each worker process: leave Ctrl-C to the main process (which then stops the
    workers), and exit once the main process is gone -- killed outright, it stops none."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.getppid() == main:
        threading.Thread(target=_watch_parent, args=(main,), daemon=True).start()


def _watch_parent(main: int) -> None:
    while os.getppid() == main:  # an orphan is re-parented
        time.sleep(0.5)
    os._exit(1)


def local_chunks(spec: RunSpec, todo: list[int], workers: int,
                 folder: Path | Remote) -> Generator[dict[str, Any], None, None]:
    """Play the chunks ``todo`` in ``workers`` local processes (in this one when
    ``workers`` is 1, or ``folder`` is this process's own); yields their entries as they
    land."""
    if workers == 1 or not getattr(folder, "shared", True):
        for index in todo:
            yield write_chunk(spec, index, folder)
        return
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    # A pool of this run's own, shut down (workers killed) however the run ends.
    pool = ProcessPoolExecutor(max_workers=workers, initializer=worker_setup,
                               initargs=(os.getpid(),))
    try:
        futures = {pool.submit(write_chunk, spec, i, folder) for i in todo}
        for future in as_completed(futures):
            futures.discard(future)  # released as it lands
            yield future.result()
    finally:
        pool.shutdown(wait=True, kill_workers=True)


def dask_client(scheduler: str):
    """A client of the Dask scheduler at ``scheduler``; one that is down: OptionError."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise RuntimeError("the dask backend needs dask.distributed: "
                           "pip install 'prefstats[cluster]'") from None
    try:
        return Client(scheduler, timeout="5s")
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise OptionError(f"cannot reach the dask scheduler at {scheduler!r} ({exc}); is it "
                          "running, and is the address right?") from None


def dask_chunks(spec: RunSpec, todo: list[int], client, workers: int,
                folder: Path | Remote) -> Generator[dict[str, Any], None, None]:
    """Play the chunks ``todo`` on the Dask cluster of ``client`` (a local cluster of
    ``workers`` processes when it is None); yields their entries as they land."""
    if not todo:
        return
    if not getattr(folder, "shared", True):
        raise DatasetError(f"{folder}: an in-memory filesystem is this process's own; "
                           "Dask workers write to a folder or a bucket they can reach")
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if client is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)
        client = Client(cluster)
    try:
        landed = as_completed([client.submit(write_chunk, spec, i, folder, pure=False)
                               for i in todo])
        for future in landed:
            entry = future.result()
            future.release()  # the cluster forgets it: only the small entry is kept
            yield entry
    finally:
        if cluster is not None:
            client.close()
            cluster.close()
