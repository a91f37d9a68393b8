"""The legality run: every preset with 3 and 4 players, and Gusarik, played
by the built-in players through ``play_batch`` and whole pulkas, against the invariants:
every call and card legal (the engine refuses any other, and each finished deal's calls
are replayed through the auction and whist rules and its cards checked against the
hands), zero-sum settlement, the compiled pulka loop equal to its replay on the score
sheet, and the batch and Python drivers identical. CI plays a few thousand deals a
table; the slow run 20,000 deals a table and pulkas of 20,000 deals in all."""

import numpy as np
import pytest
from test_pulka_classic import replay

from prefstats.game import engine
from prefstats.game.auction import (
    AuctionRules,
    _auction_state,
    auction_options,
    whist_options,
    whist_state,
)
from prefstats.game.cards import card_counts
from prefstats.game.deal import deal
from prefstats.game.scoring import deal_values, score_states
from prefstats.game.variants import PRESETS, get_variant
from prefstats.sim.play import play_batch, play_hands
from prefstats.sim.pulka import play_pulkas

TABLES = [(name, players) for name in PRESETS
          for players in ((2,) if name == "gusarik" else (3, 4))]
IDS = [f"{name}-{players}" for name, players in TABLES]


def assert_legal_deals(variant, states):
    """Each finished deal: its calls replay legally to its declarer (or raspasy), its
    whist calls to its defenders' roles, every seat played only its own cards, each
    card once, ten tricks; the deal values sum to zero."""
    assert (states["phase"] == engine.DONE).all()
    hold, jumps, _, *rest = auction_options(variant)
    for st in states:
        calls = st["calls"][: st["n_calls"]].astype(np.int64)
        options = AuctionRules(hold, jumps, int(st["min_level"]), *rest)  # after a raspasy
        speaker, high, bidder, passed, legal, bad = _auction_state(calls, options)[:6]
        assert bad == -1 and speaker == -1 and legal == 0
        if st["kind"] == engine.RASPASY:
            assert passed == 0b111
            continue
        assert (bidder, high) == (st["declarer"], st["bid"])
        if st["kind"] == engine.GAME and st["n_whist"]:
            whist = st["whist_calls"][: st["n_whist"]].astype(np.int64)
            legal, _, first, second, bad = whist_state(
                int(st["contract"]), whist, *whist_options(variant, int(st["declarer"])))
            assert bad == -1 and legal == 0 and (first, second) == (st["first"], st["second"])
    assert (states["tricks"][states["played"]].sum(axis=1) == 10).all()
    # cards played one by one (an open deal settled by one solver call has none)
    played = states[states["played"] & ~states["double_dummy"]]
    by_seat = played["played_by"][:, :3].astype(np.int64)
    held = played["dealt"].astype(np.int64)
    declarer = played["declarer"].astype(np.int64)
    games = played["kind"] != engine.RASPASY
    rows = np.flatnonzero(games)
    took = ~played["no_talon"][games]  # the declarer's talon, less his discard
    extra = np.where(took, played["talon"][games].astype(np.int64) & ~played["discard"][games]
                     .astype(np.int64), 0)  # fmt: skip
    held[rows, declarer[games]] |= extra
    assert (by_seat & ~held == 0).all()  # only his own cards
    assert (played["played_by"][:, 3] & ~played["talon"] == 0).all()  # the led talon
    counts = card_counts(by_seat.astype(np.uint32))
    dummy_out = (played["kind"] == engine.RASPASY) & (variant.players == 2)
    assert (counts[~dummy_out] == 10).all() and (counts[dummy_out, :2] == 10).all()
    union = np.bitwise_or.reduce(played["played_by"].astype(np.int64), axis=1)
    assert (card_counts(union.astype(np.uint32)) == counts.sum(axis=1)
            + card_counts(played["played_by"][:, 3])).all()  # each card once  # fmt: skip
    assert (union == played["gone"]).all()
    values = deal_values(variant, *score_states(variant, states))
    assert np.abs(values.sum(axis=1)).max() < 1e-9


def assert_pulkas_replay(variant, ids, seed, target, replayed):
    """The pulkas ``ids``: finished and zero-sum; the first ``replayed`` equal, deal by
    deal, to their replay on the score sheet. Returns the number of deals played."""
    result = play_pulkas(variant, ids, seed=seed, pool_target=target, player_key=seed,
                         with_deals=True)  # fmt: skip
    assert result["finished"].all()
    assert np.abs(result["result"].sum(axis=1)).max() < 1e-9
    assert_legal_deals(variant, result["deal_states"])
    rows = result["deal_places"][:, 0]
    for row, pid in enumerate(ids[:replayed]):
        sheet, states, _ = replay(variant, pid, seed, target, "heuristic", seed)
        np.testing.assert_array_equal(result["pool"][row], sheet.pool)
        np.testing.assert_array_equal(result["mountain"][row], sheet.mountain)
        np.testing.assert_array_equal(result["whists"][row], sheet.whists)
        mine = result["deal_states"][rows == row]
        assert len(mine) == len(states)
        for a, b in zip(mine, states, strict=True):  # field by field: padding differs
            assert all(np.array_equal(a[f], b[f]) for f in engine.STATE.names)
    return int(result["deals"].sum())


def legality_run(name, players, deals, pulkas, replayed, drivers):
    variant = get_variant(name, players=players)
    d = deal(deals, seed=players + 60)
    for policy in ("heuristic", "random"):  # play_batch raises on an illegal decision
        assert_legal_deals(variant, play_batch(d, variant, policy=policy, key=7,
                                               double_dummy=False))  # fmt: skip
    states = play_batch(d[:drivers], variant, key=7)
    assert play_hands(d[:drivers], variant, key=7).tobytes() == states.tobytes()
    if not pulkas:
        return 0
    return assert_pulkas_replay(variant, list(range(pulkas)), 61, 10, replayed)


@pytest.mark.parametrize(("name", "players"), TABLES, ids=IDS)
def test_legality_run_small(name, players):
    """Every preset and table: 2,000 deals by both built-in policies, 200 through both
    drivers, 6 pulkas (2 replayed on the sheet)."""
    assert legality_run(name, players, 2000, 6, 2, 200) > 6


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players"), TABLES, ids=IDS)
def test_legality_run_20000_deals(name, players):
    """Every preset and table: 20,000 deals by both built-in policies, 1,000 through both
    drivers, and pulkas of at least 20,000 deals in all, every one replayed."""
    pulkas, total = 0, 0
    while total < 20_000:
        batch = 200
        variant = get_variant(name, players=players)
        ids = list(range(pulkas, pulkas + batch))
        total += assert_pulkas_replay(variant, ids, 61, 10, batch)
        pulkas += batch
    legality_run(name, players, 20_000, 0, 0, 1000)
