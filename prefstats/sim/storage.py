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

A run holds :data:`LOCK` in the folder (see :func:`dataset_lock`), so two runs never
write one dataset; :func:`clear_dataset` (``--force``) deletes only the files a dataset
owns.
"""

from __future__ import annotations

import datetime as dt
import errno
import functools
import hashlib
import io
import json
import os
import re
import socket
import tempfile
import time
import tomllib
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import fsspec
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from prefstats.errors import DatasetError, OptionError
from prefstats.game.auction import BLIND_PASS, DARK, N_CALLS, NO_TALON_BID, PASS, call_name
from prefstats.game.cards import N_CARDS, card_name
from prefstats.game.codes import KINDS, WHIST_CALL_NAMES
from prefstats.game.contracts import LADDER, N_CONTRACTS

__all__ = ["DatasetError", "load"]

#: 2: columns ``no_talon``, ``dark``, ``blind``, ``multiplier`` and Gusarik's dummy.
#: 3: the signature leaves out the size (extension); chunks record the units they cover;
#: ``deal_id`` uint64 and ``multiplier`` uint16 everywhere; pulkas deal from their own
#: stream.
#: 4: the code columns are Enums of their names, calls lists of call names.
#: 5: deals have ``sat_out``, the places that sat the deal out (4 and 5 players).
SCHEMA_VERSION = 5
FORMAT = "prefstats-dataset"
MANIFEST = "manifest.json"
#: The lock file a run holds in its dataset folder.
LOCK = ".prefstats.lock"
#: Prefix of the temporary files of an atomic write.
TMP_PREFIX = ".prefstats-tmp-"
#: Sub-datasets a dataset owns: ``simulate_pulkas(with_deals=True)`` writes ``deals/``.
SUBSETS = ("deals",)
DATASET_KINDS = ("deals", "pulkas", "pulka-deals", "decisions")
#: Kinds whose size is a number of deals (``hands``): deals, and counterfactual decisions
#: on them (:class:`prefstats.sim.rollout.DecisionSpec`).
DEAL_KINDS = ("deals", "decisions")
_META_KEY = b"prefstats"
_CHUNK = re.compile(r"chunk-\d{6,}\.parquet")
_PART = re.compile(r"manifest-\d{6,}\.json")
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_HEX64 = re.compile(r"[0-9a-f]{64}")
#: How to repair a damaged chunk: its run redoes it.
REPAIR = "rerun the command that made the dataset, with the same arguments, to redo it"


# --- where a dataset lives -----------------------------------------------------------

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


# --- the code columns ---------------------------------------------------------------

def _call_names() -> list[str]:
    """Every call code's name, by code (:func:`~prefstats.game.auction.call_name`: "7♥ nt" for
    a bid without the talon); the codes between ``dark`` and the first bid without the
    talon name no call and hold placeholders, so that a name's position is its code."""
    calls = {*range(N_CONTRACTS), PASS, BLIND_PASS, DARK, *range(NO_TALON_BID, N_CALLS)}
    return [call_name(c) if c in calls else f"unused {c}" for c in range(N_CALLS)]


#: What a deal became (``kind`` 0..3; 0, still in the auction, ends only a pulka's deal stopped
#: by the preference, at the talon).
KIND = pl.Enum(KINDS)
#: The 26 contracts in ladder order (``contract`` 0..25: "6♠" … "10NT", "misère").
CONTRACT = pl.Enum([str(c) for c in LADDER])
#: Every call by its code (``calls``, and the winning ``bid``): contracts, "pass",
#: "blind pass", "dark", then the bids without the talon ("6♠ nt" …).
CALL = pl.Enum(_call_names())
#: A whist call, or a defender's final role (``first``, ``second``): 0, 1, 2.
ROLE = pl.Enum(WHIST_CALL_NAMES)
#: One card (``talon_first``), as :func:`~prefstats.game.cards.card_name` names it.
CARD = pl.Enum([card_name(c) for c in range(N_CARDS)])
#: The code columns of a dataset and their Enums; ``calls`` and ``whist_calls`` are lists
#: of them (one entry a call, in the order spoken).
ENUMS: dict[str, pl.Enum] = {"kind": KIND, "contract": CONTRACT, "bid": CALL, "first": ROLE,
                             "second": ROLE, "talon_first": CARD, "calls": CALL,
                             "whist_calls": ROLE}
