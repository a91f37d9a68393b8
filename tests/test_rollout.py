"""Counterfactual decisions (prefstats.sim.rollout): branches of one deal share everything up
to the forced decision, the compiled and the Python drivers force alike, and forcing
what the policy would do anyway changes nothing."""

import numpy as np
import polars as pl
import pytest
from numpy.lib.recfunctions import repack_fields

from prefstats.game import engine
from prefstats.game.auction import BLIND_PASS, DARK, PASS, W_HALF, W_PASS, W_WHIST
from prefstats.game.contracts import MISERE, N_CONTRACTS
from prefstats.game.deal import deal
from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import get_variant
from prefstats.players.base import Observation
from prefstats.players.builtin import BuiltinPlayer, player_key, seat_key
from prefstats.sim import rollout as rollout_module
from prefstats.sim.play import play_batch, play_hand
from prefstats.sim.rollout import play_forced_hands, rollout, rollout_states

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
    from prefstats.game.auction import legal_calls

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
    d = deal(200, seed=12)
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
    assert same > 100


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
    d = deal(200, seed=14)
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
        assert branched > 25


@pytest.mark.parametrize("count", [40, pytest.param(120, marks=pytest.mark.slow)])
@pytest.mark.parametrize(("name", "decision", "options", "policy"), [
    ("sochi", "first_call", FIRST, "heuristic"),
    ("leningrad", "whist", WHIST, "heuristic"),
    ("sochi", "first_call", FIRST, "random"),
    ("classic", "first_call", [*FIRST, "dark", "blind_pass"], "heuristic"),
    ("gusarik", "whist", WHIST, "heuristic"),
    ("sochi", "max_bid", ["6", "7", "9"], "heuristic"),
    ("rostov", "max_bid", [6, 8, 10], "random"),
    ("sochi", "contract", ["policy", "7", "8", "7♥", "8NT"], "heuristic"),
    ("classic", "contract", ["policy", "6", "9", "6♠"], "random"),
])
def test_compiled_forcing_equals_the_python_protocol(name, decision, options, policy, count):
    variant = get_variant(name)
    d = deal(count, seed=15)
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


def test_a_chunk_s_columns_do_not_hold_its_states():
    """A run keeps every chunk's columns to its end; views of the states' fields would
    keep each chunk's states too (296 bytes a branch: 0.9 GB over a million deals)."""
    columns = rollout_module.branch_values(SOCHI, deal(20, seed=3), 0, "first_call", FIRST,
                                           0, "heuristic", None)
    assert all(c.base is None or c.base.nbytes == c.nbytes for c in columns)


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
    from prefstats.game.auction import legal_calls

    states, legal = rollout_states(SOCHI, d, seat=2, decision="first_call", options=FIRST,
                                   key=int(player_key(1)))
    for i, st in enumerate(states[:, 0]):
        calls = legal_calls(list(st["calls"][:2]), SOCHI)
        bids = [c for c in calls if c < N_CONTRACTS and c != MISERE]
        assert legal[i].tolist() == [PASS in calls, bool(bids), MISERE in calls]
    assert legal[:, 0].all()


@pytest.mark.parametrize(("decision", "options"), [
    ("first_call", FIRST),
    pytest.param("max_bid", ["6", "8"], marks=pytest.mark.slow),
    pytest.param("contract", ["policy", "7", "7NT"], marks=pytest.mark.slow)])
def test_rollout_is_the_same_for_any_number_of_workers(monkeypatch, decision, options):
    """Workers and chunks change no row. The workers run the same chunks whatever the
    decision: the ``first_call`` case covers them in a fast run, and
    ``test_compiled_forcing_equals_the_python_protocol`` each decision's forcing."""
    monkeypatch.setattr(rollout_module, "CHUNK", 40)
    d = deal(100, seed=19)
    run = dict(seat=1, decision=decision, options=options, seed=3)
    one = rollout(SOCHI, d, **run)
    assert one["legal"].any()
    assert one.equals(rollout(SOCHI, d, workers=2, **run))
    monkeypatch.setattr(rollout_module, "CHUNK", 100)
    assert one.equals(rollout(SOCHI, d, **run))


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
    (SOCHI, {"decision": "max_bid", "options": ["5"]}, "level 6..10"),
    (SOCHI, {"decision": "max_bid", "options": ["pass"]}, "'pass' of 'max_bid'"),
    (SOCHI, {"decision": "max_bid", "options": [7, "7"]}, "each option once"),
    (SOCHI, {"decision": "contract", "options": ["misere"]}, "'misere' of 'contract'"),
    (SOCHI, {"decision": "contract", "options": ["11♠"]}, "'11♠' of 'contract'"),
    (SOCHI, {"decision": "contract", "options": ["best"]}, "contract like"),
])
def test_bad_requests_name_the_offender(variant, kwargs, named):
    args = {"seat": 0, "decision": "first_call", "options": ["pass"], **kwargs}
    with pytest.raises(ValueError, match=named):
        rollout(variant, deal(3, seed=1), **args)


