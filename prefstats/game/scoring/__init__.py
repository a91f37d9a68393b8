"""Scoring of RULES.md §7–§8: one deal's entries, the score sheet and the settlement.

Every rate comes from the :class:`~prefstats.game.variants.Variant` (its
:meth:`~prefstats.game.variants.Variant.scoring_table`); how each rule is scored, the
multipliers, house options and Gusarik's dummy table included, is RULES.md §7. A deal is
scored once, by the compiled ``_kernels.deal_totals``, which trusts its inputs; the
public functions check theirs, then call it. Amounts are kept in **half points**
(``int64``), exact: every rate is an integer and only the gentleman split halves. An
entry row is ``(column, player, on, halves)``: ``column`` is ``POOL``, ``MOUNTAIN`` or
``WHIST``; ``on`` is the player written on for whists, -1 otherwise.

One concern a private module: ``_checks``, ``_kernels``, ``_entries`` (one deal's rows),
``_batch``, ``_random`` (test data), ``_settle``, ``_help``, ``_sheet`` and ``_files``.
The kernels are importable here for compiled callers but are not public.

>>> from prefstats.game.variants import get_variant
>>> sheet = ScoreSheet(get_variant("sochi"))
>>> sheet.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "whist"})  # RULES.md §9.1
>>> sheet.mountain.tolist(), sheet.whists[:, 0].tolist()
([4.0, 0.0, 0.0], [0.0, 12.0, 8.0])
>>> sheet.value().round(2).tolist()
[-46.67, 25.33, 21.33]
>>> settle([0, 0, 0], [10, 20, 36], np.zeros((3, 3))).tolist()  # RULES.md §9.7
[120.0, 20.0, -140.0]
"""

from __future__ import annotations

import numpy as np  # the docstring's examples use it

from prefstats.game.codes import GAME as GAME
from prefstats.game.codes import MISERE_GAME as MISERE_GAME
from prefstats.game.codes import RASPASY as RASPASY
from prefstats.game.scoring._batch import OUTCOME_FIELDS, deal_values, score_batch, score_states
from prefstats.game.scoring._entries import (
    COLUMNS,
    MOUNTAIN,
    POOL,
    WHIST,
    game_entries,
    misere_entries,
    outcome_entries,
    raspasy_entries,
)
from prefstats.game.scoring._files import load_pulka, sheet_from_records
from prefstats.game.scoring._help import apply_help as apply_help
from prefstats.game.scoring._help import help_barred as help_barred
from prefstats.game.scoring._help import preference_totals as preference_totals
from prefstats.game.scoring._help import responsible_shortfall as responsible_shortfall
from prefstats.game.scoring._help import whisted_against as whisted_against
from prefstats.game.scoring._kernels import Outcome as Outcome
from prefstats.game.scoring._kernels import deal_totals as deal_totals
from prefstats.game.scoring._kernels import state_totals as state_totals
from prefstats.game.scoring._kernels import talon_honours
from prefstats.game.scoring._random import random_outcomes
from prefstats.game.scoring._settle import deal_value, entry_totals, settle
from prefstats.game.scoring._sheet import Entry, ScoreSheet

__all__ = ["ScoreSheet", "deal_value", "load_pulka", "score_batch", "settle"]