#: The integer dtype of each code column under :func:`to_codes` (the engine's; the
#: signed ones hold -1 for none, stored as null); lists hold ``UInt8`` codes.
_CODES = {"kind": pl.UInt8, "contract": pl.Int8, "bid": pl.Int8, "first": pl.Int8,
          "second": pl.Int8, "talon_first": pl.UInt8}


#: The code columns that hold a list of codes.
_LISTS = ("calls", "whist_calls")


@functools.cache
def _field(name: str) -> pa.Field:
    """The Arrow field polars gives code column ``name`` (its Enum, or a list of it):
    its metadata names the Enum's categories, so polars reads the stored column back as
    that Enum without a cast, and other readers see a dictionary of names."""
    dtype = pl.List(ENUMS[name]) if name in _LISTS else ENUMS[name]
    return pl.DataFrame({name: pl.Series([], dtype=dtype)}).to_arrow().schema.field(name)


def _dictionary(name: str, codes: np.ndarray, kind: pa.DictionaryType) -> pa.DictionaryArray:
    """Codes of column ``name`` as a dictionary array of its names; -1 (none) is null.
    A code outside its Enum raises."""
    codes = np.asarray(codes).astype(np.int16)
    none = codes < 0
    indices = pa.array(np.where(none, 0, codes), mask=none, type=kind.index_type)
    names = pa.array(ENUMS[name].categories.to_list(), type=kind.value_type)
    return pa.DictionaryArray.from_arrays(indices, names, ordered=kind.ordered, safe=True)


def enum_table(table: pa.Table) -> pa.Table:
    """``table`` with its code columns (:data:`ENUMS`, as integers, or one code a byte in
    a binary column) stored as their names; other columns, and code columns already
    encoded, are kept."""
    for name in [c for c in table.column_names if c in ENUMS]:
        column, field = table.column(name).combine_chunks(), _field(name)
        if pa.types.is_integer(column.type):
            array = _dictionary(name, column.to_numpy(zero_copy_only=False), field.type)
        elif pa.types.is_binary(column.type):
            _, offsets, data = column.buffers()
            ends = np.frombuffer(offsets, np.int32)[column.offset:column.offset + len(column) + 1]
            codes = (np.zeros(0, np.uint8) if data is None else
                     np.frombuffer(data, np.uint8)[ends[0]:ends[-1]])
            values = _dictionary(name, codes, field.type.value_type)
            array = pa.LargeListArray.from_arrays(pa.array((ends - ends[0]).astype(np.int64)),
                                                  values, type=field.type)
        else:
            continue
        table = table.set_column(table.column_names.index(name), field, array)
    return table


Frame = TypeVar("Frame", pl.LazyFrame, pl.DataFrame)


def enum_columns(frame: Frame) -> Frame:
    """``frame`` (a dataset's rows as read) with its code columns typed as their Enums
    (a no-op on the files prefstats writes, which polars reads as those Enums)."""
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    casts = [pl.col(c).cast(pl.List(dtype) if c in _LISTS else dtype)
             for c, dtype in ENUMS.items()
             if c in schema and schema[c] != (pl.List(dtype) if c in _LISTS else dtype)]
    return frame.with_columns(casts) if casts else frame


def to_codes(frame: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame | pl.DataFrame:
    """The same rows with each Enum code column as its integer codes: ``kind`` 1..3,
    ``contract`` 0..25, ``bid``, ``first``, ``second`` (-1 for none), ``talon_first``,
    and ``calls``/``whist_calls`` as lists of ``UInt8`` codes. Columns that already hold
    codes are kept, so any dataset frame can be passed (lazy or not)."""
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    exprs = []
    for name, dtype in schema.items():
        if name not in ENUMS:
            continue
        if isinstance(dtype, pl.Enum):
            code = pl.col(name).to_physical().cast(_CODES[name])
            exprs.append(code.fill_null(-1) if _CODES[name].is_signed_integer() else code)
        elif isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Enum):
            exprs.append(pl.col(name).list.eval(pl.element().to_physical().cast(pl.UInt8)))
    return frame.with_columns(exprs) if exprs else frame


