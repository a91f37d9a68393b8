"""Pulkas of Classic and Gusarik: bombs, bomb rounds and two players, against a replay
deal by deal on the Python score sheet with the bombs kept in Python lists."""

import numpy as np
import pytest

from prefstats.game import engine
from prefstats.game.auction import BLIND_PASS, DARK, MISERE, WHIST_CALL_NAMES
from prefstats.game.contracts import LEVEL
from prefstats.game.scoring import ScoreSheet
from prefstats.game.variants import get_variant
from prefstats.players.builtin import default_params, players_record
from prefstats.players.params import heuristic_params
from prefstats.sim.play import play_state, solver_table
from prefstats.sim.pulka import (
    MAX_BOMBS,
    STRIDE,
    game_made,
    opening_deals,
    play_pulkas,
    pulka_deals,
    seat_places,
    set_bombs,
    update_bombs,
)


def _play_deal(variant, d, bombs, blind_round, policy, key, deal_index, min_level, step,
               level=1):
    """One deal played as the pulka plays it: reset, bombs, the bomb round's blind
    passes (its bomb ``level``'s multiplier, B:398), then the built-in players."""
    rules = engine.rules_array(variant)
    st = np.zeros(1, dtype=engine.STATE)[0]
    engine.reset(st, d.hands[0], d.talon[0], d.talon_first[0], min_level, step)
    st["bombs"][:] = bombs
    if blind_round:
        for _ in range(2 if variant.players == 2 else 3):
            assert engine.apply(st, rules, BLIND_PASS) == 0
        if level > 1:
            st["multiplier"] = level
    players = players_record(variant, policy, default_params(policy), key=key)
    ok = play_state(st, players, deal_index, np.zeros(1, dtype=engine.OBSERVATION)[0],
                    solver_table())
    assert ok
    return st


def _made(st):
    d = int(st["declarer"])
    if st["kind"] == engine.MISERE_GAME:
        return st["tricks"][d] == 0
    roles = (int(st["first"]), int(st["second"]))
    return 1 not in roles or st["tricks"][d] >= LEVEL[int(st["contract"])]


