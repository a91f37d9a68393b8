"""Counterfactual decisions (prefstats.rollout): branches of one deal share everything up
to the forced decision, the compiled and the Python drivers force alike, and forcing
what the policy would do anyway changes nothing."""

import numpy as np
import polars as pl
import pytest
from numpy.lib.recfunctions import repack_fields

from prefstats import engine
from prefstats import rollout as rollout_module
from prefstats.auction import BLIND_PASS, DARK, PASS, W_HALF, W_PASS, W_WHIST
from prefstats.contracts import MISERE, N_CONTRACTS
from prefstats.deal import deal
from prefstats.play import play_batch, play_hand
from prefstats.players.base import Observation
from prefstats.players.builtin import BuiltinPlayer, seat_key
from prefstats.rollout import play_forced_hands, rollout, rollout_states
from prefstats.scoring import deal_values, score_states
from prefstats.simulate import player_key
from prefstats.variants import get_variant

SOCHI = get_variant("sochi")
#: Sochi has no half-whist (greedy whist, B:253): the whist tests use Leningrad.
LENINGRAD = get_variant("leningrad")
FIRST = ["pass", "bid", "misere"]
WHIST = ["pass", "whist", "half"]


def _first_call_index(st, seat):
    """Where ``seat``'s first call sits in the auction of a finished state."""
    made = 0
    for i in range(int(st["n_calls"])):
        if made == seat and (i == 0 or st["calls"][i - 1] != DARK):
            return i
        made += st["calls"][i] != DARK
    raise AssertionError("no first call")


def _lowest_bid(st, seat, variant):
    """The lowest legal trick bid with the talon at ``seat``'s first call of ``st``."""
    from prefstats.auction import legal_calls

    idx = _first_call_index(st, seat)
    legal = legal_calls(list(st["calls"][:idx]), variant)
    ladder = [c for c in legal if c < N_CONTRACTS and c != MISERE]
    return min(ladder, key=lambda c: engine.rules_array(variant)[engine.R_RANK + c])


def test_nothing_forced_plays_as_play_batch():
    d = deal(300, seed=11)
    states, legal = rollout_states(SOCHI, d, seat=0, decision=None, options=[], key=5)
    assert not legal.any()
    assert states[:, 0].tobytes() == play_batch(d, SOCHI, key=5).tobytes()


@pytest.mark.parametrize("variant", [SOCHI, get_variant("classic")], ids=["sochi", "classic"])
@pytest.mark.parametrize("seat", [0, 2])
def test_forcing_the_policy_s_own_first_call_changes_nothing(variant, seat):
    d = deal(400, seed=12)
    played = play_batch(d, variant, key=3)
    options = FIRST + (["dark", "blind_pass"] if variant.dark_bids else [])
    states, legal = rollout_states(variant, d, seat=seat, decision="first_call",
                                   options=options, key=3)
    same = 0
    for i, st in enumerate(played):
        call = st["calls"][_first_call_index(st, seat)]
        codes = {"pass": PASS, "misere": MISERE, "dark": DARK, "blind_pass": BLIND_PASS}
        codes["bid"] = _lowest_bid(st, seat, variant) if call < N_CONTRACTS else -1
        for o, option in enumerate(options):
            if codes[option] == call:
                assert legal[i, o]
                assert states[i, o].tobytes() == st.tobytes(), (i, option)
                same += 1
    assert same > 200


def test_forcing_the_policy_s_own_whist_call_changes_nothing():
    d = deal(600, seed=13)
    played = play_batch(d, LENINGRAD, key=4)
    states, legal = rollout_states(LENINGRAD, d, seat=1, decision="whist", options=WHIST, key=4)
    same = 0
    for i, st in enumerate(played):
        if st["kind"] != engine.GAME or st["declarer"] == 1 or st["n_whist"] == 0:
            assert not legal[i].any()  # never asked: no branch is legal
            continue
        first_defender = (int(st["declarer"]) + 1) % 3
        call = st["whist_calls"][0 if first_defender == 1 else 1]
        o = [W_PASS, W_WHIST, W_HALF].index(call)
        assert legal[i, o] and states[i, o].tobytes() == st.tobytes()
        same += 1
    assert same > 100