def chunk_name(index: int) -> str:
    return f"chunk-{index:06d}.parquet"


def size_key(spec: dict[str, Any]) -> str:
    """The spec's key of the dataset's size: ``hands`` for deals, else ``pulkas``."""
    return "hands" if spec.get("kind", "deals") in DEAL_KINDS else "pulkas"


def signature(spec: dict[str, Any]) -> str:
    """A short hash of everything that defines a dataset's rows, except how many there
    are: chunk ``k`` depends only on the rest and ``k``, so more deals keep it."""
    content = {k: v for k, v in spec.items() if k != size_key(spec)}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def chunk_units(spec: dict[str, Any], index: int) -> int:
    """The deals (or pulkas) chunk ``index`` covers in a dataset of ``spec``."""
    return max(0, min(spec["chunk_size"], spec[size_key(spec)] - index * spec["chunk_size"]))


def n_chunks(spec: dict[str, Any]) -> int:
    return -(-spec[size_key(spec)] // spec["chunk_size"])


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


# --- the manifest -------------------------------------------------------------------

_KEYS = {"format": str, "schema_version": int, "signature": str, "spec": dict,
         "variant_toml": str, "chunks": list}
_ENTRY_KEYS = {"index": int, "file": str, "rows": int, "units": int, "bytes": int,
               "sha256": str}


def _typed(value: Any, kind: type) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def part_name(index: int) -> str:
    """The file of chunk ``index``'s manifest entry while its run is going."""
    return f"manifest-{index:06d}.json"


def write_entry(folder: Path | Remote, entry: dict[str, Any]) -> None:
    """List a finished chunk: its entry as its own file beside the manifest."""
    atomic_write(folder / part_name(entry["index"]), json.dumps(entry).encode())


def _parts(folder: Path | Remote) -> list[Path | Remote]:
    return sorted((p for p in folder.iterdir() if _PART.fullmatch(p.name)),
                  key=lambda p: p.name)


def _with_parts(folder: Path | Remote, manifest: dict[str, Any]) -> None:
    """Add to an unfinished run's manifest the entries of the chunks it finished since
    it was written; an entry it already holds is not added twice, a damaged one is kept
    as it reads (the checks then refuse it)."""
    chunks = manifest.get("chunks")
    if manifest.get("finished") is not None or not isinstance(chunks, list):
        return
    for p in _parts(folder):
        try:
            entry = json.loads(p.read_bytes())
        except (ValueError, OSError):
            entry = p.name
        if entry not in chunks:
            chunks.append(entry)


def parse_manifest(folder: Path | Remote) -> dict[str, Any] | None:
    """The manifest of ``folder`` as written, with the entries of an unfinished run's
    chunks (``None`` when there is none), checked only to be a prefstats manifest of
    this schema version."""
    folder = location(folder)
    path = folder / MANIFEST
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        manifest = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: not a readable manifest ({exc}); it is damaged: "
                           "remake the dataset (--force deletes only its own files)") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DatasetError(f"{path}: not a prefstats dataset manifest")
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise DatasetError(
            f"{path}: a dataset of schema version {manifest.get('schema_version')}, but this "
            f"prefstats reads version {SCHEMA_VERSION}; "
            f"nothing was changed. Remake it with `{remake_command(folder, manifest)}` "
            "(--force deletes only the dataset's own files), or into another folder"
        )
    _with_parts(folder, manifest)
    return manifest


