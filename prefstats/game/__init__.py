"""The game itself: cards, deals, contracts, the variants' rules, the auction, the
engine that plays a deal's tricks, and scoring.

Everything above (the solver, the players, simulation, analysis, reports) imports from
here; nothing here imports from above.
"""

from prefstats import _cache

# Every compiled module imports from here, so its functions find prefstats' cache; the
# registration waits for this first compiled import, keeping ``import prefstats`` light.
_cache.register()
