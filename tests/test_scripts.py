"""Every script in ``scripts/`` (benchmarks and maintenance jobs) starts: each runs with
``--help`` in one fresh process, so a script broken by a change in the package fails
here rather than on the day it is needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
#: Shared by the scripts, not run by itself.
HELPERS = {"benchtools.py"}

_RUN = """
import contextlib, io, runpy, sys
failed = []
for path in sys.argv[1:]:
    sys.argv = [path, "--help"]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
        code = 0
    except SystemExit as exit:
        code = exit.code or 0
    if code != 0 or "usage" not in out.getvalue().lower():
        failed.append(f"{path}: exit {code}: {out.getvalue()[:200]!r}")
print("\\n".join(failed))
"""


def scripts() -> list[Path]:
    return sorted(p for p in SCRIPTS.glob("*.py") if p.name not in HELPERS)


def test_every_script_shows_its_help():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(SCRIPTS)])}
    result = subprocess.run([sys.executable, "-c", _RUN, *map(str, scripts())],
                            capture_output=True, text=True, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == ""
