"""The built-in players on classic (3 and 4 players) and Gusarik: both drivers alike,
legal decisions, hidden cards out of reach, and the rates of the new calls."""

import numpy as np
import pytest

from prefstats.game import engine
from prefstats.game.auction import BLIND_PASS, DARK, MISERE, N_CALLS, NO_TALON_BID, PASS
from prefstats.game.cards import parse_cards
from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.players.builtin import (
    HEURISTIC,
    BuiltinPlayer,
    decide,
    default_params,
    default_tables,
    seat_key,
)
from prefstats.players.params import heuristic_params
from prefstats.sim.play import new_state, play_batch, play_hand, play_hands

TABLES = [("classic", 3), ("classic", 4), ("gusarik", 2), ("sochi", 3), ("sochi", 4)]
IDS = ["classic", "classic4", "gusarik", "sochi-b", "sochi4-b"]
#: The options of RULES.md §10 on the Sochi tables: the lone whister's choice (B:215),
#: three raspasy leads by the first hand (B:227), trick 3 of a 4-player raspasy (B:125).
PART_B = {3: {"lone_whist_play": "whister_chooses", "raspasy_first_hand_leads": 3},
          4: {"lone_whist_play": "whister_chooses", "raspasy_third_lead": "first_hand"}}


def _variant(name, players):
    return get_variant(name, players=players, **(PART_B[players] if name == "sochi" else {}))


