"""My game: an uploaded deal or game record (docs/ANALYZE.md's formats) analysed as a job;
a game's page, training page and tables written to the server's data folder."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from prefstats.errors import OptionError, PrefstatsError, RecordError
from prefstats.serve.inputs import prune
from prefstats.serve.jobs import in_steps

#: A game's results folder under the data folder: its name is its key.
_KEY = re.compile(r"[0-9a-f]{32}")
#: The files of a game's results the server hands out.
_FILE = re.compile(r"[\w.-]+\.(html|png|svg|csv|json|md)")


def store_record(body: bytes, folder: Path) -> Path:
    """Keep an uploaded record in ``folder`` (by its hash) and check that it reads: a
    game record or a deal record, else an error naming the file."""
    from prefstats.analysis.analyze import deal_summary, load_record, record_variant
    from prefstats.analysis.game_record import is_game_file, load_game

    if not body.strip():
        raise RecordError("file: empty; upload a deal or game record (docs/ANALYZE.md)")
    suffix = ".json" if body.lstrip()[:1] in (b"{", b"[") else ".txt"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{hashlib.sha256(body).hexdigest()[:32]}{suffix}"
    path.write_bytes(body)
    try:
        if is_game_file(path):
            load_game(path)
        else:
            record = load_record(path)
            deal_summary(record, record_variant(record))
    except (PrefstatsError, UnicodeDecodeError, ValueError) as exc:
        path.unlink()
        message = str(exc).replace(str(path), path.name).replace(path.name, "the record")
        raise RecordError(f"file: {message}") from None
    prune(folder, path)
    return path


def analyse_work(path: Path, out: Path, key: str, *, deals: int, seed: int):
    """The job analysing the record at ``path``: a game into ``out/key`` (its page),
    a deal into its decisions' table."""
    from prefstats.analysis.game_record import is_game_file, load_game

    if is_game_file(path):
        from prefstats.reports.games import Settings, analyse_game_file

        total = max(1, len(load_game(path).deals))
        settings = Settings(deals, seed, "heuristic", "record")
        result = yield from in_steps(lambda report: analyse_game_file(
            path, out / key, settings, lambda done: report(done / total)))
        return {**result, "kind": "game", "page": f"/games/{key}/index.html",
                "train": f"/games/{key}/train.html"}
    from prefstats.analysis.analyze import analyze, deal_summary, load_record, record_variant

    record = load_record(path)
    rules = record_variant(record)
    frame = yield from in_steps(lambda report: analyze(
        record, rules, deals=deals, seed=seed,
        progress=lambda done, total: report(done / total if total else 0.0)))
    return {"kind": "deal", "deal": deal_summary(record, rules), "decisions": frame.to_dicts()}


def game_file(out: Path, key: str, name: str) -> Path:
    """A file of a game's results, by names the server checks (never a path given)."""
    path = out / key / name
    if not (_KEY.fullmatch(key) and _FILE.fullmatch(name)) or not path.is_file():
        raise OptionError(f"file: no result {key}/{name} on this server")
    return path
