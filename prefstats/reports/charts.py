"""Publishable charts in one house style (``prefstats.mplstyle`` beside this module,
applied to each figure, never globally): a title that states the finding, axes labelled
with units, a colour-blind-safe palette (Okabe-Ito) with a fixed colour per variant,
seat and contract level, no overlapping text (long category labels wrap, or the bars
turn horizontal; legends sit beside the plot) and a small source line under every chart
(prefstats version, deals, seed, command). Each chart is saved as PNG (200 dpi, twice
the screen's), SVG and PDF (fonts embedded), the SVG and PDF carrying its alt text; every
text is drawn in a colour of at least :data:`MIN_CONTRAST` against what it sits on
(:func:`ink`, checked by :func:`text_contrasts`). Only rows with enough samples are drawn.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import re
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import matplotlib as mpl
import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex, to_rgb, to_rgba
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator, PercentFormatter
from matplotlib.transforms import ScaledTranslation

from prefstats.reports import findings

STYLE_FILE = Path(__file__).with_name("prefstats.mplstyle")
#: The house style as rc settings, for ``mpl.rc_context(STYLE)`` around a figure's making.
STYLE = dict(mpl.rc_params_from_file(STYLE_FILE, use_default_template=False))
#: Okabe & Ito's palette, told apart with every common colour-vision deficiency.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442",
             "#000000")
#: One colour per preset across every chart; its 4-player table is a lighter tint.
VARIANT_COLOURS = {"sochi": "#0072B2", "leningrad": "#D55E00", "rostov": "#009E73",
                   "classic": "#E69F00", "gusarik": "#CC79A7"}
SEAT_COLOURS = ("#56B4E9", "#E69F00", "#009E73", "#CC79A7")
#: Misère charts: bars by the number of short holes (a sequential scale).
HOLE_COLOURS = ("#54278f", "#9e9ac8", "#cbc9e2", "#f2f0f7")
LEVEL_COLOURS = {6: "#0072B2", 7: "#E69F00", 8: "#009E73", 9: "#CC79A7", 10: "#D55E00"}
_SPARE = ("#56B4E9", "#F0E442", "#000000", "#999999", "#666666", "#BBBBBB")
SIZE = (7.5, 4.5)
#: The longest title a chart states its finding in; details go to the subtitle.
TITLE_CHARS = 70
#: The width of a chart made for one column (the article's, the hand charts): at 390 px
#: on a phone and printed at :data:`PRINT_WIDTH`, its smallest text stays readable.
COLUMN = 4.8
#: A print column, 8.5 cm, in inches; no text of a column chart prints smaller than
#: :data:`MIN_PRINT_POINTS` at that width (:func:`print_points`).
PRINT_WIDTH = 8.5 / 2.54
MIN_PRINT_POINTS = 6.0
#: The text size under a column chart (caption, source line): the smallest that prints
#: at :data:`MIN_PRINT_POINTS` in a column.
FOOT_POINTS = 9.0
#: The gid of a figure's source line (how :func:`save` and the tests find it).
SOURCE_GID = "source"
_SOURCE: contextvars.ContextVar[str | None] = contextvars.ContextVar("source", default=None)
#: What :func:`save` does with a finished figure instead of writing it (see :func:`drawing`).
_SINK: contextvars.ContextVar[Callable[[Figure, Path], None] | None] = contextvars.ContextVar(
    "sink", default=None)
#: The files every chart is saved as, by suffix.
FORMATS = (".png", ".svg", ".pdf")
#: WCAG AA's least contrast ratio for normal text.
MIN_CONTRAST = 4.5
#: The diverging scale of gains: ColorBrewer's red-blue, safe for colour-blind readers
#: and in grey (its lightness falls from the centre to both ends).
DIVERGING = "RdBu"
#: Characters of 9-point text an inch: where labels wrap.
_CHARS_AN_INCH = 14
#: Where a chart's texts start (its heading, caption, legend and source line): inches
#: from the figure's left edge.
MARGIN = 0.1


def variant_colour(base: str, players: int = 3) -> str | None:
    """The fixed colour of a preset's table: its own colour, a lighter tint with 4
    players, lighter still with 5; ``None`` for an unknown preset."""
    colour = VARIANT_COLOURS.get(base)
    if colour is None or players < 4:
        return colour
    tint = 0.5 if players == 4 else 0.7
    return to_hex([c + (1 - c) * tint for c in to_rgb(colour)])


def colours_for(names: Sequence, fixed: Mapping | Sequence) -> dict:
    """A colour for each name: from ``fixed`` (a mapping, or a sequence by index),
    then spare colours."""
    spare = iter(_SPARE)
    out = {}
    for i, name in enumerate(names):
        if isinstance(fixed, Mapping):
            out[name] = fixed.get(name) or next(spare)
        else:
            out[name] = fixed[i % len(fixed)]
    return out


def source_line(*, version: str, deals: str, seed: int | str, command: str) -> str:
    """The source line under a chart: what made it, so it can be made again."""
    return f"prefstats {version} · {deals} · seed {seed} · {command}"


def source_lines(source: str, width: float) -> str:
    """The source line wrapped to a figure ``width`` inches wide, at spaces only (an
    option such as ``--pool-target`` stays whole)."""
    return textwrap.fill(source, int(width * 17), break_long_words=False,
                         break_on_hyphens=False)


@contextlib.contextmanager
def sourced(text: str | None) -> Iterator[None]:
    """Every chart saved inside carries ``text`` as its source line."""
    token = _SOURCE.set(text)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def current_source() -> str | None:
    """The source line :func:`sourced` gives the charts saved inside it."""
    return _SOURCE.get()


def figure(size: tuple[float, float] = SIZE) -> Figure:
    """A figure drawn by the Agg canvas, apart from pyplot: the caller's backend (a
    notebook's) is left as it is. Make it inside ``mpl.rc_context(STYLE)``."""
    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig


