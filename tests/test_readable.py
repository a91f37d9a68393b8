"""Readable tables: every decoded column against a per-row decoding by the modules
that define the codes, a dataset's Enum columns against the engine's codes, ``to_frame``
against a simulated dataset, pandas conversion."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import prefstats
from prefstats.analysis.tables import cards_expr, readable, to_frame
from prefstats.game.auction import WHIST_CALL_NAMES, call_name
from prefstats.game.cards import FULL_DECK, card_name, format_cards
from prefstats.game.contracts import LEVEL, PRICE, Contract
from prefstats.game.deal import deal
from prefstats.game.engine import KINDS
from prefstats.game.variants import get_variant
from prefstats.players.builtin import player_key
from prefstats.sim.play import play_batch
from prefstats.sim.simulate import simulate
from prefstats.sim.storage import CALL, CARD, CONTRACT, ENUMS, KIND, ROLE, to_codes

SEED = 11


@pytest.fixture(scope="module")
def sochi_dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("sochi")
    simulate(get_variant("sochi"), hands=1500, seed=SEED, out=out, chunk_size=1000,
             workers=1, progress=False)
    return out


@pytest.fixture(scope="module")
def classic_rows():
    """Classic deals (dark and blind calls, bids without the talon, bombs) as codes."""
    classic = get_variant("classic")
    d = deal(3000, seed=4)
    return to_codes(to_frame(play_batch(d, classic, key=4), classic, deal_ids=d.index))


def expected_row(row: dict) -> dict:
    """One row decoded by hand, through the functions that own each code."""
    def none_if_negative(x, f=lambda v: v):
        return None if x < 0 else f(x)

    out = dict(row)
    out["kind"] = KINDS[row["kind"]]
    out["contract"] = none_if_negative(row["contract"], lambda c: str(Contract(c)))
    out["bid"] = none_if_negative(row["bid"], call_name)
    out["calls"] = [call_name(c) for c in row["calls"]]
    out["whist_calls"] = [WHIST_CALL_NAMES[c] for c in row["whist_calls"]]
    out["first"] = none_if_negative(row["first"], WHIST_CALL_NAMES.__getitem__)
    out["second"] = none_if_negative(row["second"], WHIST_CALL_NAMES.__getitem__)
    out["talon_first"] = card_name(row["talon_first"])
    for c in ("hand_0", "hand_1", "hand_2", "talon", "discard"):
        out[c] = format_cards(row[c])
    for c in ("declarer", "solver_tricks"):
        out[c] = none_if_negative(row[c])
    for c in ("dark", "blind"):
        out[c] = [s for s in range(3) if row[c] >> s & 1]
    return out


def test_every_column_decodes_as_its_module_names_it(classic_rows):
    decoded = readable(classic_rows)
    assert decoded.columns == classic_rows.columns
    assert decoded.height == classic_rows.height
    # the sample covers the rare codes
    calls = decoded["calls"].explode().cast(pl.String)
    assert {"dark", "blind pass", "pass"} <= set(calls)
    assert calls.str.ends_with(" nt").any()
    assert set(decoded["kind"].cast(pl.String)) == {"game", "misere", "raspasy"}
    assert decoded["dark"].list.len().max() >= 1
    for raw, got in zip(classic_rows.iter_rows(named=True), decoded.iter_rows(named=True),
                        strict=True):
        assert got == expected_row(raw)


def test_a_dataset_stores_its_codes_as_enums_of_their_names(sochi_dataset):
    """Every code column is an Enum in polars and a dictionary of names in the Parquet
    file itself (any reader sees names); each Enum lists every code in code order."""
    import pyarrow.parquet as pq

    schema = prefstats.load(sochi_dataset).collect_schema()
    assert {c: schema[c] for c in ENUMS} == {
        "kind": KIND, "contract": CONTRACT, "bid": CALL, "first": ROLE, "second": ROLE,
        "talon_first": CARD, "calls": pl.List(CALL), "whist_calls": pl.List(ROLE)}
    native = pl.read_parquet(sochi_dataset / "chunk-000000.parquet").schema  # no cast needed
    assert native["contract"] == CONTRACT and native["calls"] == pl.List(CALL)
    file = pq.read_table(sochi_dataset / "chunk-000000.parquet")
    assert str(file.schema.field("kind").type).startswith("dictionary<values=string")
    assert set(file.column("kind").to_pylist()) <= {"game", "misere", "raspasy"}
    assert list(KIND.categories) == list(KINDS)
    assert list(CONTRACT.categories) == [str(Contract(c)) for c in range(len(LEVEL))]
    calls = list(CALL.categories)
    assert [calls.index(call_name(c)) for c in (0, 15, 26, 27, 28, 32 + 6)] == \
        [0, 15, 26, 27, 28, 38]
    assert list(CARD.categories) == [card_name(c) for c in range(32)]
    assert list(ROLE.categories) == list(WHIST_CALL_NAMES)


def test_enum_columns_round_trip_to_the_engine_codes(sochi_dataset):
    """The dataset's Enum columns, through ``to_codes``, are the engine's records of the
    same deals; the Enum's physical value is the code; ``readable`` agrees on both."""
    sochi = get_variant("sochi")
    states = play_batch(deal(1500, seed=SEED), sochi, key=player_key(SEED))
    lf = prefstats.load(sochi_dataset)
    codes = to_codes(lf).sort("deal_id").collect()
    for name in ("kind", "contract", "bid", "first", "second", "talon_first"):
        assert (codes[name].to_numpy() == states[name]).all(), name
    assert codes.schema["kind"] == pl.UInt8 and codes.schema["contract"] == pl.Int8
    assert codes["calls"].to_list() == [s["calls"][:s["n_calls"]].tolist() for s in states]
    assert codes["whist_calls"].to_list() == [s["whist_calls"][:s["n_whist"]].tolist()
                                              for s in states]
    physical = lf.sort("deal_id").select(pl.col("contract").to_physical()).collect()
    assert physical.to_series().fill_null(-1).to_list() == states["contract"].tolist()
    assert to_codes(codes).equals(codes)  # already codes: left as they are
    nice = readable(lf).collect()
    assert readable(codes).equals(nice.sort("deal_id"))
    assert nice.select(list(ENUMS)).equals(lf.select(list(ENUMS)).collect())  # Enums kept


