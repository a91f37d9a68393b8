"""The layouts a player could not rule out at a decision of a played deal, and each of
his options valued over them double dummy: what he could have known, against what only
hindsight (the one real layout) shows.

At a card, the layouts are drawn exactly uniformly from those consistent with what the
deciding seat sees (:func:`~prefstats.players.knowledge.sample_worlds`, PIMC's sampler:
his own cards, an open hand, the talon if shown -- a whister never sees the discard --
the cards played and the suits shown void), then kept only where the continuation
policy, holding the layout's cards, makes every call the other players made before the
decision (their calls, the contract named and the whist calls; a seat whose cards the
player sees is not asked). At the discard, the same for the declarer holding the talon:
the two other hands, kept where they make the calls of the auction. Draws go on in
rounds of :data:`ROUND` until :data:`LAYOUTS` are kept. When :data:`MAX_DRAWN` draws
keep fewer, the calls of the seat the fewest layouts agree with are not asked (a call
the policy does not make with such cards -- a random player's -- says nothing the model
can read), and so on; a seat whose calls no layout made is not asked again at the later
cards of the deal. Each kept layout is solved for every option
(:func:`~prefstats.solver.card_values_batch`; a discard's 66 pairs are first screened
on :data:`SCREEN` layouts).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from prefstats.analysis.record import Step
from prefstats.game import engine
from prefstats.game.cards import FULL_DECK, cards_of
from prefstats.game.contracts import TRUMP
from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import Variant
from prefstats.players.builtin import POLICIES, decide, default_tables, resolve_params
from prefstats.players.knowledge import Knowledge, knowledge_of, sample_worlds
from prefstats.solver import card_values_batch, solve_batch

#: Layouts a decision is valued over.
LAYOUTS = 64
#: Layouts drawn in a round, and at most, while fewer than :data:`LAYOUTS` are kept.
ROUND = 128
MAX_DRAWN = 1024
#: Layouts every pair of a discard is solved on before the best few go on to all of them.
SCREEN = 8
#: The pairs of a discard, besides the one made, valued over all the layouts.
SCREENED_PAIRS = 4
#: Standard errors a loss over the layouts must reach for a mistake to be knowable.
KNOWABLE_SE = 3.0


@dataclass(frozen=True)
class Layouts:
    """One decision's options valued over its layouts: ``worlds`` ``(n, 3)`` the hands
    each seat holds in them, ``options`` (indices into the caller's list), ``tricks``
    ``(n, len(options))`` the declarer's tricks in the deal after each, ``drawn`` the
    layouts drawn and ``kept`` those that made the calls (None: no call checked);
    ``ignored`` the seats whose calls were not checked (the policy made them too rarely
    with such cards)."""

    worlds: np.ndarray
    options: list[int]
    tricks: np.ndarray
    drawn: int
    kept: int | None
    ignored: tuple[int, ...]


def _bits(masks: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(masks, dtype=np.int64))


# ---- whists ---------------------------------------------------------------------------


def tricks_to_whists(variant: Variant, final: np.ndarray, declarer_tricks, *, defender: int,
                     taken: np.ndarray) -> np.ndarray:
    """Each seat's value in whists ``(k, players)`` of the recorded deal ``final`` (a
    one-element finished state) had the declarer taken ``declarer_tricks`` (k values).
    The solver counts the declarer's tricks against the defence as one side; the
    difference from the record is taken from (or given to) ``defender`` -- the defender
    whose card is valued -- and, once he is down to the ``taken`` tricks he had already
    won, from his partner. Split rules that pay each whister for his own tricks thus
    charge the seat that played the card."""
    decl = int(final[0]["declarer"])
    other = 3 - decl - defender
    recorded = final[0]["tricks"][:3].astype(np.int64)
    states = np.repeat(final, len(declarer_tricks))
    for i, t in enumerate(declarer_tricks):
        tricks = recorded.copy()
        delta = int(t) - tricks[decl]
        tricks[decl] = t
        mine = min(delta, tricks[defender] - int(taken[defender])) if delta > 0 else delta
        tricks[defender] -= mine
        tricks[other] -= delta - mine
        states[i]["tricks"][:3] = tricks
    return deal_values(variant, *score_states(variant, states))


def defender(step_state: np.ndarray, final: np.ndarray, plays_for: int) -> int:
    """The defender charged with a trick's change: the one playing, or when the declarer
    plays, the one who went on to take more tricks (the left one on a tie)."""
    decl = int(final[0]["declarer"])
    if plays_for != decl:
        return plays_for
    left, right = (decl + 1) % 3, (decl + 2) % 3
    later = final[0]["tricks"][:3].astype(int) - step_state[0]["tricks"][:3].astype(int)
    return right if later[right] > later[left] else left


def side(variant: Variant, final: np.ndarray, seat: int) -> list[int]:
    """The seats of ``seat``'s side in the played deal: the declarer alone, or the
    defence (every active seat but the declarer; Gusarik's dummy is its player's)."""
    decl = int(final[0]["declarer"])
    if seat == decl:
        return [decl]
    return [s for s in range(min(variant.players, 3)) if s != decl]


def side_whists(step: Step, variant: Variant, final: np.ndarray,
                tricks: np.ndarray) -> np.ndarray:
    """Whists to the deciding seat's side (:func:`side`) had the declarer taken
    ``tricks`` (any shape) from ``step`` on, in the shape of ``tricks``."""
    values, where = np.unique(np.asarray(tricks, dtype=np.int64), return_inverse=True)
    st = step.state
    whists = tricks_to_whists(variant, final, values, taken=st[0]["tricks"],
                              defender=defender(st, final, step.plays_for))
    return whists[:, side(variant, final, step.seat)].sum(axis=1)[where].reshape(
        np.shape(tricks))


# ---- layouts --------------------------------------------------------------------------


class _Calls:
    """The other players' recorded calls before a decision, seat by seat, and a check of
    candidate deals against them: the ``policy`` with the deal's cards calls the same."""

    def __init__(self, steps: list[Step], before: int, seats: set[int], variant: Variant,
                 policy: str) -> None:
        mine = [s for s in steps[:before] if s.seat in seats
                and s.phase in (engine.AUCTION, engine.CONTRACT, engine.WHIST)
                and s.legal & (s.legal - 1)]
        self.by_seat = {seat: [s for s in mine if s.seat == seat]
                        for seat in sorted({s.seat for s in mine})}
        self.rules = engine.rules_array(variant)
        self.code = POLICIES.index(policy)
        self.params = resolve_params(policy)
        self.tables = default_tables(policy, variant)
        self.obs = np.zeros(1, dtype=engine.OBSERVATION)

    def made(self, dealt: np.ndarray, talon: np.ndarray, discard: np.ndarray,
             first: int) -> dict[int, np.ndarray]:
        """Per seat, which candidate deals (``dealt`` ``(n, 3)`` as dealt, their talons
        and discards) make every recorded call of his; ``first`` numbers the first for
        the policy's random choices."""
        out = {}
        for seat, steps in self.by_seat.items():
            ok = np.ones(len(dealt), dtype=bool)
            for j in range(len(dealt)):
                for step in steps:
                    x = step.state.copy()[0]
                    x["dealt"][:3] = dealt[j]
                    x["talon"] = talon[j]
                    x["hands"][:3] = dealt[j]
                    if step.phase != engine.AUCTION:  # after the discard
                        decl = int(x["declarer"])
                        x["hands"][decl] = (int(dealt[j, decl]) | int(talon[j])) \
                            & ~int(discard[j])
                        x["discard"] = discard[j]
                    engine.observe(x, self.rules, self.obs[0])
                    if int(decide(self.code, self.obs[0], self.rules, self.params,
                                  self.tables, np.uint64(first + j))) != step.action:
                        ok[j] = False
                        break
            out[seat] = ok
        return out


