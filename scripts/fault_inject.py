"""Fault injection on small datasets: does prefstats refuse bad data clearly, keep good
data identical, and never go wrong?

Makes a clean reference dataset, then runs ``--cases`` faults on copies of it (or on
fresh runs), each drawn from ``--seed``:

- ``chunk-byte``: one byte flipped at a random position of a random chunk;
- ``manifest-byte``: one byte flipped at a random position of ``manifest.json``;
- ``truncate``: a random chunk or the manifest cut at a random length;
- ``duplicate``, ``dotdot``, ``delete-key``, ``edit-spec``: the manifest edited (a chunk
  listed twice, a chunk path ``../elsewhere/...`` to a real chunk outside, a required
  key deleted, a spec field changed);
- ``foreign``: a chunk replaced by a foreign Parquet file, or by the same chunk of a
  dataset made with another seed;
- ``kill``: a run killed (SIGKILL) at a random moment, then rerun;
- ``concurrent``: two runs started together on one folder (the second with ``--force``
  and another seed: the second must be refused, not mix its chunks in);
- ``force``: ``--force`` on a dataset folder holding other files, and on one holding a
  foreign file at a chunk's name;
- ``extend``: a smaller dataset extended to the reference's size.

Each case's data is read with :func:`prefstats.load` (the default checks) and judged:
**refused** (a ``DatasetError`` naming the dataset), **identical** (the rows equal the
reference's) or **wrong** (other rows, or any other exception). Then the command is
rerun with the same arguments and judged the same way (the repair). Target: nothing
wrong.

    python scripts/fault_inject.py [--cases 60] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from prefstats.game.variants import get_variant
from prefstats.sim._lock import LOCK
from prefstats.sim.simulate import simulate
from prefstats.sim.storage import DatasetError, load

HANDS, CHUNK, DATA_SEED = 4000, 500, 11
ARGS = {"hands": HANDS, "seed": DATA_SEED, "chunk_size": CHUNK, "workers": 1,
        "progress": False}
#: A run in a child process: exit 2 with the message on a DatasetError or ValueError.
CHILD = f"""
import sys
from prefstats.sim.simulate import simulate
from prefstats.game.variants import get_variant
out, seed, force, workers = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
try:
    simulate(get_variant("sochi"), hands={HANDS}, seed=seed, chunk_size={CHUNK}, out=out,
             workers=workers, force=force, progress=False)
except ValueError as exc:
    print("refused:", exc)
    sys.exit(2)
