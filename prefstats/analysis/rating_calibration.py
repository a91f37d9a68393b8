"""Calibrate the performance rating of a whole game (:mod:`prefstats.analysis.game_stats`)
for one table (a preset and its players): the cap, the scale and the bands of
``prefstats/analysis/data/rating-<preset>-<players>.toml``, from deals of the table played
by the search player (pimc), the built-in heuristic and the random player, each at every
seat (``prefstats fit rating --variant --players``).

The cap on one decision's loss is a rule figure, not a fit: what one decisive trick of
the cheapest game is worth to its declarer (6♠ made against 6♠ one down, both
defenders whisting), in whists of the table's settlement. Pulka ``j`` of every player is
the first ``deals`` deals of the seed's deal stream (seed ``seed + j``, the same cards),
each played as a fresh deal by the table's rules and analysed with ``rollout`` rollout
deals per call decision, as a game's analysis values each deal; a pulka's rating is the
capped loss over its real choices. The bands' edges are the midpoints between the
players' mean ratings: ``strong`` up to midway from search to heuristic, ``average`` up
to midway from heuristic to random, ``beginner`` beyond. The summary also says, pulka by
pulka (the same cards), how often the search player rates better than the heuristic (or
ties: the two differ only in the card play of closed deals) and the heuristic better
than random, and the mean gaps.

Pulkas run in parallel (``workers`` processes, one pulka of all three players each)
and each is appended, as it finishes, to a results file (one JSON line: its ratings,
choices and the seconds its play and its analysis took); a run stopped at any point
and started again with the same settings plays only the pulkas missing. The figures do
not depend on the workers. Almost all the time is the analysis; on the same cards the
three players' deals ask mostly the same rollouts of the calls, made once
(:func:`~prefstats.analysis.analyze.shared_rollouts`).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from prefstats import __version__
from prefstats.analysis.analyze import analyze, shared_rollouts
from prefstats.analysis.game import play_recorded
from prefstats.analysis.game_stats import SCALE, capped_choices, decisive_trick, rating_file
from prefstats.errors import OptionError
from prefstats.game.deal import deal
from prefstats.game.variants import Variant, get_variant

PLAYERS = ("pimc", "heuristic", "random")
BANDS = ("strong", "average", "beginner")
#: Where the shipped calibrations live (the package's data, in a source tree).
SHIPPED = Path(__file__).resolve().parent / "data"
#: The default folder of the results files, one a setting.
RESULTS = Path.home() / ".cache" / "prefstats" / "calibrate_rating"


def pulka_rating(policy: str, table: Variant, seed: int, deals: int, rollout: int,
                 cap: float) -> tuple[float, int, float, float]:
    """The rating of one pulka of ``policy`` at every seat, its real choices, and the
    seconds its play and its analysis took."""
    dealt = deal(deals, seed=seed)
    play_s = analysis_s = loss = 0.0
    n = 0
    for k in range(deals):
        start = time.perf_counter()
        _, record = play_recorded([policy] * 3, table, dealt, k, seed)
        played = time.perf_counter()
        real = capped_choices(analyze(record, table, deals=rollout, seed=seed + k), cap)
        n, loss = n + real.height, loss + float(real["capped"].sum())
        play_s, analysis_s = play_s + played - start, analysis_s + time.perf_counter() - played
    return SCALE * loss / max(n, 1), n, play_s, analysis_s


def pulka(j: int, settings: dict, cap: float) -> dict:
    """Pulka ``j`` of every player (seed ``seed + j``: the same cards), the rollouts its
    deals have in common made once."""
    start = time.perf_counter()
    out: dict = {"settings": settings, "pulka": j, "rating": {}, "choices": {},
                 "play_s": {}, "analysis_s": {}}
    table = get_variant(settings["variant"], players=settings["players"])
    with shared_rollouts():
        for p in PLAYERS:
            r, n, play_s, analysis_s = pulka_rating(p, table, settings["seed"] + j,
                                                    settings["deals"], settings["rollout"], cap)
            out["rating"][p], out["choices"][p] = r, n
            out["play_s"][p], out["analysis_s"][p] = round(play_s, 3), round(analysis_s, 3)
    out["seconds"] = round(time.perf_counter() - start, 3)
    return out


def read_results(path: Path, settings: dict) -> dict[int, dict]:
    """The pulkas already done with these ``settings`` (a line cut short by a killed
    run, or written with other settings, is left out)."""
    done: dict[int, dict] = {}
    if path.exists():
        for line in path.read_text("utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and row.get("settings") == settings:
                done[row["pulka"]] = row
    return done


def _keep(jobs, results: Path, done: dict[int, dict], todo: int,
          log: Callable[[str], None]) -> None:
    """Append each pulka to ``results`` as it finishes (flushed to the disk) and print it."""
    start = time.perf_counter()
    with results.open("a", encoding="utf-8") as f:
        for k, row in enumerate(jobs, 1):
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())
            done[row["pulka"]] = row
            wall = time.perf_counter() - start
            log(f"pulka {row['pulka'] + 1} ({k}/{todo}, {wall:.0f} s, {wall / k:.1f} s a "
                "pulka): " + ", ".join(f"{p} {row['rating'][p]:.1f}" for p in PLAYERS)
                + f"; play {sum(row['play_s'].values()):.1f} s, analysis "
                  f"{sum(row['analysis_s'].values()):.1f} s")


def calibrate(table: Variant, pulkas: int = 12, deals: int = 10, rollout: int = 50,
              seed: int = 1000, *, workers: int | None = 1, results: Path | None = None,
              log: Callable[[str], None] = print) -> dict:
    """Play and analyse ``pulkas`` pulkas of every player at ``table`` (those already in
    ``results`` with the same settings kept) and sum them up: the cap, each player's
    mean rating and its standard error, their choices, and the players' order pulka by
    pulka. ``workers``: processes, one pulka each at a time (``None``: all cores)."""
    for name, value, least in (("pulkas", pulkas, 2), ("deals", deals, 1),
                               ("rollout", rollout, 1), ("workers", workers or 1, 1)):
        if value < least:
            raise OptionError(f"{name} must be at least {least}, got {value}")
    cap = decisive_trick(table)
    settings = {"variant": table.base, "players": table.players, "deals": deals,
                "rollout": rollout, "seed": seed, "version": __version__}
    results = results or RESULTS / (f"{table.base}-{table.players}-seed{seed}-deals{deals}"
                                    f"-rollout{rollout}.jsonl")
    results.parent.mkdir(parents=True, exist_ok=True)
    done = {j: r for j, r in read_results(results, settings).items() if j < pulkas}
    todo = [j for j in range(pulkas) if j not in done]
    log(f"{len(done)} of {pulkas} pulkas already in {results}; {len(todo)} to play on "
        f"{workers or 'all cores as'} worker(s)")
    jobs = Parallel(n_jobs=workers or -1, return_as="generator_unordered")(
        delayed(pulka)(j, settings, cap) for j in todo)
    try:
        _keep(jobs, results, done, len(todo), log)
    except KeyboardInterrupt:
        raise SystemExit(f"stopped: {len(done)} of {pulkas} pulkas kept in {results}; "
                         f"the same command continues") from None
    rows = [done[j] for j in range(pulkas)]
    a = {p: np.array([r["rating"][p] for r in rows]) for p in PLAYERS}
    order = {}
    for better, worse in (("pimc", "heuristic"), ("heuristic", "random")):
        gap = a[worse] - a[better]  # the same cards: paired by pulka
        order[f"{better}_vs_{worse}"] = {
            "better": float((gap > 0).mean()), "tied": float((gap == 0).mean()),
            "worse": float((gap < 0).mean()), "mean_gap": float(gap.mean()),
            "se": float(gap.std(ddof=1) / math.sqrt(len(gap)))}
    return {"variant": table.base, "players": table.players, "cap": cap,
            "mean": {p: float(a[p].mean()) for p in PLAYERS},
            "se": {p: float(a[p].std(ddof=1) / math.sqrt(len(a[p]))) for p in PLAYERS},
            "choices": {p: sum(r["choices"][p] for r in rows) for p in PLAYERS},
            "pulkas": pulkas, "deals": deals, "share_of_pulkas": order,
            "seconds_per_pulka": round(float(np.mean([r["seconds"] for r in rows])), 1),
            "play_s": {p: round(float(np.mean([r["play_s"][p] for r in rows])), 2)
                       for p in PLAYERS},
            "analysis_s": {p: round(float(np.mean([r["analysis_s"][p] for r in rows])), 2)
                           for p in PLAYERS}}


def shipped(table: Variant) -> Path:
    """Where the package keeps ``table``'s calibration."""
    return SHIPPED / rating_file(table)