def _has_source(fig: Figure) -> bool:
    return any(t.get_gid() == SOURCE_GID or t.get_text().startswith("prefstats ")
               for t in fig.texts)


def save(fig: Figure, path: Path, source: str | None = None, alt: str | None = None,
         page: bool = False) -> list[Path]:
    """``fig`` as PNG, SVG and PDF at ``path`` (its suffix replaced), with ``source`` (or
    the one of :func:`sourced`) as a small line under it unless it has one, and ``alt``
    (default: its title) as the SVG's and PDF's description; reruns write the same files
    (no timestamp, stable SVG ids). A ``page`` keeps its whole size and margins, a chart
    is cut to what it draws. Inside :func:`drawing` nothing is written."""
    source = source or current_source()
    if source and not _has_source(fig):
        width = fig.get_size_inches()[0]
        column = width <= COLUMN
        text = source_lines(source, width * (6.5 / FOOT_POINTS if column else 1))
        below(fig, [fig.text(MARGIN / width, 0, text, fontsize=FOOT_POINTS if column else 6.5,
                             color="#555555", ha="left", va="top", gid=SOURCE_GID)])
    title = title_of(fig)
    fig.prefstats_alt = alt or title  # type: ignore[attr-defined]
    paths = [path.with_suffix(s) for s in FORMATS]
    sink = _SINK.get()
    if sink is not None:
        sink(fig, path)
        return paths
    box = {"bbox_inches": fig.bbox_inches} if page else {}
    with mpl.rc_context(STYLE):
        raw = io.BytesIO()  # unpacked pixels: the palette pass below compresses them
        fig.savefig(raw, format="png", pil_kwargs={"compress_level": 0}, **box)
        palette_png(paths[0], raw)
        fig.savefig(paths[1], metadata={"Date": None, "Title": title,
                                        "Description": fig.prefstats_alt}, **box)
        fig.savefig(paths[2], metadata={"CreationDate": None, "Title": title,
                                        "Subject": fig.prefstats_alt}, **box)
    return paths


def palette_png(path: Path, source: io.BytesIO | None = None) -> None:
    """Write the PNG at ``path`` (or ``source``, a PNG in memory) to ``path`` with a
    256-colour palette: a third of the size, no visible loss on a chart or a page of text."""
    from PIL import Image

    with Image.open(source or path) as image:
        small = image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT)
    small.save(path, format="PNG", optimize=True)


