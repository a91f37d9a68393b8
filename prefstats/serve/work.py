"""What the explorer computes: a deal's double-dummy table, a position of its best play,
and one hand's live rollout (a job)."""

from __future__ import annotations

from collections.abc import Generator, Sequence

import numpy as np

from prefstats.errors import CardError, OptionError
from prefstats.serve.inputs import STRAINS, strain

#: A deal to load the compiled code with: each hand a suit's eight cards and two more.
WARM_DEAL = [0xFF | 0x3 << 8, 0xFF << 16 | 0x3 << 10, 0xFF << 24 | 0x3 << 12]
WARM_TALON = ~(WARM_DEAL[0] | WARM_DEAL[1] | WARM_DEAL[2]) & 0xFFFFFFFF


def warm_worker() -> None:
    """Load what a job runs (the solver, a rollout's kernels) from numba's cache."""
    import numba  # noqa: F401  (before the job's threads import it)

    from prefstats.analysis.racing import race
    from prefstats.game.variants import get_variant
    from prefstats.sim.rollout import default_options

    rules = get_variant("sochi")
    dd_table(WARM_DEAL, WARM_TALON, **table_rules(rules))
    for _ in race(rules, WARM_DEAL[0], 0, "first_call", default_options(rules, "first_call"),
                  deals=50, seed=1):
        pass


def table_rules(rules) -> dict:
    """What the double-dummy table takes from the variant: the first hand, who leads
    trick 1 (seat 0, or Gusarik's dummy), and the seats that may declare."""
    from prefstats.game.auction import dummy_seat
    from prefstats.game.engine import R_FIRST_HAND, rules_array

    dummy = dummy_seat(rules)
    return {"leader": int(rules_array(rules)[R_FIRST_HAND]),
            "declarers": [s for s in range(3) if s != dummy]}


def discards(cards: int) -> list[int]:
    """The two-card discards from ``cards`` (the declarer's twelve) that can differ
    double dummy, as masks: with every card of the deck in play, cards of one run (a
    suit's touching ranks) are alike, so one pair a choice of runs."""
    from prefstats.game.cards import cards_of

    runs: list[list[int]] = []
    for c in sorted(cards_of(cards)):
        if runs and c == runs[-1][-1] + 1 and c >> 3 == runs[-1][-1] >> 3:
            runs[-1].append(c)
        else:
            runs.append([c])
    pairs = [1 << a[0] | 1 << b[0] for i, a in enumerate(runs) for b in runs[i + 1:]]
    return pairs + [1 << run[0] | 1 << run[1] for run in runs if len(run) > 1]


def _contracts() -> list[tuple[str, int | None, bool]]:
    """The table's columns: each strain (trump index, ``None`` for NT), then misère."""
    return [(s, None if s == "NT" else i, False) for i, s in enumerate(STRAINS)] + \
        [("misere", None, True)]


def dd_table(hands: Sequence[int], talon: int, *, leader: int,
             declarers: Sequence[int]) -> dict:
    """The deal's double-dummy table: for each seat in ``declarers`` and each strain, the
    tricks he takes with perfect play by all after taking the ``talon`` and discarding
    the two cards best for him; on misère, the fewest he can be held to. ``leader``
    leads trick 1. Each cell's discard is given too."""
    from prefstats.game.cards import format_cards
    from prefstats.solver import solve_batch

    rows, cells = [], []
    for d in declarers:
        pairs = discards(hands[d] | talon)
        for name, trump, misere in _contracts():
            cells.append((d, name, misere, pairs, len(rows)))
            for pair in pairs:
                dealt = list(hands)
                dealt[d] = (hands[d] | talon) & ~pair
                rows.append((dealt, trump, misere, d))
    tricks = solve_batch(np.array([r[0] for r in rows], dtype=np.uint32),
                         [r[1] for r in rows], leader, [r[3] for r in rows],
                         np.array([r[2] for r in rows]))
    out: dict = {"tricks": {}, "misere": {}, "discards": {}, "leader": leader}
    for d, name, misere, pairs, first in cells:
        got = tricks[first:first + len(pairs)]
        best = int(np.argmin(got) if misere else np.argmax(got))
        if misere:
            out["misere"][str(d)] = int(got[best])
        else:
            out["tricks"].setdefault(str(d), {})[name] = int(got[best])
        out["discards"].setdefault(str(d), {})[name] = format_cards(pairs[best])
    return out