def test_branches_agree_up_to_the_decision():
    d = deal(400, seed=14)
    for policy in ("heuristic", "random"):
        states, legal = rollout_states(SOCHI, d, seat=1, decision="first_call",
                                       options=FIRST, key=6, policy=policy)
        for i in range(len(d)):
            first = states[i, 0]
            for o in range(1, 3):
                if legal[i, o]:
                    st = states[i, o]
                    assert st["calls"][0] == first["calls"][0]  # seat 0's call
                    assert st["calls"][1] != first["calls"][1]  # the forced one
        states, legal = rollout_states(LENINGRAD, d, seat=2, decision="whist", options=WHIST,
                                       key=6, policy=policy)
        branched = 0
        for i in range(len(d)):
            rows = [states[i, o] for o in range(3) if legal[i, o]]
            for st in rows[1:]:
                branched += 1
                for field in ("n_calls", "calls", "declarer", "contract", "discard", "talon"):
                    assert np.array_equal(st[field], rows[0][field]), field
                ask = 0 if (int(st["declarer"]) + 1) % 3 == 2 else 1
                assert np.array_equal(st["whist_calls"][:ask], rows[0]["whist_calls"][:ask])
                assert st["whist_calls"][ask] != rows[0]["whist_calls"][ask]
        assert branched > 50


@pytest.mark.parametrize(("name", "decision", "options", "policy"), [
    ("sochi", "first_call", FIRST, "heuristic"),
    ("leningrad", "whist", WHIST, "heuristic"),
    ("sochi", "first_call", FIRST, "random"),
    ("classic", "first_call", [*FIRST, "dark", "blind_pass"], "heuristic"),
    ("gusarik", "whist", WHIST, "heuristic"),
])
def test_compiled_forcing_equals_the_python_protocol(name, decision, options, policy):
    variant = get_variant(name)
    d = deal(120, seed=15)
    for seat in (0, 1):
        fast, fast_legal = rollout_states(variant, d, seat=seat, decision=decision,
                                          options=options, key=7, policy=policy)
        slow, slow_legal = play_forced_hands(variant, d, seat=seat, decision=decision,
                                             options=options, key=7, policy=policy)
        assert np.array_equal(fast_legal, slow_legal)
        assert fast_legal.any()
        # selected rows are copied field by field: compare them without the padding
        assert repack_fields(fast[fast_legal]).tobytes() == repack_fields(
            slow[slow_legal]).tobytes()


def test_random_choices_are_keyed_by_the_decision_not_by_a_count():
    """The same observation asked twice gets the same draw: a branch that reaches a
    decision by another path draws as the others do."""
    seen = []

    class Twice(BuiltinPlayer):
        def act(self, obs: Observation) -> int:
            first = super().act(obs)
            seen.append(super().act(obs) == first)
            return first

    d = deal(30, seed=16)
    for i in range(len(d)):
        players = [Twice("random") for _ in range(3)]
        for s, p in enumerate(players):
            p.start_deal(seat_key(np.uint64(1), d.index[i], s))
        play_hand(d.hands[i], d.talon[i], players, SOCHI, talon_first=d.talon_first[i])
    assert len(seen) > 300 and all(seen)


def test_rollout_frame():
    d = deal(200, seed=17)
    frame = rollout(SOCHI, d, seat=0, decision="first_call", options=FIRST, seed=2)
    assert frame.columns[:4] == ["deal", "option", "legal", "value"]
    assert frame.height == 600
    assert frame["deal"].to_list() == [i for i in range(200) for _ in range(3)]
    assert frame["option"].to_list() == FIRST * 200
    assert frame["legal"].all()  # the first hand may always pass, bid or say misère
    states, _ = rollout_states(SOCHI, d, seat=0, decision="first_call", options=FIRST,
                               key=int(player_key(2)))
    values = deal_values(SOCHI, *score_states(SOCHI, states.reshape(-1)))[:, 0]
    assert np.allclose(frame["value"].to_numpy(), values)
    # whists of a deal sum to zero over the seats, so a seat's value is bounded and real
    assert frame["value"].is_finite().all()


def test_decisions_not_reached_or_illegal_have_no_value():
    d = deal(300, seed=18)
    frame = rollout(LENINGRAD, d, seat=2, decision="whist", options=WHIST, seed=1)
    assert frame.filter(~pl.col("legal"))["value"].null_count() == frame.filter(
        ~pl.col("legal")).height
    assert frame.filter(pl.col("legal"))["value"].null_count() == 0
    # seat 2 never declares and whists at once: a deal with a legal branch is a defence
    by_deal = frame.group_by("deal").agg(pl.col("legal").any()).filter("legal").height
    assert 0 < by_deal < 300
    # a first call is legal exactly when the rules allow it there
    from prefstats.auction import legal_calls

    states, legal = rollout_states(SOCHI, d, seat=2, decision="first_call", options=FIRST,
                                   key=int(player_key(1)))
    for i, st in enumerate(states[:, 0]):
        calls = legal_calls(list(st["calls"][:2]), SOCHI)
        bids = [c for c in calls if c < N_CONTRACTS and c != MISERE]
        assert legal[i].tolist() == [PASS in calls, bool(bids), MISERE in calls]
    assert legal[:, 0].all()