@contextlib.contextmanager
def drawing(sink: Callable[[Figure, Path], None]) -> Iterator[None]:
    """Every chart finished inside goes to ``sink(figure, path)`` instead of files."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def title_of(fig: Figure) -> str:
    """A figure's title: its suptitle, or its first axes' title."""
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text():
        return sup.get_text().replace("\n", " ")
    for ax in fig.axes:
        for loc in ("left", "center"):
            if ax.get_title(loc):
                return ax.get_title(loc).replace("\n", " ")
    return ""


def below(fig: Figure, artists: Sequence) -> None:
    """Hang ``artists`` (figure texts, or an axes' legend anchored by its upper left
    corner) one under the other at the figure's left, beneath the lowest thing already
    under its bottom edge, where ``bbox_inches="tight"`` keeps them in the saved file."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    hanging = [a for a in (*fig.texts, *legends) if a not in artists and a.get_visible()]
    edges = [a.get_window_extent(renderer).y0 for a in hanging]
    y = min([e for e in edges if e < 1] + [0.0]) - (4 if any(e < 1 for e in edges) else 0)
    left = MARGIN * fig.dpi
    for artist in artists:
        if isinstance(artist, Text):
            artist.set_y(y / fig.bbox.height)
        else:  # a legend: its anchor is a fraction of its axes
            box = artist.axes.bbox
            artist.set_bbox_to_anchor(((left - box.x0) / box.width, (y - box.y0) / box.height))
        y -= artist.get_window_extent(renderer).height + 4


def print_points(fig: Figure) -> float:
    """The smallest text of ``fig`` in points when the saved picture (its tight box) is
    printed :data:`PRINT_WIDTH` wide."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width = fig.get_tightbbox(renderer).width + 2 * float(STYLE["savefig.pad_inches"])
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible()
             and t.get_text().strip()]
    return min(sizes) * PRINT_WIDTH / width


def _luminance(colour) -> float:
    """WCAG relative luminance of an RGB colour."""
    c = np.asarray(to_rgb(colour), dtype=float)
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


def contrast(a, b) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)))
    return (lb + 0.05) / (la + 0.05)


def ink(background) -> str:
    """Black or white, whichever reads better on ``background`` (at least 4.5:1 on any)."""
    return "#000000" if contrast("#000000", background) >= contrast("#ffffff",
                                                                    background) else "#ffffff"


def text_contrasts(fig: Figure) -> list[tuple[str, float]]:
    """Every drawn text of ``fig`` with its contrast against the colour it sits on: the
    figure is drawn with its texts hidden and each text's box read for its commonest
    colour (a translucent text is blended onto it first)."""
    canvas = fig.canvas
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in texts]
    for t in texts:
        t.set_visible(False)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3]
    for t in texts:
        t.set_visible(True)
    height, width = pixels.shape[:2]
    out = []
    for t, box in zip(texts, boxes, strict=True):
        x0, x1 = max(0, int(box.x0)), min(width, int(np.ceil(box.x1)))
        y0, y1 = max(0, int(height - box.y1)), min(height, int(np.ceil(height - box.y0)))
        if x1 <= x0 or y1 <= y0:
            continue  # outside the canvas: not drawn
        colours, counts = np.unique(pixels[y0:y1, x0:x1].reshape(-1, 3), axis=0,
                                    return_counts=True)
        back = colours[counts.argmax()] / 255
        r, g, b, a = to_rgba(t.get_color(), t.get_alpha())
        front = a * np.array([r, g, b]) + (1 - a) * back
        out.append((t.get_text(), contrast(front, back)))
    return out


_HYPHEN_MINUS = re.compile(r"(?<![\w-])-(?=\d)")


def minus(text: str) -> str:
    """``text`` with the minus sign, not a hyphen, before its negative numbers.

    >>> minus("below -827 in a 1-whist game")
    'below −827 in a 1-whist game'
    """
    return _HYPHEN_MINUS.sub("\N{MINUS SIGN}", text)


def heading(fig: Figure, title: str, subtitle: str = "") -> float:
    """The house style's heading at the figure's top left: ``title`` (the finding, bold)
    with ``subtitle`` (what the chart draws) directly under it, wrapped to the figure's
    width and pinned in inches from its top, so the figure may be resized after; returns
    the inches it takes."""
    width = fig.get_size_inches()[0]
    text = wrap(minus(title), int(width * 9.5))  # 12 points, bold
    lines = text.count("\n") + 1

    def pinned(inches: float):
        return fig.transFigure + ScaledTranslation(MARGIN, -inches, fig.dpi_scale_trans)

    fig.suptitle(text, x=0, y=1, transform=pinned(0.1), ha="left", va="top", fontsize=12,
                 fontweight="bold")
    height = 0.1 + 0.2 * lines + 0.06  # a line of 12 points is 0.2 inches high
    if subtitle:
        under = wrap(minus(subtitle), int(width * 12.5))  # 9 points
        fig.text(0, 1, under, transform=pinned(height), fontsize=9, color="#333333",
                 ha="left", va="top")
        height += 0.17 * (under.count("\n") + 1)
    return height + 0.12


def fit(fig: Figure, top: float, **options) -> None:
    """Lay the axes out (``tight_layout`` with ``options``) under a :func:`heading`
    ``top`` inches high, which a tight saved box still holds."""
    fig._suptitle.set_in_layout(False)  # type: ignore[attr-defined]
    fig.tight_layout(rect=(0, 0, 1, 1 - top / fig.get_size_inches()[1]), **options)
    fig._suptitle.set_in_layout(True)  # type: ignore[attr-defined]


def _heading(df: pl.DataFrame, finding: Mapping | None, title: str, x: str, y: str,
             group: str | None) -> tuple[str, str]:
    """The chart's title and subtitle: its finding over ``title``, or ``title`` alone."""
    stated = findings.state(df, finding, x=x, y=y, group=group) if finding else ""
    return (stated, title) if stated else (title, "")


