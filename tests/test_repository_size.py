"""A light repository: the tracked tree stays under 10 MB, and what it leaves out of
reports/ (pictures, Parquet copies, every model's cells) `prefstats charts` makes again from the
tables."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from prefstats.cli import app
from prefstats.game.variants import get_variant
from prefstats.reports import manifest
from prefstats.reports import restore as restore_module
from prefstats.reports.hand_charts import MODELS
from prefstats.reports.hand_guide import write_guide
from prefstats.reports.report import report
from prefstats.reports.restore import restore
from prefstats.sim.simulate import simulate, simulate_pulkas

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
#: The most the tracked tree may weigh, as `du -ck` counts it (KiB, whole blocks).
LIMIT_KIB = 10 * 1024


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / p for p in out.decode().split("\0") if p]


def test_the_tracked_tree_is_under_ten_megabytes():
    files = [p for p in _tracked() if p.is_file()]
    kib = sum(-(-p.stat().st_size // 4096) * 4 for p in files)  # du's 4 KiB blocks
    assert kib <= LIMIT_KIB, f"tracked tree {kib / 1024:.1f} MB > {LIMIT_KIB / 1024:.0f} MB"


#: Pictures kept though drawn again: the README's; and those of the folder without a
#: charts.json to draw them from (the books page's).
KEPT = ("reports/sochi/bidding_make.png",)
WHOLE = ("books",)


def test_no_regenerated_file_is_tracked():
    made = [p.relative_to(ROOT).as_posix() for p in _tracked()
            if p.parts[len(ROOT.parts)] == "reports" and p.parent.name not in WHOLE
            and (p.suffix in (".png", ".svg", ".pdf", ".parquet") or "_models." in p.name)]
    assert [p for p in made if p not in KEPT] == []


def test_charts_restores_what_a_small_report_loses(tmp_path, monkeypatch):
    """A guide (under a second table of players) and report on a tiny dataset, its
    pictures, Parquet copies and tables of every model's cells deleted: `prefstats
    charts` makes every one again from the committed files, the same as before; deleted
    again, they are copied from its cache, not drawn."""
    cache = tmp_path / "cache"
    monkeypatch.setattr(restore_module, "cache_folder", lambda: cache)
    variant = get_variant("gusarik")
    data, pulkas, out = tmp_path / "d", tmp_path / "p", tmp_path / "gusarik"
    simulate(variant, hands=300, seed=2, out=data, policy="random", workers=1, progress=False)
    simulate_pulkas(variant, pulkas=12, pool_target=5, seed=2, out=pulkas, policy="random",
                    workers=1, progress=False)
    write_guide(variant, out, 1, min_n=6, budget=300, whist_budget=150, raspasy_budget=150,
                models=MODELS[2:3], model_n=6, command="test")
    report(data, out, pulkas=pulkas)
    models = {p.name: p.read_bytes() for p in out.glob("*_models.csv")}
    assert len(models) == 5 and (out / "models.csv.xz").is_file()
    assert {"heuristic", "timid"} == set(pl.read_csv(out / "whist_models.csv")["model"])
    kept = {p.name: p.read_bytes() for p in out.iterdir()
            if p.suffix in (".csv", ".json", ".xz") and p.name not in models}
    made = sorted(p.name for p in out.iterdir()
                  if p.suffix in (".png", ".svg", ".pdf", ".parquet"))
    assert {"misere.pdf", "seat_deals.svg", "whist.parquet", "raspasy_tricks.png",
            "whist_models.parquet"} <= set(made)
    for name in [*made, *models]:
        (out / name).unlink()
    shutil.rmtree(data)  # nothing is simulated again
    result = CliRunner().invoke(app, ["charts", str(tmp_path), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()
                  if p.suffix in (".png", ".svg", ".pdf", ".parquet")) == made
    assert {p.name: p.read_bytes() for p in out.glob("*_models.csv")} == models
    assert {p.name: p.read_bytes() for p in out.iterdir()
            if p.suffix in (".csv", ".json", ".xz") and p.name not in models} == kept
    for name in manifest.read(out)["copies"]:
        assert pl.read_parquet(out / f"{name}.parquet").equals(
            pl.read_csv(out / f"{name}.csv"))
    drawn = {name: (out / name).read_bytes() for name in made}
    for name in [*made, *models]:
        (out / name).unlink()

    def not_drawn(*args):
        raise AssertionError("drawn again, not copied from the cache")

    monkeypatch.setattr(restore_module, "draw_chart", not_drawn)
    copied = CliRunner().invoke(app, ["charts", str(out), "--quiet", "--workers", "1"])
    assert copied.exit_code == 0, copied.output
    assert {name: (out / name).read_bytes() for name in made} == drawn
    assert {p.name: p.read_bytes() for p in out.glob("*_models.csv")} == models
    bad = CliRunner().invoke(app, ["charts", str(tmp_path / "nothing")])
    assert bad.exit_code == 2 and "charts.json" in bad.output


def test_charts_draws_a_folder_again_only_when_it_changed(tmp_path):
    """A folder drawn is stamped: drawn again only when a picture is missing or its
    manifest or a table changed (or with force), the same files on one process or two."""
    folder = tmp_path / "gusarik"
    folder.mkdir()
    for table in (REPORTS / "gusarik").glob("*.csv*"):
        shutil.copy(table, folder)
    doc = manifest.read(REPORTS / "gusarik")
    doc["charts"] = [e for e in doc["charts"] if e["name"] in ("misere", "seat_deals")]
    (folder / manifest.NAME).write_text(json.dumps(doc), "utf-8")

    written, kept = restore(tmp_path, workers=2)
    first = {p.name: p.read_bytes() for p in written}
    assert {"misere.pdf", "seat_deals.png", "whist.parquet"} <= set(first) and kept == []
    assert restore(tmp_path) == ([], [folder])
    (folder / "misere.pdf").unlink()
    assert "misere.pdf" in {p.name for p in restore(tmp_path)[0]}
    table = folder / "seat_deals.csv"
    table.write_text(table.read_text("utf-8").replace("\n", "\r\n"), "utf-8")
    assert restore(tmp_path)[1] == []
    assert restore(tmp_path) == ([], [folder])
    again, _ = restore(tmp_path, force=True)
    assert {p.name: p.read_bytes() for p in again} == first


def test_a_cached_folder_naming_files_outside_it_is_not_copied(tmp_path):
    """A cache entry whose stamp names a file outside the folder is left unused."""
    from prefstats.reports.restore import STAMP, _cached

    entry, folder = tmp_path / "cache" / "key", tmp_path / "reports" / "sochi"
    entry.mkdir(parents=True)
    folder.mkdir(parents=True)
    (entry / "chart.png").write_bytes(b"png")
    (tmp_path / "cache" / "outside.txt").write_text("x")
    (entry / STAMP).write_text(json.dumps({"files": ["chart.png", "../outside.txt"]}))
    assert _cached(folder, entry) is None
    assert not (tmp_path / "reports" / "outside.txt").exists()
    (entry / STAMP).write_text(json.dumps({"files": ["chart.png"]}))
    assert _cached(folder, entry) == [folder / "chart.png"]
    assert (folder / "chart.png").read_bytes() == b"png"
