"""The package as users install it: a wheel built from the files a clean clone holds
carries every module and data file, and (slow) installs into a fresh venv whose
``prefstats demo`` runs without the source tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "prefstats"


def _package_files() -> set[str]:
    """The package's files as a wheel names them (compiled caches left out)."""
    return {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built (no build isolation: the installed setuptools) from a copy of what
    the build reads, so the tree is left clean."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    shutil.copytree(PACKAGE, src / "prefstats", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "-w", str(tmp / "dist"), str(src)], check=True,
                   capture_output=True, cwd=tmp)
    (built,) = (tmp / "dist").glob("prefstats-*.whl")
    return built


def test_the_wheel_holds_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    files = _package_files()
    assert {f for f in files if f.endswith((".toml", ".npz"))}  # the data is there to check
    assert files <= names, sorted(files - names)
    metadata = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "prefstats = prefstats.cli:main" in zipfile.ZipFile(wheel).read(metadata).decode()


@pytest.mark.slow
def test_the_installed_wheel_runs_the_demo_without_the_source_tree(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    # the dependencies: this interpreter's site-packages after the venv's own (a plain
    # path, so its .pth files, an editable prefstats among them, are not run)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], capture_output=True, text=True, check=True)
    Path(site.stdout.strip(), "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)],
                   check=True, capture_output=True)
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([str(python), "-c", "import prefstats; print(prefstats.__file__)"],
                           capture_output=True, text=True, check=True, cwd=work, env=env)
    assert Path(where.stdout.strip()).is_relative_to(venv)
    version = subprocess.run([str(bin_dir / "prefstats"), "--version"], capture_output=True,
                             text=True, check=True, cwd=work, env=env)
    assert version.stdout.strip() == f"prefstats {_version()}"
    demo = subprocess.run([str(bin_dir / "prefstats"), "demo", "--hands", "2000", "--pulkas",
                           "20", "--quiet"], capture_output=True, text=True, cwd=work, env=env)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert (work / "reports").is_dir() and any((work / "reports").rglob("*.md"))


def _version() -> str:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
