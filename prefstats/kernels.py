"""The compiled layer for numba callers: tier 2 of the public API.

Tier 1 (``import prefstats as ps`` and the modules of ``prefstats.PUBLIC``)
checks its input and works on Python and numpy values. This namespace gathers, in one
place, the compiled functions a user's own ``@numba.njit`` code may call, and the data
layouts they share:

- cards as masks (a card ``c = 8*suit + rank`` is bit ``c``): :func:`popcount`,
  :func:`lowest_card`, :func:`highest_card`, :func:`nth_card`; :func:`splitmix64`, the
  mixer that keys every random choice (a dataset's stream depends on it);
- one trick: :func:`legal_cards`, :func:`beats`, :func:`trick_winner`;
- the hand engine, a state machine over one :data:`STATE` record: :func:`reset`,
  :func:`apply`, :func:`legal_mask`, :func:`forced`, :func:`advance_forced`,
  :func:`observe` (into an :data:`OBSERVATION` record), :func:`replay_auction`; its
  phases :data:`AUCTION` … :data:`LAY` (names in :data:`PHASES`). Each takes the variant
  as ``rules``, a :data:`RulesArray` made once by :func:`rules_array` (a plain Python
  function) and read at the ``R_*`` indices;
- the double-dummy solver: :func:`new_table` (its :class:`Table`, made in Python:
  ``new_table(1).thread(0)``, whose ``nodes[0]`` counts the positions searched),
  :func:`solve_kernel`, :func:`card_values_kernel`, :func:`card_values_batch_kernel`,
  :func:`best_card_kernel`; the last three take the position as a :class:`Decision`
  (:func:`decision_of`: the trick on the table, its leader, the :class:`Game`).

The contract: these trust their inputs (a bad mask or state is undefined behaviour, not
an error) and stay stable within a minor version (0.4.x); a minor release may change
them, and says so in the changelog. They are the same objects as in their defining
modules, so numba compiles each once.

>>> import numba
>>> from prefstats import kernels as k
>>> @numba.njit
... def high_cards(mask):
...     return k.popcount(mask & 0xF0F0F0F0)  # ranks J Q K A of every suit
>>> high_cards(1 << 7 | 1 << 0)  # the ace and the seven of spades
1
>>> k.popcount(0b1011), k.lowest_card(0b1000)
(3, 3)
"""

from prefstats.game.cards import (
    highest_card,
    lowest_card,
    nth_card,
    popcount,
    splitmix64,
)
from prefstats.game.engine import (
    AUCTION,
    CONTRACT,
    DISCARD,
    DONE,
    LAY,
    N_RULES,
    OBSERVATION,
    PHASES,
    PLAY,
    R_BLIND_PASS,
    R_BOMB_RASPASY,
    R_DARK_BIDS,
    R_DARK_MISERE,
    R_DEALER_STAYS,
    R_DUMMY,
    R_FIRST_LEADS,
    R_HALF_WHIST,
    R_HOLD,
    R_JUMP,
    R_LAY_CHOICE,
    R_PLAYERS,
    R_RANK,
    R_STALINGRAD,
    R_TALON,
    R_TEN_CHECKED,
    R_THIRD_FIRST,
    STATE,
    WHIST,
    RulesArray,
    advance_forced,
    apply,
    forced,
    legal_mask,
    observe,
    replay_auction,
    reset,
    rules_array,
)
from prefstats.game.tricks import beats, legal_cards, trick_winner
from prefstats.solver import (
    Decision,
    Game,
    Table,
    best_card_kernel,
    card_values_batch_kernel,
    card_values_kernel,
    decision_of,
    game_of,
    new_table,
    solve_kernel,
)

__all__ = [
    "AUCTION", "CONTRACT", "DISCARD", "DONE", "LAY", "N_RULES", "OBSERVATION", "PHASES",
    "PLAY", "R_BLIND_PASS", "R_BOMB_RASPASY", "R_DARK_BIDS", "R_DARK_MISERE", "R_DEALER_STAYS",
    "R_DUMMY", "R_FIRST_LEADS", "R_HALF_WHIST", "R_HOLD", "R_JUMP", "R_LAY_CHOICE",
    "R_PLAYERS", "R_RANK", "R_STALINGRAD", "R_TALON", "R_TEN_CHECKED", "R_THIRD_FIRST",
    "STATE", "WHIST", "Decision", "Game", "RulesArray", "Table", "advance_forced", "apply",
    "beats", "best_card_kernel", "card_values_batch_kernel", "card_values_kernel",
    "decision_of", "forced", "game_of", "highest_card", "legal_cards", "legal_mask",
    "lowest_card", "new_table", "nth_card", "observe", "popcount", "replay_auction", "reset",
    "rules_array", "solve_kernel", "splitmix64", "trick_winner",
]
