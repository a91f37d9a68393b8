"""Calibrate the performance rating of a whole game (prefstats/analysis/game_stats.py):
write prefstats/analysis/data/rating.toml, the cap, the scale and the bands, from
simulated pulkas of the search player (pimc), the built-in heuristic and the random
player, each at all three places of its own pulkas.

The cap on one decision's loss is a rule figure, not a fit: what one decisive trick of
the cheapest game is worth to its declarer (6♠ made against 6♠ one down, both
defenders whisting), in whists of the variant's settlement. Each pulka is the first
``--deals`` deals of the seed's deal stream (pulka ``j`` of every player: seed
``--seed + j``, the same cards), analysed with ``--rollout`` rollout deals per call
decision; a pulka's rating is its three players' capped loss over their real choices.
The bands' edges are the midpoints between the players' mean ratings: ``strong`` up
to midway from search to heuristic, ``average`` up to midway from heuristic to random,
``beginner`` beyond. The script also prints, pulka by pulka (the same cards), how often the
search player rates better than the heuristic (or ties: the two differ only in the card
play of closed deals) and the heuristic better than random, and the mean gaps.

Pulkas run in parallel (``--workers`` processes, one pulka of all three players each)
and each is appended, as it finishes, to ``--results`` (one JSON line: its ratings,
choices and the seconds its play and its analysis took); a run stopped at any point
and started again with the same settings plays only the pulkas missing. The figures do
not depend on the workers. Almost all the time is the analysis's rollouts of the
calls (the play of the pulkas is a fraction of a second). A rollout depends on the seat,
its hand, the talon seen, the decision and its options -- not on the calls heard, which
only choose the deals that count -- so on the same cards the three players' games ask
mostly the same rollouts, made once (:func:`~prefstats.analysis.analyze.shared_rollouts`:
the same figures, the rollout deals and the rating unchanged).

    python scripts/calibrate_rating.py --pulkas 12 --deals 10 --rollout 50
    python scripts/calibrate_rating.py --pulkas 200 --deals 10 --check   # order only
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

import prefstats
from prefstats.analysis.analyze import shared_rollouts
from prefstats.analysis.game import analyze_game, play_game
from prefstats.analysis.game_stats import RatingScale, player_ratings
from prefstats.game.codes import GAME, W_WHIST
from prefstats.game.contracts import parse_contract
from prefstats.game.scoring import deal_values, score_batch
from prefstats.game.variants import get_variant
from prefstats.sim._workers import usable_cores

PLAYERS = ("pimc", "heuristic", "random")
BANDS = ("strong", "average", "beginner")
SCALE = 100.0  # whists per 100 decisions
OUT = Path(__file__).parents[1] / "prefstats" / "analysis" / "data" / "rating.toml"
RESULTS = Path.home() / ".cache" / "prefstats" / "calibrate_rating"


def decisive_trick(variant_name: str = "sochi") -> float:
    """Whists to the declarer between 6♠ made and 6♠ one down, both whisting."""
    v = get_variant(variant_name)
    six = parse_contract("6♠").code
    made, down = (deal_values(v, *score_batch(v, GAME, 0, six, [t], W_WHIST, W_WHIST))[0, 0]
                  for t in ([6, 2, 2], [5, 2, 3]))
    return float(made - down)


def pulka_rating(policy: str, seed: int, deals: int, rollout: int, scale: RatingScale
                 ) -> tuple[float, int, float, float]:
    """The rating of one pulka of ``policy`` at every place, its real choices, and the
    seconds its play and its analysis took."""
    start = time.perf_counter()
    game = play_game([policy] * 3, deals, seed=seed)
    played = time.perf_counter()
    frame = analyze_game(game, deals=rollout, seed=seed)
    r = player_ratings(frame, game.names(), scale)
    n = int(r["choices"].sum())
    return (scale.scale * float(r["capped_loss"].sum()) / max(n, 1), n, played - start,
            time.perf_counter() - played)


def pulka(j: int, settings: dict, scale: RatingScale) -> dict:
    """Pulka ``j`` of every player (seed ``seed + j``: the same cards), the rollouts its
    games have in common made once."""
    start = time.perf_counter()
    out: dict = {"settings": settings, "pulka": j, "rating": {}, "choices": {},
                 "play_s": {}, "analysis_s": {}}
    with shared_rollouts():
        for p in PLAYERS:
            r, n, play_s, analysis_s = pulka_rating(p, settings["seed"] + j, settings["deals"],
                                                    settings["rollout"], scale)
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


def _keep(jobs, results: Path, done: dict[int, dict], todo: int) -> None:
    """Append each pulka to ``results`` as it finishes (flushed to the disk) and print it."""
    start = time.perf_counter()
    with results.open("a", encoding="utf-8") as f:
        for k, row in enumerate(jobs, 1):
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())
            done[row["pulka"]] = row
            wall = time.perf_counter() - start
            print(f"pulka {row['pulka'] + 1} ({k}/{todo}, {wall:.0f} s, "
                  f"{wall / k:.1f} s a pulka): "
                  + ", ".join(f"{p} {row['rating'][p]:.1f}" for p in PLAYERS)
                  + f"; play {sum(row['play_s'].values()):.1f} s, analysis "
                    f"{sum(row['analysis_s'].values()):.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pulkas", type=int, default=12, help="Pulkas per player.")
    parser.add_argument("--deals", type=int, default=10, help="Deals per pulka.")
    parser.add_argument("--rollout", type=int, default=50,
                        help="Rollout deals per call decision.")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--check", action="store_true",
                        help="Only report the order of the players; write nothing.")
    parser.add_argument("--workers", type=int, default=usable_cores(),
                        help="Processes, one pulka each at a time (default: all cores).")
    parser.add_argument("--results", default=None,
                        help="The file of the pulkas done, one JSON line each, read first "
                             "and added to as pulkas finish (default: under "
                             "~/.cache/prefstats/calibrate_rating/).")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    cap = decisive_trick()
    scale = RatingScale(cap, SCALE, (("all", math.inf),), {}, "")
    settings = {"deals": args.deals, "rollout": args.rollout, "seed": args.seed,
                "version": prefstats.__version__}
    results = Path(args.results) if args.results else RESULTS / (
        f"seed{args.seed}-deals{args.deals}-rollout{args.rollout}.jsonl")
    results.parent.mkdir(parents=True, exist_ok=True)
    done = {j: r for j, r in read_results(results, settings).items() if j < args.pulkas}
    todo = [j for j in range(args.pulkas) if j not in done]
    print(f"{len(done)} of {args.pulkas} pulkas already in {results}; {len(todo)} to play "
          f"on {args.workers} worker(s)", flush=True)
    jobs = Parallel(n_jobs=args.workers, return_as="generator_unordered")(
        delayed(pulka)(j, settings, scale) for j in todo)
    try:
        _keep(jobs, results, done, len(todo))
    except KeyboardInterrupt:
        raise SystemExit(f"stopped: {len(done)} of {args.pulkas} pulkas kept in {results}; "
                         f"the same command continues") from None
    rows = [done[j] for j in range(args.pulkas)]
    ratings = {p: [r["rating"][p] for r in rows] for p in PLAYERS}
    choices = {p: sum(r["choices"][p] for r in rows) for p in PLAYERS}
    a = {p: np.array(ratings[p]) for p in PLAYERS}
    means = {p: float(a[p].mean()) for p in PLAYERS}
    ses = {p: float(a[p].std(ddof=1) / math.sqrt(len(a[p]))) if len(a[p]) > 1 else None
           for p in PLAYERS}
    order = {}
    for better, worse in (("pimc", "heuristic"), ("heuristic", "random")):
        gap = a[worse] - a[better]  # the same cards: paired by pulka
        order[f"{better}_vs_{worse}"] = {
            "better": float((gap > 0).mean()), "tied": float((gap == 0).mean()),
            "worse": float((gap < 0).mean()), "mean_gap": float(gap.mean()),
            "se": float(gap.std(ddof=1) / math.sqrt(len(gap))) if len(gap) > 1 else None}
    print(json.dumps({"cap": cap, "mean": means, "se": ses, "pulkas": args.pulkas,
                      "share_of_pulkas": order,
                      "seconds_per_pulka": round(float(np.mean([r["seconds"] for r in rows])),
                                                 1),
                      "play_s": {p: round(float(np.mean([r["play_s"][p] for r in rows])), 2)
                                 for p in PLAYERS},
                      "analysis_s": {p: round(float(np.mean([r["analysis_s"][p]
                                                             for r in rows])), 2)
                                     for p in PLAYERS}}, indent=1))
    if args.check:
        return
    edges = [(means["pimc"] + means["heuristic"]) / 2,
             (means["heuristic"] + means["random"]) / 2]
    command = (f"scripts/calibrate_rating.py --pulkas {args.pulkas} --deals {args.deals} "
               f"--rollout {args.rollout} --seed {args.seed}")
    lines = [f"# Written by {command}: the performance rating of a whole game.",
             "# cap: one decision's loss counts at most this (whists): one decisive trick of",
             "# the cheapest game (6 spades made against one down, both whisting, Sochi).",
             "# scale: rating = scale x mean capped loss per real choice (whists per 100).",
             "# bands: midpoints between the calibrated players' mean ratings.",
             f'source = "{command}"', f"cap = {cap!r}", f"scale = {SCALE!r}", ""]
    for name, top in zip(BANDS, [*edges, math.inf], strict=True):
        up_to = "inf" if top == math.inf else round(top, 3)
        lines += ["[[bands]]", f'name = "{name}"', f"up_to = {up_to}", ""]
    for p in PLAYERS:
        lines += [f"[calibration.{p}]", f"mean = {means[p]:.3f}",
                  f"se = {ses[p]:.3f}" if ses[p] is not None else "se = nan",
                  f"pulkas = {args.pulkas}", f"deals = {args.deals}",
                  f"choices = {choices[p]}", ""]
    Path(args.out).write_text("\n".join(lines), "utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
