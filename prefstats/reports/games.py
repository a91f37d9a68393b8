"""Game records analysed into their results folders (``prefstats analyze GAME`` or
``FOLDER``): for each game its page and tables (:mod:`prefstats.reports.game_page`), its
mistakes to train (``train.json``, ``train.html``) and ``result.json``, written last
(a temporary file, then renamed) with the hash of the record and the analysis
settings. A game whose ``result.json`` matches its record and settings is done and
skipped, so a stopped run started again continues where it stopped; a folder's games
run in parallel worker processes, each game wholly in one (its figures do not depend on
the workers), and its batch summary is made from the games' ``result.json``."""

from __future__ import annotations

import hashlib
import json
import os
import queue as queues
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import asdict, dataclass
from pathlib import Path

import polars as pl

import prefstats
from prefstats.analysis.game import analyze_game, game_variant, load_game
from prefstats.analysis.game_stats import SCALE, game_tables, rating_scale
from prefstats.analysis.train import dump_train, train_document
from prefstats.errors import OptionError
from prefstats.game.variants import get_variant
from prefstats.reports.charts import source_line
from prefstats.reports.game_page import write_game_page
from prefstats.reports.train_page import train_page
from prefstats.sim._workers import worker_setup

#: The file that marks a game's folder done, written last.
RESULT = "result.json"
#: A worker reports a game's progress at most this often (seconds).
TICK = 0.2


@dataclass(frozen=True)
class Settings:
    """What a game is analysed with: rollout ``deals`` per call decision, ``seed``, the
    continuation ``policy`` and the ``condition``ing of the rollouts."""

    deals: int
    seed: int
    policy: str
    condition: str


def result_key(file: Path, settings: Settings) -> dict:
    """What a game's results were made from: the record's SHA-256, the settings and the
    prefstats version."""
    return {"record_sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
            "settings": asdict(settings), "version": prefstats.__version__}


def done_result(folder: Path, key: dict) -> dict | None:
    """The game's ``result.json`` in ``folder`` if it was made from ``key``."""
    try:
        result = json.loads((folder / RESULT).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    same = isinstance(result, dict) and all(result.get(k) == v for k, v in key.items())
    return result if same else None


def write_atomic(path: Path, text: str) -> None:
    """``text`` to ``path`` through a temporary file renamed over it: never half written."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


def analyse_game_file(file: Path, folder: Path, settings: Settings,
                      progress: Callable[[float], None] | None = None) -> dict:
    """Analyse the game at ``file`` and write its results to ``folder``; returns its
    ``result.json`` content: the key (:func:`result_key`), the game's name, deals and
    variant, each player's figures (``players``) and the positions to train."""
    key = result_key(file, settings)
    game = load_game(file)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESULT).unlink(missing_ok=True)  # the folder is not done until rewritten
    s = settings
    n = len(game.deals)

    def tick(k: int, done: int, total: int) -> None:
        if progress is not None:
            progress(k - 1 + (done / total if total else 1))

    frame = analyze_game(game, deals=s.deals, seed=s.seed, policy=s.policy,
                         condition=s.condition, progress=tick)
    tables = game_tables(game, frame, seed=s.seed)
    table = game_variant(game)
    scale = rating_scale(table)
    bands = ", ".join(f"{name} up to {top:g}" if top != float("inf") else f"{name} above"
                      for name, top in scale.bands) or (
        f"no bands calibrated for {table.base} at {table.players}")
    variant = game.header.get("variant", "sochi")
    meta = [f"{n} deals, {variant}; calls valued by rollouts of {s.deals} deals with the "
            f"{s.policy} policy ({s.condition} conditioning), cards and discards double "
            f"dummy",
            f"loss: whists to the deciding player (to his side for double-dummy rows), the "
            f"best option minus the one made; rating: each loss capped at {scale.cap:.1f} "
            f"whists"]
    source = source_line(version=prefstats.__version__, deals=f"{n} deals", seed=s.seed,
                         command=f"prefstats analyze {file.name} --deals {s.deals}")
    write_game_page(f"{file.name}: the game analysed", tables, folder, meta=meta,
                    bands=bands, source=source)
    doc = train_document(game, frame, source=file.name, analysis=asdict(settings))
    write_atomic(folder / "train.json", dump_train(doc))
    write_atomic(folder / "train.html", train_page(doc))
    result = {**key, "game": file.name, "deals": n, "variant": variant,
              "players": tables["players"].to_dicts(), "positions": len(doc["positions"])}
    write_atomic(folder / RESULT, json.dumps(result, ensure_ascii=False, indent=1) + "\n")
    return result


