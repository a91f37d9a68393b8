"""Scoring of RULES.md §7–§8: one deal's entries, the score sheet and the settlement.

Every rate comes from the :class:`~prefstats.game.variants.Variant`, through its
:meth:`~prefstats.game.variants.Variant.scoring_table`. A deal's scoring is computed once, by
the compiled kernel ``_kernels.deal_totals``, which trusts its inputs. The public
functions check theirs, then call it: :func:`score_batch` over arrays of deals,
:func:`score_states` over finished engine states, and :func:`game_entries`,
:func:`misere_entries` and :func:`raspasy_entries` for one deal, returning its entry
rows, which :class:`ScoreSheet` adds up (applying help when a closed pool overflows).

The package's private modules hold one concern each: ``_checks`` (input checks),
``_kernels`` (compiled totals), ``_entries`` (one deal's rows), ``_batch`` (arrays of
deals), ``_random`` (test data), ``_settle`` (settlement), ``_help`` (compiled help),
``_sheet`` (:class:`ScoreSheet`) and ``_files`` (a pulka from a file). Import from
``prefstats.game.scoring``; the kernels (``deal_totals``, ``state_totals``, ``apply_help``,
``preference_totals``, ``help_barred``, ``responsible_shortfall``, ``whisted_against``) are
importable there for compiled callers but are not part of the public API. Amounts are kept
in **half points** (``int64``), so they are exact: every rate is an integer (prices are
even) and only the gentleman split halves.

>>> from prefstats.game.variants import get_variant
>>> sheet = ScoreSheet(get_variant("sochi"))
>>> sheet.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "whist"})  # RULES.md §9.1
>>> sheet.mountain.tolist(), sheet.whists[:, 0].tolist()
([4.0, 0.0, 0.0], [0.0, 12.0, 8.0])
>>> sheet.value().round(2).tolist()
[-46.67, 25.33, 21.33]
>>> settle([0, 0, 0], [10, 20, 36], np.zeros((3, 3))).tolist()  # RULES.md §9.7
[120.0, 20.0, -140.0]

An entry row is ``(column, player, on, halves)``: ``column`` is ``POOL``, ``MOUNTAIN``
or ``WHIST``; ``on`` is the player written on for whists, -1 otherwise.

Readings of the Classic and Gusarik rules (RULES.md §10), all variant options:

- **Multiplier** (bombs, dark bids): every entry of a game or misère -- pool, mountain,
  trick whists, consolation, shortfall, a half-whist's whists, talon whists -- is
  multiplied; a raspasy never is. Multipliers multiply: an 8 (price 6) on a double
  bomb (x4) bid dark (x2) is worth 48 in the pool and 48 whists per defender trick. A
  raspasy's multiplier is a bomb raspasy's bomb (``bomb_level = "round"``): its rate a
  trick, 2, 4, 8, instead of the step's (B:398).
- **underbid_penalty**: in a played trick game a declarer who takes more tricks than
  his contract's level is set by the extra tricks: remise-rate mountain and, from each
  defender (and the 4-player dealer), consolation per extra trick; no pool. Trick
  whists and shortfall are as for a made game: the defenders did not set him, so
  ``gentleman`` sharing (which applies when the defence sets the contract) does not
  apply and each defender writes his own consolation. A game not played (passed, a
  standing half-whist) is credited as usual.
- **whist_responsibility = "full"**: every whister answers for the team's whole
  shortfall ``S = max(0, ob - k)``: a lone whister ``S`` (as under ``"quota"``), two
  whisters ``S`` each (instead of the personal quotas). A ``ten_checked`` 10 has no
  obligation either way.
- **talon_whists** (4 players): on every trick game whose talon was shown (played or
  not; never a contract without the talon, misère or raspasy) the sitting-out dealer
  writes ``whist rate x h`` on the declarer, where ``h`` (:func:`talon_honours`) is 3
  for two aces, else 2 for A+K of one suit, else 1 for an ace or K+Q of one suit.
- **2 players** (Gusarik): players 0 and 1; the dummy has no sheet. In a trick game the
  defender is the other player, who owns the dummy's tricks; his call is ``"whist"``
  (a lone whister: all the defence's trick whists and consolation are his, and he is
  liable for the whole shortfall; ``whist_split`` does not apply, as the dummy writes
  nothing), ``"pass"`` (not played, the declarer is credited) or, on a 6 or 7,
  ``"half"`` (not played, the declarer is credited and the defender writes half the
  obligation at the whist rate). Misère and raspasy are scored as for any table, over
  the two players; help never goes to a defender who whisted or left the tricks (B:317:
  "who whisted against him"), so a closed declarer's points then come off his mountain
  and the rest goes into the other player's.
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
from prefstats.game.scoring._kernels import deal_totals as deal_totals
from prefstats.game.scoring._kernels import state_totals as state_totals
from prefstats.game.scoring._kernels import talon_honours
from prefstats.game.scoring._random import random_outcomes
from prefstats.game.scoring._settle import deal_value, entry_totals, settle
from prefstats.game.scoring._sheet import Entry, ScoreSheet

__all__ = ["ScoreSheet", "deal_value", "load_pulka", "score_batch", "settle"]
