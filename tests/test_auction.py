"""Auction legality (RULES.md §2) and whist calls (§4)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefstats.game.auction import (
    PASS,
    W_HALF,
    W_PASS,
    W_WHIST,
    auction_result,
    call_name,
    legal_calls,
    legal_contracts,
    legal_whist_calls,
    next_speaker,
    parse_call,
    whist_outcome,
)
from prefstats.game.contracts import MISERE, N_CONTRACTS
from prefstats.game.variants import get_variant

SOCHI = get_variant("sochi")
#: House options for the tests of the other rules, which climb the ladder by jumps.
JUMPS = get_variant("sochi", jump_bids=True, half_whist=True)


def calls(*texts):
    return [parse_call(t) for t in texts]


def names(history, variant=JUMPS, **kw):
    return [call_name(c) for c in legal_calls(history, variant, **kw)]


def test_opening_calls_are_the_whole_ladder():
    assert legal_calls([], JUMPS) == [PASS, *range(N_CONTRACTS)]


def test_bids_must_climb_the_ladder():
    assert names(calls("7♦")) == ["pass", *names([])[1:][8:]]
    assert names(calls("7♦"))[1] == "7♥"
    with pytest.raises(ValueError, match="illegal call 6♠ by seat 1"):
        legal_calls(calls("7♦", "6♠"), JUMPS)


def test_speaking_order_and_result():
    h = calls("6♠", "pass", "6♣")
    assert next_speaker(h, JUMPS) == 0
    h += calls("7♠", "7♣", "pass")
    assert next_speaker(h, JUMPS) is None
    assert auction_result(h, JUMPS) == (2, parse_call("7♣"))
    assert auction_result(calls("pass", "pass", "pass"), JUMPS) is None
    assert auction_result(calls("pass", "pass", "6♠"), JUMPS) == (2, 0)
    with pytest.raises(ValueError, match="not over"):
        auction_result(calls("pass", "pass"), JUMPS)
    with pytest.raises(ValueError, match="the auction is over"):
        legal_calls(calls("pass", "pass", "pass", "pass"), JUMPS)


def test_last_player_must_still_speak_after_two_passes():
    assert next_speaker(calls("pass", "pass"), JUMPS) == 2
    assert names(calls("pass", "pass"))[:3] == ["pass", "6♠", "6♣"]


def test_misere_only_as_first_call():
    assert "misère" in names(calls("6♠"))  # second hand's first call
    h = calls("6♠", "7♠", "pass")
    assert "misère" not in names(h)  # first hand has bid a trick game
    assert "misère" not in names(calls("9♠"))  # below the current bid
    with pytest.raises(ValueError):
        legal_calls(calls("6♠", "pass", "pass", "misere"), JUMPS)


def test_misere_cannot_be_held_and_its_bidder_only_passes():
    h = calls("pass", "misere")
    # third hand: no hold of misère, only 9-level and up
    assert names(h)[:2] == ["pass", "9♠"]
    h += calls("9♠")
    assert names(h) == ["pass"]  # the misère bidder may not bid again
    assert names(calls("misere", "pass")) == ["pass", *names(calls("misere"))[1:]]
    assert "misère" not in names(calls("misere", "pass"))


def test_hold_only_by_a_senior_player():
    h = calls("6♠", "7♠", "pass")
    assert names(h)[:2] == ["pass", "7♠"]  # first hand holds the second's 7♠
    h += calls("7♠")
    assert names(h)[:2] == ["pass", "7♣"]  # second hand must outbid
    # the third hand is junior to the first: no hold
    assert "6♠" not in names(calls("6♠", "pass"))
    # second hand is senior to the third
    assert names(calls("pass", "6♦", "7♥"))[:2] == ["pass", "7♥"]


def test_hold_options():
    h = calls("pass", "6♦", "7♥")
    first = get_variant("sochi", hold="first_hand", jump_bids=True)
    assert names(h, first)[:2] == ["pass", "7NT"]  # the second hand may not hold
    assert names(calls("6♦", "7♥", "pass"), first)[:2] == ["pass", "7♥"]
    none = get_variant("sochi", hold="none", jump_bids=True)
    assert names(calls("6♦", "7♥", "pass"), none)[:2] == ["pass", "7NT"]


def test_jump_bids_option():
    """B:95, B:541: no jumps, the opening bid included; ``jump_bids = true`` is a house
    option."""
    assert names([], SOCHI) == ["pass", "6♠", "misère"]  # the opening bid too
    assert names(calls("6♠"), SOCHI) == ["pass", "6♣", "misère"]
    assert names(calls("6♠", "6♣"), SOCHI) == ["pass", "6♦", "misère"]
    h = calls("6♠", "6♣", "pass")
    assert names(h, SOCHI) == ["pass", "6♣", "6♦"]  # hold or the next step
    with pytest.raises(ValueError, match="illegal call 7♠ by seat 1"):
        legal_calls(calls("6♠", "7♠"), SOCHI)
    with pytest.raises(ValueError, match="illegal call 8♥ by seat 0"):
        legal_calls(calls("8♥"), SOCHI)
    # the next step skips misère, which is a first call only (B:95)
    h = calls("pass", "misere")
    assert names(h, SOCHI) == ["pass", "9♠"]
    h = calls("6♠", "pass", "6♣", "6♦", "6♥", "6NT", "7♠", "7♣", "7♦", "7♥", "7NT", "8♠",
              "8♣", "8♦", "8♥", "8NT")
    assert names(h, SOCHI) == ["pass", "9♠"]  # the third hand, junior: never misère now
    assert len(names([], JUMPS)) == 1 + N_CONTRACTS  # the house option: any bid


def test_minimum_bid_after_raspasy():
    leningrad = get_variant("leningrad")
    opening = names([], leningrad, after_raspasy=True)
    assert opening[1] == "7♠" and "6NT" not in opening and "misère" in opening
    assert names([], leningrad)[1] == "6♠"
    assert names([], JUMPS, after_raspasy=True)[1] == "6♠"
    with pytest.raises(ValueError):
        legal_calls(calls("6NT"), leningrad, after_raspasy=True)


def test_legal_contracts():
    assert legal_contracts(MISERE) == [MISERE]
    assert [call_name(c) for c in legal_contracts(parse_call("8NT"))] == [
        "8NT",
        "9♠",
        "9♣",
        "9♦",
        "9♥",
        "9NT",
        "10♠",
        "10♣",
        "10♦",
        "10♥",
        "10NT",
    ]


# ---- whist ---------------------------------------------------------------------------

SIX, SEVEN, EIGHT, TEN = (parse_call(t) for t in ("6♥", "7♥", "8♥", "10♥"))


def test_whist_calls():
    assert legal_whist_calls(SIX, [], JUMPS) == [W_PASS, W_WHIST]
    assert legal_whist_calls(SIX, [W_WHIST], JUMPS) == [W_PASS, W_WHIST]
    assert legal_whist_calls(SIX, [W_PASS], JUMPS) == [W_PASS, W_WHIST, W_HALF]
    assert legal_whist_calls(SEVEN, [W_PASS], JUMPS) == [W_PASS, W_WHIST, W_HALF]
    assert legal_whist_calls(EIGHT, [W_PASS], JUMPS) == [W_PASS, W_WHIST]
    assert legal_whist_calls(SIX, [W_PASS, W_HALF], JUMPS) == [W_PASS, W_WHIST]
    assert legal_whist_calls(SIX, [W_PASS, W_HALF, W_WHIST], JUMPS) == []
    assert legal_whist_calls(SIX, [W_PASS, W_PASS], JUMPS) == []
    assert legal_whist_calls(MISERE, [], JUMPS) == []
    no_half = get_variant("sochi", half_whist=False)
    assert legal_whist_calls(SIX, [W_PASS], no_half) == [W_PASS, W_WHIST]


def test_ten_checked_and_stalingrad():
    checked = get_variant("sochi", ten_checked=True)
    assert legal_whist_calls(TEN, [], checked) == []
    assert whist_outcome(TEN, [], checked) == ("whist", "whist")
    assert legal_whist_calls(TEN, [], JUMPS) == [W_PASS, W_WHIST]
    stalingrad = get_variant("sochi", stalingrad=True)
    assert legal_whist_calls(0, [], stalingrad) == [W_WHIST]
    assert legal_whist_calls(0, [W_WHIST], stalingrad) == [W_WHIST]
    assert legal_whist_calls(1, [], stalingrad) == [W_PASS, W_WHIST]


def test_whist_outcome():
    assert whist_outcome(SIX, [W_WHIST, W_PASS], JUMPS) == ("whist", "pass")
    assert whist_outcome(SIX, [W_PASS, W_HALF, W_PASS], JUMPS) == ("pass", "half")
    assert whist_outcome(SIX, [W_PASS, W_HALF, W_WHIST], JUMPS) == ("whist", "half")
    with pytest.raises(ValueError, match="illegal whist call"):
        whist_outcome(EIGHT, [W_PASS, W_HALF], JUMPS)
    with pytest.raises(ValueError, match="not over"):
        whist_outcome(SIX, [W_PASS], JUMPS)


# ---- compiled core and random auctions -------------------------------------------------


def test_compiled_state_for_the_simulator():
    import numpy as np

    from prefstats.game.auction import _auction_state, auction_options

    history = np.array(calls("6♠", "7♠", "pass"), dtype=np.int64)
    state = _auction_state(history, auction_options(JUMPS))
    speaker, high, bidder, passed, legal, bad = state[:6]
    assert (speaker, high, bidder, passed, bad) == (0, 5, 1, 0b100, -1)
    assert legal == sum(1 << c for c in legal_calls(history, JUMPS))
    bad_history = np.array(calls("7♠", "6♠"), dtype=np.int64)
    assert _auction_state(bad_history, auction_options(JUMPS))[5] == 1


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    st.sampled_from(["senior", "first_hand", "none"]),
    st.booleans(),
    st.booleans(),
    st.data(),
)
def test_random_auctions_are_well_formed(hold, jump_bids, after_raspasy, data):
    v = get_variant("leningrad", hold=hold, jump_bids=jump_bids)
    history = []
    while legal := legal_calls(history, v, after_raspasy=after_raspasy):
        call = data.draw(st.sampled_from(legal))
        speaker = next_speaker(history, v, after_raspasy=after_raspasy)
        illegal = [c for c in range(N_CONTRACTS + 1) if c not in legal]
        if illegal:
            with pytest.raises(ValueError, match=f"by seat {speaker}"):
                legal_calls([*history, data.draw(st.sampled_from(illegal))], v,
                            after_raspasy=after_raspasy)  # fmt: skip
        history.append(call)
        assert len(history) < 80
    result = auction_result(history, v, after_raspasy=after_raspasy)
    bids = [c for c in history if c != PASS]
    if result is None:
        assert not bids
    else:
        declarer, bid = result
        assert bid == max(bids) and declarer in (0, 1, 2)
        assert bid == MISERE or after_raspasy is False or bid >= parse_call("7♠")
        assert bids.count(MISERE) <= 1


# ---- compiled whist calls ----------------------------------------------------------------


def finished_whist_sequences(contract, variant):
    """Every finished call sequence reachable through the legal masks, with its roles."""
    import numpy as np

    from prefstats.game.auction import whist_options, whist_state

    done, todo = {}, [()]
    while todo:
        seq = todo.pop()
        legal, speaker, first, second, bad = whist_state(
            contract, np.array(seq, dtype=np.int64), *whist_options(variant)
        )
        assert bad == -1 and (speaker == -1) == (legal == 0)
        if legal:
            assert speaker == (1 if len(seq) == 1 else 0) and first == second == -1
            todo += [(*seq, c) for c in range(3) if legal >> c & 1]
        else:
            done[seq] = (first, second)
    return done


P, W, H = W_PASS, W_WHIST, W_HALF


@pytest.mark.parametrize(
    ("contract", "options", "expected"),
    [
        (SIX, {}, {(P, P): (P, P), (P, W): (P, W), (W, P): (W, P), (W, W): (W, W),
                   (P, H, P): (P, H), (P, H, W): (W, H)}),
        (SEVEN, {"half_whist": False}, {(P, P): (P, P), (P, W): (P, W), (W, P): (W, P),
                                        (W, W): (W, W)}),
        (EIGHT, {}, {(P, P): (P, P), (P, W): (P, W), (W, P): (W, P), (W, W): (W, W)}),
        (TEN, {"ten_checked": True}, {(): (W, W)}),
        (0, {"stalingrad": True}, {(W, W): (W, W)}),
        (MISERE, {}, {(): (-1, -1)}),
    ],
)  # fmt: skip
def test_whist_state_sequences_and_roles(contract, options, expected):
    variant = get_variant("leningrad", **options)
    assert finished_whist_sequences(contract, variant) == expected
    for seq, roles in expected.items():
        if roles[0] >= 0:
            names = tuple(("pass", "whist", "half")[r] for r in roles)
            assert whist_outcome(contract, list(seq), variant) == names


def test_whist_state_reports_the_first_illegal_call():
    import numpy as np

    from prefstats.game.auction import whist_options, whist_state

    opts = whist_options(JUMPS)
    state = whist_state(EIGHT, np.array([W_PASS, W_HALF, W_PASS], dtype=np.int64), *opts)
    assert state == (0b011, 1, -1, -1, 1)  # as after [W_PASS]
    assert whist_state(SIX, np.array([W_WHIST, W_PASS, 7], dtype=np.int64), *opts)[-1] == 2
    assert whist_state(SIX, np.array([-1], dtype=np.int64), *opts)[-1] == 0
    with pytest.raises(ValueError, match="illegal whist call 'whist' at position 1"):
        legal_whist_calls(SIX, [W_PASS, "whist"], JUMPS)
    with pytest.raises(ValueError, match="misère has no whist"):
        whist_outcome(MISERE, [], JUMPS)