def _legend(ax, entries: int, column: bool = False) -> None:
    """The legend beside the axes, where it hides no data and no label; under a column
    chart, in two columns (hung by :func:`_finish`)."""
    if column:  # out of the layout: it hangs under the figure
        ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(0, 0),
                  ncols=2 if entries > 3 else entries).set_in_layout(False)
    else:
        ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=1)


def wrap(text: str, chars: int) -> str:
    """``text`` in lines of at most ``chars`` characters, never broken inside brackets
    (``Leningrad (4 players)`` keeps ``(4 players)`` on one line)."""
    whole = re.sub(r"\([^)]*\)", lambda m: m.group().replace(" ", "\xa0"), text)
    lines = textwrap.wrap(whole, max(chars, 8), break_on_hyphens=False)
    return "\n".join(lines).replace("\xa0", " ") if text else text


def _finish(fig, ax, title: str, xlabel: str, ylabel: str, path: Path, percent: bool,
            horizontal: bool = False, subtitle: str = "", caption: str = "") -> list[Path]:
    """The :func:`heading` (the finding over ``subtitle``), axis labels, then under a
    column chart its legend and ``caption``; saved with the caption as alt text after
    the title."""
    if percent:
        axis = ax.xaxis if horizontal else ax.yaxis
        axis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    width, height = fig.get_size_inches()
    ax.set_xlabel(wrap(xlabel, int(width * _CHARS_AN_INCH * 0.8)))
    ax.set_ylabel(wrap(ylabel, int(height * _CHARS_AN_INCH * 0.8)))
    fit(fig, heading(fig, title, subtitle))
    return footed(fig, [ax.get_legend()] if width <= COLUMN and ax.get_legend() else [],
                 caption, path)


def footed(fig, legends: list, caption: str, path: Path) -> list[Path]:
    """``legends`` and ``caption`` hung under the chart, then saved with the caption as
    alt text after the title."""
    width = fig.get_size_inches()[0]
    foot = list(legends)
    if caption:
        foot.append(fig.text(MARGIN / width, 0,
                             wrap(caption, int(width * _CHARS_AN_INCH * 0.95)),
                             fontsize=FOOT_POINTS if width <= COLUMN else 8, color="#333333",
                             ha="left", va="top"))
    if foot:
        below(fig, foot)
    alt = f"{title_of(fig)}. {caption}" if caption else None
    return save(fig, path, alt=alt)