def replay(variant, pulka_id, seed, target, policy, key):
    """Pulka ``pulka_id`` deal by deal on a :class:`ScoreSheet`; bombs in Python lists.
    Returns the sheet, the final states and each deal's seat bombs."""
    n = variant.players
    sheet = ScoreSheet(variant, pool_target=target)
    fifo = {p: [] for p in range(n)}
    states, seat_bombs = [], []
    min_level = 6
    k = 0
    by_round = variant.bomb_level != "passers"
    # B:400, B:406: the opening circles, each dealer dealing every level in turn (or a
    # circle per level); with "passers", bomb_rounds deals in the usual rotation; trees
    # (B:263): full circles, every deal a tree (x2)
    levels = range(variant.bomb_rounds)
    if not by_round:
        opening = [((n - 1 + k) % n, 1) for k in levels]
    elif variant.bomb_level == "tree":
        opening = [((n - 1 + i) % n, 2) for lv in levels for i in range(n)]
    elif variant.bomb_circles == "dealer":
        opening = [((n - 1 + i) % n, 2 ** (lv + 1)) for i in range(n) for lv in levels]
    else:
        opening = [((n - 1 + i) % n, 2 ** (lv + 1)) for lv in levels for i in range(n)]
    assert opening == [tuple(row) for row in opening_deals(variant).tolist()]
    dealer, running = n - 1, 0  # he stays after a raspasy, at most dealer_stays (B:221)
    while not sheet.finished:
        d = pulka_deals(1, seed=seed, start=pulka_id * STRIDE + k)
        bomb_round = k < len(opening)
        level = opening[k][1] if bomb_round else 1
        if bomb_round:
            dealer, running = opening[k][0], 0
        running += 1
        seats = 2 if n == 2 else 3
        first = dealer + 2 if n == 5 else dealer + 1  # B:474: the next to deal sits out
        place = [(first + s) % n for s in range(seats)]
        bombs = [fifo[place[s]][0] if s < seats and fifo[place[s]] else 1 for s in range(3)]
        st = _play_deal(variant, d, bombs, bomb_round, policy, key, pulka_id * STRIDE + k,
                        min_level, sheet.raspasy_step, level)  # fmt: skip
        states.append(st.copy())
        seat_bombs.append(bombs)
        kind = int(st["kind"])
        tricks = [0] * n
        for s in range(seats):
            tricks[place[s]] = int(st["tricks"][s])
        four = dealer if n >= 4 else None
        if n >= 4:
            tricks[dealer] = int(st["tricks"][engine.TALON_SLOT])
        blind = int(st["blind"])
        bomb = 1  # a bomb raspasy's: its opening level, else a single bomb (B:398)
        if kind == engine.RASPASY and by_round and variant.blind_pass and blind:
            bomb = level if bomb_round else 2
        if kind == engine.RASPASY:
            assert int(st["multiplier"]) == bomb
            sheet.record_raspasy(tricks, four, multiplier=bomb)
            passers = [s for s in range(3) if blind >> s & 1]
            # an opening circle: every place, the sitting-out dealer too (B:406)
            earners = range(n) if bomb_round and by_round else [place[s] for s in passers]
            for p in earners:
                fifo[p].append(bomb if by_round else 2 ** len(passers))
        else:
            declarer = int(st["declarer"])
            mult = int(st["multiplier"])
            assert mult == bombs[declarer] * (2 if int(st["dark"]) >> declarer & 1 else 1)
            if n == 2:  # the dummy's tricks are the defending player's
                tricks[place[1 - declarer]] += int(st["tricks"][2])
            if kind == engine.MISERE_GAME:
                sheet.record_misere(place[declarer], int(st["tricks"][declarer]), four,
                                    multiplier=mult)  # fmt: skip
            else:
                talon = None if st["no_talon"] else int(st["talon"])
                if n == 2:
                    role = st["second"] if (declarer + 1) % 3 == 2 else st["first"]
                    roles = {place[1 - declarer]: WHIST_CALL_NAMES[role]}
                else:
                    roles = {place[(declarer + 1) % 3]: WHIST_CALL_NAMES[st["first"]],
                             place[(declarer + 2) % 3]: WHIST_CALL_NAMES[st["second"]]}
                sheet.record_game(place[declarer], int(st["contract"]), tricks, roles, four,
                                  multiplier=mult, talon=talon)  # fmt: skip
            if _made(st) and fifo[place[declarer]]:
                fifo[place[declarer]].pop(0)
        if bomb == 1:  # a bomb raspasy is no step of the progression (RULES.md §10.1)
            min_level = variant.raspasy_exit if kind == engine.RASPASY else 6
        if bomb_round or not (kind == engine.RASPASY and running < variant.dealer_stays):
            dealer, running = (dealer + 1) % n, 0
        k += 1
    return sheet, states, seat_bombs