def _draw(k: Knowledge, calls: _Calls, dealt_of, seed: int, never: set[int]
          ) -> tuple[np.ndarray, int, int | None, tuple[int, ...]]:
    """The layouts of a decision (see the module): ``(worlds, drawn, kept, ignored)``,
    ``ignored`` the seats whose calls the kept layouts need not make: those of
    ``never`` (seats whose calls no layout made at an earlier decision of the deal,
    added to as found), then, when too few layouts make every call, the seat whose calls
    the fewest made, and so on."""
    seats = [s for s in calls.by_seat if s not in never]
    if not seats:
        return sample_worlds(k, LAYOUTS, seed), LAYOUTS, None, tuple(sorted(calls.by_seat))
    worlds: list[np.ndarray] = []
    masks: list[dict[int, np.ndarray]] = []
    drawn = 0

    def kept(used) -> np.ndarray:
        return np.concatenate([np.logical_and.reduce([m[s] for s in used]) for m in masks])

    while drawn < MAX_DRAWN and (not masks or kept(seats).sum() < LAYOUTS):
        w = sample_worlds(k, ROUND, seed, start=drawn)
        worlds.append(w)
        masks.append(calls.made(*dealt_of(w), first=drawn))
        drawn += ROUND
    every = np.concatenate(worlds)
    rate = {s: float(np.mean(np.concatenate([m[s] for m in masks]))) for s in seats}
    never.update(s for s in seats if rate[s] == 0)
    used = sorted(seats, key=lambda s: -rate[s])
    while used and kept(used).sum() < LAYOUTS:
        used.pop()  # the seat whose calls the fewest layouts make
    ignored = tuple(sorted(set(calls.by_seat) - set(used)))
    if not used:
        return every[:LAYOUTS], drawn, None, ignored
    ok = kept(used)
    return every[ok][:LAYOUTS], drawn, int(ok.sum()), ignored


