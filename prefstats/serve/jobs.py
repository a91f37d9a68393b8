"""Jobs: long work (a rollout, a game's analysis, a comparison) run on a bounded pool of
worker processes, watched and cancelled over HTTP.

A job's work is a generator function (defined at a module's top level, so a worker can
import it) and its keyword arguments: it yields ``(progress, partial result)`` as it goes
and returns its result; between two yields it can be cancelled. Each worker is a process
of its own, started with the server and warmed at once (the compiled kernels loaded
from numba's cache), run at a lower priority: jobs use the cores the lookups leave, so
the server's process answers lookups while they run. A thread of the server feeds each
worker and reads its steps back over a pipe. A finished job's result is kept by its key
(its inputs, seed and the version), so the same question asked again is answered at
once, from memory or from the data folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import queue
import signal
import threading
import time
import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefstats.errors import OptionError, PrefstatsError

Steps = Generator[tuple[float, Any], None, Any]
#: A job's work: a top-level generator function and its keyword arguments.
Work = tuple[Callable[..., Steps], dict[str, Any]]
#: How much lower a worker's priority is than the server's (``nice``).
WORKER_NICE = 10
#: Seconds a worker has to finish its step and stop when the server stops.
STOP_GRACE = 60.0


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


def _orphaned(server: int) -> None:
    """End this worker when the server's process is gone (killed, it could not say)."""
    while os.getppid() == server:
        time.sleep(1)
    os._exit(1)