BOMB_VARIANTS = [
    ("sochi", 3, {"blind_pass": True, "bomb_rounds": 2}, "heuristic"),
    ("sochi", 3, {"blind_pass": True, "bomb_rounds": 2, "bomb_level": "passers"}, "heuristic"),
    ("classic", 4, {"bomb_rounds": 3}, "heuristic"),  # B:406's example
    ("classic", 3, {"bomb_circles": "circle", "bomb_rounds": 3}, "random"),
    ("classic", 3, {"bomb_level": "passers", "bomb_rounds": 1}, "heuristic"),
    ("classic", 3, {"misere_place": "top", "dark_misere_high": False}, "heuristic"),
    ("classic", 4, {"misere_place": "over_nine", "dark_misere_high": False}, "random"),
    ("sochi", 4, {"blind_pass": True, "bomb_rounds": 1, "talon_whists": True}, "heuristic"),
    ("sochi", 3, {"whist_responsibility": "full", "underbid_penalty": True}, "heuristic"),
    ("classic", 3, {}, "heuristic"),
    ("classic", 4, {}, "heuristic"),
    ("classic", 4, {"underbid_penalty": True}, "random"),  # dark bids, no talon: often
    ("gusarik", 2, {}, "heuristic"),
    ("gusarik", 2, {"blind_pass": True, "bomb_rounds": 2, "whist_split": "gentleman"},
     "heuristic"),
    ("gusarik", 2, {"dark_bids": True, "no_talon_bids": True}, "random"),
    # RULES.md §10: the dealer stays (B:221), the lone whister's choice (B:215), the
    # raspasy leads (B:125, B:227)
    ("classic", 3, {"dealer_stays": 3, "lone_whist_play": "whister_chooses"}, "heuristic"),
    ("sochi", 4, {"dealer_stays": 2, "lone_whist_play": "whister_chooses"}, "heuristic"),
    ("sochi", 3, {"raspasy_first_hand_leads": 3, "dealer_stays": 3}, "random"),
    ("gusarik", 2, {"dealer_stays": 3}, "heuristic"),
    # five players (B:474), the obligatory raspasy and trees (B:263-267)
    ("sochi", 5, {}, "heuristic"),
    ("rostov", 5, {"dealer_stays": 2}, "random"),
    ("classic", 5, {}, "heuristic"),
    ("leningrad", 5, {"blind_pass": True, "bomb_rounds": 1, "bomb_level": "tree",
                      "bomb_circles": "circle"}, "heuristic"),
    ("sochi", 3, {"blind_pass": True, "bomb_rounds": 2, "bomb_level": "tree",
                  "bomb_circles": "circle"}, "heuristic"),
    ("classic", 4, {"bomb_level": "tree", "bomb_circles": "circle"}, "random"),
]


@pytest.mark.parametrize(("name", "players", "options", "policy"), BOMB_VARIANTS)
def test_pulka_loop_equals_sheet_replay_with_bombs(name, players, options, policy):
    variant = get_variant(name, players=players, **options)
    ids = [0, 7]
    result = play_pulkas(variant, ids, seed=5, pool_target=5, player_key=11, with_deals=True,
                         policy=policy)  # fmt: skip
    rows, numbers = result["deal_places"][:, 0], result["deal_places"][:, 1]
    for row, pid in enumerate(ids):
        sheet, states, bombs = replay(variant, pid, 5, 5, policy, 11)
        assert result["finished"][row] and result["deals"][row] == len(states)
        np.testing.assert_array_equal(result["pool"][row], sheet.pool)
        np.testing.assert_array_equal(result["mountain"][row], sheet.mountain)
        np.testing.assert_array_equal(result["whists"][row], sheet.whists)
        np.testing.assert_allclose(result["result"][row], sheet.settle(), atol=1e-9)
        mine = result["deal_states"][rows == row]
        assert numbers[rows == row].tolist() == list(range(len(states)))
        assert mine["bombs"].tolist() == bombs
        for a, b in zip(mine, states, strict=True):  # field by field: padding differs
            assert all(np.array_equal(a[f], b[f]) for f in engine.STATE.names)
    opening = opening_deals(variant)
    if len(opening):
        bomb_round = numbers < len(opening)
        first = result["deal_states"][bomb_round]
        bidders = 2 if players == 2 else 3
        assert (first["kind"] == engine.RASPASY).all()
        assert (first["blind"] == (1 << bidders) - 1).all()
        assert (result["deal_places"][bomb_round, 2] == opening[numbers[bomb_round], 0]).all()
        if variant.bomb_level != "passers":  # every place earns each deal's bomb
            assert (first["multiplier"] == opening[numbers[bomb_round], 1]).all()
            assert (result["bombs_earned"] >= len(opening) * players).all()
        else:
            assert (result["bombs_earned"] >= variant.bomb_rounds * bidders).all()


@pytest.mark.parametrize(("level", "opening_bomb"), [("passers", 8), ("round", 2)])
def test_bombs_multiply_the_games_they_are_spent_on(level, opening_bomb):
    variant = get_variant("sochi", blind_pass=True, bomb_rounds=1, bomb_level=level)
    r = play_pulkas(variant, range(6), seed=2, pool_target=8, with_deals=True)
    states = r["deal_states"]
    games = states[states["kind"] != engine.RASPASY]
    bomb = games["bombs"][np.arange(len(games)), games["declarer"]].astype(np.int64)
    dark = (games["dark"] >> games["declarer"].astype(np.uint8)) & 1
    assert (games["multiplier"] == bomb * (1 + dark)).all()
    assert (bomb == opening_bomb).sum() > 5  # the bomb round's bombs
    assert (r["bombs_spent"] > 0).any()
    assert (r["bombs_earned"] >= 3).all()


