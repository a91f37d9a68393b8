"""Games cut from the example pulka, shared by the tests that analyse a game: a few of
its deals are a game of their own, quick to analyse."""

from __future__ import annotations

from pathlib import Path

from prefstats.analysis.game import load_game
from prefstats.analysis.game_record import GameRecord

EXAMPLE = Path(__file__).parents[1] / "examples" / "pulka.json"


def short_game(deals: list[int]) -> GameRecord:
    """The example's deals ``deals`` (from 1) as a game of their own."""
    game = load_game(EXAMPLE)
    kept = [{k: v for k, v in game.deals[d - 1].items()
             if k not in ("pool", "mountain", "whists")} | {"deal": n}
            for n, d in enumerate(deals, 1)]
    return GameRecord({"variant": "sochi", "names": game.names()}, kept)