def _unseen_seats(k: Knowledge) -> set[int]:
    """The seats holding cards the player cannot see."""
    return {s for s in range(3) if int(k.held[s]).bit_count() < k.counts[s]}


def card_layouts(steps: list[Step], i: int, variant: Variant, options: list[int], *,
                 seed: int, policy: str, never: set[int] | None = None) -> Layouts:
    """The legal cards ``options`` of the card decision ``steps[i]`` over its layouts
    (``never``: as :func:`_draw` has it, kept from decision to decision of the seat)."""
    never = set() if never is None else never
    step = steps[i]
    rules = engine.rules_array(variant)
    obs = np.zeros(1, dtype=engine.OBSERVATION)
    engine.observe(step.state.copy()[0], rules, obs[0])
    k = knowledge_of(obs[0])
    x = step.state[0]
    decl = int(x["declarer"])
    gone = int(x["gone"])
    played_by = np.array([int(b) for b in x["played_by"][:3]], dtype=np.int64)
    shown = int(obs[0]["talon"])
    taken = not bool(x["no_talon"])

    def dealt_of(worlds: np.ndarray):
        pre = worlds | played_by  # each hand before the first card
        oop = FULL_DECK & ~(worlds[:, 0] | worlds[:, 1] | worlds[:, 2]) & ~gone
        dealt = pre.copy()
        if taken:
            talon = np.full(len(worlds), shown, dtype=np.int64)
            dealt[:, decl] = (pre[:, decl] | oop) & ~talon
            return dealt, talon, oop
        return dealt, oop, np.zeros(len(worlds), dtype=np.int64)

    seats = _unseen_seats(k)
    if taken and int(shown).bit_count() < 2:
        seats = set()  # a hidden talon taken: the declarer's hand as dealt is unknown
    calls = _Calls(steps, i, seats - {step.seat}, variant, policy)
    worlds, drawn, kept, ignored = _draw(k, calls, dealt_of, seed, never)
    trump = int(TRUMP[int(x["contract"])])
    misere = int(x["kind"]) == engine.MISERE_GAME
    trick = [int(c) for c in x["trick_cards"][: int(x["n_in_trick"])]]
    values = card_values_batch(worlds, trump=None if trump < 0 else trump,
                               leader=int(x["leader"]), declarer=decl, trick=trick,
                               misere=misere)
    tricks = int(x["tricks"][decl]) + values[:, options].astype(np.int64)
    return Layouts(worlds, list(range(len(options))), tricks, drawn, kept, ignored)


def discard_pairs(hand: int) -> list[int]:
    """Every pair of cards of ``hand`` the declarer may put away, in a fixed order."""
    return [(1 << a) | (1 << b) for a, b in combinations(cards_of(hand), 2)]


