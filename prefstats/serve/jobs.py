"""Jobs: long work (a rollout, a game's analysis, a comparison) run on a bounded pool of
threads, watched and cancelled over HTTP.

A job's work is a generator: it yields ``(progress, partial result)`` as it goes and
returns its result; between two yields it can be cancelled. The compiled kernels
release the GIL, so lookups keep answering while the pool works. A finished job's
result is kept by its key (its inputs, seed and the version), so the same question
asked again is answered at once, from memory or from the data folder.
"""

from __future__ import annotations

import hashlib
import json
import queue
import threading
import uuid
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefstats.errors import OptionError, PrefstatsError

Work = Callable[[], Generator[tuple[float, Any], None, Any]]


@dataclass
class Job:
    """One job's state as ``GET /api/jobs/{id}`` shows it."""

    id: str
    kind: str
    key: str
    state: str = "queued"
    progress: float = 0.0
    result: Any = None
    error: str | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def view(self, place: int | None) -> dict:
        """The job as JSON: state, progress, result (partial while running), error, and
        a queued job's place in the queue (1 = next)."""
        out = {"job": self.id, "kind": self.kind, "state": self.state,
               "progress": self.progress, "result": self.result}
        if self.error is not None:
            out["error"] = self.error
        if place is not None:
            out["place"] = place
        return out


def job_key(kind: str, inputs: dict, version: str) -> str:
    """The cache key of a job: its kind, inputs (the seed among them) and the version."""
    text = json.dumps([kind, inputs, version], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Jobs:
    """The pool: ``workers`` threads, the jobs by id, finished results by key (also as
    ``<folder>/<key>.json``, written whole or not at all)."""

    def __init__(self, workers: int, folder: Path) -> None:
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="job")
        self.folder = Path(folder)
        self.jobs: dict[str, Job] = {}
        self.queue: list[str] = []
        self._lock = threading.Lock()

    def _stored(self, key: str) -> Any:
        path = self.folder / f"{key}.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    def _store(self, key: str, result: Any) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        part = self.folder / f"{key}.json.part"
        part.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
        part.replace(self.folder / f"{key}.json")

    def submit(self, kind: str, key: str, work: Work) -> Job:
        """A job for ``work``: done at once when its key's result is kept, else queued."""
        job = Job(uuid.uuid4().hex[:16], kind, key)
        kept = self._stored(key)
        with self._lock:
            self.jobs[job.id] = job
            if kept is not None:
                job.state, job.progress, job.result = "done", 1.0, kept
                return job
            self.queue.append(job.id)
        self.pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Work) -> None:
        with self._lock:
            self.queue.remove(job.id)
            if job.cancel.is_set():
                return
            job.state = "running"
        try:
            steps = work()
            while True:
                if job.cancel.is_set():
                    steps.close()
                    return
                try:
                    job.progress, job.result = next(steps)
                except StopIteration as stop:
                    result = stop.value
                    break
            self._store(job.key, result)
            job.result, job.progress, job.state = result, 1.0, "done"
        except PrefstatsError as exc:
            job.error, job.state = str(exc), "failed"
        except Exception as exc:  # a bug: the job fails, the server keeps serving
            job.error, job.state = f"internal error: {type(exc).__name__}: {exc}", "failed"

    def get(self, job_id: str) -> Job:
        """The job ``job_id``, or an error naming the field."""
        job = self.jobs.get(job_id)
        if job is None:
            raise OptionError(f"job: no job {job_id!r}")
        return job

    def place(self, job: Job) -> int | None:
        """A queued job's place in the queue (1 = next), else ``None``."""
        with self._lock:
            return self.queue.index(job.id) + 1 if job.id in self.queue else None

    def cancel(self, job_id: str) -> Job:
        """Cancel a queued or running job (a finished one stays as it is)."""
        job = self.get(job_id)
        with self._lock:
            if job.state in ("queued", "running"):
                job.cancel.set()
                job.state = "cancelled"
        return job

    def shutdown(self) -> None:
        """Cancel every job and wait for the threads to stop between two steps."""
        for job in list(self.jobs.values()):
            job.cancel.set()
        self.pool.shutdown(wait=True, cancel_futures=True)


def in_steps(call: Callable[[Callable[[float], None]], Any]
             ) -> Generator[tuple[float, Any], None, Any]:
    """Work that reports its progress through a callback (``call(report)``, ``report``
    taking 0..1) as a job's steps: it runs on its own thread, each report a step.
    Cancelled, the job stops at once and its result, when it comes, is dropped."""
    steps: queue.Queue = queue.Queue()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = call(lambda done: steps.put(min(max(done, 0.0), 1.0)))
        except Exception as exc:  # raised again in the job's thread
            box["error"] = exc
        finally:
            steps.put(None)

    threading.Thread(target=run, daemon=True, name="job-step").start()
    while (done := steps.get()) is not None:
        yield done, None
    if "error" in box:
        raise box["error"]
    return box["result"]
