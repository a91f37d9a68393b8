"""What a run must do in its dataset folder: start afresh, resume, extend or nothing;
the chunks to play and the files to delete, from one reading of the manifest."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefstats.errors import DatasetError
from prefstats.sim._chunks import TMP_PREFIX, check_chunk, chunk_name, written_by_prefstats
from prefstats.sim._lock import LOCK
from prefstats.sim._manifest import (
    FORMAT,
    chunk_units,
    entry_problem,
    entry_shape,
    listed_in,
    parse_manifest,
    part_name,
    size_key,
)
from prefstats.sim._ownership import clear_dataset
from prefstats.sim._remote import Remote
from prefstats.sim._schema import SCHEMA_VERSION
from prefstats.sim._spec import RunSpec, default_chunk_size


@dataclass
class Plan:
    """What a run in a folder must do: ``spec`` (its chunk size settled), the
    ``manifest`` to write, the chunks ``todo``, the files to ``remove``, and whether the
    manifest changes (``dirty``)."""

    spec: RunSpec
    manifest: dict[str, Any]
    todo: list[int]
    remove: list[Path | Remote]
    dirty: bool


def now() -> str:
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


def _found(folder: Path | Remote, force: bool) -> dict[str, Any] | None:
    """The manifest in ``folder`` to continue, ``None`` to start afresh; ``force`` clears
    the dataset instead, once every check has passed."""
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
    return manifest


def _settled(spec: RunSpec, manifest: dict[str, Any] | None) -> RunSpec:
    """``spec`` with its chunk size: the one asked for, else that of the dataset of the
    same kind it resumes, else :func:`default_chunk_size`."""
    if spec.chunk_size is not None:
        return spec
    old = manifest.get("spec") if manifest else None
    size = old.get("chunk_size") if isinstance(old, dict) and old.get("kind") == spec.kind \
        else None
    if not (isinstance(size, int) and not isinstance(size, bool) and size > 0):
        size = default_chunk_size(spec.size)
    return spec.with_chunk_size(size)


def _refuse_other_run(folder: Path | Remote, spec: RunSpec, manifest: dict[str, Any]) -> None:
    """Refuse a dataset that ``spec`` did not make, naming the arguments that differ."""
    if manifest.get("signature") == spec.signature:
        return
    old: dict[str, Any] = manifest["spec"] if isinstance(manifest.get("spec"), dict) else {}
    new = spec.described
    differ = sorted(k for k in new if k != size_key(new) and old.get(k) != new[k])
    raise DatasetError(
        f"{folder}: holds a dataset made with other arguments (differing: "
        f"{', '.join(differ) or 'signature'}); use --force to replace it or another --out"
    )


def _kept(folder: Path | Remote, manifest: dict[str, Any], spec: RunSpec) -> list:
    """The manifest's chunks that are valid parts of a dataset of ``spec``: each index
    once, checksums and footers right; a last partial chunk of a smaller run is left to
    redo. A valid chunk beyond ``spec``'s size is refused (datasets grow, not shrink)."""
    described, signature = spec.described, spec.signature
    entries = manifest.get("chunks")
    kept, seen = [], set()
    for e in entries if isinstance(entries, list) else []:
        if entry_shape(e) is None and e["units"] > chunk_units(described, e["index"]) and \
                not check_chunk(folder, e, signature, checksum=True):
            raise DatasetError(
                f"{folder}: holds {chunk_name(e['index'])}, beyond the "
                f"{spec.size:,} asked; a dataset grows but does not shrink: ask "
                "for at least as many as it holds, or use --force to remake it")
        if entry_problem(e, described) is None and e["index"] not in seen and \
                not check_chunk(folder, e, signature, checksum=True):
            kept.append(e)
            seen.add(e["index"])
    return kept


def plan_run(folder: Path | Remote, spec: RunSpec, force: bool) -> Plan:
    """What a run of ``spec`` in ``folder`` must do, from one reading of its manifest.
    Nothing is written, except that ``force`` clears the old dataset. Listed chunks that
    are damaged, duplicated or partial are dropped, and their files (which prefstats
    wrote) deleted to be redone; a chunk file the run does not own is refused."""
    existing = _found(folder, force)
    spec = _settled(spec, existing)
    if existing is not None:
        _refuse_other_run(folder, spec, existing)
    kept = [] if existing is None else _kept(folder, existing, spec)
    names = {e["file"] for e in kept}
    listed = set() if existing is None else listed_in(existing)
    remove = [p for p in folder.glob(TMP_PREFIX + "*") if p.is_file()]
    remove += list(folder.glob(part_name(0).replace("000000", "*")))  # folded into manifest
    chunks: list[Path | Remote] = list(folder.glob("chunk-*.parquet"))
    for p in sorted(chunks, key=lambda p: p.name):
        if p.name in names:
            continue
        meta = written_by_prefstats(p)
        if p.name not in listed and (meta is None or meta.get("signature") != spec.signature):
            raise DatasetError(f"{p}: not a chunk of this dataset; move it away (or use "
                               "--force if prefstats wrote it)")
        remove.append(p)
    manifest = {**(existing or {}), "format": FORMAT, "schema_version": SCHEMA_VERSION,
                "signature": spec.signature, "spec": spec.described,
                "variant_toml": spec.variant_toml, "chunks": kept}
    manifest.setdefault("started", now())
    manifest.setdefault("finished", None)
    done = {e["index"] for e in kept}
    todo = [i for i in range(spec.n_chunks) if i not in done]
    dirty = bool(todo or remove) or manifest != existing or not manifest["finished"]
    return Plan(spec, manifest, todo, remove, dirty)