def _queue_progress(q, index: int) -> Callable[[float], None]:
    """A worker's progress, sent to the main process at most every :data:`TICK`."""
    last = [0.0]

    def report(deals: float) -> None:
        now = time.monotonic()
        if now - last[0] >= TICK:
            last[0] = now
            q.put((index, deals))

    return report


def analyse_games(jobs: list[tuple[Path, Path]], settings: Settings, *, workers: int,
                  progress: Callable[[int, float], None] | None = None
                  ) -> Iterator[tuple[int, dict]]:
    """Analyse each game ``(file, folder)`` of ``jobs`` into its folder, in parallel over
    ``workers`` processes (in this one for 1); yields ``(index, result)`` as each game
    finishes. ``progress(index, deals)`` follows the deals done of a game under way.
    Stopped (Ctrl-C), the workers are stopped and the unfinished games stay undone."""
    if workers == 1 or len(jobs) <= 1:
        for i, (file, folder) in enumerate(jobs):
            report = None if progress is None else (lambda d, i=i: progress(i, d))
            yield i, analyse_game_file(file, folder, settings, report)
        return
    from multiprocessing import Manager

    from joblib.externals.loky import ProcessPoolExecutor

    with Manager() as manager:
        q = manager.Queue()
        pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)),
                                   initializer=worker_setup, initargs=(os.getpid(),))
        try:
            futures = {pool.submit(analyse_game_file, file, folder, settings,
                                   _queue_progress(q, i)): i
                       for i, (file, folder) in enumerate(jobs)}
            while futures:
                finished, _ = wait(futures, timeout=TICK, return_when=FIRST_COMPLETED)
                while True:
                    try:
                        i, deals = q.get_nowait()
                    except queues.Empty:
                        break
                    if progress is not None:
                        progress(i, deals)
                for future in finished:
                    yield futures.pop(future), future.result()
        finally:
            pool.shutdown(wait=True, kill_workers=True)


def batch_summary(results: list[dict], out: Path) -> dict[str, pl.DataFrame]:
    """The folder's summary from its games' results, written to ``out`` as CSV and
    Parquet: ``games`` (one row per game and player: result, luck, own and others'
    decisions, rating, real choices, leads, whists lost) and ``players`` (per name over
    the games: the results summed, the rating over all his real choices, banded by the
    bands of the games' table when they share one)."""
    variants = {r.get("variant", "sochi") for r in results}
    scale = rating_scale(get_variant(variants.pop())) if len(variants) == 1 else None
    rows = [{"game": r["game"], "deals": r["deals"], "positions_to_train": r["positions"],
             **{k: p.get(k) for k in ("player", "name", "result", "luck", "own", "others", "rating",
                                      "band", "choices", "capped_loss", "leads", "lead_dd",
                                      "decisions", "loss")}}
            for r in results for p in r["players"]]
    games = pl.DataFrame(rows, schema={
        "game": pl.Utf8, "deals": pl.Int64, "positions_to_train": pl.Int64,
        "player": pl.Int64, "name": pl.Utf8, "result": pl.Float64, "luck": pl.Float64,
        "own": pl.Float64, "others": pl.Float64, "rating": pl.Float64, "band": pl.Utf8,
        "choices": pl.Int64,
        "capped_loss": pl.Float64, "leads": pl.Int64, "lead_dd": pl.Float64,
        "decisions": pl.Int64, "loss": pl.Float64}, orient="row").sort("game", "player")
    players = (games.group_by("name", maintain_order=True)
               .agg(pl.len().alias("games"), pl.col("deals").sum(), pl.col("result").sum(),
                    pl.col("luck").sum(), pl.col("own").sum(), pl.col("others").sum(),
                    pl.col("choices").sum(),
                    pl.col("capped_loss").sum(), pl.col("loss").sum())
               .with_columns(pl.when(pl.col("choices") > 0)
                             .then(SCALE * pl.col("capped_loss") / pl.col("choices"))
                             .alias("rating")))
    players = players.with_columns(pl.Series("band", [scale and scale.band(r) for r in
                                                      players["rating"]], dtype=pl.Utf8))
    out.mkdir(parents=True, exist_ok=True)
    tables = {"games": games, "players": players}
    for name, table in tables.items():
        write_atomic(out / f"summary_{name}.csv", table.write_csv())
        table.write_parquet(out / f"summary_{name}.parquet")
    return tables


def check_names(jobs: list[tuple[Path, Path]]) -> None:
    """Two games of a folder may not share a results folder (``a.json`` and ``a.txt``)."""
    seen: dict[Path, Path] = {}
    for file, folder in jobs:
        if folder in seen:
            raise OptionError(f"{seen[folder].name} and {file.name} would share the results "
                              f"folder {folder}; rename one")
        seen[folder] = file
