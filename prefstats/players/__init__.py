"""Players: the protocol custom strategies implement, and the built-in players."""

from prefstats.players.base import BasePlayer, Observation, Player, RandomLegalPlayer
from prefstats.players.builtin import BuiltinPlayer
from prefstats.players.oracle import DoubleDummyPlayer

__all__ = ["BasePlayer", "BuiltinPlayer", "DoubleDummyPlayer", "Observation", "Player",
           "RandomLegalPlayer"]
