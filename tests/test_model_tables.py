"""Every model's cells of a hand chart: kept compressed without the default's rows and
the intervals, made again into `<chart>_models.csv` the same each time."""

from __future__ import annotations

import io
import lzma

import polars as pl
import pytest

from prefstats.errors import DatasetError
from prefstats.game.exact import Z95
from prefstats.reports import model_tables


def _table(model: str, gains: list[float], ses: list[float]) -> pl.DataFrame:
    gain, se = pl.Series(gains), pl.Series(ses)
    return pl.DataFrame({"points": [5, 6, 7], "option": ["6", "6", "misere"], "gain": gain,
                         "se": se, "ci_low": gain - Z95 * se, "ci_high": gain + Z95 * se,
                         "n": [40, 50, 60], "ties": ["", "7", ""], "model": model})


def test_the_models_table_is_made_again_from_the_compressed_file(tmp_path):
    default = _table("heuristic", [0.1234567891, -2.5, 3.0], [0.5, 0.25, 1 / 3])
    default.with_columns(robust=pl.lit(True)).write_csv(tmp_path / "x.csv",
                                                        float_precision=6)
    both = pl.concat([default, _table("timid", [1.0, -0.75, 2 / 3], [0.1, 0.2, 0.3])])
    columns = model_tables.write(tmp_path, {"x": both}, "heuristic")
    assert columns == {"x": both.columns}
    stored = pl.read_csv(io.BytesIO(lzma.decompress((tmp_path / "models.csv.xz").read_bytes())))
    assert set(stored["model"]) == {"timid"} and "ci_low" not in stored.columns
    made = (tmp_path / "x_models.csv").read_bytes()
    table = pl.read_csv(tmp_path / "x_models.csv")
    assert table.columns == both.columns
    assert table["model"].to_list() == ["heuristic"] * 3 + ["timid"] * 3
    assert table["ties"].fill_null("").to_list() == ["", "7", ""] * 2
    for column in ("gain", "se", "ci_low", "ci_high"):
        assert table[column].to_list() == pytest.approx(both[column].to_list(), abs=2e-6)
    (tmp_path / "x_models.csv").unlink()
    assert model_tables.restore(tmp_path, columns) == [tmp_path / "x_models.csv"]
    assert (tmp_path / "x_models.csv").read_bytes() == made


def test_a_missing_or_corrupt_models_file_is_a_clear_error(tmp_path):
    with pytest.raises(DatasetError, match=r"models\.csv\.xz"):
        model_tables.restore(tmp_path, {"x": ["gain"]})
    (tmp_path / "models.csv.xz").write_bytes(b"not xz")
    with pytest.raises(DatasetError, match="cannot read"):
        model_tables.restore(tmp_path, {"x": ["gain"]})
