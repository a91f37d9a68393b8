"""What the explorer computes: a deal's double-dummy table, a position of its best play,
and one hand's live rollout (a job)."""

from __future__ import annotations

from collections.abc import Generator, Sequence

import numpy as np

from prefstats.errors import CardError, OptionError
from prefstats.serve.inputs import STRAINS, strain

#: The first hand (the dealer's left) leads to the first trick, whatever the contract.
LEADER = 0
#: A deal to load the compiled code with: each hand a suit's eight cards and two more.
WARM_DEAL = [0xFF | 0x3 << 8, 0xFF << 16 | 0x3 << 10, 0xFF << 24 | 0x3 << 12]


def warm_worker() -> None:
    """Load what a job runs (the solver, a rollout's kernels) from numba's cache."""
    import numba  # noqa: F401  (before the job's threads import it)

    from prefstats.analysis.racing import race
    from prefstats.game.variants import get_variant
    from prefstats.sim.rollout import default_options

    dd_table(WARM_DEAL)
    rules = get_variant("sochi")
    for _ in race(rules, WARM_DEAL[0], 0, "first_call", default_options(rules, "first_call"),
                  deals=50, seed=1):
        pass


def dd_table(hands: Sequence[int]) -> dict:
    """Tricks each seat takes as declarer in each strain, and each seat's tricks as a
    misère declarer, with perfect play by all on the dealt hands (seat 0 leads)."""
    from prefstats.solver import solve_batch

    trumps = [None if s == "NT" else i for i, s in enumerate(STRAINS)]
    rows = [(d, t) for d in range(3) for t in trumps]
    table = np.array([hands] * len(rows), dtype=np.uint32)
    tricks = solve_batch(table, [t for _, t in rows], LEADER, [d for d, _ in rows])
    misere = solve_batch(table[:3], None, LEADER, [0, 1, 2], True)
    return {"tricks": {str(d): {s: int(tricks[d * len(STRAINS) + i])
                                for i, s in enumerate(STRAINS)} for d in range(3)},
            "misere": {str(d): int(misere[d]) for d in range(3)}}


def play_position(hands: Sequence[int], declarer: int, contract: str,
                  played: Sequence[str]) -> dict:
    """The position after ``played`` (card names, in order, from seat 0's lead) of the
    deal played by ``declarer`` in ``contract`` (a strain or ``misere``): the hands
    left, the current trick, the seat to move, the declarer's tricks so far and each
    legal card's double-dummy value (the declarer's tricks at the end of the hand)."""
    from prefstats.game.cards import N_CARDS, card_name, format_cards
    from prefstats.game.tricks import legal_cards, trick_winner
    from prefstats.solver import card_values

    if declarer not in (0, 1, 2):
        raise OptionError(f"declarer: a seat 0, 1 or 2, got {declarer}")
    misere = contract.strip().lower() in ("misere", "misère")
    trump = None if misere else strain(contract, "contract")
    index = {card_name(c): c for c in range(N_CARDS)}
    left, trick, leader, taken = list(hands), [], LEADER, 0
    for i, name in enumerate(played):
        card = index.get(name, -1)
        seat = (leader + len(trick)) % 3
        led = trick[0] >> 3 if trick else -1
        if card < 0 or not (legal_cards(left[seat], led, -1 if trump is None else trump)
                            >> card) & 1:
            raise CardError(f"played[{i}]: seat {seat} may not play {name!r} here")
        left[seat] &= ~(1 << card)
        trick.append(card)
        if len(trick) == 3:
            leader = (leader + trick_winner(*trick, -1 if trump is None else trump)) % 3
            taken += leader == declarer
            trick = []
    to_move = (leader + len(trick)) % 3
    values = {}
    if left[to_move]:
        got = card_values(left, trump=trump, leader=leader, declarer=declarer,
                          trick=trick, misere=misere)
        values = {card_name(c): taken + v for c, v in got.items()}
    return {"hands": [format_cards(h) for h in left], "trick": [card_name(c) for c in trick],
            "leader": leader, "to_move": to_move, "declarer_tricks": taken, "values": values}


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
