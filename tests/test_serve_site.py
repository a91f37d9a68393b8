"""The explorer's static edition: ``prefstats site`` writes every page, the data as
``<script>`` files (no fetch), Plotly's script from the plotly package, and a lookup
whose answers are the guides' cells, as ``/api/advice`` gives them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from prefstats.cli import app as cli
from prefstats.serve import create_app
from prefstats.serve.pages import plotly_js
from prefstats.serve.site import SITE_PAGES

ROOT = Path(__file__).resolve().parent.parent
#: Ten cards of the Sochi guide's first-call cell of 11 points at seat 0.
HAND = "♠AKQJ10 ♣AK ♦AK ♥A"


def _data(path: Path, name: str):
    text = path.read_text(encoding="utf-8")
    prefix = f"window.{name} = "
    assert text.startswith(prefix) and text.endswith(";\n")
    return json.loads(text[len(prefix):-2])


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "explorer"
    got = CliRunner().invoke(cli, ["site", str(out), "--reports", str(ROOT / "reports")])
    assert got.exit_code == 0, got.output
    return out


def test_every_page_is_written_and_reads_only_local_files(site):
    for name in SITE_PAGES:
        page = (site / name).read_text(encoding="utf-8")
        for ref in re.findall(r'(?:src|href)="([^"]+)"', page):
            assert "://" not in ref and not ref.startswith("/"), (name, ref)
            assert (site / ref.split("?")[0]).is_file(), (name, ref)
    assert (site / "static-lib/plotly.min.js").read_bytes() == plotly_js().read_bytes()


def test_the_charts_data_are_the_committed_guides(site):
    guides = _data(site / "guides.js", "GUIDES")
    tables = sorted(p.parent.name for p in (ROOT / "reports").glob("*/guide.json"))
    assert sorted(guides) == tables
    assert guides["sochi"] == json.loads((ROOT / "reports/sochi/guide.json").read_text(
        encoding="utf-8"))


def test_a_lookup_equals_the_guides_cell(site):
    answers = _data(site / "answers.js", "ANSWERS")
    app = create_app(ROOT / "reports", site.parent / "data", workers=1, job_nice=0)
    with TestClient(app) as client:
        served = client.get("/api/advice", params={"hand": HAND}).json()
    cell = served["cell"]
    found = next(c for c in answers["sochi"][cell["chart"]] if c["features"] == cell["features"])
    assert found["answer"] == {k: v for k, v in served.items() if k not in ("table", "mask")}
    guide = json.loads((ROOT / "reports/sochi/guide.json").read_text(encoding="utf-8"))
    rule = next(r for r in guide["records"] if r["kind"] == "rule"
                and r["chart"] == "first_call_points" and r["features"] == cell["features"])
    assert (found["answer"]["advice"], found["answer"]["n"]) == (rule["advice"], rule["n"])


def test_no_guide_is_refused_naming_the_folder(tmp_path):
    got = CliRunner().invoke(cli, ["site", str(tmp_path / "out"), "--reports", str(tmp_path)])
    assert got.exit_code == 2 and "reports:" in got.output
