"""Datasets of counterfactual decisions (``prefstats simulate-decisions``,
:func:`prefstats.sim.simulate.simulate_decisions`): the rows are the rollouts of the seed's
deals, long form, and the dataset has the manifest, checksums, resume, extension, lock
and worker invariance of every dataset."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from prefstats.game.deal import deal
from prefstats.game.variants import get_variant
from prefstats.sim._decisions import DecisionSpec
from prefstats.sim._lock import dataset_lock
from prefstats.sim.rollout import rollout
from prefstats.sim.simulate import simulate_decisions
from prefstats.sim.storage import DatasetError, load

LENINGRAD = get_variant("leningrad")  # has the half-whist: every whist option


def _make(out, hands=60, **kw):
    args = dict(hands=hands, seed=5, out=out, chunk_size=20, workers=1, progress=False)
    return simulate_decisions(LENINGRAD, **{**args, **kw})


def test_rows_are_the_rollouts_of_the_seed_s_deals(tmp_path):
    _make(tmp_path / "d", decisions=["first_call", "whist", "contract"])
    rows = load(tmp_path / "d").collect()
    assert rows.columns == ["deal_id", "seat", "decision", "option", "legal", "value", "kind",
                            "contract"]
    assert rows["deal_id"].is_sorted()
    deals = deal(60, seed=5)
    for decision, options in (("first_call", ["pass", "bid", "misere"]),
                              ("whist", ["pass", "whist", "half"]),
                              ("contract", ["policy", "6", "7", "8", "9", "10"])):
        for seat in range(3):
            frame = rollout(LENINGRAD, deals, seat=seat, decision=decision, options=options,
                            seed=5).filter("reached")
            got = rows.filter((pl.col("seat") == seat)
                              & (pl.col("decision").cast(pl.Utf8) == decision))
            assert got["deal_id"].cast(pl.Int64).to_list() == frame["deal"].to_list()
            assert got["option"].to_list() == frame["option"].to_list()
            assert got["legal"].to_list() == frame["legal"].to_list()
            assert np.allclose(got["value"].to_numpy(), frame["value"].to_numpy(),
                               equal_nan=True)
            assert got["value"].null_count() == (~got["legal"]).sum()
    # every seat makes a first call: three options a seat a deal
    assert rows.filter(pl.col("decision").cast(pl.Utf8) == "first_call").height == 60 * 9
    # only the declarer names a contract: at most one seat a deal
    contract = rows.filter(pl.col("decision").cast(pl.Utf8) == "contract")
    assert contract.height > 0 and contract.group_by("deal_id").agg(
        pl.col("seat").n_unique())["seat"].max() == 1


def test_same_rows_for_any_number_of_workers(tmp_path):
    one = _make(tmp_path / "one", hands=40)
    two = _make(tmp_path / "two", hands=40, workers=2)  # a chunk a worker
    assert [c["sha256"] for c in one["chunks"]] == [c["sha256"] for c in two["chunks"]]
    assert len(one["chunks"]) == 2


def test_resume_extend_and_repair(tmp_path):
    out = tmp_path / "d"
    whole = _make(tmp_path / "whole", hands=60)
    first = _make(out, hands=40)
    assert first["spec"]["kind"] == "decisions" and first["spec"]["hands"] == 40
    assert first["spec"]["decisions"] == {"first_call": ["pass", "bid", "misere"],
                                          "whist": ["pass", "whist", "half"]}
    kept = (out / "chunk-000000.parquet").stat().st_mtime_ns
    grown = _make(out, hands=60)  # extends: the finished chunks stay
    assert (out / "chunk-000000.parquet").stat().st_mtime_ns == kept
    assert [c["sha256"] for c in grown["chunks"]] == [c["sha256"] for c in whole["chunks"]]
    damaged = out / "chunk-000001.parquet"
    damaged.write_bytes(damaged.read_bytes()[:-10])
    with pytest.raises(DatasetError, match="chunk-000001"):
        load(out)
    again = _make(out, hands=60)  # the rerun redoes the damaged chunk only
    assert [c["sha256"] for c in again["chunks"]] == [c["sha256"] for c in whole["chunks"]]
    assert (out / "chunk-000000.parquet").stat().st_mtime_ns == kept
    assert load(out).collect().equals(load(tmp_path / "whole").collect())


def test_other_arguments_and_a_held_lock_are_refused(tmp_path):
    out = tmp_path / "d"
    _make(out, hands=20)
    with pytest.raises(DatasetError, match="other arguments"):
        _make(out, hands=20, decisions=["first_call"])
    with dataset_lock(out), pytest.raises(DatasetError, match="in use"):
        _make(out, hands=100)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["finished"] and sum(c["units"] for c in manifest["chunks"]) == 20


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"decisions": ["raise"]}, "raise"),
    ({"decisions": ["whist", "whist"]}, "each decision once"),
    ({"decisions": []}, "each decision once"),
])
def test_bad_specs_name_the_offender(kwargs, named):
    with pytest.raises(ValueError, match=named):
        DecisionSpec(LENINGRAD, 10, 1, **kwargs)


def test_sochi_has_no_half_whist_option():
    spec = DecisionSpec(get_variant("sochi"), 10, 1, decisions=("whist",))
    assert spec.describe()["decisions"] == {"whist": ["pass", "whist"]}


def _cli(*args):
    from typer.testing import CliRunner

    from prefstats.cli import app

    return CliRunner().invoke(app, list(args))


def test_command_writes_the_dataset_and_refuses_bad_input(tmp_path):
    out = tmp_path / "d"
    result = _cli("simulate-decisions", "--variant", "sochi", "--hands", "40", "--seed", "2",
                  "--out", str(out), "--decisions", "first_call", "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.output
    assert "decision rows" in result.output
    assert load(out).collect().height == 40 * 3 * 3
    bad = _cli("simulate-decisions", "--hands", "40", "--out", str(tmp_path / "e"),
               "--decisions", "first_call,max_raise")
    assert bad.exit_code == 2 and "max_raise" in bad.output
    report = _cli("report", str(out), "--out", str(tmp_path / "r"))  # not a deal dataset
    assert report.exit_code == 2 and "decisions" in report.output
