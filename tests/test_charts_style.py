"""Every kind of chart the reports draw, on small synthetic tables: in the house style,
no two pieces of text overlap, and each carries its source line."""

from __future__ import annotations

import itertools

import matplotlib as mpl
import numpy as np
import polars as pl
import pytest
from matplotlib.text import Text

from prefstats.reports import charts
from prefstats.reports.panel_charts import panel_bars

SOURCE = charts.source_line(version="0.0", deals="1,000 deals", seed=1,
                            command="prefstats compare --deals 1000")


def _in_view(axis, loc: float) -> bool:
    lo, hi = sorted(axis.get_view_interval())
    return lo - 1e-9 <= loc <= hi + 1e-9


def drawn_texts(fig) -> list[Text]:
    """The pieces of text a reader sees: the figure's, each axes' titles, axis labels,
    tick labels in view, annotations and legend texts."""
    texts = [t for t in fig.texts]
    texts += [t for legend in fig.legends for t in legend.get_texts()]
    for ax in fig.axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
                  *ax.texts]
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks():
                if _in_view(axis, tick.get_loc()):
                    texts += [tick.label1, tick.label2]
        if ax.get_legend() is not None:
            texts += [*ax.get_legend().get_texts(), ax.get_legend().get_title()]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of visible texts whose drawn boxes overlap (by more than half a pixel)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer).padded(-0.5))
             for t in drawn_texts(fig)]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2)
            if ba.overlaps(bb)]


def has_source(fig) -> bool:
    return any(t.get_gid() == charts.SOURCE_GID and t.get_text() for t in fig.texts)


@pytest.fixture
def drawn(monkeypatch):
    """The figures the chart functions save."""
    figures = []
    real = charts.save

    def keep(fig, path, source=None, alt=None, **options):  # a module may keep it past the test
        figures.append(fig)
        return real(fig, path, source, alt, **options)

    monkeypatch.setattr(charts, "save", keep)
    return figures


def _estimates(**columns) -> pl.DataFrame:
    df = pl.DataFrame(columns)
    y = df["y"]
    return df.with_columns(y_lo=y - 0.05 * y.abs() - 0.01, y_hi=y + 0.05 * y.abs() + 0.01,
                           enough=pl.lit(True))


VARIANTS = ["Sochi", "Sochi, 4 players", "Leningrad", "Leningrad, 4 players", "Rostov",
            "Rostov, 4 players", "Classic", "Classic, 4 players", "Gusarik (2 players)"]
COLOURS = {v: charts.variant_colour(v.split(",")[0].split(" ")[0].lower(),
                                    4 if "4" in v else 3) for v in VARIANTS}