def rating_toml(summary: dict, command: str) -> str:
    """The calibration file of a :func:`calibrate` summary, made by ``command``."""
    means = summary["mean"]
    edges = [(means["pimc"] + means["heuristic"]) / 2,
             (means["heuristic"] + means["random"]) / 2]
    lines = [f"# Written by {command}: the performance rating of a whole game,",
             f"# {summary['variant']} at {summary['players']} players.",
             "# cap: one decision's loss counts at most this (whists): one decisive trick of",
             "# the cheapest game (6 spades made against one down, both whisting).",
             "# scale: rating = scale x mean capped loss per real choice (whists per 100).",
             "# bands: midpoints between the calibrated players' mean ratings.",
             f'source = "{command}"', f'variant = "{summary["variant"]}"',
             f"players = {summary['players']}", f"cap = {summary['cap']!r}",
             f"scale = {SCALE!r}", ""]
    for name, top in zip(BANDS, [*edges, math.inf], strict=True):
        up_to = "inf" if top == math.inf else round(top, 3)
        lines += ["[[bands]]", f'name = "{name}"', f"up_to = {up_to}", ""]
    for p in PLAYERS:
        lines += [f"[calibration.{p}]", f"mean = {means[p]:.3f}", f"se = {summary['se'][p]:.3f}",
                  f"pulkas = {summary['pulkas']}", f"deals = {summary['deals']}",
                  f"choices = {summary['choices'][p]}", ""]
    return "\n".join(lines)