def remake_command(folder: Path | Remote, manifest: dict[str, Any]) -> str:
    """The command line that makes the dataset of ``manifest`` afresh in ``folder`` (a
    pulka-deals dataset: its pulka dataset's, with ``--with-deals``)."""
    from prefstats.game.variants import get_variant
    from prefstats.players.builtin import resolve_params
    from prefstats.players.params import parameters

    spec: dict[str, Any] = manifest["spec"] if isinstance(manifest.get("spec"), dict) else {}
    kind = spec.get("kind", "deals")
    if kind == "pulka-deals":
        folder = folder.parent
    size = size_key(spec)
    words = {"deals": ["simulate"], "decisions": ["simulate-decisions"]}.get(
        kind, ["simulate-pulkas"])
    words.append(f"--{'pulkas' if size == 'pulkas' else 'hands'} {spec.get(size)}")
    rules: dict[str, Any] = spec["variant"] if isinstance(spec.get("variant"), dict) else {}
    try:
        preset = get_variant(rules["base"], players=rules["players"])
        words.append(f"--variant {preset.base}" if tomllib.loads(preset.to_toml()) == rules
                     else "--config VARIANT.toml")
        if preset.players != get_variant(preset.base).players:
            words[-1] += f" --players {preset.players}"
    except (KeyError, TypeError, ValueError):
        words.append("--config VARIANT.toml")
    if "--config VARIANT.toml" in words[-1]:
        words[-1] = "--config VARIANT.toml (the manifest's variant_toml)"
    if kind in ("pulkas", "pulka-deals"):
        words.append(f"--pool-target {spec.get('pool_target')}")
        if kind == "pulka-deals" or (folder / SUBSETS[0] / MANIFEST).exists():
            words.append("--with-deals")
    if kind == "decisions":
        words.append(f"--decisions {','.join(spec.get('decisions', {}))}")
    words += [f"--seed {spec.get('seed')}", f"--chunk-size {spec.get('chunk_size')}"]
    players: dict[str, Any] = spec["players"] if isinstance(spec.get("players"), dict) else {}
    policy = players.get("policy", "heuristic")
    if policy != "heuristic":
        words.append(f"--policy {policy}")
    params = players.get("params") or {}
    try:
        default = dict(zip(parameters(policy), resolve_params(policy, None).tolist(),
                           strict=True))
    except (KeyError, ValueError):
        default = {}
    words += [f"--param {k}={v}" for k, v in params.items() if default.get(k) != v]
    return " ".join(["prefstats", *words, f"--out {folder}", "--force"])


def check_spec(path: Path | Remote, manifest: dict[str, Any]) -> None:
    """Refuse a manifest whose required keys, spec or variant are missing, malformed or
    inconsistent with its run signature (``path`` names it in the message)."""
    for key, kind in _KEYS.items():
        if key not in manifest:
            raise DatasetError(f"{path}: no {key!r} key; the manifest is damaged: remake "
                               "the dataset, or rerun its command to rewrite it")
        if not _typed(manifest[key], kind):
            raise DatasetError(f"{path}: {key!r} is not a {kind.__name__}; the manifest "
                               "is damaged")
    spec = manifest["spec"]
    if spec.get("kind") not in DATASET_KINDS:
        raise DatasetError(f"{path}: spec kind {spec.get('kind')!r} is not one of {DATASET_KINDS}")
    for key in (size_key(spec), "chunk_size"):
        if not _typed(spec.get(key), int) or spec[key] < 1:
            raise DatasetError(f"{path}: spec {key!r} must be a positive integer, got "
                               f"{spec.get(key)!r}")
    if signature(spec) != manifest["signature"]:
        raise DatasetError(f"{path}: the spec does not match the run signature: it was "
                           "edited (relabelled data); rerun the command that made the "
                           "dataset to rewrite its manifest, or remake it")
    try:
        variant = tomllib.loads(manifest["variant_toml"])
    except tomllib.TOMLDecodeError:
        variant = None
    if variant != spec.get("variant"):
        raise DatasetError(f"{path}: 'variant_toml' does not match the spec's variant (edited); "
                           "rerun the command that made the dataset to rewrite its manifest")


def entry_shape(entry: Any) -> str | None:
    """Why a manifest's chunk entry is malformed, or ``None``."""
    if not isinstance(entry, dict):
        return f"chunk entry {entry!r} is not an object"
    for key, kind in _ENTRY_KEYS.items():
        if not _typed(entry.get(key), kind):
            return f"chunk entry {entry.get('index', '?')} has no valid {key!r}"
    index = entry["index"]
    if index < 0 or entry["file"] != chunk_name(index):
        return (f"chunk entry {index} names {entry['file']!r}, not the dataset's own file "
                f"{chunk_name(index)} (chunk paths are plain names inside the dataset)")
    if entry["rows"] < 0 or entry["bytes"] < 0 or not _HEX64.fullmatch(entry["sha256"]):
        return f"chunk entry {index} has a malformed rows, bytes or sha256"
    return None


