"""The players' fast paths equal their plain definitions: possible_cards by bit operations,
the engine's auction replayed once a call with the calls it already checked trusted."""

import numpy as np
import pytest
from test_cardplay import _positions

from prefstats.game import engine
from prefstats.game.cards import SUIT_MASKS
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players.cardplay import possible_cards
from prefstats.sim.play import new_state


def _reference_possible(obs, skip, count=True):
    """possible_cards' docstring, step by step in Python (``count``: with the counting)."""
    seen = int(obs["visible"][0]) | int(obs["visible"][1]) | int(obs["visible"][2])
    gone = int(obs["gone"])
    out = int(obs["discard"])
    if obs["kind"] == engine.RASPASY:
        out |= int(obs["talon"]) & ~gone
    pool = 0xFFFFFFFF & ~gone & ~seen & ~out
    poss, hidden = [0, 0, 0], [False, False, False]
    for s in range(3):
        if s == skip:
            continue
        if s == obs["seat"] or obs["visible"][s]:
            poss[s] = int(obs["visible"][s])
            continue
        hidden[s] = True
        poss[s] = pool
        if obs["kind"] != engine.RASPASY and s != obs["declarer"]:
            poss[s] &= ~int(obs["talon"])
        for suit in range(4):
            if int(obs["voids"][s]) >> suit & 1:
                poss[s] &= ~SUIT_MASKS[suit]
    pair = [s for s in range(3) if hidden[s]]
    if count and len(pair) == 2:
        a, b = pair
        left = [10 - bin(int(obs["played_by"][s])).count("1") for s in pair]
        if pool.bit_count() == sum(left):
            only_a, only_b = poss[a] & ~poss[b], poss[b] & ~poss[a]
            if only_a.bit_count() == left[0]:
                poss[a], poss[b] = only_a, poss[b] & ~only_a
            elif only_b.bit_count() == left[1]:
                poss[a], poss[b] = poss[a] & ~only_b, only_b
    return tuple(poss), tuple(hidden)


@pytest.mark.parametrize(("name", "closed"), [("sochi", True), ("sochi", False),
                                              ("gusarik", False), ("leningrad", True)])
def test_possible_cards_equal_their_definition(name, closed):
    """On every card decision of played deals (closed games with the declarer's counting,
    raspasy with the turned talon, Gusarik's dummy sitting out)."""
    checked = counted = 0
    for _, obs, rules in _positions(get_variant(name), deal(60, seed=12), closed):
        skip = int(rules[engine.R_DUMMY]) if obs["kind"] == engine.RASPASY else -1
        poss, hidden = possible_cards(obs, skip)
        want = _reference_possible(obs, skip)
        assert (tuple(int(p) for p in poss), tuple(bool(h) for h in hidden)) == want
        checked += 1
        counted += want != _reference_possible(obs, skip, count=False)
    assert checked > 500
    assert counted > 0 or name == "gusarik"  # one hidden seat there: nothing to count


def _auctions(variant, n):
    """Every auction state of ``n`` deals with the calls of the players' random policy
    (illegal ones tried too): the state before each call and the call."""
    rules = engine.rules_array(variant)
    rng = np.random.default_rng(3)
    d = deal(n, seed=8)
    for i in range(n):
        st = new_state(d.hands[i], d.talon[i], talon_first=int(d.talon_first[i]))[0]
        while st["phase"] == engine.AUCTION:
            legal = engine.legal_mask(st, rules)
            calls = [c for c in range(63) if legal >> c & 1]
            yield st, rules, int(rng.choice(calls)), int(rng.integers(-1, 64))
            engine.apply(st, rules, int(rng.choice(calls)))


@pytest.mark.parametrize("name", ["sochi", "classic", "gusarik"])
def test_auction_trusting_checked_calls_is_the_full_replay(name):
    """legal_mask and apply replay the engine's own calls without checking them again:
    the same legal calls as the full check, any other call refused with the state
    unchanged, a legal one giving the full replay's state."""
    tried = 0
    for st, rules, call, other in _auctions(get_variant(name), 150):
        history = st["calls"][: st["n_calls"]].astype(np.int64)
        full = engine.replay_auction(history, rules, st["min_level"])
        assert full[5] == -1 and engine.legal_mask(st, rules) == full[4]
        for action in (call, other):
            after = st.copy()
            made = engine.apply(after, rules, action)
            legal = 0 <= action < 63 and full[4] >> action & 1
            assert made == (0 if legal else -1)
            if not legal:
                assert all(np.array_equal(after[f], st[f]) for f in engine.STATE.names)
                continue
            longer = engine.replay_auction(np.append(history, action), rules, st["min_level"])
            assert (after["dark"], after["blind"]) == (longer[6], longer[7])
            if longer[0] >= 0:
                assert after["to_act"] == longer[0]
            tried += 1
    assert tried > 300
