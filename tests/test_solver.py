"""Tests of the double-dummy solver against published positions and a plain minimax."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solver_checks import minimax as _minimax
from solver_checks import random_positions as _random_positions

from prefstats.game.cards import SUIT_LETTERS, parse_cards
from prefstats.solver import (
    game_of,
    new_table,
    solve,
    solve_batch,
    solve_leads,
    solve_leads_batch,
)
from prefstats.solver._bounds import (
    BEATEN,
    DUCKS,
    HIGH8,
    LOW8,
    SPREAD,
    SUIT_FACTS,
    _bounds,
    _forced_leads,
)
from prefstats.solver._endgame import (
    COLEX,
    ENDGAME_CARDS,
    MISERE_ROW,
    OFFSET,
    ORDER,
    TRICK_CARDS,
    _endgame_index,
    _last_two,
    _one_trick,
    endgame_table,
    endgame_value,
    load_or_build,
    table_row,
)
from prefstats.solver._search import _search


def _counts(fast: int, full: int):
    """Run a random-position check on ``fast`` positions, and on ``full`` under ``slow``."""
    return pytest.mark.parametrize("count", [fast, pytest.param(full, marks=pytest.mark.slow)])


#: Published positions, kept in the repository (tests/data) so no clone lacks them.
POSITIONS = Path(__file__).resolve().parent / "data" / "dd_positions.txt"


def _read_positions() -> list:
    params = []
    for line in POSITIONS.read_text(encoding="utf-8").splitlines():
        body, _, comment = line.partition("#")
        if not body.strip():
            continue
        cards, declarer, leader, contract, tricks = body.rsplit(maxsplit=4)
        hands = [parse_cards(h) for h in cards.split("|")]
        misere = contract == "misere"
        trump = None if misere or contract[-1] == "n" else SUIT_LETTERS.index(contract[-1].upper())
        case = (hands, int(declarer), int(leader), trump, misere, int(tricks))
        params.append(pytest.param(case, id=comment.strip() or f"{cards[:20]} {contract}"))
    return params


@pytest.mark.parametrize("case", _read_positions())
def test_published_positions(case):
    hands, declarer, leader, trump, misere, tricks = case
    assert solve(hands, trump=trump, leader=leader, declarer=declarer, misere=misere) == tricks


# ---- agreement with a plain exhaustive minimax ------------------------------------------


@_counts(500, 2000)
def test_agrees_with_plain_minimax(count):
    rows = _random_positions(count, seed=4)
    hands = np.array([r[0] for r in rows], dtype=np.uint32)
    trump, leader, declarer, misere = (np.array([r[k] for r in rows]) for k in range(1, 5))
    got = solve_batch(hands, trump, leader, declarer, misere)
    leads = solve_leads_batch(hands, trump, leader, declarer, misere)
    trick = np.zeros(3, dtype=np.int64)
    for i, (h, t, lead, decl, mis) in enumerate(rows):
        expected = _minimax(np.array(h, dtype=np.int64), trick, 0, lead, decl, t, mis)
        assert got[i] == expected, rows[i]
        held = leads[i] >= 0
        assert held.tolist() == [bool(h[lead] >> c & 1) for c in range(32)]
        maximise = (lead == decl) != mis
        best = leads[i][held].max() if maximise else leads[i][held].min()
        assert best == expected, rows[i]
    for h, t, lead, decl, mis in rows[: count // 10]:
        by_card = solve_leads(h, trump=None if t < 0 else t, leader=lead, declarer=decl, misere=mis)
        for c, tricks in by_card.items():
            trick[0] = c
            rest = np.array(h, dtype=np.int64)
            rest[lead] ^= 1 << c
            assert tricks == _minimax(rest, trick, 1, lead, decl, t, mis)
        assert sorted(by_card) == [c for c in range(32) if h[lead] >> c & 1]


@_counts(150, 400)
def test_each_search_answers_with_a_bound_it_proved(count):
    # Fail-soft: "at least t?" comes with a bound on the exact value on the side of the
    # answer, at least t if yes, below t if no; across targets and a shared table.
    table = new_table(1).thread(0)
    trick = np.zeros(3, dtype=np.int64)
    for h, t, lead, decl, mis in _random_positions(count, seed=6):
        hands = np.array(h, dtype=np.int64)
        exact = _minimax(hands.copy(), trick, 0, lead, decl, t, mis)
        seq = np.zeros(34, dtype=np.int64)
        for target in range(1, bin(h[0]).count("1") + 1):
            res, bound = _search(hands, seq, 0, lead, game_of(decl, t, mis), target, table)
            assert res == (exact >= target), (h, t, lead, decl, mis, target)
            assert (target <= bound <= exact) if res else (exact <= bound < target)


@_counts(500, 1500)
def test_last_tricks_answer_with_a_bound_they_proved(count):
    # The minimax of the last two tricks, and of one trick over the endgame table (up
    # to five cards a hand here; six in the test below), cuts off at ``need`` and
    # answers, as the search does, with a bound on the side of the answer, whatever
    # ``need`` is.
    trick = np.zeros(3, dtype=np.int64)
    endgame = endgame_table()
    checked = 0
    for h, t, lead, decl, mis in _random_positions(count, seed=13):
        n = bin(h[0]).count("1")
        if not mis and n not in range(2, TRICK_CARDS + 2):
            continue
        hands = np.array(h, dtype=np.int64)
        exact = _minimax(hands.copy(), trick, 0, lead, decl, t, mis)
        for need in range(n + 2):
            if n == 2 and not mis:
                v = _last_two(hands, lead, decl, t, mis, need)
            else:
                v = _one_trick(hands, n, lead, game_of(decl, t, mis), need, endgame,
                               table_row(t, mis))
            assert hands.tolist() == h  # restored
            assert (need <= v <= exact) if v >= need else (exact <= v < need), (
                h, t, lead, decl, mis, need, v, exact)
        checked += 1
    assert checked > 0.4 * count


# ---- the endgame table -------------------------------------------------------------------


def test_endgame_table_gives_each_position_one_entry():
    # The build marks every entry 15 first and writes one value in 0..n for each
    # position of n cards a hand (each pattern with its suits in order, every lead and
    # split): with as many entries as positions, none left marked means the index is
    # one to one.
    table = _unpacked(endgame_table())
    assert table.size == OFFSET[ENDGAME_CARDS + 1] + OFFSET[ENDGAME_CARDS + 1] % 2
    for n in range(ENDGAME_CARDS + 1):
        assert table[OFFSET[n] : OFFSET[n + 1]].max() <= n, n


def test_colex_ranks_number_the_sets_of_each_size_in_colex_order():
    # Colexicographic order: sets compared by their highest differing element.
    bits = 3 * ENDGAME_CARDS
    for k in range(ENDGAME_CARDS + 1):
        sets = sorted(itertools.combinations(range(bits), k), key=lambda c: c[::-1])
        masks = [sum(1 << b for b in c) for c in sets]
        assert COLEX[masks].tolist() == list(range(len(sets))), k


def test_order_puts_the_trump_suit_first_then_suits_longest_first_ties_in_suit_order():
    # Suit lengths 2, 3, 1, 3 (nine cards in play: three a hand).
    c = 2 + 9 * 3 + 81 * 1 + 729 * 3

    def suits(row):
        order = int(ORDER[row, c]) & 0xFF
        return [(order >> (2 * i)) & 3 for i in range(4)]

    assert suits(MISERE_ROW) == suits(table_row(-1, False)) == [1, 3, 0, 2]
    assert suits(table_row(2, False)) == [2, 1, 3, 0]  # trumps first
    assert suits(table_row(0, False)) == [0, 1, 3, 2]
    assert int(ORDER[MISERE_ROW, 1 + 729]) == -1  # two cards in play: no position
    assert OFFSET[3] <= int(ORDER[MISERE_ROW, c]) >> 8 < OFFSET[4]  # in the block of three
    five = 4 + 9 * 4 + 81 * 4 + 729 * 3  # five cards a hand: every kind of game
    assert (ORDER[:, five] >= 0).all()
    six = 5 + 9 * 5 + 81 * 4 + 729 * 4  # six: none
    assert (ORDER[:, six] == -1).all()


def _unpacked(table: np.ndarray) -> np.ndarray:
    """The packed endgame table's entries, one a byte."""
    return np.stack([table & 15, table >> 4], axis=1).ravel()


