"""Simulation at scale: deal, play and score millions of deals -- or whole pulkas --
into a Parquet dataset.

A run is cut into chunks of ``chunk_size`` rows; chunk ``k`` holds deals (or pulkas)
``k·chunk_size …`` of the seed's stream, played by the built-in players whose random
choices are keyed by the seed and the deal number. So a chunk's rows depend only on
the run's arguments and ``k``: any worker, any backend, any order gives the same
dataset, and a rerun skips the chunks already finished (see :mod:`prefstats.sim.storage`).
A row depends only on its deal's (or pulka's) number, so the chunk size decides how the
rows are cut into files, never what they hold; being part of the run's signature, it is
kept by a rerun. Each worker writes its own chunk file to the dataset's place (a folder,
or a bucket through fsspec) and hands back only the chunk's manifest entry.

>>> import tempfile
>>> from prefstats.game.variants import get_variant
>>> from prefstats.sim.storage import load
>>> out = tempfile.mkdtemp()
>>> m = simulate(get_variant("sochi"), hands=2000, seed=1, out=out, chunk_size=1000,
...              workers=1, progress=False)
>>> len(m["chunks"]), load(out).collect().height
(2, 2000)
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from prefstats import __version__
from prefstats.errors import OptionError
from prefstats.game.deal import deal
from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import Variant
from prefstats.players import adjust
from prefstats.players.builtin import POLICIES, resolve_params
from prefstats.players.misere import catchers_code
from prefstats.players.params import check_params, parameters
from prefstats.sim.play import play_batch
from prefstats.sim.pulka import STRIDE, play_pulkas
from prefstats.sim.storage import (
    DATASET_KINDS,
    DEAL_KINDS,
    FORMAT,
    LOCK,
    SCHEMA_VERSION,
    TMP_PREFIX,
    DatasetError,
    Remote,
    atomic_write,
    check_chunk,
    chunk_name,
    chunk_units,
    clear_dataset,
    dataset_lock,
    entry_problem,
    entry_shape,
    enum_table,
    listed_files,
    location,
    parse_manifest,
    part_name,
    read_only_error,
    sha256,
    signature,
    size_key,
    table_bytes,
    write_entry,
    write_manifest,
    written_by_prefstats,
)

__all__ = ["simulate", "simulate_pulkas"]

BACKENDS = ("local", "dask")
#: Most pulkas a dataset holds: ``pulka_id`` is a uint32.
MAX_PULKAS = 1 << 32
#: Bounds of the default deals a chunk (:func:`default_chunk_size`).
MIN_CHUNK, MAX_CHUNK = 10_000, 2_000_000


def default_chunk_size(hands: int) -> int:
    """Deals a chunk when none is asked for: an eighth of the run, at least 10,000 and at
    most 2,000,000. Two workers share 20,000 deals; a billion make 500 files. It depends
    on the size alone, never on the workers, so any machine cuts a run alike."""
    return max(MIN_CHUNK, min(MAX_CHUNK, -(-hands // 8)))


@dataclass(frozen=True)
class RunSpec:
    """Everything that defines a dataset's rows: ``size`` deals (``kind="deals"``),
    pulkas played to ``pool_target`` (``kind="pulkas"``, a row a pulka) or the deals of
    those pulkas (``kind="pulka-deals"``, a row a deal). ``misere_catchers``: the model
    of the misère catchers (:func:`~prefstats.sim.play.play_batch`), recorded with the
    players in the manifest."""

    variant: Variant
    size: int
    seed: int
    chunk_size: int = 100_000
    policy: str = "heuristic"
    params: tuple[float, ...] = field(default=())
    kind: str = "deals"
    pool_target: int | None = None
    misere_catchers: str = "hidden"

    def __post_init__(self) -> None:
        if self.size < 1 or self.chunk_size < 1:
            raise OptionError(f"the number of {self.kind} and chunk_size must be positive, "
                              f"got {self.size}, {self.chunk_size}")
        if self.kind not in DATASET_KINDS:
            raise OptionError(f"kind must be one of {DATASET_KINDS}, got {self.kind!r}")
        if (self.kind not in DEAL_KINDS) != (self.pool_target is not None):
            raise OptionError("pool_target is needed for pulkas, and only for them")
        if self.pool_target is not None and self.pool_target < 1:
            raise OptionError(f"pool_target must be positive, got {self.pool_target}")
        if self.kind != "deals" and self.size > MAX_PULKAS:
            raise OptionError(f"at most {MAX_PULKAS:,} pulkas a dataset, got {self.size:,}")
        if self.seed < 0:
            raise OptionError(f"seed must be non-negative, got {self.seed}")
        catchers_code(self.misere_catchers)
        if self.policy not in POLICIES:
            raise OptionError(f"unknown policy {self.policy!r}; choose from {POLICIES}")
        # the policy's own parameters (its defaults if none), checked against it
        object.__setattr__(self, "params", tuple(resolve_params(
            self.policy, np.array(self.params) if self.params else None).tolist()))

    @property
    def n_chunks(self) -> int:
        return -(-self.size // self.chunk_size)

    def describe(self) -> dict[str, Any]:
        """The content-defining arguments, as the manifest records them."""
        names = list(parameters(self.policy))
        spec = {
            "kind": self.kind,
            "schema_version": SCHEMA_VERSION,
            "package_version": __version__,
            "variant": tomllib.loads(self.variant.to_toml()),
            "players": {"policy": self.policy, "params": dict(zip(names, self.params,
                                                                  strict=True)),
                        "fit": adjust.fit_id(self.variant),
                        "misere_catchers": self.misere_catchers},
            "seed": self.seed,
            size_key({"kind": self.kind}): self.size,
            "chunk_size": self.chunk_size,
        }
        if self.pool_target is not None:
            spec["pool_target"] = self.pool_target
        return spec


def player_key(seed: int) -> np.uint64:
    """The key of the players' random choices in a run with ``seed``."""
    return np.random.SeedSequence([seed, 1]).generate_state(1, dtype=np.uint64)[0]


