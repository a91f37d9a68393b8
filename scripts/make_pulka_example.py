"""Write examples/pulka.json and examples/pulka.txt: a Sochi pulka played by built-in
players through the Python driver, each deal recorded call by call and card by card,
with the sheet written after every deal and the final result.

``--players`` gives each place's policy (``random``, ``heuristic``, ``pimc``: the
search player); the shipped example seats the three so that its analysis shows three
levels of play. The deals are the deal stream of ``--seed``; the first seed from there
whose pulka (to ``--pool-target``, at most ``--deals`` deals) holds a misère and a
raspasy is kept (with ``--exact``, also one that lasts all ``--deals`` deals).

    python scripts/make_pulka_example.py --deals 30 --pool-target 20 --exact \
        --players pimc,heuristic,random --seed 0
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prefstats.analysis.game import dump_game_json, dump_game_text, play_game, replay_game
from prefstats.game import engine

NAMES = ["Anna", "Boris", "Vera"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=30, help="Most deals of the pulka.")
    parser.add_argument("--exact", action="store_true",
                        help="Keep only a pulka that lasts all --deals deals.")
    parser.add_argument("--players", default="heuristic,heuristic,heuristic",
                        help="Each place's built-in policy, place 0 first.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pool-target", type=int, default=None,
                        help="End the pulka when every pool holds it (at most --deals deals).")
    parser.add_argument("--out", default="examples/pulka")
    args = parser.parse_args()
    policies = [p.strip() for p in args.players.split(",")]
    if len(policies) != 3:
        parser.error("--players: three policies, place 0 first")
    for seed in range(args.seed, args.seed + 50):
        game = play_game(policies, args.deals, seed=seed, pool_target=args.pool_target,
                         names=NAMES)
        kinds = {engine.KINDS[int(f[0]["kind"])] for f in replay_game(game).finals}
        print(f"seed {seed}: {len(game.deals)} deals, {sorted(kinds)}")
        if {"misere", "raspasy"} <= kinds and (not args.exact or len(game.deals) == args.deals):
            break
    out = Path(args.out)
    whole = "a pulka" if replay_game(game).sheet.finished else \
        f"a pulka's first {len(game.deals)} deals"
    seated = ", ".join(f"{n} {p}" for n, p in zip(NAMES, policies, strict=True))
    exact = " --exact" if args.exact else ""
    game.header["comment"] = (f"Sochi, {whole} played by built-in players ({seated}; "
                              f"scripts/make_pulka_example.py --deals {args.deals} "
                              f"--pool-target {args.pool_target}{exact} --players "
                              f"{args.players} --seed {seed}); places 0, 1, 2 are "
                              f"{', '.join(NAMES)}, {NAMES[2]} deals first.")
    out.with_suffix(".json").write_text(dump_game_json(game), "utf-8")
    out.with_suffix(".txt").write_text(dump_game_text(game), "utf-8")


if __name__ == "__main__":
    main()