def discard_layouts(steps: list[Step], i: int, variant: Variant, final: np.ndarray,
                    done: int, *, seed: int, policy: str,
                    never: set[int] | None = None) -> Layouts:
    """The pairs of the discard ``steps[i]`` (:func:`discard_pairs`; ``done`` the index
    of the one put away) over the declarer's layouts, under the recorded contract: all
    of them on :data:`SCREEN` layouts, then the :data:`SCREENED_PAIRS` best there and
    the one put away on all (``never`` as in :func:`card_layouts`)."""
    never = set() if never is None else never
    step = steps[i]
    x = step.state[0]
    decl = int(x["declarer"])
    hand = int(x["hands"][decl])
    others = [(decl + 1) % 3, (decl + 2) % 3]
    held = [0, 0, 0]
    held[decl] = hand
    counts = [10, 10, 10]
    counts[decl] = hand.bit_count()
    k = Knowledge(seat=decl, held=(held[0], held[1], held[2]),
                  counts=(counts[0], counts[1], counts[2]))
    dealt_decl = int(x["dealt"][decl])
    talon = int(x["talon"])

    def dealt_of(worlds: np.ndarray):
        dealt = worlds.copy()
        dealt[:, decl] = dealt_decl
        n = len(worlds)
        return dealt, np.full(n, talon, dtype=np.int64), np.zeros(n, dtype=np.int64)

    calls = _Calls(steps, i, set(others), variant, policy)
    worlds, drawn, kept, ignored = _draw(k, calls, dealt_of, seed, never)
    pairs = discard_pairs(hand)
    misere = int(final[0]["kind"]) == engine.MISERE_GAME
    trump = int(TRUMP[int(final[0]["contract"])])
    leader = int(engine.rules_array(variant)[engine.R_FIRST_HAND])

    def solved(rows: np.ndarray, chosen: list[int]) -> np.ndarray:
        """Declarer's tricks ``(len(rows), len(chosen))`` with each chosen pair away."""
        hands = np.repeat(rows[:, None, :], len(chosen), axis=1).copy()
        hands[:, :, decl] = hand & ~np.array([pairs[c] for c in chosen], dtype=np.int64)
        flat = solve_batch(hands.reshape(-1, 3), None if misere or trump < 0 else trump,
                           leader, decl, misere, threads=1)
        return flat.astype(np.int64).reshape(len(rows), len(chosen))

    screen = solved(worlds[:SCREEN], list(range(len(pairs))))
    sign = -1 if misere else 1
    order = np.argsort(-sign * screen.mean(axis=0), kind="stable")
    chosen = sorted({*order[:SCREENED_PAIRS].tolist(), done})
    tricks = np.concatenate([screen[:, chosen], solved(worlds[SCREEN:], chosen)])
    return Layouts(worlds, chosen, tricks, drawn, kept, ignored)


def layout_fields(layouts: Layouts, names: list[str], whists: np.ndarray, done: str,
                  dd_loss: float, equal: float) -> dict:
    """The columns a row gets from its options' ``whists`` ``(n, len(options))`` to the
    deciding side over the layouts: their count and how they were drawn, the best option
    on average, the loss of the one ``done`` and its paired standard error, and the
    ``verdict``: ``knowable`` when that loss is above ``equal`` and at least
    :data:`KNOWABLE_SE` standard errors, else ``hindsight`` when double dummy
    (``dd_loss``) sees a loss, else none; ``charged`` is the knowable loss (else 0)."""
    options = [names[o] for o in layouts.options]
    mean = whists.mean(axis=0)
    d = options.index(done)
    best = int(np.argmax(mean))
    if mean[d] >= mean[best] - equal:
        best = d
    n = len(whists)
    diff = whists[:, best] - whists[:, d]
    loss = float(diff.mean())
    se = float(diff.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    knowable = loss > equal and loss >= KNOWABLE_SE * se
    verdict = "knowable" if knowable else "hindsight" if dd_loss > equal else None
    made = (f"{layouts.kept} of {layouts.drawn} drawn made the other players' calls"
            if layouts.kept is not None else "consistent with the cards seen")
    if layouts.ignored:
        made += (f"; the calls of seat {', '.join(map(str, layouts.ignored))} not asked: "
                 f"too few layouts made them")
    return {"layouts": n, "layout_best": options[best], "layout_value_done": float(mean[d]),
            "layout_value_best": float(mean[best]), "layout_loss": loss,
            "layout_loss_se": se, "verdict": verdict, "charged": loss if knowable else 0.0,
            "layout_alternatives": [{"option": o, "value": float(v)}
                                    for o, v in zip(options, mean, strict=True)],
            "layout_note": f"{n} layouts ({made})"}