def _binary(values: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """Rows of ``values`` (uint8, 2-D) cut to ``lengths`` as a binary column."""
    lengths = lengths.astype(np.int32)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    keep = np.arange(values.shape[1]) < lengths[:, None]
    data = np.ascontiguousarray(values[keep], dtype=np.uint8)
    return pa.Array.from_buffers(pa.binary(), len(lengths),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def deals_table(states: np.ndarray, deal_ids: np.ndarray, variant: Variant, *,
                dealer: np.ndarray | None = None) -> pa.Table:
    """One row per finished deal: the deal, every decision, tricks and score entries.

    Seats 0, 1, 2 are the first, second and third hand; with 4 players seat 3 is the
    dealer (his tricks are those the talon took on a raspasy); with 5 seat 4 is the next
    to deal, who sits out too (B:474: no hand, no tricks, no entries); with 2 players (Gusarik)
    seat 2 is the dummy, with hand and tricks columns but no sheet. Pool, mountain and
    whist columns are the deal's entries in points (before any help); ``value_i`` its
    settlement in whists. ``bid`` is the winning call (a bid without the talon is its
    contract code + 32, see :mod:`prefstats.game.auction`), ``no_talon`` whether the game was
    played without the talon, ``dark`` and ``blind`` bit masks of the seats that bid in
    the dark and passed blind, ``multiplier`` the game's (bomb x dark). ``dealer`` is
    the dealer's place (default: the sliding deal, ``deal_id`` mod players), ``sat_out``
    the places that sat the deal out as a bit mask: the dealer's with 4 players, with 5
    his and the next to deal's (B:474), none with 2 or 3;
    ``deal_id`` is the deal's number in the seed's stream. The code columns are stored
    as their names (:func:`~prefstats.sim.storage.enum_table`).
    """
    n_players = variant.players
    declarer = states["declarer"].astype(np.int64)
    dealer_places = (deal_ids % n_players if dealer is None else dealer).astype(np.uint8)
    sat_out = np.zeros(len(states), dtype=np.uint8)  # places, as a bit mask
    if variant.dealer_sits_out:
        sat_out |= (1 << dealer_places).astype(np.uint8)
    if n_players == 5:
        sat_out |= (1 << ((dealer_places + 1) % n_players)).astype(np.uint8)
    pool, mountain, whists = score_states(variant, states)
    values = deal_values(variant, pool, mountain, whists)
    solved = states["double_dummy"]
    columns: dict[str, Any] = {
        "deal_id": deal_ids.astype(np.uint64),
        "dealer": dealer_places,
        "sat_out": sat_out,
        "hand_0": states["dealt"][:, 0],
        "hand_1": states["dealt"][:, 1],
        "hand_2": states["dealt"][:, 2],
        "talon": states["talon"],
        "talon_first": states["talon_first"].astype(np.uint8),
        "calls": _binary(states["calls"], states["n_calls"]),
        "kind": states["kind"].astype(np.uint8),
        "declarer": states["declarer"],
        "bid": states["bid"],
        "contract": states["contract"],
        "discard": states["discard"],
        "whist_calls": _binary(states["whist_calls"].view(np.uint8), states["n_whist"]),
        "first": states["first"],
        "second": states["second"],
        "played": states["played"],
        "open": states["open"],
        "double_dummy": solved,
        "solver_tricks": np.where(solved, states["tricks"][np.arange(len(states)),
                                                           np.maximum(declarer, 0)], -1
                                  ).astype(np.int8),
        "raspasy_step": states["raspasy_step"].astype(np.uint8),
        "no_talon": states["no_talon"],
        "dark": states["dark"],
        "blind": states["blind"],
        "multiplier": states["multiplier"].astype(np.uint16),  # up to 2 x 2^8
    }
    for s in range(max(n_players, 3)):  # seat 4, the 5-player next to deal, takes none
        columns[f"tricks_{s}"] = states["tricks"][:, s] if s < 4 else \
            np.zeros(len(states), dtype=np.uint8)
    for s in range(n_players):
        columns[f"pool_{s}"] = (pool[:, s] / 2).astype(np.float32)
        columns[f"mountain_{s}"] = (mountain[:, s] / 2).astype(np.float32)
    for i in range(n_players):
        for j in range(n_players):
            if i != j:
                columns[f"whist_{i}_{j}"] = (whists[:, i, j] / 2).astype(np.float32)
    for s in range(n_players):
        columns[f"value_{s}"] = values[:, s].astype(np.float32)
    return enum_table(pa.table(columns))


def pulkas_table(result: dict[str, np.ndarray], pulka_ids: np.ndarray) -> pa.Table:
    """One row per pulka: its length, what its deals were, the bombs earned and spent
    (Classic), and each place's sheet and result in whists (places 0..N-1; the first
    dealer is place N-1)."""
    columns: dict[str, Any] = {
        "pulka_id": pulka_ids.astype(np.uint32),
        "deals": result["deals"].astype(np.uint16),
        "raspasy": result["raspasy"].astype(np.uint16),
        "games": result["games"].astype(np.uint16),
        "miseres": result["miseres"].astype(np.uint16),
        "finished": result["finished"],
        "bombs_earned": result["bombs_earned"].astype(np.uint16),
        "bombs_spent": result["bombs_spent"].astype(np.uint16),
    }
    for i in range(result["pool"].shape[1]):
        columns[f"result_{i}"] = result["result"][:, i].astype(np.float32)
        columns[f"pool_{i}"] = result["pool"][:, i].astype(np.float32)
        columns[f"mountain_{i}"] = result["mountain"][:, i].astype(np.float32)
    return pa.table(columns)


def run_chunk(spec: RunSpec, index: int, run: str) -> tuple[int, bytes, int, int]:
    """Play and score chunk ``index``; returns ``(index, parquet bytes, rows, units)``:
    the file's rows and the deals or pulkas it covers. It reads and writes no file.
    """
    start = index * spec.chunk_size
    count = min(spec.chunk_size, spec.size - start)
    params = np.array(spec.params)
    if spec.kind == "decisions":  # prefstats.sim.rollout.DecisionSpec makes its own rows
        table = spec.table(start, count)  # type: ignore[attr-defined]
    elif spec.kind != "deals":
        ids = np.arange(start, start + count, dtype=np.int64)
        result = play_pulkas(spec.variant, ids, seed=spec.seed, pool_target=spec.pool_target,  # type: ignore[arg-type]
                             policy=spec.policy, params=params, player_key=player_key(spec.seed),
                             with_deals=spec.kind == "pulka-deals",
                             misere_catchers=spec.misere_catchers)
        if spec.kind == "pulkas":
            table = pulkas_table(result, ids)
        else:
            row, number, dealer = result["deal_places"].T
            table = deals_table(result["deal_states"], ids[row] * STRIDE + number,
                                spec.variant, dealer=dealer)
            table = table.add_column(0, "deal_no", pa.array(number.astype(np.uint16)))
            table = table.add_column(0, "pulka_id", pa.array(ids[row].astype(np.uint32)))
    else:
        deals = deal(count, seed=spec.seed, start=start)
        states = play_batch(deals, spec.variant, policy=spec.policy, params=params,
                            key=player_key(spec.seed), misere_catchers=spec.misere_catchers)
        table = deals_table(states, deals.index, spec.variant)
    table = enum_table(table)  # the decisions' kind and contract too
    meta = {"signature": run, "chunk": index, "first_unit": start, "units": count,
            "rows": table.num_rows, "kind": spec.kind, "schema_version": SCHEMA_VERSION}
    return index, table_bytes(table, meta), table.num_rows, count


def write_chunk(spec: RunSpec, index: int, run: str, folder: Path | Remote) -> dict[str, Any]:
    """Play chunk ``index`` and write its file, atomically, into the dataset ``folder``;
    returns only its manifest entry. Runs anywhere that reaches ``folder`` (a worker
    process, a Dask worker writing to a bucket)."""
    index, data, rows, units = run_chunk(spec, index, run)
    name = chunk_name(index)
    atomic_write(folder / name, data)
    return {"index": index, "file": name, "rows": rows, "units": units, "bytes": len(data),
            "sha256": sha256(data)}


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _check_empty(folder: Path | Remote, *, chunks_ok: bool) -> None:
    """Refuse a folder without a manifest that holds anything but a run's leftovers
    (its lock, temporaries) -- or, unless ``chunks_ok``, chunk files."""
    others = sorted(p.name for p in folder.iterdir()
                    if p.name != LOCK and not p.name.startswith(TMP_PREFIX))
    chunks = [name for name in others if name.startswith(("chunk-", "manifest-"))]
    if chunks and not chunks_ok:
        raise DatasetError(f"{folder}: chunk files without a manifest; use --force to start "
                           "over (it deletes only files prefstats wrote)")
    if len(chunks) < len(others):
        raise DatasetError(f"{folder}: not empty and not a prefstats dataset "
                           f"({', '.join(n for n in others if n not in chunks)[:80]}); "
                           "choose another folder")


def _existing(folder: Path | Remote, spec: RunSpec, run: str, force: bool) -> dict[str, Any] | None:
    """The manifest in ``folder`` to continue, ``None`` to start afresh. Refuses a
    folder that is not this run's dataset; ``force`` clears the dataset instead, once
    every check has passed."""
    try:
        manifest = parse_manifest(folder)
    except DatasetError:
        if not force:
            raise
        manifest = {}
    if force:
        if manifest is None:
            _check_empty(folder, chunks_ok=True)
        clear_dataset(folder)
        return None
    if manifest is None:
        _check_empty(folder, chunks_ok=False)
        return None
    if manifest.get("signature") != run:
        old: dict[str, Any] = manifest["spec"] if isinstance(manifest.get("spec"), dict) else {}
        new = spec.describe()
        differ = sorted(k for k in new if k != size_key(new) and old.get(k) != new[k])
        raise DatasetError(
            f"{folder}: holds a dataset made with other arguments (differing: "
            f"{', '.join(differ) or 'signature'}); use --force to replace it or another --out"
        )
    return manifest


def _kept(folder: Path | Remote, manifest: dict[str, Any], spec: dict[str, Any], run: str) -> list:
    """The manifest's chunks that are valid parts of a dataset of ``spec``: each index
    once, checksums and footers right; a last partial chunk of a smaller run is left to
    redo. A valid chunk beyond ``spec``'s size is refused (datasets grow, not shrink)."""
    entries = manifest.get("chunks")
    kept, seen = [], set()
    for e in entries if isinstance(entries, list) else []:
        if entry_shape(e) is None and e["units"] > chunk_units(spec, e["index"]) and \
                not check_chunk(folder, e, run, checksum=True):
            raise DatasetError(
                f"{folder}: holds {chunk_name(e['index'])}, beyond the "
                f"{spec[size_key(spec)]:,} asked; a dataset grows but does not shrink: ask "
                "for at least as many as it holds, or use --force to remake it")
        if entry_problem(e, spec) is None and e["index"] not in seen and \
                not check_chunk(folder, e, run, checksum=True):
            kept.append(e)
            seen.add(e["index"])
    return kept


def _prepare(folder: Path | Remote, spec: RunSpec, run: str,
             force: bool) -> tuple[dict[str, Any], list[int], list[Path | Remote], bool]:
    """What a run in ``folder`` must do: ``(manifest, chunks to play, files to delete,
    whether the manifest changes)``. Nothing is written, except that ``force`` clears
    the old dataset. Listed chunks that are damaged, duplicated or partial are dropped,
    and their files (which prefstats wrote) deleted to be redone; a chunk file the run
    does not own is refused."""
    described = spec.describe()
    existing = _existing(folder, spec, run, force)
    kept = [] if existing is None else _kept(folder, existing, described, run)
    names = {e["file"] for e in kept}
    listed = listed_files(folder)
    remove = [p for p in folder.glob(TMP_PREFIX + "*") if p.is_file()]
    remove += list(folder.glob(part_name(0).replace("000000", "*")))  # folded into manifest
    chunks: list[Path | Remote] = list(folder.glob("chunk-*.parquet"))
    for p in sorted(chunks, key=lambda p: p.name):
        if p.name in names:
            continue
        meta = written_by_prefstats(p)
        if p.name not in listed and (meta is None or meta.get("signature") != run):
            raise DatasetError(f"{p}: not a chunk of this dataset; move it away (or use "
                               "--force if prefstats wrote it)")
        remove.append(p)
    manifest = {**(existing or {}), "format": FORMAT, "schema_version": SCHEMA_VERSION,
                "signature": run, "spec": described, "variant_toml": spec.variant.to_toml(),
                "chunks": kept}
    manifest.setdefault("started", _now())
    manifest.setdefault("finished", None)
    done = {e["index"] for e in kept}
    todo = [i for i in range(spec.n_chunks) if i not in done]
    dirty = bool(todo or remove) or manifest != existing or not manifest["finished"]
    return manifest, todo, remove, dirty


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


def _local(spec: RunSpec, todo: list[int], run: str, workers: int,
           folder: Path | Remote) -> Iterator[dict[str, Any]]:
    if workers == 1 or not getattr(folder, "shared", True):
        for index in todo:
            yield write_chunk(spec, index, run, folder)
        return
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    # A pool of this run's own, shut down (workers killed) however the run ends.
    pool = ProcessPoolExecutor(max_workers=workers, initializer=worker_setup,
                               initargs=(os.getpid(),))
    try:
        futures = {pool.submit(write_chunk, spec, i, run, folder) for i in todo}
        for future in as_completed(futures):
            futures.discard(future)  # released as it lands
            yield future.result()
    finally:
        pool.shutdown(wait=True, kill_workers=True)


def _dask_client(scheduler: str):
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


def _dask(spec: RunSpec, todo: list[int], run: str, client, workers: int,
          folder: Path | Remote) -> Iterator[dict[str, Any]]:
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
        landed = as_completed([client.submit(write_chunk, spec, i, run, folder, pure=False)
                               for i in todo])
        for future in landed:
            entry = future.result()
            future.release()  # the cluster forgets it: only the small entry is kept
            yield entry
    finally:
        if cluster is not None:
            client.close()
            cluster.close()


def simulate(
    variant: Variant,
    *,
    hands: int,
    seed: int,
    out: str | Path,
    chunk_size: int | None = None,
    policy: str = "heuristic",
    params: np.ndarray | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Simulate ``hands`` deals of ``variant`` into the dataset ``out`` (a folder or an
    fsspec URL such as ``s3://bucket/run``, see :func:`~prefstats.sim.storage.location`).

    ``chunk_size`` (deals a file) defaults to the dataset's own when ``out`` holds one
    (so a rerun resumes or extends it), else to :func:`default_chunk_size` of ``hands``.

    ``options`` are those of :func:`run`: chunks run in parallel over ``workers`` local
    processes (default: all cores) or, with ``backend="dask"``, on the Dask cluster at
    ``scheduler`` (a local cluster when none is given). A rerun with the same arguments
    resumes; a dataset made with other arguments is refused unless ``force``. Ctrl-C
    keeps the finished chunks. Returns the manifest.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.simulate import simulate
    >>> from prefstats.sim.storage import load
    >>> out = tempfile.mkdtemp()
    >>> _ = simulate(get_variant("sochi"), hands=20, seed=1, out=out, chunk_size=10,
    ...              workers=1, progress=False)
    >>> load(out).collect().height
    20
    """
    if chunk_size is None:
        chunk_size = _chunk_size_of(out, options.get("force", False)) or default_chunk_size(hands)
    spec = RunSpec(variant, hands, seed, chunk_size, policy, _params(params))
    return run(spec, out, **options)


def _chunk_size_of(out: str | Path, force: bool) -> int | None:
    """The chunk size of the deal dataset in ``out``, if there is one to resume."""
    try:
        manifest = None if force else parse_manifest(location(out))
    except (DatasetError, OSError):
        return None
    spec = manifest.get("spec") if manifest else None
    size = spec.get("chunk_size") if isinstance(spec, dict) and spec.get("kind") == "deals" \
        else None
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


def simulate_pulkas(
    variant: Variant,
    *,
    pulkas: int,
    pool_target: int,
    seed: int,
    out: str | Path,
    chunk_size: int = 1000,
    policy: str = "heuristic",
    params: np.ndarray | None = None,
    with_deals: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Play ``pulkas`` whole pulkas to ``pool_target`` into the dataset folder ``out``,
    one row per pulka (see :mod:`prefstats.sim.pulka`); otherwise as :func:`simulate`.
    ``with_deals`` also writes every deal of those pulkas, a row a deal with its
    ``pulka_id``, ``deal_no`` and the dealer's place, as the dataset ``out/deals``.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.storage import load
    >>> out = tempfile.mkdtemp()
    >>> _ = simulate_pulkas(get_variant("sochi"), pulkas=2, pool_target=5, seed=1, out=out,
    ...                     workers=1, progress=False)
    >>> load(out).collect().height
    2
    """
    kinds = (("pulkas", ""), ("pulka-deals", "deals"))[:2 if with_deals else 1]
    specs = [(RunSpec(variant, pulkas, seed, chunk_size, policy, _params(params), kind,
                      pool_target), sub) for kind, sub in kinds]
    return _run_all(location(out), specs, **options)[0]


def _params(params: np.ndarray | None) -> tuple[float, ...]:
    # a nan or out-of-range value would reach the compiled players (a crash, not an error)
    return () if params is None else tuple(float(p) for p in check_params(params))


def run(
    spec: RunSpec,
    out: str | Path,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    force: bool = False,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Make (or finish, or extend) the dataset of ``spec`` in ``out`` with ``workers``
    processes of the ``backend`` ("local" or "dask" at ``scheduler``); ``force`` starts
    over, deleting only the dataset's own files; ``progress`` shows a bar (default: when
    stderr is a terminal). The run holds the folder's lock throughout: a second run on
    it is refused. A finished dataset is returned as it is, without a write (a
    read-only copy works)."""
    return _run_all(location(out), [(spec, "")], workers=workers, backend=backend,
                    scheduler=scheduler, force=force, progress=progress)[0]


def _run_all(out: Path | Remote, specs: list[tuple[RunSpec, str]], *, workers: int | None = None,
             backend: str = "local", scheduler: str | None = None, force: bool = False,
             progress: bool | None = None) -> list[dict[str, Any]]:
    """Make each ``(spec, sub-folder)`` of ``specs`` in turn under ``out``, holding the
    lock of ``out`` until the last is done (a pulka dataset and its ``deals/``)."""
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise OptionError(f"workers must be a positive number of processes, got {workers!r}")
    workers = workers or usable_cores()
    show = sys.stderr.isatty() if progress is None else progress
    with ExitStack() as stack:
        client = None
        if backend == "dask" and scheduler is not None:
            client = _dask_client(scheduler)
            stack.callback(client.close)
        manifests = []
        for spec, sub in specs:
            folder = _folder(out / sub)
            signed = signature(spec.describe())
            try:
                stack.enter_context(dataset_lock(folder))
            except OSError as exc:
                if not read_only_error(exc):
                    raise
                manifests.append(_read_only(folder, spec, signed, force, exc))
                continue
            plan = _prepare(folder, spec, signed, force)
            manifests.append(_make(folder, spec, signed, plan, show,
                                   lambda todo, s=spec, r=signed, f=folder: (
                                       _dask(s, todo, r, client, workers, f)
                                       if backend == "dask" else
                                       _local(s, todo, r, min(workers, max(1, len(todo))), f))))
        return manifests


def _folder(path: Path | Remote) -> Path | Remote:
    """The dataset folder ``path``, created if need be; a file or an uncreatable path
    raises :class:`DatasetError`."""
    try:
        if path.is_file():
            raise DatasetError(f"{path}: a file, not a folder; choose another --out")
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"{path}: cannot create the dataset folder "
                           f"({exc.strerror or exc})") from None
    return path


def _read_only(folder: Path | Remote, spec: RunSpec, run: str, force: bool,
               exc: OSError) -> dict[str, Any]:
    """A run in a folder that cannot be written: fine if its dataset is finished."""
    why = f"{folder}: cannot write there ({exc.strerror})"
    if force:
        raise DatasetError(f"{why}; --force needs a writable folder")
    manifest, _todo, _remove, dirty = _prepare(folder, spec, run, force=False)
    if dirty:
        raise DatasetError(f"{why}; only a finished dataset can be rerun in a read-only "
                           "folder: choose a writable --out")
    return manifest


def _make(folder: Path | Remote, spec: RunSpec, run: str, plan: tuple, show: bool,
          chunks) -> dict[str, Any]:
    """Carry out ``plan`` (see :func:`_prepare`): play the chunks to do with
    ``chunks(todo)``, each written by its worker, and list each as it lands (its entry
    as its own file); at the end the entries are folded into the manifest."""
    manifest, todo, remove, dirty = plan
    if not dirty:
        return manifest
    manifest["finished"] = None
    write_manifest(folder, manifest)  # the kept chunks, before their entries go
    for p in remove:
        p.unlink(missing_ok=True)
    finished = sum(e["units"] for e in manifest["chunks"])
    results = chunks(todo)
    with _Progress(show, spec.size, finished, spec.kind) as bar:
        try:
            for entry in results:
                write_entry(folder, entry)
                manifest["chunks"].append(entry)
                bar.advance(entry["units"])
        except KeyboardInterrupt:
            kept = len(manifest["chunks"])
            print(f"interrupted: {kept} finished chunk(s) kept in {folder}; rerun the same "
                  "command to resume", file=sys.stderr)
            raise
        finally:
            results.close()  # stops the workers
    manifest["chunks"].sort(key=lambda e: e["index"])
    manifest["finished"] = _now()
    write_manifest(folder, manifest)
    for entry in manifest["chunks"]:
        (folder / part_name(entry["index"])).unlink(missing_ok=True)
    return manifest


def usable_cores() -> int:
    """The cores this process may run on: the default number of workers of every
    command that runs in parallel."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class _Progress:
    """A rich progress bar with rows/second and ETA; silent when ``show`` is false."""

    def __init__(self, show: bool, total: int, done: int, unit: str) -> None:
        self.show, self.total, self.done, self.unit = show, total, done, unit
        self.bar: Any = None

    def __enter__(self) -> _Progress:
        if self.show:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                TaskProgressColumn(), TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
            )
            self.bar.start()
            self.task = self.bar.add_task(self.unit, total=self.total, completed=self.done,
                                          rate="")
        return self

    def advance(self, rows: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, rows)
            speed = self.bar.tasks[0].speed
            if speed:
                self.bar.update(self.task, rate=f"{speed:,.0f} {self.unit}/s")

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