def entry_problem(entry: Any, spec: dict[str, Any]) -> str | None:
    """Why a manifest's chunk entry is malformed for a dataset of ``spec``, or ``None``."""
    problem = entry_shape(entry)
    if problem:
        return problem
    index = entry["index"]
    if index >= n_chunks(spec):
        return f"chunk entry {index} lies beyond the {spec[size_key(spec)]:,} {_unit(spec)}"
    if entry["units"] != chunk_units(spec, index):
        return (f"chunk entry {index} covers {entry['units']:,} {_unit(spec)}, not "
                f"{chunk_units(spec, index):,}")
    return None


def check_manifest(folder: Path | Remote, manifest: dict[str, Any]) -> None:
    """Refuse a manifest that is damaged, edited or lists a chunk twice."""
    path = location(folder) / MANIFEST
    check_spec(path, manifest)
    seen: set[int] = set()
    for entry in manifest["chunks"]:
        problem = entry_problem(entry, manifest["spec"])
        if problem is None and entry["index"] in seen:
            problem = f"chunk {entry['index']} is listed twice"
        if problem:
            raise DatasetError(f"{path}: {problem}; the manifest was edited or damaged: "
                               "rerun the command that made the dataset to rewrite it")
        seen.add(entry["index"])


def read_manifest(folder: Path | Remote) -> dict[str, Any] | None:
    """The validated manifest of ``folder``, ``None`` when there is none."""
    manifest = parse_manifest(folder)
    if manifest is not None:
        check_manifest(location(folder), manifest)
    return manifest


def write_manifest(folder: Path | Remote, manifest: dict[str, Any]) -> None:
    atomic_write(location(folder) / MANIFEST, json.dumps(manifest, indent=1).encode())


def manifest_of(path: str | Path | Remote) -> dict[str, Any]:
    """The validated manifest of the dataset at ``path`` (raises if there is none)."""
    manifest = read_manifest(location(path))
    if manifest is None:
        raise DatasetError(f"{path}: no {MANIFEST}; not a prefstats dataset")
    return manifest


def _unit(spec: dict[str, Any]) -> str:
    return "deals" if spec.get("kind", "deals") in DEAL_KINDS else "pulkas"


def progress(manifest: dict[str, Any]) -> tuple[int, int]:
    """``(finished, asked)``: the deals (or pulkas) of the finished chunks and of the spec."""
    spec = manifest["spec"]
    return sum(e["units"] for e in manifest["chunks"]), spec[size_key(spec)]


def describe(manifest: dict[str, Any]) -> str:
    """The dataset's size in words: ``"40,000 deals"``, or ``"unfinished: 16,000 of
    40,000 deals"`` for a run that did not finish."""
    done, asked = progress(manifest)
    unit = _unit(manifest["spec"])
    return f"{asked:,} {unit}" if done == asked else f"unfinished: {done:,} of {asked:,} {unit}"


# --- chunks -------------------------------------------------------------------------

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


def check_chunk(folder: Path | Remote, entry: dict[str, Any], run: str, *,
                checksum: bool) -> str | None:
    """Why the chunk listed as ``entry`` is not a valid part of run ``run``, or ``None``.
    ``checksum`` reads the whole file for its SHA-256; else only its size and footer."""
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
    if meta.get("signature") != run or meta.get("chunk") != entry["index"]:
        return f"{entry['file']} belongs to another run"
    if rows != entry["rows"] or meta.get("rows") != rows or meta.get("units") != entry["units"]:
        return f"{entry['file']}: its rows do not match the manifest"
    return None


