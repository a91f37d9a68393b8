"""Execute the example notebooks in place, so they are committed with their outputs and
figures and read on a repository page (``make notebooks``). Each runs top to bottom in a
fresh kernel on its own small data (the notebook's defaults); the test suite re-executes
them on tiny data.

    python scripts/execute_notebooks.py [NOTEBOOK ...]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import nbclient
import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def execute(path: Path, timeout: int) -> None:
    """Run ``path`` in a fresh kernel from its folder and write it back with outputs."""
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(nb, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="Notebooks to execute (default: every one in notebooks/).")
    parser.add_argument("--timeout", type=int, default=1200, help="Seconds a cell may take.")
    args = parser.parse_args()
    for path in args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb")):
        start = time.perf_counter()
        execute(path, args.timeout)
        print(f"{path.name}: executed in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
