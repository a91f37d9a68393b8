"""prefstats: deal, play and score millions of Preferans (преферанс) hands.

Imports run one way, down the layers of README's "How the pieces fit" (checked by
``tests/test_layers.py``): ``codes`` → ``cards`` → ``deal`` → ``exact`` → ``contracts`` /
``tricks`` / ``variants`` / ``auction`` → ``scoring`` → ``engine`` → ``solver`` /
``knowledge`` → ``players`` / ``pimc`` → ``play`` / ``pulka`` → ``storage`` / ``simulate``
→ ``rollout`` / ``strength`` / ``analyze`` → ``tables`` → ``reports`` → ``cli``.

The everyday names are here, each imported from its module on first use (so ``import
prefstats`` stays light): ``prefstats.get_variant("sochi")``, ``prefstats.parse_cards(...)``,
``prefstats.load(path)``, ``prefstats.readable(frame)`` … (``__all__`` lists them).
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


def _register_cache_locator() -> None:
    """Cache prefstats' compiled functions, and only them, in :data:`CACHE`.

    A numba cache locator placed first in numba's list claims the functions whose source
    file lies in this package; any other ``cache=True`` function (a user's own) keeps
    numba's usual place. A user's ``NUMBA_CACHE_DIR`` wins for prefstats' functions too.
    """
    from numba.core import caching, config

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # numba < 0.61 name

    class PackageCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(CACHE / Path(py_file).resolve().parent.relative_to(_PACKAGE))

        def get_cache_path(self) -> str:
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file: str):
            if config.CACHE_DIR or not Path(py_file).resolve().is_relative_to(_PACKAGE):
                return None
            return super().from_function(py_func, py_file)

    if not any(c.__name__ == PackageCacheLocator.__name__ for c in impl._locator_classes):
        impl._locator_classes.insert(0, PackageCacheLocator)


def is_compiled(*functions: str) -> bool:
    """Whether every compiled function named (``"module.function"``, in a subpackage
    ``"players/bidding._value"``) is in the current cache: false on a first run after an
    install or an edit of the source."""
    return all(any((CACHE / f).parent.glob(f"{Path(f).name}-*.nbi")) for f in functions)


_PACKAGE = Path(__file__).resolve().parent
#: The folder of prefstats' compiled functions for the current source.
CACHE = _numba_cache_dir()
if not CACHE.exists():
    _prune(CACHE)
_register_cache_locator()


#: Everyday names by the module that defines them, each imported on first use so that
#: `import prefstats` stays light: prefstats.load(path), prefstats.readable(frame) ...
#: A function named as its module (``deal``, ``simulate``, ``rollout``) stays there:
#: ``prefstats.deal`` is the module, so ``from prefstats.deal import deal``.
_LAZY = {
    "prefstats.codes": ("Kind", "Seat", "Strain", "WhistCall"),
    "prefstats.cards": ("format_cards", "parse_cards", "suit_lengths"),
    "prefstats.deal": ("Deals",),
    "prefstats.contracts": ("Contract", "parse_contract"),
    "prefstats.variants": ("Variant", "get_variant", "load_variant"),
    "prefstats.scoring": ("ScoreSheet", "load_pulka", "score_batch", "settle"),
    "prefstats.solver": ("card_values", "solve"),
    "prefstats.play": ("play_batch",),
    "prefstats.simulate": ("simulate_pulkas",),
    "prefstats.storage": ("DatasetError", "load"),
    "prefstats.tables": ("readable", "to_frame"),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}

__all__ = ["CACHE", "__version__", "is_compiled", *sorted(_MODULE_OF)]


def __getattr__(name: str):
    if name in _MODULE_OF:
        import importlib

        value = getattr(importlib.import_module(_MODULE_OF[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'prefstats' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
