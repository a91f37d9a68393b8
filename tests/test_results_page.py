"""The documentation's results page sums up each committed hand guide in one row and
leaves its records out of the flat JSON tables."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("mkdocs")


@pytest.fixture(scope="module")
def hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), "utf-8")


def test_a_guide_is_one_row_with_its_rules_and_its_times(hooks, tmp_path):
    rules = [{"kind": "rule", "robust": True}] * 3 + [{"kind": "rule", "robust": False},
                                                     {"kind": "rule", "robust": None}]
    write(tmp_path / "reports" / "sochi-4p" / "guide.json",
          {"version": "9.9", "seed": 7, "model": "heuristic",
           "models": [{"name": "timid"}, {"name": "search"}],
           "records": [{"kind": "cell"}] * 4 + rules})
    write(tmp_path / "reports" / "bench" / "guide-sochi-4p.json",
          {"wall_seconds": {"heuristic": 530.0, "timid": 100.0, "all": 1800.0},
           "cpu_seconds": 2820.0, "machine": "2 cores, load 1.9"})
    write(tmp_path / "reports" / "gusarik" / "guide.json",
          {"version": "9.8", "seed": 1, "models": [], "records": []})
    text = hooks.guides_section(tmp_path)
    sochi = next(line for line in text.splitlines() if line.startswith("| [sochi-4p]"))
    assert "(reports/sochi-4p/guide.md)" in sochi
    assert "| 9.9 | 7 | 5 (3 robust) | timid, search |" in sochi
    assert "8 min 50 s default players, 30 min 0 s in all (47 CPU min; 2 cores, load 1.9)" \
        in sochi
    gusarik = next(line for line in text.splitlines() if line.startswith("| [gusarik]"))
    assert "| 0 (0 robust) | none | not recorded |" in gusarik


def test_times_round_to_the_second_as_the_guide_prints_them(hooks):
    assert hooks.minutes(59.6) == "1 min 0 s"
    assert hooks.minutes(None) == "—"


def test_no_guide_no_section(hooks, tmp_path):
    assert hooks.guides_section(tmp_path) == ""


def test_guides_records_and_times_are_not_listed_as_flat_tables(hooks):
    assert hooks.shown_as_guide(Path("reports/sochi/guide.json"))
    assert hooks.shown_as_guide(Path("reports/bench/guide-sochi-4p.json"))
    assert not hooks.shown_as_guide(Path("reports/bench/cold_start.json"))
    assert not hooks.shown_as_guide(Path("reports/compare/guide-notes.json"))


def test_each_table_s_rating_bands_are_a_row_with_their_command(hooks, tmp_path):
    data = tmp_path / "prefstats" / "analysis" / "data"
    data.mkdir(parents=True)
    (data / "rating-rostov-4.toml").write_text(
        'source = "prefstats fit rating --variant rostov --players 4 --pulkas 8"\n'
        "cap = 62.0\n"
        '[[bands]]\nname = "strong"\nup_to = 150.5\n'
        '[[bands]]\nname = "average"\nup_to = 900.0\n'
        '[[bands]]\nname = "beginner"\nup_to = inf\n'
        "[calibration.pimc]\nmean = 140.0\nse = 9.0\n"
        "[calibration.heuristic]\nmean = 161.0\nse = 10.0\n"
        "[calibration.random]\nmean = 1639.0\nse = 30.0\n", "utf-8")
    row = next(line for line in hooks.rating_section(tmp_path).splitlines()
               if line.startswith("| rostov-4 |"))
    assert row == ("| rostov-4 | 140 ± 9 / 161 ± 10 / 1,639 ± 30 | strong ≤ 150, average ≤ 900 "
                   "| 62.0 | `prefstats fit rating --variant rostov --players 4 --pulkas 8` |")
    assert hooks.rating_section(tmp_path / "none") == ""


def test_the_strength_section_shows_every_side_and_judges_only_on_enough_games(hooks,
                                                                               tmp_path):
    def ci(mean):
        return {"mean": mean, "low": mean - 0.01, "high": mean + 0.01}

    path = tmp_path / "strength.json"
    write(path, {"against": "pimc", "samples": 32, "deals": 36000, "variant": "sochi",
                 "seed": 90210, "command": "python scripts/bench_strength.py",
                 "version": "9.9", "date": "2026-12-07", "machine": "2 cores", "seconds": 60,
                 "sides": {"declarer": {"games": 3100, "given_away": ci(0.03),
                                        "target": 0.04, "judged": True},
                           "defence": {"games": 3100, "given_away": ci(0.08),
                                       "target": 0.05, "judged": True},
                           "misere_declarer": {"games": 40, "given_away": ci(0.1),
                                               "target": None, "judged": False},
                           "misere_catchers": {"games": 40, "given_away": ci(0.2),
                                               "target": None, "judged": False}},
                 "raspasy": {"deals": 900, "difference": ci(-0.05)}})
    lines = hooks.strength_section(path).splitlines()
    assert "| declarer | 3,100 games | +0.030 [+0.020, +0.040] | ≤ 0.04: met |" in lines
    assert "| defence | 3,100 games | +0.080 [+0.070, +0.090] | ≤ 0.05: not met |" in lines
    assert "| misere catchers | 40 games | +0.200 [+0.190, +0.210] | — |" in lines
    assert any(line.startswith("| raspasy") and "900 deals" in line for line in lines)
    assert hooks.strength_section(tmp_path / "none.json") == ""
