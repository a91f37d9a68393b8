"""What ``--force`` may delete: the files of a dataset that prefstats wrote."""

from __future__ import annotations

from pathlib import Path

from prefstats.errors import DatasetError
from prefstats.sim._chunks import CHUNK_FILE, TMP_PREFIX, written_by_prefstats
from prefstats.sim._manifest import MANIFEST, SUBSETS, entry_files, listed_files, says_prefstats
from prefstats.sim._remote import Remote, location


def owned_files(folder: Path | Remote) -> list[Path | Remote]:
    """The files of the dataset in ``folder`` that prefstats wrote and ``--force`` may
    delete: its manifest and its chunks' entries, chunk files carrying prefstats
    metadata, temporaries of its writes, and those of its sub-datasets
    (:data:`SUBSETS`). Anything that blocks a fresh start and was not written by
    prefstats raises :class:`DatasetError` -- before anything is deleted. The lock is
    not listed (its holder releases it)."""
    folder = location(folder)
    files = []
    chunks = [p for p in folder.iterdir() if CHUNK_FILE.fullmatch(p.name)]
    listed = listed_files(folder)
    for p in chunks:
        if not p.is_file() or (p.name not in listed and written_by_prefstats(p) is None):
            raise DatasetError(f"{p}: not a chunk prefstats wrote; --force deletes only a "
                               "dataset's own files: move it away or choose another folder")
        files.append(p)
    manifest = folder / MANIFEST
    if manifest.exists():
        # Ours if it says so (any schema version), or, damaged, beside chunks we wrote.
        if not (says_prefstats(manifest) or chunks):
            raise DatasetError(f"{manifest}: not a prefstats manifest; --force deletes "
                               "only a dataset's own files: move it away")
        files.append(manifest)
    files += [p for p in folder.glob(TMP_PREFIX + "*") if p.is_file()]
    files += entry_files(folder)
    for name in SUBSETS:
        sub = folder / name
        if sub.is_dir() and (sub / MANIFEST).exists():
            files += owned_files(sub)
    return files


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