# ---- max_bid and contract ---------------------------------------------------------------

LEVELS = ["6", "7", "8", "9", "10"]


def _seat_calls(st, seat, variant):
    """``(index, call, legal calls)`` of each of ``seat``'s calls in finished ``st``."""
    from prefstats.game.auction import legal_calls, next_speaker

    calls = [int(c) for c in st["calls"][: st["n_calls"]]]
    return [(j, calls[j], legal_calls(calls[:j], variant)) for j in range(len(calls))
            if next_speaker(calls[:j], variant) == seat]


def _max_bid_call(legal, top, variant):
    """max_bid's call among ``legal``: the lowest trick bid with the talon up to contract
    ``top`` on the ladder, else a pass (written out from the option's definition)."""
    rank = engine.rules_array(variant)[engine.R_RANK:]
    bids = [c for c in legal if c < N_CONTRACTS and c != MISERE and rank[c] <= rank[top]]
    return min(bids, key=lambda c: rank[c]) if bids else PASS


@pytest.mark.parametrize("name", ["sochi", "rostov", "classic"])
@pytest.mark.parametrize("seat", [0, 2])
def test_max_bid_competes_to_its_level_and_changes_nothing_when_the_policy_did(name, seat):
    from prefstats.game.contracts import contract_code
    from prefstats.sim.rollout import best_strains

    variant = get_variant(name)
    d = deal(150, seed=21)
    played = play_batch(d, variant, key=8)
    states, legal = rollout_states(variant, d, seat=seat, decision="max_bid", options=LEVELS,
                                   key=8)
    assert legal.all()  # every seat makes a first call
    strain = best_strains(d.hands[:, seat], seat)
    same = 0
    for i in range(len(d)):
        tops = [contract_code(int(lv), int(strain[i])) for lv in LEVELS]
        for o, top in enumerate(tops):
            st = states[i, o]
            for _, call, allowed in _seat_calls(st, seat, variant):
                assert call == _max_bid_call(allowed, top, variant), (i, LEVELS[o])
            own = _seat_calls(played[i], seat, variant)
            if all(call == _max_bid_call(allowed, top, variant) for _, call, allowed in own):
                assert st.tobytes() == played[i].tobytes(), (i, LEVELS[o])
                same += 1
    assert same > 50


def test_max_bid_branches_agree_up_to_the_seat_s_first_call():
    d = deal(300, seed=22)
    states, _ = rollout_states(SOCHI, d, seat=1, decision="max_bid", options=LEVELS, key=9)
    differ = 0
    for i in range(len(d)):
        first = _seat_calls(states[i, 0], 1, SOCHI)[0][0]
        for o in range(1, len(LEVELS)):
            st = states[i, o]
            assert np.array_equal(st["calls"][:first], states[i, 0]["calls"][:first])
            differ += st.tobytes() != states[i, 0].tobytes()
    assert differ > 50


@pytest.mark.parametrize("policy", ["heuristic", "random"])
def test_contract_forcing_names_the_contract_and_the_policy_s_own_changes_nothing(policy):
    from prefstats.game.contracts import LEVEL, NO_TRUMP, contract_code, parse_contract

    d = deal(500, seed=23)
    played = play_batch(d, SOCHI, key=2, policy=policy)
    named = ["7♥", "8NT", "6♠"]
    options = ["policy", *LEVELS, *named]
    states, legal = rollout_states(SOCHI, d, seat=0, decision="contract", options=options,
                                   key=2, policy=policy)
    declared = 0
    for i, st in enumerate(played):
        if st["declarer"] != 0 or st["kind"] != engine.GAME:
            assert not legal[i].any()  # no contract to name
            continue
        declared += 1
        bid = int(st["bid"])
        assert legal[i, 0] and states[i, 0].tobytes() == st.tobytes()  # "policy"
        for o, option in enumerate(options[1:], start=1):
            b = states[i, o]
            ok = legal[i, o]
            if option in LEVELS:  # Sochi's ladder is in code order: some NT at least
                assert ok == (contract_code(int(option), NO_TRUMP) >= bid)
                assert not ok or LEVEL[b["contract"]] == int(option)
            else:
                code = parse_contract(option).code
                assert ok == (code >= bid)
                assert not ok or b["contract"] == code
            if not ok:
                continue
            # the same auction and discard: only the contract and what follows differ
            assert np.array_equal(b["calls"], st["calls"]) and b["discard"] == st["discard"]
            mine = option == str(LEVEL[st["contract"]]) and policy == "heuristic"
            if mine or (option in named and parse_contract(option).code == st["contract"]):
                assert b.tobytes() == st.tobytes(), (i, option)
    assert declared > 50


# ---- prefstats rollout: one hand, many deals ---------------------------------------------


def test_hand_deals_hold_the_hand_and_every_talon_once_a_block():
    from prefstats.game.cards import FULL_DECK, card_counts, parse_cards
    from prefstats.sim.rollout import hand_deals

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