def test_endgame_values_are_read_from_their_half_byte():
    table = _unpacked(endgame_table())
    for i in np.random.default_rng(5).integers(0, OFFSET[ENDGAME_CARDS + 1], 1000):
        assert endgame_value(endgame_table(), i) == table[i]


def test_endgame_table_file_is_read_back_and_rebuilt_when_damaged(tmp_path):
    path = tmp_path / "cache" / "endgames.bin"
    # The table of up to three cards a hand (the whole one takes about 12 s to build).
    built = load_or_build(path, 3)  # no file: built, and written for the next process
    assert (_unpacked(built)[: OFFSET[4]] == _unpacked(endgame_table())[: OFFSET[4]]).all()
    assert path.stat().st_size == built.size + 4 == (OFFSET[4] + 1) // 2 + 4
    assert (load_or_build(path, 3) == built).all()
    damaged = bytearray(path.read_bytes())
    damaged[1000] ^= 1
    path.write_bytes(bytes(damaged))
    assert (load_or_build(path, 3) == built).all()  # the checksum fails: built again
    assert path.read_bytes()[1000] == damaged[1000] ^ 1  # and the file repaired
    path.write_bytes(b"not a table")
    assert (load_or_build(path, 3) == built).all()
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    path.unlink()
    path.mkdir()  # a folder in its place: built each time, nothing left behind
    assert (load_or_build(path, 3) == built).all()
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert path.is_dir() and not any(path.iterdir())


