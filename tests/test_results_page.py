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