"""


def child(folder: Path, *, seed: int = DATA_SEED, force: bool = False,
          workers: int = 1) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(folder), str(seed),
                             "1" if force else "0", str(workers)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Judge:
    """Outcomes by case and stage (``load`` after the fault, ``rerun`` after a rerun)."""

    def __init__(self, reference: pl.DataFrame) -> None:
        self.reference = reference
        self.counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        self.wrong: list[str] = []

    def load(self, case: str, stage: str, folder: Path, detail: str) -> str:
        try:
            rows = load(folder).collect().sort("deal_id")
        except DatasetError as exc:
            outcome = "refused" if str(folder) in str(exc) else "wrong"
            why = f"unclear message: {exc}"
        except Exception as exc:  # any other error is a failure
            outcome, why = "wrong", f"{type(exc).__name__}: {exc}"
        else:
            outcome = "identical" if rows.equals(self.reference) else "wrong"
            why = "rows differ from the reference"
        return self.note(case, stage, outcome, f"{detail}: {why}")

    def note(self, case: str, stage: str, outcome: str, detail: str) -> str:
        self.counts[(case, stage)][outcome] += 1
        if outcome == "wrong":
            self.wrong.append(f"{case} ({stage}) {detail}")
        return outcome

    def rerun(self, case: str, folder: Path, detail: str, **kw) -> None:
        """Rerun the command that made the dataset and judge the result."""
        try:
            simulate(get_variant("sochi"), out=folder, **{**ARGS, **kw})
        except DatasetError as exc:
            self.note(case, "rerun", "refused" if str(folder) in str(exc) else "wrong",
                      f"{detail}: {exc}")
            return
        except Exception as exc:
            self.note(case, "rerun", "wrong", f"{detail}: {type(exc).__name__}: {exc}")
            return
        self.load(case, "rerun", folder, detail)


def flip(path: Path, rng: random.Random) -> str:
    data = bytearray(path.read_bytes())
    at = rng.randrange(len(data))
    data[at] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))
    return f"{path.name} byte {at}"


def edit(folder: Path, change: Callable[[dict], str]) -> str:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    detail = change(manifest)
    path.write_text(json.dumps(manifest, indent=1))
    return detail


def chunks(folder: Path) -> list[Path]:
    return sorted(folder.glob("chunk-*.parquet"))


def case_static(kind: str, folder: Path, rng: random.Random, other: Path) -> str:
    """Inflict fault ``kind`` on the dataset copy ``folder``; returns what was done."""
    if kind == "chunk-byte":
        return flip(rng.choice(chunks(folder)), rng)
    if kind == "manifest-byte":
        return flip(folder / "manifest.json", rng)
    if kind == "truncate":
        path = rng.choice([*chunks(folder), folder / "manifest.json"])
        data = path.read_bytes()
        cut = rng.randrange(len(data))
        path.write_bytes(data[:cut])
        return f"{path.name} cut to {cut} of {len(data)} bytes"
    if kind == "duplicate":
        def dup(m: dict) -> str:
            e = rng.choice(m["chunks"])
            m["chunks"].insert(rng.randrange(len(m["chunks"]) + 1), dict(e))
            return f"chunk {e['index']} listed twice"
        return edit(folder, dup)
    if kind == "dotdot":
        outside = folder.parent / "elsewhere"
        outside.mkdir(exist_ok=True)
        source = rng.choice(chunks(other))
        shutil.copy(source, outside / source.name)

        def dotdot(m: dict) -> str:
            e = rng.choice(m["chunks"])
            e["file"] = f"../elsewhere/{source.name}"
            return f"chunk {e['index']} -> {e['file']}"
        return edit(folder, dotdot)
    if kind == "delete-key":
        def delete(m: dict) -> str:
            if rng.random() < 0.5:
                key = rng.choice(sorted(m))
                del m[key]
                return f"top-level key {key!r} deleted"
            e = rng.choice(m["chunks"])
            key = rng.choice(sorted(e))
            del e[key]
            return f"key {key!r} of a chunk entry deleted"
        return edit(folder, delete)
    if kind == "edit-spec":
        def respec(m: dict) -> str:
            spec = m["spec"]
            field, value = rng.choice([
                ("seed", spec["seed"] + 1), ("hands", spec["hands"] * 2),
                ("chunk_size", spec["chunk_size"] + 1), ("kind", "pulkas"),
                ("variant.base", "leningrad"), ("variant.players", 4),
                ("players.policy", "random"), ("package_version", "9.9.9")])
            target = spec
            *path, last = field.split(".")
            for key in path:
                target = target[key]
            target[last] = value
            return f"spec {field} set to {value!r}"
        return edit(folder, respec)
    if kind == "foreign":
        path = rng.choice(chunks(folder))
        if rng.random() < 0.5:
            pq.write_table(pa.table({"deal_id": list(range(CHUNK))}), path)
            return f"{path.name} replaced by a foreign Parquet file"
        shutil.copy(other / path.name, path)
        return f"{path.name} replaced by the same chunk of another seed"
    raise ValueError(kind)


def case_kill(judge: Judge, folder: Path, rng: random.Random) -> None:
    workers = rng.choice([1, 2])
    proc = child(folder, workers=workers)
    wait = rng.uniform(0.5, 12)
    time.sleep(wait)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    detail = f"killed after {wait:.1f} s ({workers} worker(s))"
    if not (folder / "manifest.json").exists():
        judge.note("kill", "load", "refused", detail + ": no manifest yet")
    else:
        judge.load("kill", "load", folder, detail)
    judge.rerun("kill", folder, detail)


def case_concurrent(judge: Judge, folder: Path, rng: random.Random) -> None:
    other_seed = rng.random() < 0.5
    first = child(folder)
    time.sleep(rng.uniform(0, 6))
    second = child(folder, seed=DATA_SEED + 1 if other_seed else DATA_SEED, force=other_seed)
    outs = [(p.wait(), *p.communicate()) for p in (first, second)]
    detail = "second run " + ("--force with another seed" if other_seed else "same arguments")
    for code, out, err in outs:
        if code == 2 and "in use by another prefstats run" in out:
            judge.note("concurrent", "run", "refused", detail)
        elif code == 0:
            judge.note("concurrent", "run", "identical", detail)
        else:
            judge.note("concurrent", "run", "wrong", f"{detail}: exit {code} {out} {err[-300:]}")
    if other_seed and all(code == 0 for code, *_ in outs):
        # The second replaced the first after it finished: fine, but not the reference.
        shutil.rmtree(folder)
        judge.rerun("concurrent", folder, detail)
        return
    judge.load("concurrent", "load", folder, detail)
    if (folder / LOCK).exists():
        judge.note("concurrent", "load", "wrong", f"{detail}: a lock was left behind")


def case_force(judge: Judge, folder: Path, rng: random.Random) -> None:
    notes = folder / rng.choice(["notes.txt", "deals.csv", ".hidden", "chunk-notes.txt"])
    notes.write_text("mine")
    if rng.random() < 0.5:
        foreign = folder / f"chunk-{rng.randrange(100, 999):06d}.parquet"
        pq.write_table(pa.table({"x": [1]}), foreign)
        files = sorted(p.name for p in folder.iterdir())
        try:
            simulate(get_variant("sochi"), out=folder, force=True, **ARGS)
        except DatasetError as exc:
            kept = sorted(p.name for p in folder.iterdir()) == files
            judge.note("force", "run", "refused" if kept else "wrong",
                       f"foreign {foreign.name}: {exc}")
        else:
            judge.note("force", "run", "wrong", f"foreign {foreign.name} accepted")
        foreign.unlink()
    detail = f"--force beside {notes.name}"
    judge.rerun("force", folder, detail, force=True)
    if not notes.exists():
        judge.note("force", "rerun", "wrong", f"{detail}: {notes.name} deleted")


def case_extend(judge: Judge, folder: Path, rng: random.Random) -> None:
    hands = rng.randrange(1, HANDS)
    simulate(get_variant("sochi"), out=folder, **{**ARGS, "hands": hands})
    judge.rerun("extend", folder, f"{hands} deals extended to {HANDS}")


STATIC = ("chunk-byte", "manifest-byte", "truncate", "duplicate", "dotdot", "delete-key",
          "edit-spec", "foreign")
CASES = (*STATIC, "kill", "concurrent", "force", "extend")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=60, help="Faults to inject (default 60).")
    parser.add_argument("--seed", type=int, default=1, help="Seed of the faults.")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="prefstats-faults-") as tmp:
        root = Path(tmp)
        clean, other = root / "clean", root / "other"
        simulate(get_variant("sochi"), out=clean, **ARGS)
        simulate(get_variant("sochi"), out=other, **{**ARGS, "seed": DATA_SEED + 1})
        judge = Judge(load(clean).collect().sort("deal_id"))
        for i in range(args.cases):
            kind = CASES[i % len(CASES)]
            work = root / f"case-{i}"
            folder = work / "d"
            work.mkdir()
            if kind in STATIC or kind == "force":
                shutil.copytree(clean, folder)
            if kind in STATIC:
                detail = case_static(kind, folder, rng, other)
                judge.load(kind, "load", folder, detail)
                judge.rerun(kind, folder, detail)
            else:
                {"kill": case_kill, "concurrent": case_concurrent, "force": case_force,
                 "extend": case_extend}[kind](judge, folder, rng)
            shutil.rmtree(work)
    report(judge, args, time.perf_counter() - started)


def report(judge: Judge, args: argparse.Namespace, seconds: float) -> None:
    outcomes = ("refused", "identical", "wrong")
    print(f"{args.cases} fault cases (seed {args.seed}) on {HANDS:,}-deal datasets "
          f"in {seconds:.0f} s")
    print(f"{'case':<15}{'stage':<8}" + "".join(f"{o:>11}" for o in outcomes))
    total: Counter = Counter()
    for (case, stage), counts in sorted(judge.counts.items(),
                                        key=lambda kv: (CASES.index(kv[0][0]), kv[0][1])):
        print(f"{case:<15}{stage:<8}" + "".join(f"{counts[o]:>11}" for o in outcomes))
        total.update(counts)
    print(f"{'all':<23}" + "".join(f"{total[o]:>11}" for o in outcomes))
    for line in judge.wrong:
        print("WRONG:", line)
    sys.exit(1 if judge.wrong else 0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