def _misere_positions(count: int, sizes, seed: int):
    """Random misère positions (hands, leader, declarer) of ``sizes`` cards a hand, from
    2-4 suits (contested suits, as in ``_random_positions``)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        size = int(rng.choice(sizes))
        suits = rng.permutation(4)[: int(rng.integers(2, 5))]
        deck = np.concatenate([8 * s + np.arange(8) for s in suits])
        if len(deck) < 3 * size:
            deck = np.arange(32)
        cards = rng.permutation(deck)[: 3 * size].astype(np.int64)
        hands = [int(np.sum(1 << cards[i * size : (i + 1) * size])) for i in range(3)]
        rows.append((hands, int(rng.integers(3)), int(rng.integers(3))))
    return rows


@_counts(1000, 3000)
def test_endgame_table_holds_the_plain_minimax_value_of_trick_contracts(count):
    endgame = endgame_table()
    trick = np.zeros(3, dtype=np.int64)
    checked = 0
    for h, t, lead, decl, mis in _random_positions(count, seed=22):
        n = bin(h[0]).count("1")
        if mis or n > TRICK_CARDS:
            continue
        hands = np.array(h, dtype=np.int64)
        assert endgame_value(endgame, _endgame_index(hands, n, lead, decl, table_row(t, mis))) \
            == _minimax(hands, trick, 0, lead, decl, t, mis), (h, t, lead, decl)
        checked += 1
    assert checked > count / 3


def test_trick_contracts_one_trick_above_the_table_agree_with_plain_minimax():
    # Six cards a hand, of three suits (random positions stop at five): the minimax of
    # one trick over the table's largest trick-contract positions answers with a bound
    # on the side of its answer whatever ``need`` is, and the search finds the value.
    n = TRICK_CARDS + 1
    rng = np.random.default_rng(31)
    endgame = endgame_table()
    table = new_table(1).thread(0)
    trick = np.zeros(3, dtype=np.int64)
    for _ in range(6):
        deck = np.concatenate([8 * s + np.arange(8) for s in rng.permutation(4)[:3]])
        cards = rng.permutation(deck)[: 3 * n].astype(np.int64)
        h = [int(np.sum(1 << cards[i * n : (i + 1) * n])) for i in range(3)]
        hands = np.array(h, dtype=np.int64)
        t, lead, decl = int(rng.integers(-1, 4)), int(rng.integers(3)), int(rng.integers(3))
        exact = _minimax(hands.copy(), trick, 0, lead, decl, t, False)
        for need in range(n + 2):
            v = _one_trick(hands, n, lead, game_of(decl, t, False), need, endgame,
                           table_row(t, False))
            assert hands.tolist() == h
            assert (need <= v <= exact) if v >= need else (exact <= v < need), (h, t, need)
        seq = np.zeros(34, dtype=np.int64)
        for target in range(1, n + 1):
            res, _ = _search(hands, seq, 0, lead, game_of(decl, t, False), target, table)
            assert res == (exact >= target), (h, t, lead, decl, target)


@_counts(600, 2000)
def test_endgame_table_holds_the_plain_minimax_value(count):
    endgame = endgame_table()
    trick = np.zeros(3, dtype=np.int64)
    for h, lead, decl in _misere_positions(count, range(1, ENDGAME_CARDS + 1), seed=21):
        hands = np.array(h, dtype=np.int64)
        n = bin(h[0]).count("1")
        assert endgame_value(endgame, _endgame_index(hands, n, lead, decl, MISERE_ROW)) == _minimax(
            hands, trick, 0, lead, decl, -1, True), (h, lead, decl)


@pytest.mark.parametrize(("cards", "count"), [
    (ENDGAME_CARDS, 100), (ENDGAME_CARDS + 1, 6),
    pytest.param(ENDGAME_CARDS, 400, marks=pytest.mark.slow),
    pytest.param(ENDGAME_CARDS + 1, 24, marks=pytest.mark.slow)])
def test_misere_solves_through_the_endgame_agree_with_plain_minimax(cards, count):
    # Six cards a hand: the search settles them by one trick over the table; five: it
    # searches them as trick contracts (the full deals of the published positions and
    # of ``solve``'s other tests reach the table through the search). The plain minimax
    # takes about 0.6 s a position of six cards.
    rows = _misere_positions(count, (cards,), seed=22)
    hands = np.array([r[0] for r in rows], dtype=np.uint32)
    leader, declarer = (np.array([r[k] for r in rows]) for k in (1, 2))
    got = solve_batch(hands, -1, leader, declarer, True)
    trick = np.zeros(3, dtype=np.int64)
    for i, (h, lead, decl) in enumerate(rows):
        expected = _minimax(np.array(h, dtype=np.int64), trick, 0, lead, decl, -1, True)
        assert got[i] == expected, rows[i]


def test_suit_facts_match_the_rules_suit_by_suit():
    """Every split of a suit between the misère declarer and the two defenders: the
    packed facts equal the rules computed card by card."""
    seen = 0
    for split in itertools.product(range(4), repeat=8):  # each rank: out, d, a or b
        d, a, b = (sum(1 << r for r in range(8) if split[r] == k) for k in (1, 2, 3))
        f = int(SUIT_FACTS[SPREAD[d | b] | SPREAD[a | b] << 1])
        low = LOW8[d]
        escapes = max([min(bin(d & ((1 << LOW8[o]) - 1)).count("1"), bin(o).count("1") // 2)
                       for o in (a, b) if o] or [0])
        by_a = a != 0 and low > max(LOW8[a], -1 if b == 0 else LOW8[b])
        by_b = b != 0 and low > LOW8[b] and (a == 0 or LOW8[a] < low)
        top = max(LOW8[a] if a else -1, LOW8[b] if b else -1)
        exits = [r for r in range(8) if d >> r & 1 and r < top]
        exit_run = 1 + max(DUCKS[d ^ (1 << r), a | b] for r in exits) if exits else 0
        assert (f & 15, f >> 4 & 15, f >> 8 & 7, f >> 11 & 1, f >> 12 & 1, f >> 13 & 1,
                f >> 14) == (DUCKS[d, a | b], _forced_leads.py_func(d, a, b), escapes,
                             HIGH8[a | b] > low, by_a, by_b, exit_run), (d, a, b)
        seen += 1
    assert seen == 4**8


@_counts(800, 3000)
def test_static_bounds_bracket_the_exact_value(count):
    # The cut-offs (quick tricks, sure trumps, side cards, the misère rules) never
    # exclude the value.
    trick = np.zeros(3, dtype=np.int64)
    for h, t, lead, decl, mis in _random_positions(count, seed=9):
        hands = np.array(h, dtype=np.int64)
        lo, hi = _bounds(hands, bin(h[0]).count("1"), lead, decl, t, mis)
        assert lo <= _minimax(hands, trick, 0, lead, decl, t, mis) <= hi, (h, t, lead, decl, mis)


def test_beaten_is_the_largest_match_to_higher_cards():
    # Built from the top down; checked against the match built from the bottom up (each
    # card, lowest first, takes the lowest free higher card), also the largest.
    for x in range(256):
        for y in range(256):
            free = y
            k = 0
            for r in range(8):
                above = free & ~((2 << r) - 1)
                if x >> r & 1 and above:
                    free &= ~(above & -above)
                    k += 1
            assert BEATEN[x, y] == k, (x, y)


def _trick_bounds_and_value(hands, leader, declarer, trump):
    masks = [parse_cards(h) for h in hands]
    bounds = _bounds(np.array(masks, dtype=np.int64), bin(masks[0]).count("1"), leader,
                     declarer, trump, False)
    return bounds, solve(masks, trump=trump, leader=leader, declarer=declarer)


def test_sure_trumps():
    # Of ♠AKJ109 only one trump can fall with the queen over it: four sure tricks (the
    # top trumps alone gave two); he takes all five, the queen falling under the king.
    (lo, hi), value = _trick_bounds_and_value(["♠AKJ109", "♠Q8 ♥AK8", "♠7 ♦AKQJ"], 1, 0, 0)
    assert (lo, value) == (4, 5)
    # A defender's trumps: the declarer's ace can meet one of ♠KQJ, the partner's ten
    # over one of them still wins the trick for the defence.
    (lo, hi), value = _trick_bounds_and_value(["♠A ♥AK ♦AK", "♠KQJ ♣AK", "♠10 ♣QJ ♦QJ"],
                                              0, 0, 0)
    assert hi == 5 - 2 and value <= hi


def test_top_trumps_led_first_draw_the_lowest_of_theirs():
    # On lead he plays ♠A first; ♠KQ follow under it with the queen at worst, so the king
    # can meet only one of ♠87 (the rule without the lead saw two): ♠A, one small trump
    # and the red aces, which the ♠K holder must follow: four, exact.
    (lo, hi), value = _trick_bounds_and_value(["♠A87 ♥A ♦A", "♠KQ ♥7 ♦7 ♣7", "♥KQJ ♦KQ"],
                                              0, 0, 0)
    assert lo == hi == value == 4


def test_side_aces_of_the_declarer_not_on_lead():
    # Defenders holding trumps must follow to the first trick of hearts and diamonds,
    # as long as they hold cards of them: he keeps a trump that wins, so discards none
    # of his aces before then. The two aces and the two top trumps: four, exact.
    (lo, _), value = _trick_bounds_and_value(["♠AK ♥A ♦A ♣7", "♠Q ♥KQ ♦K ♣8",
                                              "♠J ♥J ♦QJ ♣9"], 1, 0, 0)
    assert lo == value == 4
    # With the defenders out of trumps, wherever the lead is, his quick tricks stand.
    (lo, _), value = _trick_bounds_and_value(["♠AK ♥A ♦A ♣7", "♥KQ ♦K ♣98",
                                              "♥J ♦QJ ♣J10"], 1, 0, 0)
    assert lo == value == 4


def test_misere_declarer_whose_cards_all_top_the_defenders():
    # Every card of his tops theirs in its suit. A defender who leads a suit he holds
    # hands him that trick and every later one; one who has none of his suits lets
    # him discard, here to the end.
    hands = [parse_cards("♠AK ♥A"), parse_cards("♠87 ♦7"), parse_cards("♦10 9 8")]
    assert _bounds(np.array(hands, dtype=np.int64), 3, 1, 0, -1, True) == (3, 3)
    assert solve(hands, trump=None, leader=1, declarer=0, misere=True) == 3
    assert solve(hands, trump=None, leader=2, declarer=0, misere=True) == 0


def _misere_bounds_and_value(hands, leader):
    masks = [parse_cards(h) for h in hands]
    n = bin(masks[0]).count("1")
    bounds = _bounds(np.array(masks, dtype=np.int64), n, leader, 0, -1, True)
    return bounds, solve(masks, trump=None, leader=leader, declarer=0, misere=True)


def test_misere_declarer_forced_trick_after_trick():
    # On lead, he wins with ♠9 and ♠10 as the defender goes under with ♠8 and ♠7, and
    # only ♠J loses to ♠Q: two tricks in a row, which the bound sees (not just one).
    (lo, hi), value = _misere_bounds_and_value(["♠J109", "♠Q87", "♣KJ ♥A"], 0)
    assert lo == value == 2 < hi
    # A defender leads ♦10 into his ♦A; then his ♣J wins (both go under it), and only
    # ♣K loses to ♣A.
    (lo, hi), value = _misere_bounds_and_value(["♣KJ ♦A", "♠A ♣7 ♥K", "♣A10 ♦10"], 2)
    assert lo == value == 2


def test_misere_declarer_ducks_tricks_in_a_row():
    # Not on lead, with ♣A87 under ♣QJ10 he ducks two club leads and then must take
    # ♣Q with ♣A: he surely loses two tricks in a row.
    (_, hi), value = _misere_bounds_and_value(["♣A87", "♦QJ7", "♣QJ10"], 2)
    assert hi == value == 1
    # Seat 1 holds only diamonds: on its lead he discards ♥A, then ducks ♥9 with ♥8;
    # only ♥K must take ♥J.
    (_, hi), value = _misere_bounds_and_value(["♥AK8", "♦1097", "♦Q ♥J9"], 1)
    assert hi == value == 1
    # On lead, he exits with ♥9 (♥J must overtake it) and then ducks ♦8 with ♦7.
    (_, hi), value = _misere_bounds_and_value(["♦A7 ♥9", "♠K ♦8 ♥J", "♦Q9 ♥A"], 0)
    assert hi == value == 1


@functools.cache
def _ducks_against_any_lead(d: int, o: int) -> int:
    """Leads of a suit in a row a declarer holding ``d`` ducks, playing his highest
    card under theirs, whichever card of ``o`` is led each time (9: every lead)."""
    if d == 0:
        return 9
    fewest = 9
    for x in (x for x in range(8) if o >> x & 1):
        under = d & ((1 << x) - 1)
        if not under:
            return 0
        fewest = min(fewest, 1 + _ducks_against_any_lead(d ^ 1 << under.bit_length() - 1,
                                                          o ^ 1 << x))
    return fewest


def test_ducks_table_assumes_the_defenders_best_lead():
    # Their lowest card each time does best: the same count as against every lead.
    for d in range(256):
        for o in range(256):
            if not d & o:
                assert DUCKS[d, o] == min(9, _ducks_against_any_lead(d, o)), (d, o)


# ---- invariances on full deals ----------------------------------------------------------


def _deal(seed: int) -> tuple[list[int], int]:
    """Three 10-card hands and the talon from a seeded shuffle."""
    cards = np.random.default_rng(seed).permutation(32).astype(np.int64)
    hands = [int(np.sum(1 << cards[10 * i : 10 * i + 10])) for i in range(3)]
    return hands, int(np.sum(1 << cards[30:]))


def _permute_suits(mask: int, perm) -> int:
    return sum(((mask >> (8 * s)) & 0xFF) << (8 * perm[s]) for s in range(4))


deals = st.integers(0, 2**32 - 1)
contracts = st.sampled_from([None, 0, 1, 2, 3, "misere"])
seats = st.integers(0, 2)
SETTINGS = settings(max_examples=25, derandomize=True, deadline=None)


def _solve(hands, contract, leader, declarer):
    if contract == "misere":
        return solve(hands, trump=None, leader=leader, declarer=declarer, misere=True)
    return solve(hands, trump=contract, leader=leader, declarer=declarer)


@SETTINGS
@given(deals, contracts, seats, seats, st.permutations(range(4)))
def test_suit_permutation_invariance(seed, contract, leader, declarer, perm):
    hands, _ = _deal(seed)
    moved = [_permute_suits(h, perm) for h in hands]
    new_contract = perm[contract] if isinstance(contract, int) else contract
    assert _solve(hands, contract, leader, declarer) == _solve(
        moved, new_contract, leader, declarer)


@SETTINGS
@given(deals, contracts, seats, seats, st.integers(1, 2))
def test_seat_rotation_invariance(seed, contract, leader, declarer, shift):
    hands, _ = _deal(seed)
    rotated = [hands[(i - shift) % 3] for i in range(3)]
    assert _solve(hands, contract, leader, declarer) == _solve(
        rotated, contract, (leader + shift) % 3, (declarer + shift) % 3)


@SETTINGS
@given(deals, contracts, seats, seats)
def test_unseparated_card_swap_invariance(seed, contract, leader, declarer):
    hands, talon = _deal(seed)
    # Swap a talon card with a card of the same suit in a hand when no hand holds a card
    # between them: the hands differ only in an equivalent card.
    for t in (c for c in range(32) if talon >> c & 1):
        suit_cards = range(8 * (t >> 3), 8 * (t >> 3) + 8)
        for seat, hand in enumerate(hands):
            for c in (c for c in suit_cards if hand >> c & 1):
                between = sum(1 << x for x in range(min(c, t) + 1, max(c, t)))
                if not any(h & between for h in hands):
                    swapped = list(hands)
                    swapped[seat] = hand ^ (1 << c) ^ (1 << t)
                    assert _solve(hands, contract, leader, declarer) == _solve(
                        swapped, contract, leader, declarer)
                    return


# ---- API ----------------------------------------------------------------------------------


def test_batch_matches_single_and_accepts_scalars_or_columns():
    hands = np.array([_deal(s)[0] for s in range(6)], dtype=np.uint32)
    trump = [None, 0, 1, 2, 3, -1]  # every strain once, each seat leading twice
    leader = np.arange(6) % 3
    got = solve_batch(hands, trump, leader, 1, misere=False, threads=2)
    assert got.dtype == np.int8
    for i in range(6):
        assert got[i] == solve(list(hands[i]), trump=trump[i] if trump[i] != -1 else None,
                               leader=int(leader[i]), declarer=1)
    mis = solve_batch(hands, None, 0, 2, misere=True)
    assert list(mis) == [solve(list(h), trump=None, leader=0, declarer=2, misere=True)
                         for h in hands]


def test_leads_batch_marks_cards_not_held():
    hands, _ = _deal(7)
    leads = solve_leads_batch(np.array([hands]), 0, 1, 1)[0]
    assert leads.shape == (32,)
    assert [c for c in range(32) if leads[c] >= 0] == [c for c in range(32) if hands[1] >> c & 1]
    assert leads.max() == solve(hands, trump=0, leader=1, declarer=1)


@pytest.mark.parametrize(
    ("hands", "kwargs", "message"),
    [
        ([parse_cards("♠A"), parse_cards("♠A"), parse_cards("♠7")], {}, "overlap"),
        ([parse_cards("♠AK"), parse_cards("♠Q"), parse_cards("♠7")], {}, "unequal"),
        ([0, 0, 0], {}, "not 1 to 10"),
        ([parse_cards("♠A"), parse_cards("♠K")], {}, "three hands"),
        ([parse_cards("♠A"), parse_cards("♠K"), parse_cards("♠7")], {"leader": 3}, "leader"),
        ([parse_cards("♠A"), parse_cards("♠K"), parse_cards("♠7")], {"declarer": -1}, "declarer"),
        ([parse_cards("♠A"), parse_cards("♠K"), parse_cards("♠7")], {"trump": 4}, "trump"),
    ],
)
def test_bad_input_raises(hands, kwargs, message):
    args = {"trump": None, "leader": 0, "declarer": 0} | kwargs
    with pytest.raises(ValueError, match=message):
        solve(hands, **args)


def test_cli_solve_prints_result_and_best_leads():
    from typer.testing import CliRunner

    from prefstats.cli import app

    hands = ["♠AK", "♠Q ♥A", "♠8 ♥7"]
    result = CliRunner().invoke(app, ["solve", *hands, "--trump", "NT", "--leader", "0"])
    assert result.exit_code == 0, result.output
    assert "takes 2 trick(s)" in result.output
    assert "optimal first cards of seat 0: A♠ K♠" in result.output
    bad = CliRunner().invoke(app, ["solve", "♠A", "♠K", "♠Q ♥7"])
    assert bad.exit_code == 2
    assert "unequal sizes" in bad.output


def test_batch_arguments_are_checked():
    row = [parse_cards("♠A"), parse_cards("♠K"), parse_cards("♠7")]
    with pytest.raises(ValueError, match="misere must be a scalar or have length 1"):
        solve_batch([row], None, 0, 0, misere=[True, False])
    with pytest.raises(ValueError, match="trump must be a scalar or have length 2"):
        solve_batch([row, row], [0, 1, 2], 0, 0)
    with pytest.raises(ValueError, match="declarer must be integers"):
        solve_batch([row], None, 0, 0.5)
    with pytest.raises(ValueError, match="shape"):
        solve_batch(row, None, 0, 0)
