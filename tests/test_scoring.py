"""Scoring: each rate row of RULES.md §7 per preset, each option's effect, help and the
end rules, and properties of the settlement (hypothesis, derandomised)."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sheet_checks import (
    assert_deal_values_add_up,
    assert_relabelling_permutes_the_scores,
    assert_settles_to_zero,
    play,
)

from prefstats.game.auction import legal_whist_calls, whist_outcome
from prefstats.game.contracts import MISERE, contract_code, parse_contract
from prefstats.game.scoring import (
    ScoreSheet,
    deal_value,
    entry_totals,
    game_entries,
    load_pulka,
    settle,
    sheet_from_records,
)
from prefstats.game.variants import get_variant

PRICE = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
OBLIGATION = {6: 4, 7: 2, 8: 1, 9: 1, 10: 0}  # a ten: "without whists" (B:211)

# RULES.md §7, one row per rate, as functions of the price c.
TABLE = {
    "made": {"sochi": lambda c: c, "leningrad": lambda c: c, "rostov": lambda c: c},
    # Leningrad consolation c (B:337); its whists and remise 2c (B:331, the source's table)
    "whist": {"sochi": lambda c: c, "leningrad": lambda c: 2 * c, "rostov": lambda c: c},
    "remise": {"sochi": lambda c: c, "leningrad": lambda c: 2 * c, "rostov": lambda c: c},
    "consolation": {"sochi": lambda c: c, "leningrad": lambda c: c, "rostov": lambda c: 10},
    "shortfall": {"sochi": lambda c: c, "leningrad": lambda c: c, "rostov": lambda c: c / 2},
}
MISERE_RATES = {"sochi": (10, 10), "leningrad": (10, 20), "rostov": (10, 10)}
SPLIT = {"sochi": "greedy", "leningrad": "gentleman", "rostov": "gentleman"}
POINT_VALUES = {"sochi": (10, 10), "leningrad": (20, 10), "rostov": (10, 10)}
LEVELS = (6, 7, 8, 9, 10)

#: The presets of the rate table of RULES.md §7.
PRESETS = ("sochi", "leningrad", "rostov")


def new(name, players=3, pool_target=None, **options):
    return ScoreSheet(get_variant(name, players=players, **options), pool_target)


def hearts(level):
    return contract_code(level, 3)


# ---- the rate rows of §7 -------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("level", LEVELS)
def test_made_contract_rate(name, level):
    c = PRICE[level]
    passed = new(name)
    passed.record_game(1, hearts(level), None, {2: "pass", 0: "pass"})
    played = new(name)
    played.record_game(1, hearts(level), [0, level, 10 - level], {2: "whist", 0: "pass"})
    for s in (passed, played):
        assert s.pool.tolist() == [0, TABLE["made"][name](c), 0]
        assert s.mountain[1] == 0


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("level", (6, 7, 8, 9))
def test_whist_rate_per_defender_trick(name, level):
    c = PRICE[level]
    rate = TABLE["whist"][name](c)
    defence = 10 - level
    s = new(name)
    s.record_game(0, hearts(level), [level, defence, 0], {1: "whist", 2: "whist"})
    assert s.whists[:, 0].tolist() == [0, rate * defence, 0]
    lone = new(name)  # a lone whister owns the tricks of both defence hands
    lone.record_game(0, hearts(level), [level, 0, defence], {1: "whist", 2: "pass"})
    assert lone.whists[:, 0].tolist() == [0, rate * defence, 0]


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("under", (1, 3))
def test_remise_and_consolation_rates(name, level, under):
    c = PRICE[level]
    taken = level - under
    defence = 10 - taken
    s = new(name)
    s.record_game(0, hearts(level), [taken, defence, 0], {1: "whist", 2: "whist"})
    assert s.mountain[0] == TABLE["remise"][name](c) * under
    consolation = TABLE["consolation"][name](c) * under
    assert s.whists[2, 0] == consolation  # the whister without tricks
    assert s.whists[1, 0] == TABLE["whist"][name](c) * defence + consolation
    assert s.pool.sum() == 0


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("level", [lv for lv in LEVELS if OBLIGATION[lv]])
def test_whister_shortfall_rate(name, level):
    c = PRICE[level]
    defence = OBLIGATION[level] - 1  # one short of the obligation
    s = new(name)
    s.record_game(0, hearts(level), [10 - defence, defence, 0], {1: "whist", 2: "pass"})
    assert s.mountain.tolist() == [0, TABLE["shortfall"][name](c), 0]
    assert s.pool[0] == TABLE["made"][name](c)
    assert s.whists[1, 0] == TABLE["whist"][name](c) * defence


@pytest.mark.parametrize("name", PRESETS)
def test_misere_rates(name):
    made, failed = MISERE_RATES[name]
    s = new(name)
    s.record_misere(2, 0)
    assert s.pool.tolist() == [0, 0, made]
    s.record_misere(1, 3)
    assert s.mountain.tolist() == [0, 3 * failed, 0]
    assert s.whists.sum() == 0


@pytest.mark.parametrize("name", PRESETS)
def test_whist_split_default(name):
    assert get_variant(name).whist_split == SPLIT[name]
    s = new(name)
    s.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "pass"})
    c = 2
    whists = TABLE["whist"][name](c) * 6
    consolation = TABLE["consolation"][name](c) * 2
    if SPLIT[name] == "greedy":
        assert s.whists[1:, 0].tolist() == [whists + consolation, consolation]
    else:
        half = (whists + 2 * consolation) / 2
        assert s.whists[1:, 0].tolist() == [half, half]


@pytest.mark.parametrize(("name", "rates"), [("sochi", (1, 2, 3)), ("leningrad", (2, 4, 6))])
def test_raspasy_rates_by_step_and_zero_trick_pool(name, rates):
    s = new(name)
    for step in range(5):
        rate = rates[min(step, 2)]  # the last step repeats
        before_pool, before_mountain = s.pool.copy(), s.mountain.copy()
        s.record_raspasy([0, 3, 7])
        assert (s.pool - before_pool).tolist() == [rate, 0, 0]
        assert (s.mountain - before_mountain).tolist() == [0, 3 * rate, 7 * rate]
    assert s.whists.sum() == 0


def test_rostov_raspasy_in_whists():
    s = new("rostov")
    s.record_raspasy([2, 2, 6])  # two players with the fewest, none without tricks
    assert s.whists.tolist() == [[0, 0, 20], [0, 0, 20], [0, 0, 0]]
    assert s.pool.sum() == 0 and s.mountain.sum() == 0
    s.record_raspasy([0, 0, 10])  # no progression; each zero writes 1 into his pool
    assert s.whists[:, 2].tolist() == [70, 70, 0]
    assert s.pool.tolist() == [1, 1, 0]


@pytest.mark.parametrize("name", PRESETS)
def test_point_values_in_settlement(name):
    pool_value, mountain_value = POINT_VALUES[name]
    s = new(name)
    s.record_misere(0, 0)
    s.record_misere(1, 1)
    expected = settle(
        s.pool, s.mountain, s.whists, pool_value=pool_value, mountain_value=mountain_value
    )
    assert s.value().tolist() == pytest.approx(expected.tolist())
    first = pool_value * 10 * 2 / 3 + mountain_value * s.mountain[1] / 3
    assert s.value()[0] == pytest.approx(first)


# ---- options --------------------------------------------------------------------------------


def test_half_whist_stands_and_returned():
    s = new("sochi", half_whist=True)  # Sochi itself has none (B:253)
    s.record_game(0, "6♥", None, {1: "pass", 2: "half"})
    assert s.pool[0] == 2 and s.whists[2, 0] == 2 * 2  # half of ob = 2 tricks at c
    s = new("leningrad")
    s.record_game(0, "7♥", [7, 1, 2], {1: "pass", 2: "half"})  # tricks ignored: not played
    assert s.pool[0] == 4 and s.whists[2, 0] == 8 * 1
    returned = new("sochi", half_whist=True)
    returned.record_game(0, "6♥", [4, 4, 2], {1: "whist", 2: "half"})
    alone = new("sochi", half_whist=True)
    alone.record_game(0, "6♥", [4, 4, 2], {1: "whist", 2: "pass"})
    assert returned.log == alone.log


def test_half_whist_restrictions():
    for variant, contract, calls in [
        (get_variant("sochi", half_whist=False), "6♥", ("pass", "half")),
        (get_variant("sochi"), "8♥", ("pass", "half")),
        (get_variant("sochi"), "6♥", ("half", "pass")),
    ]:
        with pytest.raises(ValueError, match="'half' is open only to the second defender"):
            game_entries(variant, 0, contract, None, dict(zip((1, 2), calls, strict=True)))


def test_ten_checked():
    v = get_variant("sochi", ten_checked=True)
    made = game_entries(v, 0, "10♥", [10, 0, 0], None)
    assert entry_totals(made, 3)[0].tolist() == [20, 0, 0]  # halves
    assert len(made) == 1  # no whists, no shortfall though the defence took nothing
    s = ScoreSheet(v)
    s.record_game(0, "10♥", [8, 1, 1], {1: "pass", 2: "pass"})  # calls do not matter
    assert s.mountain.tolist() == [20, 0, 0]
    assert s.whists[:, 0].tolist() == [0, 20, 20]  # consolation only
    plain = new("sochi")
    plain.record_game(0, "10♥", None, {1: "pass", 2: "pass"})
    assert plain.mountain.sum() == 0 and plain.pool[0] == 10


def test_stalingrad():
    v = get_variant("sochi", stalingrad=True)
    with pytest.raises(ValueError, match="stalingrad"):
        game_entries(v, 0, "6♠", [6, 2, 2], {1: "whist", 2: "pass"})
    game_entries(v, 0, "6♠", [6, 2, 2], {1: "whist", 2: "whist"})
    game_entries(v, 0, "6♣", [6, 2, 2], {1: "whist", 2: "pass"})


def test_shortfall_two_whisters_gentleman_and_greedy():
    # 8♥ made with all ten tricks: ob = 1; gentleman: only the second whister pays.
    for split, owed in [("gentleman", [0, 0, 6]), ("greedy", [0, 6, 6])]:
        s = new("sochi", whist_split=split)
        s.record_game(0, "8♥", [10, 0, 0], {1: "whist", 2: "whist"})
        assert s.mountain.tolist() == owed
    # 6♥ made 7: team short by 1; the second (no tricks) owes 2 by quota, cut to 1.
    for split, owed in [("gentleman", [0, 0, 2]), ("greedy", [0, 0, 4])]:
        s = new("sochi", whist_split=split)
        s.record_game(0, "6♥", [7, 3, 0], {1: "whist", 2: "whist"})
        assert s.mountain.tolist() == owed
    # 6♥ made 8, whisters 1 and 1: each owes his quota shortfall, 1 each.
    s = new("leningrad")
    s.record_game(0, "6♥", [8, 1, 1], {1: "whist", 2: "whist"})
    assert s.mountain.tolist() == [0, 2, 2]
    # greedy with no team shortfall still charges the personal quota (RULES.md §9.3)
    s = new("sochi")
    s.record_game(0, "6♥", [6, 4, 0], {1: "whist", 2: "whist"})
    assert s.mountain.tolist() == [0, 0, 4]


def test_rostov_half_price_shortfall():
    s = new("rostov")
    s.record_game(0, "7♥", [10, 0, 0], {1: "pass", 2: "whist"})
    assert s.mountain.tolist() == [0, 0, 2 * 2]  # ob 2, c/2 = 2 per trick


def test_four_players_dealer_consolation_and_inference():
    s = new("sochi", players=4)
    s.record_game(1, "7♥", [0, 5, 3, 2], {2: "whist", 3: "whist"})  # dealer 0 inferred
    assert s.whists[:, 1].tolist() == [8, 0, 12 + 8, 8 + 8]
    with pytest.raises(ValueError, match="dealer"):
        s.record_game(1, "7♥", [0, 5, 3, 2], {2: "whist", 3: "whist"}, dealer=2)
    with pytest.raises(ValueError, match="sits out"):
        s.record_game(1, "7♥", [1, 4, 3, 2], {2: "whist", 3: "whist"})
    made = new("sochi", players=4)
    made.record_game(1, "7♥", [0, 7, 3, 0], {2: "whist", 3: "pass"}, dealer=0)
    assert made.whists[0].sum() == 0  # the dealer writes only consolation


def test_raspasy_talon_options_with_four_players():
    dealer_mode = new("sochi", players=4)
    dealer_mode.record_raspasy([1, 0, 4, 5], dealer=0)  # the talon took a trick
    assert dealer_mode.mountain.tolist() == [1, 0, 4, 5]
    assert dealer_mode.pool.tolist() == [0, 1, 0, 0]  # the dealer gets no zero-trick pool
    rostov = new("rostov", players=4)
    rostov.record_raspasy([0, 3, 0, 7], dealer=2)
    assert rostov.pool.tolist() == [1, 0, 1, 0]  # the dealer writes 1 into his pool
    assert rostov.whists[0].tolist() == [0, 15, 0, 35]
    assert rostov.whists[2].sum() == 0
    suit_lead = new("sochi", players=4, raspasy_talon="suit_lead")
    suit_lead.record_raspasy([0, 3, 0, 7], dealer=2)
    assert suit_lead.pool.tolist() == [1, 0, 0, 0]
    with pytest.raises(ValueError, match="dealer"):
        suit_lead.record_raspasy([0, 3, 0, 7])
    with pytest.raises(ValueError, match="takes no tricks"):
        suit_lead.record_raspasy([1, 2, 0, 7], dealer=0)


def test_raspasy_progression_resets_after_a_game_or_misere():
    s = new("sochi")
    s.record_raspasy([0, 4, 6])
    s.record_raspasy([0, 4, 6])
    assert s.raspasy_step == 2
    s.record_misere(0, 0)
    assert s.raspasy_step == 0
    s.record_raspasy([1, 3, 6])
    assert s.mountain[0] == 1
    s.record_game(0, "6♠", None, {1: "pass", 2: "pass"})
    assert s.raspasy_step == 0


# ---- help and the end of the pulka -------------------------------------------------------


def test_pulka_ends_when_all_pools_are_closed():
    s = new("rostov", pool_target=2)
    for declarer in (0, 1, 2):
        assert not s.finished
        others = [p for p in (0, 1, 2) if p != declarer]
        s.record_game(declarer, "6♠", None, dict.fromkeys(others, "pass"))
    assert s.finished
    with pytest.raises(ValueError, match="pulka is over"):
        s.record_misere(0, 0)
    assert s.settle().tolist() == s.value().tolist() == [0, 0, 0]


def test_leningrad_end_rule_total_pool_and_no_help():
    s = new("leningrad", pool_target=3)
    s.record_game(0, "8♠", None, {1: "pass", 2: "pass"})  # 6 beyond a target of 3: no help
    assert s.pool.tolist() == [6, 0, 0] and s.whists.sum() == 0
    assert not s.finished
    s.record_game(1, "6♠", None, {2: "pass", 0: "pass"})
    s.record_game(2, "6♠", None, {0: "pass", 1: "pass"})
    assert s.pool.sum() == 10 >= 9 and s.finished
    with pytest.raises(ValueError, match="pulka is over"):
        s.record_raspasy([0, 4, 6])
    assert s.settle().sum() == pytest.approx(0)


def test_entry_log_adds_up_to_the_sheet():
    s = new("sochi", pool_target=5)
    s.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "pass"})
    s.record_raspasy([0, 4, 6])
    s.record_misere(1, 2)
    pool = np.zeros(3)
    mountain = np.zeros(3)
    whists = np.zeros((3, 3))
    for e in s.log:
        if e.column == "pool":
            pool[e.player] += e.amount
        elif e.column == "mountain":
            mountain[e.player] += e.amount
        else:
            whists[e.player, e.on] += e.amount
    assert (pool == s.pool).all() and (mountain == s.mountain).all()
    assert (whists == s.whists).all()
    assert {e.deal for e in s.log} == {1, 2, 3}


# ---- illegal inputs ----------------------------------------------------------------------------


ILLEGAL = [
    (lambda s: s.record_game(0, "6♦", [4, 4, 1], {1: "whist", 2: "whist"}), "sum to 9"),
    (lambda s: s.record_game(3, "6♦", [4, 4, 2], {1: "whist", 2: "whist"}), "unknown seat 3"),
    (lambda s: s.record_game(0, "6♦", [4, 4, 2], {0: "whist", 2: "whist"}), "names the decl"),
    (lambda s: s.record_game(0, "6♦", [4, 4, 2], {1: "whist"}), "two defenders"),
    (lambda s: s.record_game(0, "6♦", [4, 4, 2], {1: "whist", 2: "yes"}), "'yes' is not"),
    (lambda s: s.record_game(0, "6♦", [4, 6], {1: "whist", 2: "pass"}), "expected 3"),
    (lambda s: s.record_game(0, "6♦", [4, -1, 7], {1: "whist", 2: "pass"}), "not a trick"),
    (lambda s: s.record_game(0, "6X", [4, 4, 2], {1: "whist", 2: "pass"}), "bad contract"),
    (lambda s: s.record_game(0, "misere", [4, 4, 2], {1: "whist", 2: "pass"}), "misère"),
    (lambda s: s.record_game(0, "6♦", None, {1: "whist", 2: "pass"}), "tricks"),
    (lambda s: s.record_misere(0, 11), "not a trick"),
    (lambda s: s.record_misere(-1, 0), "unknown seat"),
    (lambda s: s.record_raspasy([0, 4, 5]), "sum to 9"),
    (lambda s: s.record_raspasy([0, 4, 6], dealer=5), "unknown seat 5"),
]


@pytest.mark.parametrize(("record", "message"), ILLEGAL)
def test_illegal_inputs_raise_and_leave_the_sheet_unchanged(record, message):
    s = new("sochi", pool_target=10)
    s.record_raspasy([1, 3, 6])
    before = (s.pool.copy(), s.mountain.copy(), s.whists.copy(), list(s.log), s.raspasy_step)
    with pytest.raises(ValueError, match=message):
        record(s)
    after = (s.pool, s.mountain, s.whists, s.log, s.raspasy_step)
    for a, b in zip(before, after, strict=True):
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
    assert s.deals == 1


def test_settle_checks_shapes():
    with pytest.raises(ValueError, match="same players"):
        settle([0, 0, 0], [0, 0], np.zeros((3, 3)))


# ---- properties ---------------------------------------------------------------------------------


@st.composite
def deals(draw, variant):
    """One legal deal for ``variant`` as (method name, args, kwargs)."""
    n = variant.players
    dealer = draw(st.integers(0, n - 1)) if n >= 4 else None
    # with five, the player after the dealer sits out too (B:474)
    out = {dealer, (dealer + 1) % n} if n == 5 else {dealer}
    active = [p for p in range(n) if p not in out]

    def split_tricks(players):
        cuts = sorted(
            draw(st.lists(st.integers(0, 10), min_size=len(players) - 1, max_size=len(players) - 1))
        )
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, 10], strict=True)]
        counts = [0] * n
        for p, t in zip(players, parts, strict=True):
            counts[p] = t
        return counts

    kind = draw(st.sampled_from(["game", "game", "misere", "raspasy"]))
    if kind == "raspasy":
        takers = [*active, dealer] if variant.raspasy_talon == "dealer" else active
        return "record_raspasy", (split_tricks(takers),), {"dealer": dealer}
    declarer = draw(st.sampled_from(active))
    if kind == "misere":
        return "record_misere", (declarer, draw(st.integers(0, 10))), {"dealer": dealer}
    code = draw(st.sampled_from([c for c in range(26) if c != MISERE]))
    defenders = draw(st.permutations([p for p in active if p != declarer]))
    calls = []
    while legal := legal_whist_calls(code, calls, variant):
        calls.append(draw(st.sampled_from(legal)))
    outcome = whist_outcome(code, calls, variant)
    whist = dict(zip(defenders, outcome, strict=True))
    return "record_game", (declarer, code, split_tricks(active), whist), {"dealer": dealer}


@st.composite
def variants(draw):
    name = draw(st.sampled_from(PRESETS))
    players = draw(st.sampled_from([3, 4, 5]))
    options = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "whist_split": st.sampled_from(["greedy", "gentleman"]),
                "ten_checked": st.booleans(),
                "stalingrad": st.booleans(),
                "half_whist": st.booleans(),
            },
        )
    )
    return get_variant(name, players=players, **options)


@st.composite
def pulkas(draw, max_deals=8):
    variant = draw(variants())
    return variant, draw(st.lists(deals(variant), min_size=1, max_size=max_deals))


PROPERTY = settings(derandomize=True, max_examples=300, deadline=None)


@PROPERTY
@given(pulkas(), st.sampled_from([None, 3, 10]))
def test_settlement_sums_to_zero(pulka, pool_target):
    assert_settles_to_zero(*pulka, pool_target)


@PROPERTY
@given(pulkas())
def test_deal_values_add_up_without_help(pulka):
    assert_deal_values_add_up(*pulka)


@PROPERTY
@given(pulkas(), st.data())
def test_relabelling_players_permutes_the_scores(pulka, data):
    variant, history = pulka
    n = variant.players
    if n == 5:  # who sits out with the dealer is his neighbour: only rotations keep it
        turn = data.draw(st.integers(0, n - 1))
        perm = [(p + turn) % n for p in range(n)]
    else:
        perm = data.draw(st.permutations(range(n)))
    assert_relabelling_permutes_the_scores(variant, history, perm)


@PROPERTY
@given(pulkas(max_deals=3), st.data())
def test_illegal_deals_raise_and_change_nothing(pulka, data):
    variant, history = pulka
    sheet = play(variant, history)
    before = (sheet.pool, sheet.mountain, sheet.whists, list(sheet.log), sheet.raspasy_step)
    method, args, kwargs = data.draw(deals(variant))
    breakage = data.draw(st.sampled_from(["seat", "tricks", "declarer_whists"]))
    if breakage == "seat":
        args = (variant.players + 1, *args[1:]) if method != "record_raspasy" else args
        kwargs = kwargs if method != "record_raspasy" else {"dealer": -1}
    elif breakage == "tricks" and method != "record_misere":
        counts = list(args[-2] if method == "record_game" else args[0])
        counts[
            data.draw(st.sampled_from([p for p in range(len(counts)) if p != kwargs["dealer"]]))
        ] += 1
        args = (*args[:2], counts, args[3]) if method == "record_game" else (counts,)
        if method == "record_game" and "whist" not in args[3].values():
            args = (*args[:3], dict.fromkeys(args[3], "whist"))
    elif method == "record_game":
        declarer, code, counts, whist = args
        args = (declarer, code, counts, {declarer: "whist", **dict(list(whist.items())[1:])})
    else:
        args = (args[0], 11) if method == "record_misere" else ([11, *list(args[0])[1:]],)
    with pytest.raises(ValueError):
        getattr(sheet, method)(*args, **kwargs)
    assert np.array_equal(before[0], sheet.pool) and np.array_equal(before[1], sheet.mountain)
    assert np.array_equal(before[2], sheet.whists)
    assert before[3] == sheet.log and before[4] == sheet.raspasy_step
    assert sheet.deals == len(history)


def test_vectorised_settle_matches_rows():
    rng = np.random.default_rng(7)
    pool = rng.integers(0, 20, (5, 3))
    mountain = rng.integers(0, 50, (5, 3))
    whists = rng.integers(0, 100, (5, 3, 3))
    batch = settle(pool, mountain, whists)
    for i in range(5):
        assert batch[i].tolist() == pytest.approx(settle(pool[i], mountain[i], whists[i]).tolist())


def test_contract_forms_are_interchangeable():
    v = get_variant("sochi")
    whist = {1: "whist", 2: "pass"}
    a = game_entries(v, 0, "7NT", [6, 3, 1], whist)
    b = game_entries(v, 0, parse_contract("7NT"), [6, 3, 1], whist)
    c = game_entries(v, 0, np.uint8(9), [6, 3, 1], whist)
    assert a.tolist() == b.tolist() == c.tolist()


# ---- pulka files and the `prefstats score` command -------------------------------------------

PULKA = {
    "variant": {"base": "sochi", "whist_split": "gentleman"},
    "pool_target": 10,
    "deals": [
        {"type": "game", "declarer": 0, "contract": "6♦", "tricks": [4, 4, 2],
         "whist": {"1": "whist", "2": "pass"}},
        {"type": "raspasy", "tricks": [0, 4, 6]},
        {"type": "misere", "declarer": 2, "tricks": 1},
    ],
}  # fmt: skip


def test_pulka_file_json_and_toml(tmp_path):
    import json

    path = tmp_path / "pulka.json"
    path.write_text(json.dumps(PULKA), encoding="utf-8")
    sheet = load_pulka(path)
    assert sheet.variant.whist_split == "gentleman"
    assert sheet.whists[:, 0].tolist() == [0, 10, 10]
    assert sheet.pool.tolist() == [1, 0, 0] and sheet.mountain.tolist() == [4, 4, 16]
    toml = tmp_path / "pulka.toml"
    toml.write_text(
        'variant = "rostov"\nplayers = 4\n[[deals]]\ntype = "raspasy"\n'
        "tricks = [0, 3, 0, 7]\ndealer = 2\n",
        encoding="utf-8",
    )
    assert load_pulka(toml).pool.tolist() == [1, 0, 1, 0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": 1}, "colour: unknown key"),
        ({"deals": [{"type": "bomb"}]}, "deal 1: type"),
        ({"deals": [{"type": "raspasy"}]}, "deal 1: tricks: missing"),
        ({"deals": [{"type": "raspasy", "tricks": [0, 4, 6], "x": 1}]}, "deal 1: x: unknown"),
        ({"deals": [{"type": "misere", "declarer": 7, "tricks": 0}]}, "deal 1: declarer"),
        ({"variant": "moscow"}, "base: unknown variant"),
    ],
)
def test_pulka_errors_name_the_deal_and_key(change, message):
    with pytest.raises(ValueError, match=message):
        sheet_from_records({**PULKA, **change})


def test_score_command(tmp_path):
    import json

    from typer.testing import CliRunner

    from prefstats.cli import app

    path = tmp_path / "pulka.json"
    path.write_text(json.dumps(PULKA), encoding="utf-8")
    result = CliRunner().invoke(app, ["score", str(path), "--log"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "whists on 0" in result.output and "entries" in result.output
    assert f"{load_pulka(path).value()[0]:+.2f}" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"deals": [{"type": "raspasy", "tricks": [1, 1, 1]}]}', encoding="utf-8")
    result = CliRunner().invoke(app, ["score", str(bad)], env={"COLUMNS": "200"})
    assert result.exit_code != 0 and "sum to 3" in result.output


# ---- the compiled kernel and batches ---------------------------------------------------------

BATCH_VARIANTS = [
    *((name, players, {}) for name in PRESETS for players in (3, 4)),
    ("sochi", 3, {"ten_checked": True, "stalingrad": True, "whist_split": "gentleman"}),
    ("leningrad", 4, {"half_whist": False, "whist_split": "greedy", "raspasy_talon": "none"}),
    ("rostov", 4, {"ten_checked": True, "raspasy_rates": [1, 3], "raspasy_zero_pool": "2c"}),
    # five players (B:474): the dealer and the next to deal sit out
    ("sochi", 5, {}),
    ("rostov", 5, {"misere_prize": 4}),
    ("leningrad", 5, {"whist_split": "greedy", "talon_whists": False}),
]


@pytest.mark.parametrize(("name", "players", "options"), BATCH_VARIANTS)
def test_score_batch_equals_the_entry_functions(name, players, options):
    from prefstats.game.scoring import OUTCOME_FIELDS, outcome_entries, random_outcomes, score_batch
    from prefstats.game.scoring import deal_values as batch_values

    variant = get_variant(name, players=players, **options)
    outcomes = random_outcomes(variant, 3000, seed=players)
    pool, mountain, whists = score_batch(variant, **outcomes)
    values = batch_values(variant, pool, mountain, whists)
    for i in range(len(pool)):
        deal = [outcomes[f][i] for f in OUTCOME_FIELDS]
        entries = outcome_entries(variant, *deal)
        totals = entry_totals(entries, players)
        assert [t.tolist() for t in totals] == [pool[i].tolist(), mountain[i].tolist(),
                                               whists[i].tolist()], deal  # fmt: skip
        assert values[i].tolist() == pytest.approx(deal_value(variant, entries).tolist())


def test_score_batch_defaults_to_the_left_hand_defender():
    from prefstats.game.auction import W_HALF, W_PASS
    from prefstats.game.scoring import GAME, score_batch

    for players, declarer, dealer, left, other in [(3, 2, -1, 0, 1), (4, 2, 3, 0, 1),
                                                   (4, 0, 1, 2, 3), (5, 2, 3, 0, 1),
                                                   (5, 0, 1, 3, 4)]:  # fmt: skip
        v = get_variant("sochi", players=players)
        tricks = np.zeros((1, players), dtype=np.int64)
        explicit = score_batch(v, GAME, declarer, 0, tricks, W_PASS, W_HALF, dealer,
                               defender=left)  # fmt: skip
        default = score_batch(v, GAME, declarer, 0, tricks, W_PASS, W_HALF, dealer)
        assert all(np.array_equal(a, b) for a, b in zip(explicit, default, strict=True))
        assert explicit[2][0].sum(axis=1).nonzero()[0].tolist() == [other]  # the half-whister


def test_score_batch_checks_ranges_and_shapes():
    from prefstats.game.scoring import GAME, score_batch

    v = get_variant("sochi")
    ok = {"kind": GAME, "declarer": 0, "contract": 3, "tricks": [[6, 2, 2]], "first": 1,
          "second": 1}  # fmt: skip
    score_batch(v, **ok)
    for change, message in [
        ({"declarer": 3}, "declarer: values outside 0..2"),
        ({"contract": 26}, "contract"),
        ({"tricks": [[6, 2, 2, 0]]}, "tricks: expected shape"),
        ({"tricks": [[11, 0, 0]]}, "tricks: values outside"),
        ({"first": [1, 1]}, "first: expected 1 values"),
        ({"kind": 0}, "kind"),
    ]:
        with pytest.raises(ValueError, match=message):
            score_batch(v, **{**ok, **change})
    with pytest.raises(ValueError, match=r"dealer: values outside 0\.\.3"):  # 4 players: required
        score_batch(get_variant("sochi", players=4), **{**ok, "tricks": [[6, 2, 2, 0]]})


def test_deal_totals_layout():
    from prefstats.game.auction import W_PASS, W_WHIST
    from prefstats.game.scoring import GAME, Outcome, deal_totals

    v = get_variant("sochi")
    out = np.full(3 + 3 + 9, 99, dtype=np.int64)  # overwritten
    tricks = np.array([4, 4, 2], dtype=np.int64)
    deal_totals(v.scoring_table(), Outcome(GAME, 0, -1, 2, tricks, W_WHIST, W_PASS, -1, 0, 1, 0),
                out)
    pool, mountain, whists = out[:3], out[3:6], out[6:].reshape(3, 3)  # RULES.md §9.2
    assert pool.tolist() == [0, 0, 0] and mountain.tolist() == [8, 0, 0]
    assert whists[:, 0].tolist() == [0, 32, 8] and whists[:, 1:].sum() == 0


def test_deal_totals_takes_the_engine_small_int_fields():
    from numba import njit

    from prefstats.game.auction import W_PASS, W_WHIST
    from prefstats.game.scoring import GAME, Outcome, deal_totals

    @njit
    def score(table, tricks, out):  # int8 fields and a uint8 (4,) tricks row, as in a state
        deal_totals(table, Outcome(np.int8(GAME), np.int8(0), np.int8(-1), np.int8(2), tricks,
                                   np.int8(W_WHIST), np.int8(W_PASS), np.int8(-1), np.uint8(0),
                                   np.int16(1), np.uint32(0)), out)

    v = get_variant("rostov")
    out = np.zeros(15, dtype=np.int64)
    score(v.scoring_table(), np.array([5, 3, 2, 0], dtype=np.uint8), out)
    expected = entry_totals(game_entries(v, 0, 2, [5, 3, 2], {1: "whist", 2: "pass"}), 3)
    assert out.tolist() == np.concatenate([t.ravel() for t in expected]).tolist()
