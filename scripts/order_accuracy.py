"""How often the solver's move ordering tries a best card first, by kind of decision.

Positions come from the solver benchmark's seeded random deals (3 x 10 cards; trick
contracts with the declarer's longest suit as trumps, misère without; seat 0 leads)
played by random legal cards to 3-7
tricks left and 0-2 cards into a trick. For each, the solver values every legal card
(``card_values_kernel``); the ordering's first card (``_order_moves`` with no table hint,
killer or history, so its weights alone) counts as right when the side to move values
it best (ties included). The lowest legal card is the baseline in the same run. Rows:
misère and trick contracts x lead or second/third hand x declarer or defence, with the
tricks the first card loses on average.

The weights in ``prefstats/solver/_order.py`` were fitted (least squares within each
position, 30 points a trick) on positions where the search cut off, which this sample
only approximates; node counts (``scripts/bench_solver.py``) are the figure that
matters.

    .venv/bin/python scripts/order_accuracy.py --deals 20000
"""

from __future__ import annotations

import argparse

import numpy as np
from bench_solver import random_deals

from prefstats.game.cards import lowest_card
from prefstats.game.tricks import legal_cards, trick_winner
from prefstats.solver import decision_of, game_of, new_table
from prefstats.solver._order import _order_moves
from prefstats.solver._search import card_values_kernel


def _random_position(rng: np.random.Generator, deal: tuple[np.ndarray, int, int, int]):
    """A deal (hands, trump, leader, declarer from ``random_deals``) played at random to
    3-7 tricks left and 0-2 cards into a trick: (hands, trick, tlen, leader, declarer,
    trump)."""
    hands, trump, leader, declarer = deal
    hands = hands.astype(np.int64)
    plies = 3 * (10 - int(rng.integers(3, 8))) + int(rng.integers(3))
    trick = np.zeros(3, dtype=np.int64)
    tlen = 0
    for _ in range(plies):
        player = (leader + tlen) % 3
        legal = legal_cards(int(hands[player]), -1 if tlen == 0 else int(trick[0]) >> 3, trump)
        options = [c for c in range(32) if legal >> c & 1]
        c = options[int(rng.integers(len(options)))]
        hands[player] &= ~(1 << c)
        trick[tlen] = c
        tlen += 1
        if tlen == 3:
            leader = (leader + trick_winner(int(trick[0]), int(trick[1]), int(trick[2]),
                                            trump)) % 3
            tlen = 0
    return hands, trick, tlen, leader, declarer, trump


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000,
                        help="random positions of each kind of contract")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    table = new_table(1).thread(0)
    values = np.empty(32, dtype=np.int64)
    order = np.empty(10, dtype=np.int64)
    scratch = np.empty(10, dtype=np.int64)
    no_history = np.zeros(32, dtype=np.int64)
    print(f"{'kind':6} {'place':6} {'side':8} {'positions':>9}  ordering first: best  lost"
          "   lowest card: best  lost")
    for misere in (True, False):
        rows: dict[tuple[str, str], list[float]] = {}
        deals = random_deals(args.deals, args.seed, misere=misere)
        for i in range(args.deals):
            deal = tuple(col[i] for col in deals)
            hands, trick, tlen, leader, declarer, trump = _random_position(
                rng, (deal[0], int(deal[1]), int(deal[2]), int(deal[3])))
            player = (leader + tlen) % 3
            game = game_of(declarer, trump, misere)
            card_values_kernel(hands, decision_of(trick, tlen, leader, declarer, trump, misere),
                               table, values)
            legal = [c for c in range(32) if values[c] >= 0]
            if len({int(values[c]) for c in legal}) < 2:
                continue  # every card the same: nothing to order
            sign = 1 if (player == declarer) != misere else -1
            best = max(sign * values[c] for c in legal)
            _order_moves(hands, trick, tlen, leader, game, (-1, -1), (order, scratch),
                         no_history)
            low = lowest_card(sum(1 << c for c in legal))
            key = ("lead" if tlen == 0 else "follow",
                   "declarer" if player == declarer else "defence")
            rows.setdefault(key, []).append((best == sign * values[order[0]],
                                             best - sign * values[order[0]],
                                             best == sign * values[low],
                                             best - sign * values[low]))
        for (place, side), r in sorted(rows.items()):
            a = np.array(r, dtype=float)
            print(f"{'misère' if misere else 'trick':6} {place:6} {side:8} {len(a):9,}"
                  f"  {a[:, 0].mean():20.1%} {a[:, 1].mean():5.2f}"
                  f"  {a[:, 2].mean():18.1%} {a[:, 3].mean():5.2f}")


if __name__ == "__main__":
    main()