def test_rollout_is_the_same_for_any_number_of_workers(monkeypatch):
    monkeypatch.setattr(rollout_module, "CHUNK", 40)
    d = deal(100, seed=19)
    one = rollout(SOCHI, d, seat=1, decision="first_call", options=FIRST, seed=3)
    two = rollout(SOCHI, d, seat=1, decision="first_call", options=FIRST, seed=3, workers=2)
    assert one.equals(two)
    monkeypatch.setattr(rollout_module, "CHUNK", 100)
    assert one.equals(rollout(SOCHI, d, seat=1, decision="first_call", options=FIRST, seed=3))


@pytest.mark.parametrize(("variant", "kwargs", "named"), [
    (SOCHI, {"decision": "max_raise"}, "max_raise"),
    (SOCHI, {"options": ["pass", "double"]}, "double"),
    (SOCHI, {"options": ["dark"]}, "dark_bids"),
    (SOCHI, {"options": ["blind_pass"]}, "blind_pass"),
    (get_variant("sochi", half_whist=False), {"decision": "whist", "options": ["half"]},
     "half_whist"),
    (SOCHI, {"seat": 3}, "seat 3"),
    (get_variant("gusarik"), {"seat": 2}, "seat 2"),
    (SOCHI, {"policy": "genius"}, "genius"),
    (SOCHI, {"options": []}, "options"),
])
def test_bad_requests_name_the_offender(variant, kwargs, named):
    args = {"seat": 0, "decision": "first_call", "options": ["pass"], **kwargs}
    with pytest.raises(ValueError, match=named):
        rollout(variant, deal(3, seed=1), **args)


# ---- prefstats rollout: one hand, many deals ---------------------------------------------


def test_hand_deals_hold_the_hand_and_every_talon_once_a_block():
    from prefstats.cards import FULL_DECK, card_counts, parse_cards
    from prefstats.rollout import hand_deals

    hand = parse_cards("♠AKQJ ♣AK7 ♦A8 ♥7")
    d = hand_deals(hand, 1, 2, seed=4)
    assert len(d) == 2 * 231
    assert (d.hands[:, 1] == hand).all()
    assert ((d.hands[:, 0] | d.hands[:, 2] | d.talon | hand) == FULL_DECK).all()
    assert (card_counts(d.hands) == 10).all() and (card_counts(d.talon) == 2).all()
    assert len(set(d.talon[:231].tolist())) == 231 == len(set(d.talon[231:].tolist()))
    again = hand_deals(hand, 1, 1, seed=4, start=1)
    assert again.hands.tobytes() == d.hands[231:].tobytes()  # block b alone is the same


def _cli(*args):
    from typer.testing import CliRunner

    from prefstats.cli import app

    return CliRunner().invoke(app, ["rollout", *args])


def test_rollout_command_ranks_a_sure_game_above_passing():
    import json

    result = _cli("♠AKQJ10 ♣AK ♦AK ♥A", "--seat", "0", "--deals", "700", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["best"] == "bid" and out["decided"]
    rows = {r["option"]: r for r in out["rows"]}
    assert rows["pass"]["diff_ci"][1] < 0 and rows["bid"]["diff_to_best"] == 0
    assert rows["bid"]["n"] == out["deals"] >= 500


@pytest.mark.parametrize(("args", "named"), [
    (["♠AKQJ10 ♣AK ♦AK"], "10 cards"),
    (["♠AKQJ10 ♣AK ♦AK ♥A ♠A"], "twice"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--deals", "0"], "--deals"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--decision", "raise"], "raise"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--seat", "3"], "seat 3"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--options", "pass,dark"], "dark_bids"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--talon", "♠A ♥7"], "talon"),
])
def test_rollout_command_refuses_bad_input(args, named):
    result = _cli(*args)
    assert result.exit_code == 2
    assert named in result.output


def test_parameters_out_of_range_are_refused_not_run():
    import math

    from prefstats.players.params import PARAMETERS, heuristic_params

    params = heuristic_params()
    params[PARAMETERS["aggression"][0]] = math.nan  # compiled players would crash on it
    with pytest.raises(ValueError, match="aggression"):
        rollout(SOCHI, deal(10, seed=1), seat=0, decision="first_call", options=["pass"],
                params=params)