@pytest.mark.parametrize("count", [250, pytest.param(1000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize(("name", "players"), TABLES, ids=IDS)
def test_both_drivers_decide_alike(name, players, policy, count):
    """Identical final states from the batch and Python drivers (1,000 deals under slow)."""
    variant = _variant(name, players)
    d = deal(count, seed=41)
    states = play_batch(d, variant, policy=policy, key=3)
    assert play_hands(d, variant, policy=policy, key=3).tobytes() == states.tobytes()
    assert (states["phase"] == engine.DONE).all()


def test_both_drivers_decide_alike_with_bombs_and_raspasy_steps():
    variant = get_variant("classic")
    d = deal(120, seed=42)
    bombs = np.array([[1, 2, 4]] * 120)
    steps = np.arange(120) % 3
    states = play_batch(d, variant, key=8, bombs=bombs, raspasy_step=steps)
    assert play_hands(d, variant, key=8, bombs=bombs, raspasy_step=steps).tobytes() == \
        states.tobytes()


@pytest.mark.parametrize("count", [4000, pytest.param(20_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize(("name", "players"), TABLES, ids=IDS)
def test_no_illegal_decision(name, players, policy, count):
    """Every card by the policy (no solver; 20,000 deals under slow): play_batch raises
    on any illegal decision."""
    variant = _variant(name, players)
    states = play_batch(deal(count, seed=43), variant, policy=policy, double_dummy=False)
    assert (states["phase"] == engine.DONE).all()
    played = states["played"]
    assert (states["tricks"][played].sum(axis=1) == 10).all()


# ---- what a seat may see -------------------------------------------------------------------


class Spy(BuiltinPlayer):
    def __init__(self, policy="heuristic"):
        super().__init__(policy)
        self.seen = []

    def act(self, obs):
        self.seen.append(obs.record.copy())
        return super().act(obs)


def _spied(variant, n, seed, policy="heuristic", **params):
    d = deal(n, seed=seed)
    out = []
    for i in range(n):
        spies = [Spy(policy) for _ in range(3)]
        if params:
            for s in spies:
                s.params = heuristic_params(**params)
        for s, p in enumerate(spies):
            p.start_deal(seat_key(np.uint64(1), d.index[i], s))
        st = play_hand(d.hands[i], d.talon[i], spies, variant, talon_first=d.talon_first[i])
        out.append((st, spies))
    return out


def test_dark_bidder_sees_no_card_in_the_auction():
    seen_dark = 0
    for _, spies in _spied(get_variant("classic"), 300, 44, dark_bid=0.3):
        for seat, spy in enumerate(spies):
            for r in spy.seen:
                if r["phase"] == engine.AUCTION and (r["dark"] >> seat) & 1:
                    seen_dark += 1
                    assert r["hand"] == 0 and (r["visible"] == 0).all()
    assert seen_dark > 50


def test_b384_gusarik_hides_the_defender_from_the_declarer_and_the_dummy_until_the_whist():
    variant = get_variant("gusarik")
    checked = 0
    for st, spies in _spied(variant, 300, 45):
        declarer = int(st["declarer"])
        dealt = [int(h) for h in st["dealt"]]
        for seat, spy in enumerate(spies):
            assert seat != 2 or not spy.seen  # the dummy's decisions go to its controller
            for r in spy.seen:
                if r["phase"] in (engine.AUCTION, engine.DISCARD, engine.CONTRACT, engine.WHIST):
                    assert r["visible"][2] == 0  # nobody sees the dummy before the whist call
                    assert int(r["talon"]) & dealt[2] == 0
                if seat == declarer and r["phase"] != engine.DONE:
                    other = 1 - declarer
                    assert r["visible"][other] == 0
                    hidden = dealt[other] & ~int(r["gone"])
                    assert int(r["hand"]) & hidden == 0
                    checked += 1
    assert checked > 300


def test_b412_nobody_but_the_dark_declarer_sees_the_talon():
    """B:103, B:412: the dark declarer takes the talon "showing nobody"; A:S5: the
    Gusarik raspasy talon is never opened."""
    dark_games = 0
    for st, spies in _spied(get_variant("classic"), 400, 47, dark_bid=0.3):
        declarer = int(st["declarer"])
        if declarer < 0 or not (int(st["dark"]) >> declarer) & 1 or st["no_talon"]:
            continue
        dark_games += 1
        for seat, spy in enumerate(spies):
            for r in spy.seen:
                if seat != declarer and r["phase"] != engine.AUCTION:
                    assert r["talon"] == 0 and int(r["hand"]) & int(st["talon"]) == 0
    assert dark_games > 10
    raspasy = 0
    for st, spies in _spied(get_variant("gusarik"), 200, 48):
        if st["kind"] == engine.RASPASY:
            raspasy += 1
            assert all(r["talon"] == 0 for spy in spies for r in spy.seen)
    assert raspasy > 20


def test_going_blind_does_not_depend_on_the_hand():
    """The blind pass / dark choice of a first call is the same whatever the hand."""
    variant = get_variant("classic")
    rules = engine.rules_array(variant)
    params = heuristic_params(blind_pass=0.2, dark_bid=0.2)
    tables = default_tables("heuristic", variant)
    d = deal(400, seed=46)
    rng = np.random.default_rng(0)
    blind = 0
    for i in range(len(d)):
        st = np.zeros(1, dtype=engine.STATE)[0]
        engine.reset(st, d.hands[i], d.talon[i], 0, 6, i % 3)
        obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
        engine.observe(st, rules, obs)
        key = rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True)
        call = decide(HEURISTIC, obs, rules, params, tables, key)
        for other in range(1, 3):
            obs["hand"] = obs["visible"][0] = d.hands[i][other]
            again = decide(HEURISTIC, obs, rules, params, tables, key)
            if call in (BLIND_PASS, DARK):
                assert again == call
            else:
                assert again not in (BLIND_PASS, DARK)
        blind += call in (BLIND_PASS, DARK)
    assert 80 < blind < 250


def test_dark_bidder_bids_the_lowest_bid_then_passes():
    variant = get_variant("classic")
    states = play_batch(deal(5000, seed=47), variant,
                        params=heuristic_params(dark_bid=0.2, blind_pass=0.0))
    checked = 0
    for st in states:
        calls = list(st["calls"][: st["n_calls"]])
        if DARK not in calls:
            continue
        i = calls.index(DARK)
        assert calls[i + 1] == 0  # 6♠: nobody had bid
        checked += 1
    assert checked > 500


def test_b414_built_in_dark_declarer_switches_on_a_misere_hand():
    """B:414: the built-in dark declarer switches to a light misère when his hand,
    seen without the talon, is a misère he would call at a first call; with a game in
    his hand he keeps the dark game."""
    variant = get_variant("classic")
    rules = engine.rules_array(variant)
    tables = default_tables("heuristic", variant)
    params = default_params("heuristic")
    misere = [parse_cards(h) for h in ("♠987 ♣987 ♦987 ♥7", "♠AKQJ10 ♣AKQJ10",
                                         "♦AKQJ10 ♥QJ1098")]
    game = [parse_cards(h) for h in ("♠AKQJ1098 ♣AK ♥9", "♣QJ1098 ♦AKQJ10",
                                      "♠7 ♣7 ♦987 ♥AKQJ10")]
    for hands, talon, switch in ((misere, parse_cards("♥AK"), engine.LIGHT_MISERE),
                                 (game, parse_cards("♥87"), engine.KEEP_DARK)):
        st = new_state(hands, talon)[0]
        for call in (DARK, 0, PASS, PASS):  # 6♠ in the dark, the others pass
            assert engine.apply(st, rules, call) == 0
        obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
        engine.observe(st, rules, obs)
        assert obs["phase"] == engine.SWITCH
        assert decide(HEURISTIC, obs, rules, params, tables, np.uint64(0)) == switch


def test_b414_both_drivers_agree_on_switched_misere():
    """The compiled batch driver and the Python engine with built-in players make the
    same deals, switches to a light misère (B:414) included: seat 0 always bids dark."""
    variant = get_variant("classic")
    params = heuristic_params(dark_bid=1.0, blind_pass=0.0)
    d = deal(1500, seed=49)
    states = play_batch(d, variant, params=params, key=5)
    dark = (states["calls"][:, 0] == DARK) & (states["declarer"] == 0)
    switched = dark & (states["kind"] == engine.MISERE_GAME) & (states["bid"] != MISERE)
    assert switched.sum() >= 2 and (states["multiplier"][switched] == 1).all()
    assert (states["kind"][switched] == engine.MISERE_GAME).all()
    assert (states["dark"][switched] == 0).all() and states["open"][switched].all()
    kept = np.flatnonzero(dark & ~switched)[:10]
    picked = np.concatenate([np.flatnonzero(switched), kept])
    for i in picked:
        players = [BuiltinPlayer("heuristic", params) for _ in range(3)]
        for s, p in enumerate(players):
            p.start_deal(seat_key(np.uint64(5), d.index[i], s))
        st = play_hand(d.hands[i], d.talon[i], players, variant, talon_first=d.talon_first[i])
        assert st.tobytes() == states[i].tobytes()


# ---- rates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), TABLES[:2], ids=IDS[:2])
def test_new_calls_come_at_the_intended_rates(name, players):
    states = play_batch(deal(20_000, seed=48), _variant(name, players))
    dark = (states["dark"] != 0).mean()
    blind = (states["blind"] != 0).mean()
    no_talon = states["no_talon"].mean()
    assert 0.01 < dark < 0.06
    assert 0.03 < blind < 0.12 and blind > dark
    assert 0.001 < no_talon < 0.03
    kinds = np.bincount(states["kind"], minlength=4) / len(states)
    assert kinds[engine.GAME] > 0.6 and 0.05 < kinds[engine.RASPASY] < 0.35
    calls = states["calls"].astype(np.int64)
    assert (calls[states["n_calls"][:, None] > np.arange(calls.shape[1])] < N_CALLS).all()


def test_a_raspasy_streak_raises_the_blind_calls():
    variant = get_variant("classic")
    d = deal(5000, seed=49)
    calm = (play_batch(d, variant, raspasy_step=0)["blind"] != 0).mean()
    streak = (play_batch(d, variant, raspasy_step=2)["blind"] != 0).mean()
    assert streak > calm + 0.02


def test_bombs_multiply_games_and_the_reserve_keeps_them():
    variant = get_variant("classic")
    d = deal(5000, seed=50)
    plain = play_batch(d, variant)
    bombed = play_batch(d, variant, bombs=2)
    assert (bombed["multiplier"][bombed["declarer"] >= 0] >= 2).all()
    assert (plain["multiplier"] <= 2).all()
    thrifty = play_batch(d, variant, bombs=2, params=heuristic_params(bomb_reserve=30.0))
    assert (thrifty["kind"] == engine.RASPASY).mean() > (bombed["kind"] == engine.RASPASY).mean()


def test_no_talon_contract_is_named_without_the_talon():
    states = play_batch(deal(20_000, seed=51), get_variant("classic"))
    nt = states[states["no_talon"]]
    assert len(nt) > 20
    assert (nt["bid"] >= NO_TALON_BID).all() and (nt["discard"] == 0).all()
    games = nt[nt["kind"] == engine.GAME]
    rank = engine.rules_array(get_variant("classic"))[engine.R_RANK:]
    assert (rank[games["contract"] + NO_TALON_BID] >= rank[games["bid"]]).all()


# ---- Gusarik ---------------------------------------------------------------------------------


def test_gusarik_raspasy_has_two_card_tricks():
    variant = get_variant("gusarik")
    states = play_batch(deal(3000, seed=52), variant, double_dummy=False)
    ras = states[states["kind"] == engine.RASPASY]
    assert len(ras) > 300
    assert (ras["tricks"][:, 2] == 0).all() and (ras["tricks"][:, :2].sum(1) == 10).all()
    assert (ras["played_by"][:, 2] == 0).all()
    for st, spies in _spied(variant, 200, 53):
        if st["kind"] != engine.RASPASY:
            continue
        for spy in spies:
            for r in spy.seen:
                if r["phase"] == engine.PLAY:
                    assert r["n_in_trick"] <= 1 and r["trick_cards"][2] == -1


def test_b384_gusarik_whisted_games_are_played_out_not_double_dummy():
    """The defender's own hand is hidden from the declarer (B:384: only the dummy is
    turned), so no whisted trick game is settled double dummy: the built-in card play
    plays it out; the dummy's tricks count for the defender (scoring)."""
    variant = get_variant("gusarik")
    states = play_batch(deal(3000, seed=54), variant)
    games = states[(states["kind"] == engine.GAME) & states["played"]]
    assert len(games) > 300
    assert not games["double_dummy"].any() and not games["open"].any()
    assert (games["tricks"].sum(axis=1) == 10).all()
    assert (games["played_by"][:, 2] != 0).all()  # the dummy's cards were played
    misere = states["kind"] == engine.MISERE_GAME
    assert not states[misere]["double_dummy"].any()  # the catchers cannot see the discard
    seen = play_batch(deal(3000, seed=54), variant, misere_catchers="double_dummy")
    assert seen[misere]["double_dummy"].all()


def test_gusarik_defender_whists_without_seeing_the_dummy():
    """B:384: the whist call comes before the dummy is turned: no card of the dummy is
    in the defender's observation, yet he still whists, passes and leaves tricks."""
    variant = get_variant("gusarik")
    checked = 0
    for st, spies in _spied(variant, 400, 56):
        dummy = int(st["dealt"][2])
        for r in (r for spy in spies for r in spy.seen if r["phase"] == engine.WHIST):
            known = int(r["hand"]) | int(r["talon"]) | int(r["gone"])
            assert r["visible"][2] == 0 and known & dummy == 0
            checked += 1
    assert checked > 50
    states = play_batch(deal(5000, seed=55), variant)
    games = states[states["kind"] == engine.GAME]
    decl = games["declarer"].astype(np.int64)
    call = np.where((decl + 1) % 3 == 2, games["second"], games["first"])
    calls = np.bincount(call, minlength=3) / len(games)
    assert calls.min() >= 0 and calls[1] > 0.2 and calls[0] + calls[2] > 0.2
    # raspasy is common with two players but not the rule
    assert 0.1 < (states["kind"] == engine.RASPASY).mean() < 0.5
    assert PASS not in (states["bid"][states["declarer"] >= 0])


def test_random_policy_runs_without_parameters():
    assert default_params("random").size == 0


# ---- the lone whister's choice (B:215) ----------------------------------------------------


def test_b215_built_in_whister_stands_closed_only_when_his_hand_is_safe():
    """``lone_whist_play = "whister_chooses"``: the built-in whister lies open unless his
    hand's expected defence reaches the obligation by ``STAND_MARGIN`` tricks; closed
    deals are played card by card, each defender with his own cards and seeing no other
    hand."""
    variant = get_variant("sochi", lone_whist_play="whister_chooses")
    states = play_batch(deal(4000, seed=57), variant)
    lone = states[(states["kind"] == engine.GAME) & states["played"]
                  & ((states["first"] == 1) != (states["second"] == 1))]
    closed = lone[~lone["open"]]
    assert len(lone) > 300 and 0 < len(closed) < len(lone)
    assert not closed["double_dummy"].any() and lone[lone["open"]]["double_dummy"].all()
    seen = 0
    for st, spies in _spied(variant, 600, 58):
        if st["kind"] != engine.GAME or not st["played"] or st["open"]:
            continue
        for seat, spy in enumerate(spies):
            for r in spy.seen:
                if r["phase"] == engine.PLAY:
                    assert r["playing_for"] == seat
                    others = [int(r["visible"][s]) for s in range(3) if s != seat]
                    assert others == [0, 0]
                    seen += 1
    assert seen > 0