def test_b414_pulkas_play_switched_miseres_at_the_bomb_alone():
    """Classic pulkas whose first hand always bids dark: some dark declarers switch to a
    light misère before the talon (B:414), scored at their bomb alone, not doubled
    (B:105), and a clean one spends the bomb as any made misère; the pulkas sum to zero."""
    variant = get_variant("classic")
    r = play_pulkas(variant, range(30), seed=3, pool_target=20, with_deals=True,
                    params=heuristic_params(dark_bid=1.0, blind_pass=0.0))
    assert r["finished"].all() and abs(r["result"].sum(axis=1)).max() < 1e-9
    states = r["deal_states"]
    decl = np.maximum(states["declarer"], 0)
    dark_call = (states["calls"] == DARK).any(axis=1)
    switched = dark_call & (states["kind"] == engine.MISERE_GAME) & (states["bid"] != MISERE)
    assert switched.sum() >= 2
    bomb = states["bombs"][np.arange(len(states)), decl]
    assert (states["multiplier"][switched] == bomb[switched]).all()
    assert (states["dark"][switched] == 0).all() and states["open"][switched].all()
    assert (bomb[switched] > 1).any()  # a bomb from the opening circles


def test_pulkas_are_reproducible_by_seed_and_number():
    for name, players in (("classic", 3), ("classic", 4), ("gusarik", 2)):
        v = get_variant(name, players=players)
        a = play_pulkas(v, [3, 4], seed=2, pool_target=4)
        b = play_pulkas(v, [4], seed=2, pool_target=4)
        for key in ("pool", "mountain", "whists", "result", "deals", "bombs_earned"):
            np.testing.assert_array_equal(a[key][1], b[key][0])
        assert abs(a["result"].sum(axis=1)).max() < 1e-9


def _state(kind, declarer=-1, **fields):
    st = np.zeros(1, dtype=engine.STATE)[0]
    st["kind"] = kind
    st["declarer"] = declarer
    for name, value in fields.items():
        st[name] = value
    return st


def _bomb_book(n):
    return (np.ones((n, MAX_BOMBS), dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64))  # fmt: skip


