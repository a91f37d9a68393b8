"""The rule-comparison article reads as an article: a title that is its main finding, a
short summary of five findings with numbers, sections that open with their finding and
a numbered figure, the methods at the end, and a main text of at most 2,500 words."""

from __future__ import annotations

import re
import shutil

import pytest

from prefstats.game.variants import get_variant
from prefstats.reports import article as article_module
from prefstats.reports import manifest
from prefstats.reports.article import METHODS, article_report, make_datasets, spoken_name
from prefstats.reports.headlines import finding, main_title
from prefstats.reports.render import write_report
from prefstats.reports.restore import draw_chart
from prefstats.reports.sheet import write_sheet

MAX_WORDS = 2500
MAX_SUMMARY_WORDS = 150


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """The datasets of three tiny tables: Sochi, Sochi with 4 players, Gusarik."""
    variants = [get_variant("sochi"), get_variant("sochi", players=4), get_variant("gusarik")]
    return make_datasets(tmp_path_factory.mktemp("data"), deals=400, pulkas=40,
                         pool_target=4, seed=1, variants=variants, workers=1, progress=False)


@pytest.fixture(scope="module")
def written(sets, tmp_path_factory):
    """The article of :func:`sets` and the folder it is written to (tests that change the
    folder take a copy)."""
    report = article_report(sets, "prefstats compare --deals 400 --pulkas 40")
    return report, write_report(report, tmp_path_factory.mktemp("article") / "out")


@pytest.fixture(scope="module")
def article(written):
    """The article of :func:`sets` and its article.md."""
    report, out = written
    return report, (out / "article.md").read_text("utf-8")


def _say(big, big_value, small, small_value):
    return f"Most in {big}, {big_value}; least in {small}, {small_value}."


def _title(big, small, times):
    return f"{big} is {times} times {small}"


def test_a_finding_names_the_extremes_and_whether_they_part():
    apart = finding({"A": (10.0, 9.0, 11.0, 100), "B": (2.0, 1.5, 2.5, 100),
                     "C": (5.0, 4.0, 6.0, 100), "D": (99.0, 0.0, 200.0, 5)},
                    _say, _title, lambda x: f"{x:.1f}")
    assert apart.sentence == "Most in A, 10.0 [9.0, 11.0]; least in B, 2.0 [1.5, 2.5]."
    assert apart.short == "Most in A, 10.0; least in B, 2.0."
    assert apart.title == "A is 5.0 times B" and apart.strength == pytest.approx(9.0 / 2.5)
    close = finding({"A": (3.0, 1.0, 5.0, 100), "B": (2.0, 1.0, 3.0, 100)}, _say, _title,
                    str)
    assert close.strength < 1 and close.sentence.endswith("not told apart.")
    assert finding({"A": (3.0, 1.0, 5.0, 100), "B": (2.0, 1.0, 3.0, 3)}, _say, _title,
                   str) is None


def test_losses_are_compared_by_their_size():
    deep = finding({"A": (-800.0, -900.0, -700.0, 100), "B": (-300.0, -350.0, -250.0, 100)},
                   _say, _title, lambda x: f"{x:.0f}")
    assert deep.title == "A is 2.7 times B" and deep.strength == pytest.approx(700 / 350)


def test_the_title_is_the_finding_on_which_the_tables_part_most():
    weak = finding({"A": (2.0, 1.9, 2.1, 99), "B": (1.0, 0.9, 1.1, 99)}, _say, _title, str)
    strong = finding({"C": (30.0, 29.0, 31.0, 99), "D": (1.0, 0.9, 1.1, 99)}, _say, _title,
                     str)
    close = finding({"E": (3.0, 0.0, 9.0, 99), "F": (1.0, 0.0, 2.0, 99)}, _say, _title, str)
    assert main_title([weak, None, strong, close], "none") == "C is 30 times D"
    assert main_title([close, None], "none apart") == "none apart"