def line_chart(df: pl.DataFrame, path: Path, *, x: str, y: str, group: str | None = None,
               title: str, xlabel: str, ylabel: str,
               colours: Mapping | Sequence = SEAT_COLOURS, group_label: str = "",
               zero_line: bool = False, percent: bool = False, marker_at: float | None = None,
               bands: bool = True, finding: Mapping | None = None, subtitle: str = "",
               caption: str = "", column: bool = False) -> list[Path]:
    """Lines of ``y`` against ``x``, one per ``group``, with shaded ``y_lo``–``y_hi``
    (``bands``); ``percent`` writes a share axis as percentages; ``marker_at`` draws a
    dotted vertical line at that ``x``; ``finding`` (:mod:`~prefstats.reports.findings`)
    makes the title, read from the data, with ``title`` under it (or ``subtitle``
    under ``title``); ``caption`` is printed under the chart; ``column`` draws it
    :data:`COLUMN` wide, the legend under it. No rows with enough samples: no chart (an
    empty list)."""
    df = df.filter("enough").sort(x)
    if not len(df):
        return []
    groups = df[group].unique(maintain_order=True).sort().to_list() if group else [None]
    if group and df[group].dtype == pl.String:  # names keep the order they come in
        groups = df[group].unique(maintain_order=True).to_list()
    palette = colours_for(groups, colours)
    with mpl.rc_context(STYLE):
        fig = figure((COLUMN, SIZE[1]) if column else SIZE)
        ax = fig.subplots()
        for g in groups:
            part = df.filter(pl.col(group) == g) if group else df
            c = palette[g]
            label = f"{group_label}{g}" if group else None
            # a dot a point while they stay apart; dozens would blur the line
            ax.plot(part[x], part[y], marker="o" if len(part) <= 25 else None, ms=3, color=c,
                    label=label)
            if bands:
                ax.fill_between(part[x], part[f"{y}_lo"], part[f"{y}_hi"], color=c,
                                alpha=0.15, linewidth=0)
        if zero_line:
            ax.axhline(0, color="black", linewidth=0.8)
        if marker_at is not None:
            ax.axvline(marker_at, color="#555555", linewidth=0.8, linestyle=":")
        if df[x].dtype.is_integer():
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if group:
            _legend(ax, len(groups), column)
        heading, under = _heading(df, finding, title, x, y, group)
        return _finish(fig, ax, heading, xlabel, ylabel, path, percent,
                       subtitle=subtitle or under, caption=caption)


def _label_lines(text: str, chars: int) -> list[str]:
    """A category label's lines: whole when it fits, else broken after its commas first
    (the comma dropped: ``"Leningrad, 4 players"`` is ``Leningrad`` over ``4 players``),
    then at spaces, never inside a word."""
    if len(text) <= chars:
        return [text]
    return [line for clause in text.split(", ")
            for line in textwrap.wrap(clause, max(chars, 1), break_long_words=False,
                                      break_on_hyphens=False) or [clause]]


def _category_labels(cats: Sequence, width: float) -> tuple[list[str], bool]:
    """The category labels wrapped to the room a category has under the axes, and
    whether they need horizontal bars instead (more than three lines a label, or a word
    wider than the room)."""
    room = int(width * 0.8 * _CHARS_AN_INCH / max(len(cats), 1))
    wrapped = [_label_lines(str(c), room) for c in cats]
    if max(len(w) for w in wrapped) > 3 or max(len(line) for w in wrapped for line in w) > room:
        return ["\n".join(_label_lines(str(c), 28)) for c in cats], True
    return ["\n".join(w) for w in wrapped], False