def test_bombs_earned_by_blind_passers_and_spent_oldest_first():
    n = 3
    place = np.zeros(n, dtype=np.int64)
    seat_places(n, 0, place)  # dealer place 0: seats 0, 1, 2 at places 1, 2, 0
    assert place.tolist() == [1, 2, 0]
    queue, head, size = _bomb_book(n)
    # two blind passers of a raspasy: a bomb of 4 each; then all three: 8 each
    assert update_bombs(_state(engine.RASPASY, blind=0b101), n, place, queue, head,
                        size) == (2, 0)  # fmt: skip
    assert update_bombs(_state(engine.RASPASY, blind=0b111), n, place, queue, head,
                        size) == (3, 0)  # fmt: skip
    assert update_bombs(_state(engine.RASPASY, blind=0), n, place, queue, head,
                        size) == (0, 0)  # fmt: skip
    assert size.tolist() == [2, 2, 1]  # places 1 and 0 hold 4 then 8; place 2 holds 8
    st = _state(engine.GAME)
    set_bombs(st, n, place, queue, head, size)
    assert st["bombs"].tolist() == [4, 8, 4]
    # a failed game keeps the bomb, a made one spends the oldest
    failed = _state(engine.GAME, 0, contract=10, first=1, second=0, tricks=[7, 3, 0, 0])
    assert not game_made(failed)
    assert update_bombs(failed, n, place, queue, head, size) == (0, 0)
    made = _state(engine.GAME, 0, contract=10, first=1, second=0, tricks=[8, 2, 0, 0])
    assert game_made(made)
    assert update_bombs(made, n, place, queue, head, size) == (0, 1)
    set_bombs(st, n, place, queue, head, size)
    assert st["bombs"].tolist() == [8, 8, 4]
    credited = _state(engine.GAME, 0, contract=10, first=0, second=0)
    assert game_made(credited)
    update_bombs(credited, n, place, queue, head, size)
    assert size[1] == 0
    set_bombs(st, n, place, queue, head, size)
    assert st["bombs"].tolist() == [1, 8, 4]
    assert update_bombs(credited, n, place, queue, head, size) == (0, 0)  # none left
    # a bomb raspasy earns bombs of its multiplier; an opening circle's deal earns one
    # for every place, the 4-player dealer sitting out too (B:406)
    assert update_bombs(_state(engine.RASPASY, blind=0b111, multiplier=4), n, place, queue,
                        head, size) == (3, 0)  # fmt: skip
    assert queue[2, (head[2] + size[2] - 1) % MAX_BOMBS] == 4
    four = np.array([1, 2, 3, 0], dtype=np.int64)  # dealer place 0 sits out as seat 3
    q4, h4, s4 = _bomb_book(4)
    assert update_bombs(_state(engine.RASPASY, blind=0b111, multiplier=8), 4, four, q4, h4,
                        s4, True) == (4, 0)  # fmt: skip
    assert s4.tolist() == [1, 1, 1, 1] and q4[:, 0].tolist() == [8, 8, 8, 8]
    assert update_bombs(_state(engine.RASPASY, blind=0b011, multiplier=2), 4, four, q4, h4,
                        s4) == (2, 0)  # fmt: skip
    assert s4.tolist() == [1, 2, 2, 1]
    for p in range(n):  # back to the test's book: drop the bomb raspasy's bombs
        size[p] -= 1
    misere = _state(engine.MISERE_GAME, 1, contract=15, tricks=[0, 1, 0, 0])
    assert not game_made(misere)
    misere["tricks"][1] = 0
    assert game_made(misere)
    assert update_bombs(misere, n, place, queue, head, size) == (0, 1)  # place 2's bomb
    assert size.tolist() == [2, 0, 0]


def test_bombs_overflow_is_reported_and_changes_nothing():
    n = 3
    place = np.array([1, 2, 0], dtype=np.int64)
    queue, head, size = _bomb_book(n)
    raspasy = _state(engine.RASPASY, blind=0b111)
    for _ in range(MAX_BOMBS):
        assert update_bombs(raspasy, n, place, queue, head, size) == (3, 0)
    before = (queue.copy(), head.copy(), size.copy())
    assert update_bombs(raspasy, n, place, queue, head, size) == (-1, 0)
    assert all(np.array_equal(a, b) for a, b in zip(before, (queue, head, size), strict=True))
    v = get_variant("sochi", blind_pass=True, bomb_rounds=MAX_BOMBS + 1, bomb_level="passers")
    with pytest.raises(RuntimeError, match=f"more than {MAX_BOMBS} unused bombs"):
        play_pulkas(v, [0], seed=1, pool_target=50)


def test_gusarik_places_and_dummy():
    place = np.zeros(2, dtype=np.int64)
    seat_places(2, 1, place)
    assert place.tolist() == [0, 1]
    seat_places(2, 0, place)
    assert place.tolist() == [1, 0]
    st = _state(engine.GAME)
    queue, head, size = _bomb_book(2)
    queue[:, 0] = 4
    size[:] = 1
    set_bombs(st, 2, place, queue, head, size)
    assert st["bombs"].tolist() == [4, 4, 1]  # the dummy has no bombs


def test_bomb_rounds_need_blind_pass():
    with pytest.raises(ValueError, match=r"bomb_rounds.*blind_pass"):
        get_variant("sochi", bomb_rounds=1)


