"""The static edition of the explorer: the Charts pages and My hand over the committed
guides (a typed hand's cell computed in the page from the classifiers' tables), written
as files that work opened from disk (the data in ``<script>`` files, Plotly's script
copied from the plotly package)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from prefstats.serve.classify import classify_data
from prefstats.serve.guides import CHARTS, Guide, Guides, cell_answer
from prefstats.serve.pages import HERE, plotly_js

#: The site's pages, by file: (template, title in the menu).
SITE_PAGES = {"index.html": ("lookup.html", "My hand"), "charts.html": ("charts.html", "Charts")}
#: The server's static files those pages use.
SITE_STATIC = ("explorer.css", "explorer.js", "charts.js", "cards.js", "features.js", "lookup.js")


def guide_answers(guide: Guide) -> dict[str, list[dict]]:
    """Every cell of the guide's charts with the answer ``GET /api/advice`` gives for it,
    by chart."""
    out: dict[str, list[dict]] = {}
    for chart in dict.fromkeys(r["chart"] for r in guide.doc["records"] if r["kind"] == "cell"):
        features = list({json.dumps(r["features"], sort_keys=True): r["features"]
                         for r in guide.cells(chart)}.values())
        out[chart] = [{"features": f, "answer": cell_answer(guide, chart, f)} for f in features]
    return out


def _script(name: str, value: object) -> str:
    text = json.dumps(value, ensure_ascii=False).replace("</", "<\\/")  # "</" ends a script
    return f"window.{name} = {text};\n"


def write_site(out: Path | str, reports: Path | str = "reports") -> Path:
    """Write the static edition over the guides under ``reports`` into ``out``."""
    from prefstats import __version__

    out = Path(out)
    guides = Guides(Path(reports))
    tables = guides.tables()
    for folder in ("static", "static-lib"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    for name in SITE_STATIC:
        shutil.copyfile(HERE / "static" / name, out / "static" / name)
    shutil.copyfile(plotly_js(), out / "static-lib" / "plotly.min.js")
    (out / "guides.js").write_text(
        _script("GUIDES", {t: guides.get(t).doc for t in tables}), encoding="utf-8")
    (out / "classify.js").write_text(_script("CLASSIFY", classify_data()), encoding="utf-8")
    (out / "answers.js").write_text(
        _script("ANSWERS", {t: guide_answers(guides.get(t)) for t in tables}), encoding="utf-8")
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape())
    for name, (template, title) in SITE_PAGES.items():
        page = env.get_template(template).render(title=title, pages=SITE_PAGES, root="",
                                                 site=True, version=__version__, tables=tables,
                                                 charts=[c for cs in CHARTS.values() for c in cs])
        (out / name).write_text(page, encoding="utf-8")
    return out