def test_cards_match_format_cards_on_any_mask():
    rng = np.random.default_rng(5)
    masks = [0, FULL_DECK, 1, 1 << 31, 0xFF, *rng.integers(0, 1 << 32, 500).tolist()]
    got = pl.select(cards_expr(pl.lit(pl.Series(masks, dtype=pl.UInt32)))).to_series()
    assert got.to_list() == [format_cards(m) for m in masks]


def test_enum_columns_keep_the_code_order(classic_rows):
    decoded = readable(classic_rows)
    assert decoded.schema["kind"] == KIND and decoded.schema["contract"] == CONTRACT
    assert decoded.schema["first"] == ROLE
    high = decoded.select(pl.col("contract") >= "8♠").to_series()
    assert high.to_list() == [None if c < 0 else bool(c >= 10)
                              for c in classic_rows["contract"]]


def test_lazy_stays_lazy_and_selections_and_reruns_work(sochi_dataset):
    lf = prefstats.load(sochi_dataset)
    out = prefstats.readable(lf)
    assert isinstance(out, pl.LazyFrame)
    eager = out.collect()
    assert eager.equals(readable(lf.collect()))
    assert readable(eager).equals(eager)  # already decoded: left as it is
    part = readable(lf.select("deal_id", "contract")).collect()
    assert part.equals(eager.select("deal_id", "contract"))
    assert readable(sochi_dataset).collect().equals(eager)  # a folder is loaded


def test_games_of_a_dataset_read_naturally(sochi_dataset):
    games = (readable(prefstats.load(sochi_dataset))
             .filter(pl.col("kind") == "game").collect())
    assert games.height > 0
    assert games["contract"].null_count() == 0
    assert games["hand_0"].str.contains("♠|♣|♦|♥").all()


def test_codes_outside_their_table_raise():
    bad = pl.DataFrame({"contract": [3, 40]}, schema={"contract": pl.Int8})
    with pytest.raises(pl.exceptions.PolarsError):
        readable(bad)
    with pytest.raises(pl.exceptions.PolarsError):
        readable(pl.DataFrame({"contract": [-2]}, schema={"contract": pl.Int8}))
    with pytest.raises(ValueError, match="polars frame"):
        readable([1, 2, 3])


def test_pulka_rows_have_no_codes_and_pass_through():
    rows = pl.DataFrame({"pulka_id": [0, 1], "deals": [12, 9], "result_0": [1.5, -3.0]})
    assert readable(rows).equals(rows)