def _kinds(tmp_path):
    """Every kind of chart the reports make: (name, draw)."""
    rng = np.random.default_rng(0)
    levels = _estimates(level=np.repeat([6, 7, 8, 9, 10], 8), points=np.tile(np.arange(8), 5),
                        y=rng.uniform(0, 1, 40))
    seats = _estimates(name=["first hand", "second hand", "third hand"], y=[1.5, -0.3, -1.2])
    metrics = ["raspasy (of deals)", "misère (of deals)", "trick games made (of trick games)",
               "misères caught (of misères)", "defenders whisting (of defenders' calls)"]
    grouped = _estimates(metric=np.repeat(metrics, 3), variant=VARIANTS[:3] * 5,
                         y=rng.uniform(0, 1, 15))
    by_variant = _estimates(variant=VARIANTS, y=rng.uniform(50, 400, 9))
    closing = _estimates(variant=np.repeat(VARIANTS, 30), deals=np.tile(np.arange(5, 35), 9),
                         y=np.tile(np.linspace(0, 1, 30), 9))
    rewards = _rewards()
    starting = _estimates(variant=np.repeat(VARIANTS[:3], 3), y=rng.uniform(-10, 10, 9),
                          seat=["first hand", "second hand", "dealer"] * 3)

    def heat(path):
        with mpl.rc_context(charts.STYLE):
            fig = charts.figure((8, 4))
            ax = fig.subplots()
            values = rng.uniform(-20, 20, (4, 6))
            texts = [[f"bid\n{v:+.0f}" for v in row] for row in values]
            image = charts.heatmap(ax, values, texts, np.zeros(values.shape, bool),
                                   rows=["8+", "7", "6", "5"], cols=[str(c) for c in range(6)],
                                   limit=20, xlabel="aces and kings", ylabel="best suit",
                                   title="level 6")
            fig.colorbar(image, ax=ax, label="bid − pass (whists a deal)")
            fig.suptitle("Bid a six from five trumps and two aces", x=0.01, ha="left")
            return charts.save(fig, path, SOURCE)

    return [
        ("lines", lambda p: charts.line_chart(
            levels.rename({"y": "p", "y_lo": "p_lo", "y_hi": "p_hi"}), p, x="points", y="p",
            group="level", colours=charts.LEVEL_COLOURS, group_label="level ",
            title="Sochi: P(make) rises with hand points, a seven needs three more",
            xlabel="hand points (best-suit length + its A K Q + side aces)",
            ylabel="contracts made", percent=True)),
        ("seats", lambda p: charts.bar_chart(
            seats, p, x="name", y="y", title="The first hand gains 1.5 whists a deal",
            xlabel="seat", ylabel="mean value (whists per deal)")),
        ("grouped", lambda p: charts.bar_chart(
            grouped, p, x="metric", y="y", group="variant", colours=COLOURS, zero_line=False,
            percent=True, title="Shares by variant, with 95% CIs", xlabel="",
            ylabel="share of the cases named")),
        ("variants", lambda p: charts.bar_chart(
            by_variant, p, x="variant", y="y", colours=COLOURS, zero_line=False,
            title="Pulkas a 1-whist-a-deal edge needs to show: fewest in Rostov",
            xlabel="variant", ylabel="pulkas")),
        ("closing", lambda p: charts.line_chart(
            closing, p, x="deals", y="y", group="variant", colours=COLOURS, percent=True,
            marker_at=18, title="A Sochi pulka closes within 18 deals half the time",
            xlabel="deals played", ylabel="pulkas closed")),
        ("heatmap", heat),
        ("panels", lambda p: panel_bars(
            rewards, p, panel="metric", x="variant", y="y", colours=COLOURS,
            title="A made six pays most in Leningrad", subtitle="What the scoring pays",
            counted={"caught misère": "caught misères"}, caption="Each on its own scale.")),
        ("dots", lambda p: charts.bar_chart(
            starting, p, x="variant", y="y", group="seat", horizontal=True, dots=True,
            title="No starting seat wins", xlabel="", ylabel="mean result (whists)",
            column=True)),
    ]


def _rewards() -> pl.DataFrame:
    """Three quantities of very different sizes; Gusarik's misère on too few cases."""
    metric = np.repeat(["made six", "failed whist", "caught misère"], 3)
    y = np.array([12.3, 18.8, 7.5, -21.7, -24.4, -24.3, -85.2, -190.3, -56.3])
    return _estimates(metric=metric, variant=VARIANTS[::4] * 3, y=y).with_columns(
        n=pl.Series([900, 800, 1000, 300, 480, 160, 374, 421, 24]),
        enough=pl.Series([True] * 8 + [False]))


@pytest.mark.parametrize("kind", range(8))
def test_every_chart_kind_is_clean(tmp_path, drawn, kind):
    name, draw = _kinds(tmp_path)[kind]
    with charts.sourced(SOURCE):
        paths = draw(tmp_path / name)
    assert [p.suffix for p in paths] == [".png", ".svg", ".pdf"]
    assert all(p.stat().st_size for p in paths)
    (fig,) = drawn
    assert has_source(fig), f"{name}: no source line"
    assert overlaps(fig) == [], f"{name}: overlapping text"


