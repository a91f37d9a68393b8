"""Write examples/pulka.json and examples/pulka.txt: a short Sochi pulka played by the
built-in players through the Python driver, each deal recorded call by call and card
by card, with the sheet written after every deal and the final result.

The deals are the deal stream of ``--seed``; the first seed from there whose pulka (to
``--pool-target``, at most ``--deals`` deals) holds a misère and a raspasy is kept.

    python scripts/make_pulka_example.py [--deals 30] [--pool-target 10] [--seed 0]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from prefstats.analysis.game import (
    GameRecord,
    dump_game_json,
    dump_game_text,
    record_of_state,
    replay_game,
)
from prefstats.game import engine
from prefstats.game.deal import deal
from prefstats.game.scoring import ScoreSheet
from prefstats.game.variants import get_variant
from prefstats.players.builtin import BuiltinPlayer
from prefstats.sim.play import play_hand, seat_key

NAMES = ["Anna", "Boris", "Vera"]


class Recorded(BuiltinPlayer):
    """A built-in player that plays open deals card by card (so every card is in the
    history) and notes a lone whister's lay."""

    def __init__(self, lays: list[str]) -> None:
        super().__init__("heuristic")
        self.double_dummy_open = False
        self.lays = lays

    def act(self, obs) -> int:
        action = super().act(obs)
        if int(obs.phase) == engine.LAY:
            self.lays.append(("closed", "open")[action])
        return action


def tidy(figures):
    """Sheet figures as written: whole numbers without a decimal point."""
    if isinstance(figures, list):
        return [tidy(x) for x in figures]
    return int(figures) if float(figures).is_integer() else figures


def play_game(n: int, seed: int, pool_target: int | None) -> GameRecord:
    variant = get_variant("sochi")
    header = {"variant": "sochi", "names": NAMES}
    if pool_target is not None:
        header["pool_target"] = pool_target
    sheet = ScoreSheet(variant, pool_target)
    dealt = deal(n, seed=seed)
    deals = []
    for k in range(n):
        if sheet.finished:
            break
        lays: list[str] = []
        players = [Recorded(lays) for _ in range(3)]
        for s, p in enumerate(players):
            p.start_deal(seat_key(np.uint64(seed), dealt.index[k], s))
        st = play_hand(dealt.hands[k], dealt.talon[k], players, variant,
                       talon_first=dealt.talon_first[k], raspasy_step=sheet.raspasy_step,
                       sheet=sheet)
        deals.append({"deal": k + 1, **record_of_state(st, lays[0] if lays else None)})
        game = GameRecord(header, deals)
        sheet = replay_game(game).sheet  # the sheet the players see at the next deal
    score = replay_game(game)
    for d, s in zip(deals, score.scores, strict=True):
        d.update({k: tidy(v) for k, v in s.items()})
    game.header["result"] = [round(float(x), 2) for x in score.sheet.settle()]
    return game


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pool-target", type=int, default=None,
                        help="End the pulka when every pool holds it (at most --deals deals).")
    parser.add_argument("--out", default="examples/pulka")
    args = parser.parse_args()
    for seed in range(args.seed, args.seed + 50):
        game = play_game(args.deals, seed, args.pool_target)
        kinds = {engine.KINDS[int(f[0]["kind"])] for f in replay_game(game).finals}
        print(f"seed {seed}: {sorted(kinds)}")
        if {"misere", "raspasy"} <= kinds:
            break
    out = Path(args.out)
    whole = "a pulka" if replay_game(game).sheet.finished else \
        f"a pulka's first {len(game.deals)} deals"
    game.header["comment"] = (f"Sochi, {whole} played by the built-in heuristic players "
                              f"(scripts/make_pulka_example.py --deals {args.deals} "
                              f"--pool-target {args.pool_target} --seed {seed}); places 0, 1, "
                              f"2 are Anna, Boris, Vera, Vera deals first.")
    out.with_suffix(".json").write_text(dump_game_json(game), "utf-8")
    out.with_suffix(".txt").write_text(dump_game_text(game), "utf-8")


if __name__ == "__main__":
    main()