def test_to_frame_is_the_dataset_of_the_same_deals(sochi_dataset):
    sochi = get_variant("sochi")
    d = deal(1500, seed=SEED)
    frame = to_frame(play_batch(d, sochi, key=player_key(SEED)), sochi, deal_ids=d.index)
    assert frame.equals(prefstats.load(sochi_dataset).collect())


def test_to_frame_amounts_are_points():
    sochi = get_variant("sochi")
    frame = to_frame(play_batch(deal(2000, seed=2), sochi), sochi)
    assert frame["deal_id"].to_list() == list(range(2000))
    made = to_codes(frame.filter((pl.col("kind") == "game") & pl.col("played")))
    declarer, contract = made["declarer"].to_numpy(), made["contract"].to_numpy()
    tricks = made.select(f"tricks_{s}" for s in range(3)).to_numpy()
    pool = made.select(f"pool_{s}" for s in range(3)).to_numpy()
    rows = np.arange(made.height)
    ok = tricks[rows, declarer] >= LEVEL[contract]
    assert ok.sum() > 100
    # a made game writes its price (in points) in the declarer's pool
    assert (pool[rows, declarer][ok] == PRICE[contract][ok]).all()


def test_to_frame_refuses_what_is_not_finished_states():
    sochi = get_variant("sochi")
    with pytest.raises(ValueError, match=r"engine\.STATE"):
        to_frame(np.zeros(3), sochi)
    states = play_batch(deal(3, seed=1), sochi)
    states["phase"][1] = 0
    with pytest.raises(ValueError, match="state 1 is not a finished deal"):
        to_frame(states, sochi)
    with pytest.raises(ValueError, match="deal_ids"):
        to_frame(states[[0]], sochi, deal_ids=[1, 2])


def test_pandas_after_a_plain_install(sochi_dataset):
    import pandas as pd
    raw = prefstats.load(sochi_dataset).collect().to_pandas()
    assert isinstance(raw, pd.DataFrame) and len(raw) == 1500
    for name in ("kind", "contract", "first", "second", "bid", "talon_first"):
        assert isinstance(raw[name].dtype, pd.CategoricalDtype), name
    assert list(raw["contract"].cat.categories) == list(CONTRACT.categories)
    assert set(raw["kind"]) <= {"game", "misere", "raspasy"}
    nice = prefstats.readable(prefstats.load(sochi_dataset)).collect().to_pandas()
    assert isinstance(nice["contract"].dtype, pd.CategoricalDtype)
    assert nice["hand_0"].str.contains("♠|♣|♦|♥").all()


def test_pandas_is_a_declared_dependency():
    import re
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    names = {re.split(r"[<>=\[ ]", r)[0] for r in project["project"]["dependencies"]}
    assert "pandas" in names


def documented_columns() -> set[str]:
    """Column names in docs/DATA.md's tables, ``_s``/``_p``/``_i_j`` patterns expanded
    to five players (and ``a`` … ``b`` ranges written out)."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "DATA.md").read_text("utf-8")
    names = set()
    for line in text.splitlines():
        if line.startswith("| `"):
            for name in re.findall(r"`([a-z_0-9]+)`", line.split("|")[1]):
                if name.endswith(("_s", "_p")):
                    names.update(f"{name[:-2]}_{k}" for k in range(5))
                elif name.endswith("_i_j"):
                    names.update(f"{name[:-4]}_{i}_{j}" for i in range(5) for j in range(5))
                else:
                    names.add(name)
    return names


@pytest.mark.parametrize(("name", "players"),
                         [("sochi", 3), ("classic", 4), ("gusarik", 2), ("sochi", 5)])
def test_column_dictionary_lists_every_deals_column(name, players):
    variant = get_variant(name, players=players)
    frame = to_frame(play_batch(deal(5, seed=1), variant), variant)
    missing = set(frame.columns) - documented_columns()
    assert not missing, f"docs/DATA.md does not describe {sorted(missing)}"


def test_column_dictionary_lists_every_pulka_column(tmp_path):
    from prefstats.sim.simulate import simulate_pulkas

    simulate_pulkas(get_variant("sochi"), pulkas=2, pool_target=2, seed=1, out=tmp_path,
                    with_deals=True, workers=1, progress=False)
    columns = set(prefstats.load(tmp_path).collect_schema().names())
    columns |= set(prefstats.load(tmp_path / "deals").collect_schema().names())
    missing = columns - documented_columns()
    assert not missing, f"docs/DATA.md does not describe {sorted(missing)}"