def test_small_multiples_label_every_bar_and_say_why_one_is_missing(tmp_path, drawn):
    """A panel a quantity, each on its own scale; each bar's value written with a minus
    sign; the missing bar's reason where it would be."""
    panel_bars(_rewards(), tmp_path / "p", panel="metric", x="variant", y="y", title="t",
               counted={"caught misère": "caught misères"})
    (fig,) = drawn
    six, _, misere = fig.axes
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["made six", "failed whist",
                                                            "caught misère"]
    assert six.get_xlim()[1] < 30 and misere.get_xlim()[0] < -190  # scales of their own
    labels = [t.get_text() for t in misere.texts]
    assert "−85.2" in labels and "−190.3" in labels
    assert any("only 24 caught misères" in t for t in labels)
    assert "−56.3" not in labels  # no bar for it


def test_every_chart_has_its_heading_at_the_figure_left(tmp_path, drawn):
    """The title at the figure's top left and the subtitle directly under it, from one
    function for the report charts and the hand charts alike."""
    charts.bar_chart(_estimates(name=["a", "b"], y=[1.0, -2.0]), tmp_path / "c", x="name",
                     y="y", title="A long finding about a and b that wraps on two lines",
                     subtitle="what it draws", xlabel="", ylabel="whists", column=True)
    (fig,) = drawn
    fig.canvas.draw()
    title = fig._suptitle.get_window_extent()
    (subtitle,) = [t for t in fig.texts if t.get_text() == "what it draws"]
    under = subtitle.get_window_extent()
    assert fig._suptitle.get_text().count("\n") == 1
    assert abs(under.x0 - title.x0) < 1 and 0 <= title.y0 - under.y1 < 0.1 * fig.dpi
    assert title.x0 < 0.15 * fig.dpi  # at the figure's left, not the plot's
    assert fig.axes[0].get_title(loc="left") == ""
    assert charts.minus("below -827, a 1-whist game") == "below −827, a 1-whist game"


def test_a_planted_overlap_is_found(tmp_path):
    with mpl.rc_context(charts.STYLE):
        fig = charts.figure()
        ax = fig.subplots()
        ax.set_xticks([0, 0.1], ["a long category label", "another long category label"])
        ax.set_xlim(0, 1)
        ax.set_xlabel("x")
        fig.tight_layout()
    assert overlaps(fig)
    assert not has_source(fig)
    charts.save(fig, tmp_path / "planted", SOURCE)
    assert has_source(fig)


def test_long_category_labels_turn_the_bars(tmp_path, drawn):
    table = _estimates(what=[f"a rather long category name number {i} of the chart"
                             for i in range(6)], y=np.arange(1.0, 7.0))
    charts.bar_chart(table, tmp_path / "long", x="what", y="y", title="t", xlabel="what",
                     ylabel="whists")
    (fig,) = drawn
    assert fig.axes[0].get_yticklabels()[0].get_text().startswith("a rather")
    assert overlaps(fig) == []


def test_category_labels_wrap_at_commas_and_spaces_only(tmp_path, drawn):
    """Nine variants under their bars: "Leningrad, 4 players" is "Leningrad" over "4
    players", never a word cut nor a line opening with its comma."""
    charts.bar_chart(_estimates(variant=VARIANTS, y=np.arange(1.0, 10.0)), tmp_path / "v",
                     x="variant", y="y", colours=COLOURS, title="t", xlabel="variant",
                     ylabel="pulkas")
    (fig,) = drawn
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels[3] == "Leningrad\n4 players"
    for label, name in zip(labels, VARIANTS, strict=True):
        assert all(not line.startswith((",", " ")) for line in label.split("\n"))
        assert label.replace("\n", " ") in (name, name.replace(", ", " "))
    assert overlaps(fig) == []


def test_the_source_line_breaks_at_spaces_only():
    source = charts.source_line(version="0.3.0", deals="20,000 deals and 400 pulkas to 20 a "
                                "variant", seed=1, command="prefstats compare --deals 20000 "
                                "--pulkas 400 --pool-target 20 --seed 1")
    lines = charts.source_lines(source, charts.SIZE[0]).split("\n")
    assert len(lines) > 1 and " ".join(lines) == source


