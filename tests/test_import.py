"""``import prefstats`` does only what importing needs: no numba, polars or pyarrow, no
cache set-up; the compile cache is set up by the first compiled module's import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> str:
    # run from the tree's parent folder so that `python -c` finds this tree's package
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                           + code], capture_output=True, text=True, check=True,
                          cwd=ROOT.parent).stdout.strip()


def test_import_prefstats_loads_no_heavy_dependency():
    out = _run("import prefstats; print(prefstats.__file__, prefstats.__version__); "
               "print(*sorted(m for m in ('numba', 'llvmlite', 'polars', 'pyarrow', "
               "'matplotlib', 'pandas') if m in sys.modules))")
    where, _, loaded = out.partition("\n")
    assert where.startswith(str(ROOT / "prefstats"))
    assert loaded == ""


@pytest.mark.parametrize("first", ["prefstats.solver._intrinsics", "prefstats.analysis.fit"])
def test_compiled_functions_find_the_cache_whatever_module_comes_first(first):
    """Every cached compiled function of the modules loaded uses prefstats' locator."""
    out = _run(
        f"import importlib; importlib.import_module({first!r}); "
        "found = [type(f._cache._impl.locator).__name__ for name, m in list(sys.modules.items())"
        " if name.startswith('prefstats.') for f in vars(m).values()"
        " if getattr(f, '__module__', None) == name and hasattr(getattr(f, '_cache', None),"
        " '_impl')]; print(len(found), *sorted(set(found)))")
    count, *locators = out.split()
    assert int(count) > 0 and locators == ["PrefstatsCacheLocator"]