def play_position(hands: Sequence[int], talon: int, declarer: int, contract: str,
                  played: Sequence[str], *, leader: int, declarers: Sequence[int]) -> dict:
    """The position after ``played`` (card names, in order, from ``leader``'s lead) of
    the deal played by ``declarer`` in ``contract`` (a strain or ``misere``), after he
    took the talon and made the table's discard: the hands left, the current trick, the
    seat to move, the declarer's tricks so far and each legal card's double-dummy value
    (the declarer's tricks at the end of the hand)."""
    from prefstats.game.cards import N_CARDS, card_name, format_cards, parse_cards
    from prefstats.game.tricks import legal_cards, trick_winner
    from prefstats.solver import card_values

    if declarer not in declarers:
        raise OptionError(f"declarer: one of the seats {', '.join(map(str, declarers))} "
                          f"in this variant, got {declarer}")
    misere = contract.strip().lower() in ("misere", "misère")
    trump = None if misere else strain(contract, "contract")
    column = "misere" if misere else STRAINS[4 if trump is None else trump]
    table = dd_table(hands, talon, leader=leader, declarers=[declarer])
    discard = parse_cards(table["discards"][str(declarer)][column])
    index = {card_name(c): c for c in range(N_CARDS)}
    left = list(hands)
    left[declarer] = (hands[declarer] | talon) & ~discard
    trick: list[int] = []
    first, taken = leader, 0
    for i, name in enumerate(played):
        card = index.get(name, -1)
        seat = (first + len(trick)) % 3
        led = trick[0] >> 3 if trick else -1
        if card < 0 or not (legal_cards(left[seat], led, -1 if trump is None else trump)
                            >> card) & 1:
            raise CardError(f"played[{i}]: seat {seat} may not play {name!r} here")
        left[seat] &= ~(1 << card)
        trick.append(card)
        if len(trick) == 3:
            first = (first + trick_winner(*trick, -1 if trump is None else trump)) % 3
            taken += first == declarer
            trick = []
    to_move = (first + len(trick)) % 3
    values = {}
    if left[to_move]:
        got = card_values(left, trump=trump, leader=first, declarer=declarer,
                          trick=trick, misere=misere)
        values = {card_name(c): taken + v for c, v in got.items()}
    return {"hands": [format_cards(h) for h in left], "trick": [card_name(c) for c in trick],
            "leader": first, "to_move": to_move, "declarer_tricks": taken,
            "discard": format_cards(discard), "values": values}


def rollout_work(rules, hand: int, seat: int, decision: str, options: Sequence[str], *,
                 deals: int, seed: int, talon: int | None, describe: dict
                 ) -> Generator[tuple[float, dict], None, dict]:
    """One hand's rollout as a job: after each round its progress (deals played over
    ``deals``) and the summary so far; its result is ``prefstats rollout``'s JSON."""
    from prefstats.analysis.racing import race
    from prefstats.game.cards import format_cards

    result, played, ok = None, 0, 0
    for step in race(rules, hand, seat, decision, options, deals=deals, seed=seed,
                     talon=talon):
        played, result, ok = step
        yield played / deals, {**(result or {}), "deals": played}
    if result is None:
        raise OptionError(f"hand: the decision was reached with every option legal on {ok} "
                          f"of {played:,} deals; too few to compare")
    return {**result, "deals": played, "hand": format_cards(hand), "seat": seat,
            "decision": decision, "policy": "heuristic", "misere_catchers": "hidden",
            "talon": format_cards(talon) if talon is not None else None, **describe}