def test_variants_are_named_as_players_name_them():
    assert spoken_name(get_variant("sochi")) == "Sochi"
    assert spoken_name(get_variant("sochi", players=4)) == "Sochi (4 players)"
    assert spoken_name(get_variant("gusarik")) == "Gusarik"
    assert spoken_name(get_variant("leningrad", stalingrad=True)).startswith("Leningrad with")


def test_the_title_is_a_finding_not_a_list_of_tables(article):
    report, text = article
    title = text.splitlines()[0]
    assert title == f"# {report.title}"
    assert "times" in title and len(report.title) <= 80
    rest = title.replace("Sochi (4 players)", "")
    named = ("Sochi (4 players)" in title) + ("Gusarik" in rest) + ("Sochi" in rest)
    assert 1 <= named <= 2
    assert "Sochi, 4 players" not in text and "Sochi (4 players)" in text


def test_the_summary_gives_five_findings_with_numbers_in_few_words(article):
    report, text = article
    top = text.split("## Contents")[0].splitlines()[1:]
    findings = [line for line in top if line.startswith("- ")]
    assert len(findings) == 5 == len(report.meta)
    assert all(re.search(r"\d", line) for line in findings)
    words = sum(len(line.split()) for line in top) - sum(1 for _ in findings)  # the bullets
    assert words <= MAX_SUMMARY_WORDS
    assert "prefstats simulate" not in "\n".join(top)


def test_each_section_opens_with_its_finding_then_a_numbered_figure_then_its_table(article):
    report, text = article
    figures = re.findall(r"^### Figure (\d+)\. ", text, re.M)
    assert [int(n) for n in figures] == list(range(1, len(figures) + 1)) and len(figures) >= 6
    for section in report.sections[:len(figures)]:
        sentences = re.findall(r"[.!?](?:\s|$)", section.intro)
        assert len(sentences) == 1, section.intro
        part = text.split(f"## {section.title}\n\n", 1)[1].split("\n## ", 1)[0]
        opening, figure = part.split("### Figure ", 1)
        assert opening.strip() == section.intro
        image, caption, table = re.match(r"\d+\. [^\n]+\n\n(!\[[^\n]+\)\n)\n(\*[^\n]+\*)\n\n"
                                         r"(\|[^\n]+)", figure).groups()
        assert image.startswith("![") and caption.strip("*") and table.startswith("|  | Sochi |")


def test_the_methods_and_commands_end_the_article_and_the_main_text_is_short(article):
    _report, text = article
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[-2:] == [METHODS, "Files"]
    main, methods = text.split(f"## {METHODS}\n", 1)
    assert "prefstats simulate --hands 400" in methods and "--with-deals" in methods
    assert "prefstats simulate" not in main.split("## Contents")[0]
    prose = [line for line in main.splitlines()
             if line and not line.startswith(("|", "![", "Data: ", "<", "- [", "  - ["))]
    assert sum(len(line.split()) for line in prose) <= MAX_WORDS


def test_the_skill_edge_is_played_on_at_most_its_own_number_of_deals(sets, monkeypatch):
    monkeypatch.setattr(article_module, "SKILL_DEALS", 200)
    report = article_report(sets, "x")
    assert "on the first 200 deals" in report.sections[-1].intro


def test_the_article_on_one_page_to_print(sets, written, tmp_path):
    """The summary sheet: PNG, SVG and PDF with the title and the five findings, drawn
    again from its charts.json entry alone."""
    report, made = written
    out = tmp_path / "a"
    shutil.copytree(made, out)
    paths = write_sheet(report, [s.label for s in sets], out)
    assert [p.suffix for p in paths] == [".png", ".svg", ".pdf"]
    svg = paths[1].read_text("utf-8")
    assert all(f.split(",")[0] in svg for f in report.meta)
    for p in paths:
        p.unlink()
    entry = next(e for e in manifest.read(out)["charts"] if e["name"] == "summary")
    assert "summary.pdf" in {p.name for p in draw_chart(out, entry)}
