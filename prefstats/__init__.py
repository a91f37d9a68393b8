"""prefstats: deal, play and score millions of Preferans (преферанс) hands.

Data flows one way: ``cards`` → ``deal`` → ``variants`` / ``contracts`` /
``auction`` / ``tricks`` → ``engine`` → ``solver`` → ``players`` → ``play`` /
``pulka`` → ``scoring`` → ``simulate`` / ``storage`` → ``reports`` → ``cli``.
"""

import hashlib
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("prefstats")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"


def _numba_cache_dir() -> Path:
    """numba's on-disk cache, keyed on the source of the whole package.

    numba checks only a cached function's own file: after a change in a function it
    calls from another module it would replay the stale machine code. Keying the cache
    folder on every source file makes any change start a fresh cache.
    """
    digest = hashlib.sha1()
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    base = os.environ.get("PREFSTATS_CACHE") or Path.home() / ".cache" / "prefstats"
    return Path(base) / "numba" / digest.hexdigest()[:16]


def _prune(current: Path, days: float = 14) -> None:
    """Remove caches of other sources unused for ``days`` (they only take disk)."""
    import shutil
    import time

    if not current.parent.is_dir():
        return
    for old in current.parent.iterdir():
        if old != current and time.time() - old.stat().st_mtime > days * 86400:
            shutil.rmtree(old, ignore_errors=True)


if "NUMBA_CACHE_DIR" not in os.environ:  # a user's own setting wins
    import numba

    _cache = _numba_cache_dir()
    if not _cache.exists():
        _prune(_cache)
    numba.config.CACHE_DIR = str(_cache)


#: Everyday names, each imported from its module on first use so that `import prefstats`
#: stays light: prefstats.load(path), prefstats.readable(frame), prefstats.to_frame(...).
_LAZY = {"load": "prefstats.storage", "readable": "prefstats.tables",
         "to_frame": "prefstats.tables"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'prefstats' has no attribute {name!r}")
