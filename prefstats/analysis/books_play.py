"""The books' misère and pulka figures played out by the project's players.

- :func:`misere_by_outs`: one-hole misères dealt by the project's dealing, grouped by
  their outs (:func:`outs`), each played against every talon (a block of
  :func:`~prefstats.sim.rollout.hand_deals`) with the first call forced to misère; the
  declarer's own discard, the catchers by the chosen model.
- :func:`hole_catch`: one hole kept after the discard (the rest of the hand clean), the
  talon's two cards discarded, played by the catchers' model: how often it is caught.
- :func:`pulka_figures`: whole pulkas: raspasy a pulka and the failed games by level.
"""

from __future__ import annotations

import numpy as np

from prefstats.game import engine
from prefstats.game.auction import PASS
from prefstats.game.cards import popcount
from prefstats.game.codes import Kind
from prefstats.game.contracts import LEVEL, MISERE
from prefstats.game.deal import deal
from prefstats.players.evaluate import SAFE
from prefstats.sim.play import play_hand
from prefstats.sim.pulka import play_pulkas
from prefstats.sim.rollout import hand_deals, rollout

#: Deals searched for one-hole hands at a time.
_SEARCH = 100_000
_ALL = 0xFFFFFFFF


def _unsafe_suits(hands: np.ndarray) -> np.ndarray:
    """How many suits of each hand are not :data:`SAFE` (misère holes)."""
    h = np.asarray(hands, dtype=np.int64)
    return sum((~SAFE[(h >> (8 * s)) & 0xFF]).astype(np.int64) for s in range(4))


def clean(hand: int) -> bool:
    """Whether every suit of ``hand`` is :data:`SAFE` (a misère without a hole)."""
    return not int(_unsafe_suits(np.array([hand]))[0])


def outs(hand: int) -> int:
    """The outs of a misère ``hand``: unseen cards that, found in the talon, make the
    hand clean with one discard (the talon's other card is the second discard).

    >>> from prefstats.game.cards import parse_cards
    >>> outs(parse_cards("♠7 ♣Q ♦AKQJ10987"))
    4
    """
    hand = int(hand)
    count = 0
    for c in range(32):
        if hand >> c & 1:
            continue
        more = hand | 1 << c
        if any(clean(more & ~(1 << d)) for d in range(32) if more >> d & 1):
            count += 1
    return count


def fixable(cards: int) -> bool:
    """Whether twelve ``cards`` (a hand and the talon) can discard two and be clean."""
    held = [c for c in range(32) if cards >> c & 1]
    kept = np.array([cards & ~(1 << a) & ~(1 << b) for i, a in enumerate(held)
                     for b in held[i + 1:]], dtype=np.int64)
    return bool((_unsafe_suits(kept) == 0).any())


def one_hole_hands(wanted: tuple[int, ...], count: int, *, seed: int,
                   max_deals: int = 20_000_000) -> dict[int, list[int]]:
    """Up to ``count`` first-hand hands of the seed's deal stream for each number of
    outs in ``wanted``: hands with exactly one hole, in the order dealt. Outs that no
    hand has within ``max_deals`` deals get fewer (none: the reading cannot give them)."""
    found: dict[int, list[int]] = {k: [] for k in wanted}
    start = 0
    while start < max_deals and any(len(v) < count for v in found.values()):
        hands = deal(_SEARCH, seed=seed, start=start).hands[:, 0]
        for hand in hands[_unsafe_suits(hands) == 1]:
            k = outs(int(hand))
            if k in found and len(found[k]) < count:
                found[k].append(int(hand))
        start += _SEARCH
    return found