def test_rollout_command_plays_max_bid_and_contract():
    import json

    for decision, options in (("max_bid", "6,10"), ("contract", "policy,10,6NT")):
        result = _cli("♠AKQJ10 ♣AK ♦AK ♥A", "--decision", decision, "--options", options,
                      "--deals", "300", "--format", "json")
        assert result.exit_code == 0, result.output
        out = json.loads(result.output)
        assert {r["option"] for r in out["rows"]} == set(options.split(","))
        assert out["rows"][0]["n"] > 100


@pytest.mark.parametrize(("args", "named"), [
    (["♠AKQJ10 ♣AK ♦AK"], "10 cards"),
    (["♠AKQJ10 ♣AK ♦AK ♥A ♠A"], "twice"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--deals", "0"], "--deals"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--decision", "raise"], "raise"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--seat", "3"], "seat 3"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--options", "pass,dark"], "dark_bids"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--talon", "♠A ♥7"], "talon"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--decision", "max_bid", "--options", "6,5"], "level 6..10"),
    (["♠AKQJ10 ♣AK ♦AK ♥A", "--decision", "contract", "--options", "mizer"], "mizer"),
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


def test_an_option_s_branches_do_not_depend_on_the_other_options():
    """What lets the one-hand command drop an option: the others play as before."""
    deals = deal(60, seed=8)
    every = rollout(SOCHI, deals, seat=1, decision="first_call", options=FIRST)
    two = rollout(SOCHI, deals, seat=1, decision="first_call", options=["misere", "pass"])
    assert every.filter(pl.col("option") != "bid").sort("deal", "option").equals(
        two.sort("deal", "option"))


def test_summary_gives_the_paired_figures():
    from prefstats.cli.rollout import MIN_DEALS, summary

    rng = np.random.default_rng(3)
    n = MIN_DEALS + 100
    values = rng.normal([0.0, -0.1, -5.0], 2.0, (n, 3))
    out = summary(values, ["a", "b", "c"])
    rows = {r["option"]: r for r in out["rows"]}
    assert out["best"] == "a" and [r["option"] for r in out["rows"]] == ["a", "b", "c"]
    diff = values[:, 2] - values[:, 0]
    assert rows["c"]["diff_to_best"] == pytest.approx(diff.mean())
    assert rows["c"]["diff_se"] == pytest.approx(diff.std(ddof=1) / np.sqrt(n))
    assert rows["c"]["settled"] and not rows["b"]["settled"] and not out["decided"]
    assert all(r["n"] == n and not r["dropped"] for r in out["rows"])


def test_summary_keeps_a_dropped_option_s_figures_over_its_own_deals():
    from prefstats.cli.rollout import MIN_DEALS, summary

    rng = np.random.default_rng(4)
    n = 3 * MIN_DEALS
    values = rng.normal([0.0, 3.0, -50.0], 2.0, (n, 3))
    values[MIN_DEALS:, 2] = np.nan  # "c" was dropped after the first MIN_DEALS deals
    out = summary(values, ["a", "b", "c"])
    assert [r["option"] for r in out["rows"]] == ["b", "a", "c"]
    c = out["rows"][2]
    assert c["dropped"] and c["settled"] and c["n"] == MIN_DEALS
    assert c["mean"] == pytest.approx(values[:MIN_DEALS, 2].mean())
    assert c["diff_to_best"] == pytest.approx((values[:MIN_DEALS, 2]
                                               - values[:MIN_DEALS, 1]).mean())
    assert out["decided"]  # b leads a by far more than 3 SE; c needs no more deals


def test_rollout_command_stops_playing_an_option_the_best_leads_by_3_se(monkeypatch):
    """Options whose values are drawn alike never separate; the hopeless one is played on
    the first round only, and the close ones on every deal."""
    import json

    import prefstats.sim.rollout as module

    asked = []

    def fake(variant, deals, *, options, **kwargs):
        asked.append(list(options))
        if not len(deals):  # the command's check of the request
            return pl.DataFrame({"legal": [], "value": []})
        means = {"pass": 0.0, "bid": 0.0, "misere": -100.0}
        rng = np.random.default_rng(np.asarray(deals.index))
        value = np.stack([rng.normal(means[o], 10.0, len(deals)) for o in options], axis=1)
        return pl.DataFrame({"legal": np.ones(value.size, bool), "value": value.reshape(-1)})

    monkeypatch.setattr(module, "rollout", fake)
    result = _cli("♠AKQJ10 ♣AK ♦AK ♥A", "--deals", "1386", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    rows = {r["option"]: r for r in out["rows"]}
    assert asked[1:] == [FIRST, ["pass", "bid"]]  # asked[0]: the check of the request
    assert rows["misere"]["dropped"] and rows["misere"]["n"] == 693
    assert rows["bid"]["n"] == rows["pass"]["n"] == 1386 and not out["decided"]