@pytest.mark.parametrize(("name", "players"), [("classic", 3), ("classic", 4), ("gusarik", 2)])
def test_pulka_datasets_of_the_new_presets(tmp_path, name, players):
    import polars as pl

    from prefstats.players.builtin import player_key
    from prefstats.sim.simulate import simulate_pulkas
    from prefstats.sim.storage import load

    variant = get_variant(name, players=players)
    simulate_pulkas(variant, pulkas=4, pool_target=4, seed=3, out=tmp_path, chunk_size=2,
                    with_deals=True, workers=1, progress=False)  # fmt: skip
    rows = load(tmp_path).collect().sort("pulka_id")
    deals = load(tmp_path / "deals").collect()
    assert rows.height == 4 and rows["finished"].all()
    assert deals.height == rows["deals"].sum()
    direct = play_pulkas(variant, [2], seed=3, pool_target=4, player_key=player_key(3))
    results = [f"result_{p}" for p in range(players)]
    assert rows.filter(pl.col("pulka_id") == 2).select(results).row(0) == pytest.approx(
        direct["result"][0].tolist())
    if variant.pulka_end == "total":  # no help: the deals' values add up to the result
        by_place = np.zeros((4, players))
        for row in deals.iter_rows(named=True):
            for s in range(players):  # scoring seat s sits at its place
                place = (row["dealer"] + 1 + s) % players if s < 3 else row["dealer"]
                by_place[row["pulka_id"], place] += row[f"value_{s}"]
        np.testing.assert_allclose(by_place, rows.select(results).to_numpy(), atol=1e-3)


@pytest.mark.parametrize("stays", [1, 2, 3])
def test_b221_dealer_stays_after_a_raspasy_at_most_n_deals_running(stays):
    """B:221: "after a raspasy the dealer stays the same, but not three times running"
    -- ``dealer_stays`` deals at most; after a played game the deal passes on."""
    variant = get_variant("rostov", dealer_stays=stays)  # raspasy-rich
    result = play_pulkas(variant, [0, 1, 2], seed=9, pool_target=6, with_deals=True)
    rows, dealers = result["deal_places"][:, 0], result["deal_places"][:, 2]
    kinds = result["deal_states"]["kind"]
    longest = 0
    for row in range(3):
        d, kd = dealers[rows == row], kinds[rows == row]
        run = 1
        for i in range(1, len(d)):
            same = d[i] == d[i - 1]
            expect_same = kd[i - 1] == engine.RASPASY and run < stays
            assert same == expect_same and (same or d[i] == (d[i - 1] + 1) % 3)
            run = run + 1 if same else 1
            longest = max(longest, run)
    assert longest == stays
    assert bool(abs(result["result"].sum(axis=1)).max() < 1e-9)  # zero-sum


def test_b406_four_players_three_circles_twelve_bombs_each_in_order():
    """B:406: "we play four and agreed on 3 circles of passes; each passed 3 times in a
    row (the dealer did not change); each received 12 bombs". B:400's first way: the
    same dealer deals the single, double and triple bomb, then the next dealer; B:408:
    the six on the first bomb writes 4 (x2), the misère on the next 40 (x4)."""
    variant = get_variant("classic", players=4, bomb_rounds=3)
    opening = opening_deals(variant)
    assert opening[:, 0].tolist() == [3, 3, 3, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert opening[:, 1].tolist() == [2, 4, 8] * 4
    r = play_pulkas(variant, [0, 1], seed=3, pool_target=6, with_deals=True)
    states, numbers = r["deal_states"], r["deal_places"][:, 1]
    assert (r["bombs_earned"] >= 48).all()
    after = states[numbers == 12]  # the first deal after the opening: place 3 deals again
    assert (r["deal_places"][numbers == 12, 2] == 3).all()
    assert (after["bombs"] == 2).all()  # every seat's oldest bomb is a single one
    assert (after["raspasy_step"] == 0).all()  # the opening is no step of the progression
    opening_raspasy = states[numbers < 12]
    assert (opening_raspasy["multiplier"] == np.tile([2, 4, 8], 8)).all()
    circle = opening_deals(get_variant("classic", players=4, bomb_rounds=3,
                                       bomb_circles="circle"))  # fmt: skip
    assert circle[:, 0].tolist() == [3, 0, 1, 2] * 3  # B:400's second way
    assert circle[:, 1].tolist() == [2] * 4 + [4] * 4 + [8] * 4