def misere_by_outs(variant, hands: list[int], *, catchers: str, seed: int,
                   workers: int = 1, talons: int = 231) -> dict:
    """Each of ``hands`` at the first hand against ``talons`` talons (231: every talon
    once; fewer: the first of a block's random order), the rest dealt at random, the
    first call forced to misère: ``made``, ``n`` (misères played; a nine
    overcalling one is left out), the value in whists to the declarer (``mean``, ``se``)
    and, of the misères whose talon could not make the hand clean (:func:`fixable`),
    how many (``unfixed``) and how many of those were caught (``unfixed_caught``)."""
    values, unfixed = [], []
    for i, hand in enumerate(hands):
        deals = hand_deals(hand, 0, 1, seed=seed + i)[:talons]
        frame = rollout(variant, deals, seat=0, decision="first_call", options=["misere"],
                        seed=seed, workers=workers, misere_catchers=catchers)
        played = (frame["kind"] == "misere").to_numpy()
        values.append(frame["value"].to_numpy()[played])
        fixes = {int(t): fixable(hand | int(t)) for t in np.unique(deals.talon)}
        unfixed.append(np.array([not fixes[int(t)] for t in deals.talon[played]], dtype=bool))
    v = np.concatenate(values) if values else np.zeros(0)
    u = np.concatenate(unfixed) if unfixed else np.zeros(0, dtype=bool)
    se = float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")
    return {"made": int((v > 0).sum()), "n": len(v),
            "mean": float(v.mean()) if len(v) else float("nan"), "se": se,
            "unfixed": int(u.sum()), "unfixed_caught": int((v[u] < 0).sum())}


class _Scripted:
    """Bids misère at the declarer's seat and passes elsewhere; the declarer discards
    the talon. Plays open deals double dummy, so the driver plays the misère by the
    catchers' model."""

    double_dummy_open = True

    def __init__(self, seat: int, declarer: int, talon: int) -> None:
        self.call = MISERE if seat == declarer else PASS
        self.talon = talon

    def act(self, obs) -> int:
        if obs.phase_name == "auction":
            return self.call
        if obs.phase_name == "discard":
            return self.talon
        raise RuntimeError(f"unexpected {obs.phase_name} decision on a scripted misère")


def filler_hands(hole: int, count: int, *, seed: int) -> list[int]:
    """``count`` random clean hands completing ``hole`` (♠ rank bits) to ten cards with
    cards of the other three suits (each holding :data:`SAFE`)."""
    rng = np.random.default_rng(seed)
    need = 10 - popcount(hole)
    out: list[int] = []
    while len(out) < count:
        picks = rng.random((4096, 24)).argsort(axis=1)[:, :need]
        masks = (np.int64(1) << (picks + 8)).sum(axis=1)
        for m in masks[_unsafe_suits(masks) == 0][: count - len(out)]:
            out.append(int(m) | hole)
    return out


def hole_catch(variant, hole: int, *, lead: str, catchers: str, deals: int, seed: int,
               fillers: int = 8) -> tuple[int, int]:
    """(caught, played) of misères holding ``hole`` (♠ rank bits) and clean elsewhere,
    after the discard: the declarer is the first hand (``lead="own"``) or the second
    (``"theirs"``: the first hand, a catcher, leads), the other 22 cards dealt by the
    seed's stream, the talon's two cards discarded; ``fillers`` random clean rests
    share the deals."""
    declarer = 0 if lead == "own" else 1
    caught = played = 0
    rests = filler_hands(hole, fillers, seed=seed)
    for j, hand in enumerate(rests):
        fixed: list = [None, None, None]
        fixed[declarer] = hand
        size = deals // fillers + (j < deals % fillers)
        dealt = deal(size, seed=seed + j, fixed_hands=fixed)
        for hands, talon in zip(dealt.hands, dealt.talon, strict=True):
            players = [_Scripted(s, declarer, int(talon)) for s in range(3)]
            st = play_hand(hands, talon, players, variant, misere_catchers=catchers)
            caught += int(st["tricks"][declarer] > 0)
            played += 1
    return caught, played


def pulka_figures(variant, pulkas: int, *, seed: int, pool_target: int = 20) -> dict:
    """``raspasy`` a pulka (array), and the failed trick games by how far they fail:
    ``failed2`` games down two or more tricks and ``failed2_low`` those of level 6 or 7."""
    result = play_pulkas(variant, np.arange(pulkas), seed=seed, pool_target=pool_target,
                         with_deals=True)
    st = result["deal_states"]
    games = st[st["kind"] == int(Kind.GAME)]
    games = games[games["phase"] == engine.DONE]
    taken = games["tricks"][np.arange(len(games)), games["declarer"]]
    level = LEVEL[games["contract"]]
    down2 = taken <= level - 2
    return {"raspasy": result["raspasy"], "failed2": int(down2.sum()),
            "failed2_low": int((down2 & (level <= 7)).sum()), "games": len(games)}