def _worker(conn, cancel, warm: Callable[[], None] | None, nice: int) -> None:
    """A worker process: warm up, then run the jobs the server sends until ``None``,
    each step sent back, stopping between two steps when ``cancel`` is set."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's: it cancels
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Thread(target=_orphaned, args=(os.getppid(),), daemon=True).start()
    os.nice(nice)
    if warm is not None:
        warm()
    conn.send(("ready",))
    while (task := conn.recv()) is not None:
        call, kwargs = task
        try:
            steps = call(**kwargs)
            while True:
                if cancel.value:
                    steps.close()
                    conn.send(("cancelled",))
                    break
                try:
                    progress, partial = next(steps)
                except StopIteration as stop:
                    conn.send(("done", stop.value))
                    break
                conn.send(("step", progress, partial))
        except PrefstatsError as exc:
            conn.send(("failed", str(exc)))
        except Exception as exc:  # a bug: the job fails, the server keeps serving
            conn.send(("failed", f"internal error: {type(exc).__name__}: {exc}"))


class _Worker:
    """One worker process as the server sees it: its pipe, its cancel flag, its job."""

    def __init__(self, context, warm: Callable[[], None] | None, nice: int) -> None:
        self.conn, there = context.Pipe()
        self.cancel = context.Value("b", 0, lock=False)
        self.process = context.Process(target=_worker, args=(there, self.cancel, warm, nice),
                                       daemon=True, name="prefstats-job")
        self.process.start()
        there.close()
        self.ready = False
        self.job: Job | None = None

    def stop(self, timeout: float) -> None:
        """Tell the process to stop and wait ``timeout`` seconds; then end it."""
        if self.ready:
            with contextlib.suppress(OSError):  # it died: nothing to tell
                self.conn.send(None)
            self.process.join(timeout)
        if self.process.is_alive():  # still warming up, or stuck: nothing to save
            self.process.terminate()
        self.process.join()
        self.conn.close()


class Jobs:
    """The pool: ``workers`` processes, the jobs by id, finished results by key (also as
    ``<folder>/<key>.json``, written whole or not at all). ``warm`` (a top-level
    function) runs in each worker as it starts; the workers run ``nice`` steps below the
    server's priority."""

    def __init__(self, workers: int, folder: Path, warm: Callable[[], None] | None = None,
                 nice: int = WORKER_NICE) -> None:
        self.workers = workers
        self.nice = nice
        self.folder = Path(folder)
        self.warm = warm
        self.jobs: dict[str, Job] = {}
        self.queue: list[str] = []
        self._pending: queue.Queue[tuple[Job, Work] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._feeders: list[threading.Thread] = []
        self._running: list[_Worker] = []
        self._stopping = False

    def start(self) -> None:
        """Start the worker processes (each warms up in the background)."""
        context = multiprocessing.get_context("spawn")
        for i in range(self.workers):
            feeder = threading.Thread(target=self._feed, args=(context,), daemon=True,
                                      name=f"job-feed-{i}")
            feeder.start()
            self._feeders.append(feeder)

    def ready(self) -> int:
        """How many workers have warmed up."""
        with self._lock:
            return sum(w.ready for w in self._running)

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
        self._pending.put((job, work))
        return job

    def _spawn(self, context) -> _Worker | None:
        with self._lock:
            if self._stopping:
                return None
            worker = _Worker(context, self.warm, self.nice)
            self._running.append(worker)
        try:
            worker.conn.recv()
        except (EOFError, OSError):  # it could not start (or the server is stopping)
            return None
        worker.ready = True
        return worker

    def _feed(self, context) -> None:
        """Feed one worker the queued jobs, one at a time; a new worker if it dies."""
        # Ctrl-C in the terminal reaches the whole process group: a worker starts with it
        # blocked (this thread's mask is inherited) and ignores it before unblocking it.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        worker = self._spawn(context)
        while worker is not None and (item := self._pending.get()) is not None:
            job, work = item
            with self._lock:
                self.queue.remove(job.id)
                if job.cancel.is_set():
                    continue
                job.state, worker.job = "running", job
                worker.cancel.value = 0
            try:
                worker.conn.send(work)
                self._follow(worker, job)
            except (EOFError, OSError):
                with self._lock:
                    if job.state == "running":
                        job.error, job.state = "internal error: the job's worker stopped", \
                            "failed"
                    self._running.remove(worker)
                worker.stop(0)
                worker = None if self._stopping else self._spawn(context)
            with self._lock:
                if worker is not None:
                    worker.job = None

    def _follow(self, worker: _Worker, job: Job) -> None:
        """Read the job's steps from its worker until it ends."""
        while True:
            message = worker.conn.recv()
            kind, rest = message[0], message[1:]
            if kind == "step":
                if not job.cancel.is_set():
                    job.progress, job.result = rest
                continue
            if kind == "done":
                self._store(job.key, rest[0])
                with self._lock:
                    if not job.cancel.is_set():
                        job.result, job.progress, job.state = rest[0], 1.0, "done"
            elif kind == "failed":
                job.error, job.state = rest[0], "failed"
            return

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
        """Cancel a queued or running job (a finished one stays as it is): its worker
        stops it after the step under way."""
        job = self.get(job_id)
        with self._lock:
            if job.state in ("queued", "running"):
                job.cancel.set()
                job.state = "cancelled"
                for worker in self._running:
                    if worker.job is job:
                        worker.cancel.value = 1
        return job

    def shutdown(self) -> None:
        """Cancel every job, let each worker finish its step, and stop the workers."""
        with self._lock:
            self._stopping = True
            for job in self.jobs.values():
                job.cancel.set()
            for worker in self._running:
                worker.cancel.value = 1
        for _ in self._feeders:
            self._pending.put(None)
        with self._lock:
            waiting = [w for w in self._running if not w.ready]
        for worker in waiting:  # still warming up: nothing to finish
            worker.process.terminate()
        for feeder in self._feeders:
            feeder.join(STOP_GRACE)
        with self._lock:
            running, self._running = self._running, []
        for worker in running:
            worker.stop(STOP_GRACE)


def in_steps(call: Callable[[Callable[[float], None]], Any]) -> Steps:
    """Work that reports its progress through a callback (``call(report)``, ``report``
    taking 0..1) as a job's steps: it runs on its own thread, each report a step.
    Cancelled, the work stops at its next report (nothing is left half-written)."""
    steps: queue.Queue = queue.Queue()
    box: dict[str, Any] = {}
    stop = threading.Event()

    class _Stopped(Exception):
        pass

    def report(done: float) -> None:
        if stop.is_set():
            raise _Stopped
        steps.put(min(max(done, 0.0), 1.0))

    def run() -> None:
        try:
            box["result"] = call(report)
        except _Stopped:
            pass
        except Exception as exc:  # raised again in the job's thread
            box["error"] = exc
        finally:
            steps.put(None)

    thread = threading.Thread(target=run, daemon=True, name="job-step")
    thread.start()
    try:
        while (done := steps.get()) is not None:
            yield done, None
    finally:
        stop.set()
        thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]