def test_the_style_is_applied_not_installed(tmp_path):
    """Drawing a chart leaves matplotlib's global settings (a notebook's) alone; the
    house style is a file shipped in the package."""
    before = dict(mpl.rcParams)
    charts.bar_chart(_estimates(name=["a", "b"], y=[1.0, 2.0]), tmp_path / "c", x="name",
                     y="y", title="t", xlabel="x", ylabel="y")
    assert dict(mpl.rcParams) == before
    assert charts.STYLE_FILE.is_file() and charts.STYLE["savefig.dpi"] == 200


def test_fixed_colours_per_variant():
    assert charts.variant_colour("sochi") == charts.VARIANT_COLOURS["sochi"]
    assert charts.variant_colour("sochi", 4) not in charts.VARIANT_COLOURS.values()
    assert len(set(COLOURS.values())) == len(VARIANTS)


def test_the_article_charts_are_clean_and_refuse_other_deals(tmp_path, drawn):
    """The article on two tiny variants: each chart sourced and without overlapping
    text, a table with a column per variant; a dataset of another seed is refused."""
    from prefstats.game.variants import get_variant
    from prefstats.reports.article import article_report, make_datasets
    from prefstats.reports.render import write_report
    from prefstats.sim.storage import DatasetError

    variants = [get_variant("sochi"), get_variant("gusarik")]
    sets = make_datasets(tmp_path / "data", deals=400, pulkas=40, pool_target=4, seed=1,
                         variants=variants, workers=1, progress=False)
    out = write_report(article_report(sets, "prefstats compare --deals 400"), tmp_path / "a")
    text = (out / "article.md").read_text("utf-8")
    assert "| Sochi | Gusarik |" in text and "closes within 18 deals" in text
    assert len(drawn) >= 4
    for fig in drawn:  # the finding as title; a column wide, readable printed small
        assert has_source(fig) and overlaps(fig) == []
        assert 0 < len(charts.title_of(fig)) <= charts.TITLE_CHARS
        assert fig.get_size_inches()[0] <= charts.COLUMN
        assert charts.print_points(fig) >= charts.MIN_PRINT_POINTS
    # luck against skill: every variant's figures with intervals that hold them
    luck = pl.read_csv(out / "luck.csv")
    assert luck["measure"].to_list()[4].startswith("pulkas before the better player")
    for v in ("Sochi", "Gusarik"):
        need = luck.row(4, named=True)
        assert need[f"{v}_lo"] <= need[v] <= need[f"{v}_hi"]
        assert 0 < luck.row(5, named=True)[v] < 1  # the cards' share
    seats = pl.read_csv(out / "seats.csv")
    # seats as players name them; Gusarik's two players start as second hand and dealer
    assert seats["measure"].to_list() == [
        *(f"mean result, starting as {seat} (whists)"
          for seat in ("first hand", "second hand", "dealer")),
        "p-value: the seat does not matter"]
    assert seats["Gusarik"][0] is None and seats["Sochi"][0] is not None
    assert seats["Gusarik"][2] is not None
    assert "The seat's advantage" in text and "(1.96·SD / edge)²" in text
    # refused by its seed alone: a smaller one will do
    other = make_datasets(tmp_path / "other", deals=50, pulkas=4, pool_target=4, seed=2,
                          variants=variants[1:], workers=1, progress=False)
    with pytest.raises(DatasetError, match="seed 2"):
        article_report([sets[0], *other], "x")


def test_importing_prefstats_keeps_the_backend(tmp_path):
    """A notebook's plots show: importing prefstats and its reports switches no backend."""
    import subprocess
    import sys

    code = ("import matplotlib; import prefstats, prefstats.reports.report, "
            "prefstats.reports.article; print(matplotlib.get_backend())")
    env = {**__import__("os").environ, "MPLBACKEND": "svg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=tmp_path, check=True)
    assert out.stdout.strip() == "svg"