def sorted_chunks(chunks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(chunks, key=lambda e: e["index"])


def load(path: str | Path, *, verify: str = "checksum", partial: bool = False,
         storage_options: dict[str, Any] | None = None) -> pl.LazyFrame:
    """A polars ``LazyFrame`` over a dataset's rows (nothing is read until collected);
    the code columns are ``pl.Enum`` columns of their names (docs/DATA.md; :func:`to_codes`
    gives their integer codes).

    ``verify``: ``"checksum"`` (default) checks every file's SHA-256 and Parquet footer
    against the manifest (under 0.6 s for 1,000,000 deals, 32 MB); ``"footer"`` only sizes and
    footers; ``"none"`` trusts the files. The manifest itself is always validated.
    An unfinished dataset (a run that was interrupted) is refused unless ``partial``;
    :func:`describe` then says how much is there. Missing, corrupt, foreign, edited or
    unfinished data raises :class:`DatasetError` naming the file and the repair.

    ``path`` is a folder or an fsspec URL (``s3://bucket/run``; see :func:`location`),
    whose filesystem is built with ``storage_options`` (else fsspec's configuration and
    the environment, e.g. ``AWS_ENDPOINT_URL``).

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


# --- ownership ----------------------------------------------------------------------

def owned_files(folder: Path | Remote) -> list[Path | Remote]:
    """The files of the dataset in ``folder`` that prefstats wrote and ``--force`` may
    delete: its manifest and its chunks' entries, chunk files carrying prefstats
    metadata, temporaries of its writes, and those of its sub-datasets
    (:data:`SUBSETS`). Anything that blocks a fresh start and was not written by
    prefstats raises :class:`DatasetError` -- before anything is deleted. The lock is
    not listed (its holder releases it)."""
    folder = location(folder)
    files = []
    chunks = [p for p in folder.iterdir() if _CHUNK.fullmatch(p.name)]
    listed = listed_files(folder)
    for p in chunks:
        if not p.is_file() or (p.name not in listed and written_by_prefstats(p) is None):
            raise DatasetError(f"{p}: not a chunk prefstats wrote; --force deletes only a "
                               "dataset's own files: move it away or choose another folder")
        files.append(p)
    manifest = folder / MANIFEST
    if manifest.exists():
        # Ours if it says so (any schema version), or, damaged, beside chunks we wrote.
        if not (_says_prefstats(manifest) or chunks):
            raise DatasetError(f"{manifest}: not a prefstats manifest; --force deletes "
                               "only a dataset's own files: move it away")
        files.append(manifest)
    files += [p for p in folder.glob(TMP_PREFIX + "*") if p.is_file()]
    files += _parts(folder)
    for name in SUBSETS:
        sub = folder / name
        if sub.is_dir() and (sub / MANIFEST).exists():
            files += owned_files(sub)
    return files


def _lenient(path: Path | Remote) -> dict[str, Any] | None:
    """The manifest at ``path`` if it is one of prefstats (any schema version), else None."""
    try:
        manifest = json.loads(path.read_bytes())
    except (ValueError, OSError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == FORMAT else None


def _says_prefstats(path: Path | Remote) -> bool:
    return _lenient(path) is not None


def listed_files(folder: Path | Remote) -> set[str]:
    """The chunk files the manifest of ``folder`` (and its chunks' entries) list by a
    plain chunk name, however damaged the rest of it is: files prefstats wrote there."""
    folder = location(folder)
    manifest = _lenient(folder / MANIFEST) or {}
    chunks = manifest.get("chunks")
    if isinstance(chunks, list):
        _with_parts(folder, {"chunks": chunks, "finished": None})
    return {e["file"] for e in chunks if isinstance(e, dict) and isinstance(e.get("file"), str)
            and _CHUNK.fullmatch(e["file"])} if isinstance(chunks, list) else set()


def clear_dataset(folder: Path | Remote) -> None:
    """Delete the files :func:`owned_files` lists (all checks first), then the
    sub-dataset folders they leave empty."""
    folder = location(folder)
    files = owned_files(folder)
    for p in files:
        p.unlink(missing_ok=True)
    for name in SUBSETS:
        sub = folder / name
        if isinstance(sub, Path) and sub.is_dir() and not any(sub.iterdir()):
            sub.rmdir()


# --- the lock -----------------------------------------------------------------------

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
    return data, info if isinstance(info, dict) and _typed(info.get("pid"), int) else None


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