def bar_chart(df: pl.DataFrame, path: Path, *, x: str, y: str, group: str | None = None,
              title: str, xlabel: str, ylabel: str, colours: Mapping | Sequence = SEAT_COLOURS,
              group_label: str = "", zero_line: bool = True, percent: bool = False,
              errors: bool = True, horizontal: bool | None = None,
              finding: Mapping | None = None, subtitle: str = "", caption: str = "",
              column: bool = False, dots: bool = False) -> list[Path]:
    """Grouped bars of ``y`` per ``x`` category and ``group``, with 95% error bars from
    ``y_lo``/``y_hi`` unless ``errors`` is false; no chart without rows, and ``finding``,
    ``subtitle``, ``caption`` and ``column``, as for :func:`line_chart`. Categories whose
    labels do not fit under their bars (or ``horizontal``) are drawn as horizontal bars,
    the first at the top; ``xlabel`` then still names the categories and ``ylabel`` the
    values. ``dots`` draws each estimate as a dot on its interval instead of a bar (closer
    together: overlapping groups stay apart)."""
    df = df.filter("enough")
    if not len(df):
        return []
    cats = df[x].unique(maintain_order=True).to_list()
    groups = df[group].unique(maintain_order=True).to_list() if group else [None]
    # without groups each category has its own colour (e.g. one per seat)
    palette = colours_for(groups if group else cats, colours)
    width = 0.8 / len(groups)
    wide = COLUMN if column else SIZE[0]
    labels, turn = _category_labels(cats, wide)
    horizontal = turn if horizontal is None else horizontal
    bar = 0.11 if dots else 0.2 if column else 0.3  # inches a bar
    size = ((wide, max(SIZE[1], 1.2 + bar * len(cats) * len(groups))) if horizontal
            else (wide, SIZE[1]))
    with mpl.rc_context(STYLE):
        fig = figure(size)
        ax = fig.subplots()
        ax.grid(axis="y" if horizontal else "x", visible=False)
        for k, g in enumerate(groups):
            part = df.filter(pl.col(group) == g) if group else df
            pos = [cats.index(v) + (k - (len(groups) - 1) / 2) * width for v in part[x]]
            # an interval may end a hair inside its estimate (clamped or rounded bounds);
            # one without a bound draws no bar (its table shows it)
            err = (np.nan_to_num(np.clip([(part[y] - part[f"{y}_lo"]).to_numpy(),
                                          (part[f"{y}_hi"] - part[y]).to_numpy()], 0, None),
                                 nan=np.nan, posinf=np.nan) if errors else None)
            colour = palette[g] if group else [palette[v] for v in part[x]]
            label = f"{group_label}{g}" if group else None
            if dots:
                xy = (part[y], pos) if horizontal else (pos, part[y])
                ax.errorbar(*xy, **{"xerr" if horizontal else "yerr": err}, fmt="o", ms=4,
                            color=colour, ecolor=colour, elinewidth=1.5, label=label)
                continue
            draw = ax.barh if horizontal else ax.bar
            draw(pos, part[y], width * 0.95, **{"xerr" if horizontal else "yerr": err},
                 capsize=3, color=colour, label=label, error_kw={"elinewidth": 1})
        if horizontal:
            ax.set_yticks(range(len(cats)), labels)
            ax.invert_yaxis()
            if zero_line:
                ax.axvline(0, color="black", linewidth=0.8)
        else:
            ax.set_xticks(range(len(cats)), labels)
            if zero_line:
                ax.axhline(0, color="black", linewidth=0.8)
        if group:
            _legend(ax, len(groups), column)
        if horizontal:
            xlabel, ylabel = ylabel, xlabel
        heading, under = _heading(df, finding, title, x, y, group)
        return _finish(fig, ax, heading, xlabel, ylabel, path, percent, horizontal,
                       subtitle or under, caption)


#: Heatmap cells without enough pairs: drawn quietly in this grey, their n in :data:`QUIET`.
GREY = "#f0f0f0"
QUIET = "#595959"


def heatmap(ax, values: np.ndarray, texts: Sequence[Sequence[str]], grey: np.ndarray, *,
            rows: Sequence[str], cols: Sequence[str], limit: float, xlabel: str,
            ylabel: str, title: str | None = None, fontsize: float = 7.5):
    """A grid of cells on ``ax``, row 0 at the top: each coloured by its value in
    ``values`` (:data:`DIVERGING`, centred on zero, saturated at ``±limit``), labelled
    with its text in black or white, whichever contrasts more with the cell; ``grey``
    cells (or nan values) drawn quietly. Returns the image, for a colour bar."""
    data = np.ma.masked_where(grey | np.isnan(values), values)
    cmap = mpl.colormaps[DIVERGING].with_extremes(bad=GREY)
    image = ax.imshow(data, cmap=cmap, vmin=-limit, vmax=limit, aspect="auto")
    for (r, c), text in np.ndenumerate(np.array(texts, dtype=object)):
        quiet = bool(grey[r, c] or np.isnan(values[r, c]))
        colour = QUIET if quiet else ink(cmap(image.norm(values[r, c])))
        ax.text(c, r, text, ha="center", va="center", fontsize=fontsize, color=colour)
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.grid(False)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=9, loc="left")
    return image
