"""What a seat knows: the observation's play history, the voids shown
and the turned talon cards in order; that it never reveals a hidden card (any deal the
knowledge sampler draws from it, replayed with the same public decisions, gives the seat
the very same observations); and the knowledge built from it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefstats.game import engine
from prefstats.game.auction import PASS
from prefstats.game.cards import FULL_DECK, SUIT_MASKS
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players.base import Observation
from prefstats.players.knowledge import count_worlds, knowledge_of, sample_worlds
from prefstats.sim.play import new_state

VARIANTS = {
    "sochi": get_variant("sochi"),
    "rostov": get_variant("rostov"),
    "classic-4": get_variant("classic", players=4),  # talon cards led for the dealer
    "classic": get_variant("classic"),  # dark bids, blind passes, no-talon bids
    "gusarik": get_variant("gusarik"),  # the dummy
    "no-talon-raspasy": get_variant("sochi", raspasy_talon="none"),
}


def _observe(state, rules) -> np.void:
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    engine.observe(state, rules, obs)
    return obs


def _random_action(obs, rng) -> int:
    legal = [a for a in range(63) if int(obs["legal"]) >> a & 1]
    if obs["phase"] == engine.DISCARD:
        a, b = rng.choice(legal, size=2, replace=False)
        return (1 << int(a)) | (1 << int(b))
    if obs["phase"] == engine.AUCTION and PASS in legal and rng.random() < 0.6:
        return PASS  # raspasy often enough, games too
    return int(rng.choice(legal))


def _play(variant, seed: int):
    """One deal played by random legal decisions (forced ones as the engine makes them):
    the start state, every decision and, before each, the state and its observation."""
    rules = engine.rules_array(variant)
    d = deal(1, seed=seed)
    start = new_state(d.hands[0], d.talon[0], talon_first=d.talon_first[0])[0]
    state = start.copy()
    rng = np.random.default_rng(seed)
    steps = []
    while state["phase"] != engine.DONE:
        obs = _observe(state, rules)
        action = engine.forced(state, rules)
        if action < 0:
            action = _random_action(obs, rng)
        steps.append((state.copy(), obs, action))
        assert engine.apply(state, rules, action) == 0
    return start, steps, state


def _equal(a: np.void, b: np.void) -> bool:
    return all(np.array_equal(a[f], b[f]) for f in engine.OBSERVATION.names)


@pytest.mark.parametrize("name", VARIANTS)
@given(seed=st.integers(0, 2**31))
@settings(max_examples=25, deadline=None)
def test_history_is_the_play_in_order(name, seed):
    variant = VARIANTS[name]
    _, steps, final = _play(variant, seed)
    played = [(int(s["to_act"]), a) for s, _, a in steps if s["phase"] == engine.PLAY]
    for state, obs, _ in [*steps, (final, _observe(final, engine.rules_array(variant)), 0)]:
        record = Observation(obs, variant)
        history = record.history
        # every card gone, once, by whoever played it (a led talon card by TALON_SLOT)
        assert sum(1 << c for _, c in history) == int(state["gone"])
        for who, card in history:
            assert int(state["played_by"][who]) >> card & 1
        assert [h for h in history if h[0] != engine.TALON_SLOT] == played[:len(
            [h for h in history if h[0] != engine.TALON_SLOT])]
        assert (obs["history"][len(history):] == -1).all()
        # the voids follow from the history alone, and are true
        assert record.voids == list(_voids_from_history(state, history, variant))
        for seat in range(3):
            for suit in range(4):
                if record.voids[seat] >> suit & 1:
                    assert not int(state["hands"][seat]) & SUIT_MASKS[suit]
        # the turned talon cards, in order, are the shown ones
        first = int(state["talon_first"])
        other = (int(state["talon"]) & ~(1 << first)).bit_length() - 1
        assert record.talon_order == [c for c in (first, other) if int(obs["talon"]) >> c & 1]
        if (state["kind"] == engine.RASPASY and state["phase"] == engine.PLAY
                and variant.raspasy_talon == "suit_lead"):
            assert len(record.talon_order) == min(int(state["trick"]) + 1, 2)


def _voids_from_history(state, history, variant) -> tuple[int, int, int]:
    """The voids, recomputed in Python from the history and the public rules."""
    voids = [0, 0, 0]
    kind = int(state["kind"])
    trump = None
    if kind == engine.GAME:
        from prefstats.game.contracts import TRUMP
        trump = int(TRUMP[int(state["contract"])])
    i = 0
    trick_no = 0
    size = 2 if kind == engine.RASPASY and variant.players == 2 else 3
    while i < len(history):
        talon_led = history[i][0] == engine.TALON_SLOT
        n = size + talon_led
        trick = history[i:i + n]
        cards = [c for _, c in trick]
        for who, c in trick[1:]:
            if c >> 3 != cards[0] >> 3:
                voids[who] |= 1 << (cards[0] >> 3)
                if trump is not None and trump >= 0 and c >> 3 != trump:
                    voids[who] |= 1 << trump
        if (kind == engine.RASPASY and trick_no < 2 and variant.raspasy_talon == "suit_lead"
                and not talon_led):
            other = int(state["talon"]) & ~(1 << int(state["talon_first"]))
            turned = int(state["talon_first"]) if trick_no == 0 else other.bit_length() - 1
            if cards[0] >> 3 != turned >> 3:
                voids[trick[0][0]] |= 1 << (turned >> 3)
        i += n
        trick_no += 1
    return voids[0], voids[1], voids[2]


def _alternative_deal(obs, world):
    """The deal (hands, talon, discard) that holds ``world`` (the hands now) and agrees
    with every fact ``obs`` shows: each seat was dealt what it holds now plus what it
    played; the cards nobody holds that were not seen are the talon still face down, or
    the discard."""
    held = [int(h) for h in world]
    gone_by = [int(p) for p in obs["played_by"]]
    talon_shown = int(obs["talon"])
    out = FULL_DECK & ~(held[0] | held[1] | held[2] | int(obs["gone"]))  # nobody holds them
    dealt = [held[s] | gone_by[s] for s in range(3)]
    if int(obs["kind"]) == engine.RASPASY:
        return dealt, out | gone_by[engine.TALON_SLOT], 0
    if obs["no_talon"]:
        return dealt, out, 0
    declarer = int(obs["declarer"])
    if talon_shown:
        dealt[declarer] = (dealt[declarer] | out) & ~talon_shown
        return dealt, talon_shown, out
    # a dark declarer's talon, unseen: say he discarded what he took
    return dealt, out, out


@pytest.mark.parametrize("name", VARIANTS)
@given(seed=st.integers(0, 2**31), pick=st.floats(0, 1, exclude_max=True))
@settings(max_examples=20, deadline=None)
def test_observation_reveals_no_hidden_card(name, seed, pick):
    """Any deal the sampler draws from a seat's observation in play, replayed with the
    same public decisions (the discard its own), is legal and shows that seat the same
    observations up to that moment: what it sees depends on nothing it cannot know."""
    variant = VARIANTS[name]
    rules = engine.rules_array(variant)
    _, steps, _ = _play(variant, seed)
    choices = [i for i, (s, _, _) in enumerate(steps) if s["phase"] == engine.PLAY]
    if not choices:
        return  # a game nobody whisted
    at = choices[int(pick * len(choices))]
    obs = steps[at][1]
    seat = int(obs["seat"])
    k = knowledge_of(obs)
    truth = steps[at][0]["hands"]
    assert all(int(truth[s]) & k.held[s] == k.held[s] for s in range(3))
    assert count_worlds(k) >= 1
    for world in sample_worlds(k, 3, seed=seed):
        hands, talon, discard = _alternative_deal(obs, world)
        first = int(obs["talon_order"][0])  # the card turned first, if it was seen
        alt = new_state(hands, talon, talon_first=first if first >= 0 else None)[0]
        for state, seen, action in steps[:at + 1]:
            if int(state["controller"]) == seat:
                assert _equal(_observe(alt, rules), seen)
            if state["phase"] == engine.DISCARD:
                action = discard
            assert engine.apply(alt, rules, action) == 0
