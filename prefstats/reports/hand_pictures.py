"""The hand charts as pictures in the house style, drawn from their tables alone (a
committed ``<chart>.csv`` redraws its chart without a deal played).

Each picture is a grid of cells laid out for its content (the whist chart's four levels
two by two, the misère chart's patterns as one wide column), a title that states what
the chart finds (at most :data:`TITLE_CHARS` characters) over a subtitle with the
details, seats named as players name them (:func:`seat_names`), a caption that defines
every feature and says what share of real deals the coloured cells cover
(:func:`coverage`), and the source line.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import matplotlib as mpl
import numpy as np
import polars as pl
from matplotlib.figure import Figure

from prefstats.game.cards import suit_lengths
from prefstats.game.deal import deal
from prefstats.reports import charts
from prefstats.reports.charts import COLUMN, STYLE, TITLE_CHARS, figure, heatmap, save, source_lines
from prefstats.reports.classes import high_cards
from prefstats.reports.counterfactual import by_points, by_tricks, seats_of
from prefstats.reports.hand_charts import _EDGES, BID_LEVELS, PATTERNS, Chart, hole_pattern

#: Each chart: its decision, the features of its cells and the options against a pass.
CHART_KINDS = {
    "first_call_points": ("first_call", ["points", "seat"], [*BID_LEVELS, "misere"]),
    "first_call_expected_tricks": ("first_call", ["expected_tricks", "seat"],
                                   [*BID_LEVELS, "misere"]),
    "whist": ("whist", ["level", "aces_kings", "trumps"], ["whist", "half"]),
    "misere": ("misere", ["holes", "hole"], ["misere"]),
    "raspasy": ("raspasy", ["aces_kings", "longest"], ["6", "misere"]),
}
#: Seats as players name them, by how the table is seated, in the order of the playing
#: seats (Gusarik's dummy, on the dealer's left, is the first hand).
TABLE_SEATS = {"three": ("first hand", "second hand", "dealer"),
              "dealer_out": ("first hand", "second hand", "third hand"),
              "dummy": ("second hand", "dealer")}
#: Each option as a cell writes it, and in the caption's key.
SHORT = {"pass": "P", "misere": "M", "whist": "W", "half": "½", "6": "6", "7": "7", "8": "8"}
#: The features as a caption defines them.
DEFINED = {
    "points": "Hand points: the best suit's length + its A, K, Q + aces outside it.",
    "expected_tricks": "Expected tricks: the evaluator's tricks for the dealt hand in its best "
                       "strain, before the talon.",
    "aces_kings": "A+K: aces and kings held.",
    "trumps": "Trumps: the defender's cards in the declarer's trump (NT: no trumps).",
    "longest": "Longest: the hand's longest suit.",
    "holes": "Hole: a suit the misère declarer cannot always play under; lone 8 is a "
             "singleton 8, long is 3 or more cards.",
}
_CELL_H = 0.34
#: The text of the cells, the caption and the source line: with the chart
#: :data:`~prefstats.reports.charts.COLUMN` wide, it prints at 6 points or more in an
#: 8.5 cm column and reads at 390 px.
_TEXT_POINTS = 9.0


def seat_names(variant) -> dict[int, str]:
    """Each playing seat as players name it (first hand, second hand, dealer …)."""
    return dict(zip(seats_of(variant), TABLE_SEATS[variant.table], strict=True))


def chart_from_table(name: str, table: pl.DataFrame, min_n: int, dealt: int = 0) -> Chart:
    """The :class:`~prefstats.reports.hand_charts.Chart` a committed table describes (no
    pairs: it draws and states rules, it cannot be robust-tested again)."""
    decision, features, options = CHART_KINDS[name]
    table = table.with_columns(pl.col(c).fill_null("") for c in ("ties", "breaks",
                                                                 "unmeasured", "hole")
                               if c in table.columns)
    present = set(table["option"].to_list())
    return Chart(decision, name, features, [o for o in options if o in present], table,
                 dealt, min_n, {}, pl.DataFrame(), str(table["model"][0]))


def _pattern(holes: int, hole: str) -> str:
    return {0: "no hole", 2: "two holes", 3: "three or more"}.get(holes, hole)


def _label(feature: str, value) -> str:
    if feature == "trumps" and value == -1:
        return "NT"
    low, high = _EDGES.get(feature, (None, None))
    if value == high:
        return f"{value}+"
    if value == low and feature in ("points", "expected_tricks", "longest"):
        return f"≤{value}"
    return str(value)


@lru_cache(maxsize=8)
def _dealt(seed: int = 1, n: int = 60_000):
    return deal(n, seed=seed)


def class_shares(name: str, seats: Sequence[int]) -> dict[tuple, float]:
    """Each cell's share of real deals, from deals dealt at random: per seat for the
    first call, pooled over the seats for misère, at the raspasy's seat; empty for
    whist (its cells depend on the auction: :func:`coverage` weighs them by n)."""
    d = _dealt()
    keys: list[tuple] = []
    if name.startswith("first_call"):
        feature = CHART_KINDS[name][1][0]
        low, high = _EDGES[feature]
        for seat in seats:
            hands = d.hands[:, seat]
            raw = by_points(hands) if feature == "points" else by_tricks(hands, seat)
            keys += [(int(v), seat) for v in np.clip(raw, low, high)]
    elif name == "misere":
        for seat in seats:
            keys += [PATTERNS[p] for p in hole_pattern(d.hands[:, seat])]
    elif name == "raspasy":
        hands = d.hands[:, seats[-1]]
        ak = np.clip(high_cards(hands), *_EDGES["aces_kings"])
        longest = np.clip(suit_lengths(hands).max(axis=1), *_EDGES["longest"])
        keys = [(int(a), int(b)) for a, b in zip(ak, longest, strict=True)]
    counts = Counter(keys)
    return {k: v / len(keys) for k, v in counts.items()}


def coverage(chart: Chart, cells: list[dict], shares: dict[tuple, float]) -> float:
    """The share of real deals (of this decision) that fall in a coloured cell: by the
    dealt hands' ``shares`` of each cell, or for whist by each cell's n."""
    key = [f for f in chart.features]
    weight = {tuple(c["features"][f] for f in key): (
        shares.get(tuple(c["features"][f] for f in key), 0.0) if shares else
        max(r["n"] for r in c["options"].values())) for c in cells}
    total = sum(weight.values())
    shown = sum(w for c, w in zip(cells, weight.values(), strict=True)
                if any(r["enough"] for r in c["options"].values()))
    return shown / total if total else 0.0


def _cells(chart: Chart) -> list[dict]:
    out: dict[tuple, dict] = {}
    for row in chart.table.iter_rows(named=True):
        key = tuple(row[f] for f in chart.features)
        cell = out.setdefault(key, {"features": {f: row[f] for f in chart.features},
                                    "advice": row["advice"], "decided": row["decided"],
                                    "robust": row.get("robust"), "options": {},
                                    "catch_rate": row.get("catch_rate")})
        cell["options"][row["option"]] = row
    return list(out.values())


def _shorten(text: str, limit: int = TITLE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip(" ,;") + "…"


def _first_call_title(chart: Chart, cells: list[dict], seats: dict[int, str]) -> str:
    feature = chart.features[0]
    unit = "hand points" if feature == "points" else "expected tricks"
    starts = {}
    for seat in seats:
        mine = sorted(((c["features"][feature], c) for c in cells
                       if c["features"]["seat"] == seat), key=lambda x: x[0], reverse=True)
        start = None
        for value, c in mine:
            if not c["decided"]:
                continue
            if c["advice"] == "pass":
                break
            start = value
        starts[seat] = start
    known = {s: v for s, v in starts.items() if v is not None}
    if not known:
        return f"No {unit} count makes bidding a sure gain"
    if len(set(known.values())) == 1:
        return f"Bid from {_label(feature, next(iter(known.values())))} {unit} in every seat"
    parts = [f"{_label(feature, v)} as {seats[s]}" if seats[s] == "dealer" else
             f"{_label(feature, v)} in {seats[s]}" for s, v in known.items()]
    return _shorten(f"Bid from {', '.join(parts)} ({unit})")


def _starts(cells: list[dict], col: str, **fixed) -> dict:
    """Per value of ``col``: the fewest A+K from which every decided cell above advises
    something other than a pass (cells matching ``fixed`` only)."""
    starts = {}
    for value in sorted({c["features"][col] for c in cells}):
        column = sorted((c for c in cells if c["features"][col] == value and all(
            c["features"][k] == v for k, v in fixed.items())),
            key=lambda c: c["features"]["aces_kings"], reverse=True)
        start = None
        for c in column:
            if not c["decided"]:
                continue
            if c["advice"] == "pass":
                break
            start = c["features"]["aces_kings"]
        if start is not None:
            starts[value] = start
    return starts


def _whist_title(cells: list[dict]) -> str:
    starts = _starts(cells, "trumps", level=6)
    if not starts:
        return "No whist of a six is a sure gain"
    few, many = min(starts, key=lambda t: (t == -1, t)), max(starts)
    if starts[few] == starts[many] or few == many:
        never = sorted({c["features"]["trumps"] for c in cells if c["decided"]
                        and c["features"]["level"] == 6} - set(starts))
        held = " or ".join("no trumps" if t == -1 else f"{_label('trumps', t)} trumps"
                           for t in never)
        return _shorten(f"Whist a six from {_label('aces_kings', starts[many])} A+K"
                        + (f", not with {held}" if never else ""))
    held = {t: "no trumps" if t == -1 else f"{_label('trumps', t)} trump" + "s" * (t != 1)
            for t in (few, many)}
    return _shorten(f"Whist a six: {_label('aces_kings', starts[many])} A+K with "
                    f"{held[many]}, {_label('aces_kings', starts[few])} A+K with {held[few]}")


def _misere_title(cells: list[dict]) -> str:
    calls = [_pattern(c["features"]["holes"], c["features"]["hole"]) for c in cells
             if c["decided"] and c["advice"] == "misere"]
    if not calls:
        return "Misère is never a sure gain over passing"
    decided = [(_pattern(c["features"]["holes"], c["features"]["hole"]), c["advice"])
               for c in cells if c["decided"]]
    k = len(calls)
    if [p for p, _ in decided[:k]] == calls and k < len(decided) and all(
            a == "pass" for _, a in decided[k:]):
        text = f"Misère pays from {calls[0]} to {calls[-1]}; pass with {decided[k][0]} or worse"
        if len(text) <= TITLE_CHARS:
            return text
    for k in range(len(calls), 0, -1):
        more = f" and {len(calls) - k} more" if k < len(calls) else ""
        text = f"Misère pays with {', '.join(calls[:k])}{more}"
        if len(text) <= TITLE_CHARS:
            return text
    return _shorten(f"Misère pays with {len(calls)} hole patterns")


def _raspasy_title(cells: list[dict]) -> str:
    starts = _starts(cells, "longest")
    if not starts:
        return "Passing into the raspasy is never surely worse than a bid"
    short, long = min(starts), max(starts)
    if starts[short] == starts[long]:
        return (f"Bid rather than pass into a raspasy from {_label('aces_kings', starts[short])}"
                " A+K")
    return _shorten(f"Bid rather than pass into a raspasy: {_label('aces_kings', starts[short])}"
                    f" A+K with longest {_label('longest', short)}, "
                    f"{_label('aces_kings', starts[long])} with {_label('longest', long)}")


def title(chart: Chart, cells: list[dict], seats: dict[int, str]) -> str:
    """What the chart finds, in at most :data:`TITLE_CHARS` characters."""
    if chart.decision == "first_call":
        return _first_call_title(chart, cells, seats)
    if chart.decision == "whist":
        return _whist_title(cells)
    if chart.decision == "misere":
        return _misere_title(cells)
    return _raspasy_title(cells)


_SUBTITLES = {
    "first_call": "First call: pass, bid up to 6, 7 or 8, or misère, by {what} and seat",
    "whist": "Whist a trick contract or pass, by level, the defender's A+K and trumps",
    "misere": "Misère or pass at the first call, by the hand's holes",
    "raspasy": "Last to speak after everyone passed: pass into the raspasy, bid 6 or misère",
}


def _caption(chart: Chart, share: float, min_n: int) -> str:
    features = [f for f in chart.features if f in DEFINED]
    if chart.decision == "misere":
        features = ["holes"]
    if chart.decision == "whist":
        features = ["aces_kings", "trumps"]
    levels = [o for o in chart.options if o.isdigit()]
    keys = ", ".join([*(f"{SHORT[o]} {_WORDS[o]}" for o in ["pass", *chart.options]
                        if not o.isdigit()),
                      *([f"{'/'.join(levels)} bid up to that level"] if levels else [])])
    quiet = ("whist decisions played" if chart.decision == "whist" else
             "real deals' hands" if chart.decision != "raspasy" else "dealt hands")
    return " ".join([
        *(DEFINED[f] for f in features),
        f"Cell: the advice ({keys}; in brackets: not decided at 3 SE; *: another table "
        "of players prefers another option) and the best option's gain over passing, "
        "whists a deal.",
        f"Grey: fewer than {min_n:,} pairs (n shown). Coloured cells cover "
        f"{100 * share:.0f}% of {quiet}."])


_WORDS = {"pass": "pass", "misere": "misère", "whist": "whist", "half": "half-whist"}


def _text(c: dict, gain: float) -> str:
    short = SHORT[c["advice"]] if c["decided"] else f"({SHORT[c['advice']]})"
    if c["robust"] is False:
        short += "*"
    signed = f"{gain:+.0f}".replace("-", "−")
    if c["catch_rate"] is not None:
        return f"{short} {signed}, caught {100 * c['catch_rate']:.0f}%"
    return f"{short}\n{signed}"


def draw(chart: Chart, seats: dict[int, str], *, source: str, variant_name: str) -> Figure:
    """The picture of ``chart`` at a table of ``seats`` (:func:`seat_names`; see the module
    text)."""
    cells = _cells(chart)
    for c in cells:
        if chart.decision == "misere":
            c["features"]["pattern"] = _pattern(c["features"]["holes"], c["features"]["hole"])
    if chart.decision == "first_call":
        rows_f, cols_f, panel_f = chart.features[0], "seat", None
    elif chart.decision == "whist":
        rows_f, cols_f, panel_f = "aces_kings", "trumps", "level"
    elif chart.decision == "misere":
        rows_f, cols_f, panel_f = "pattern", None, None
    else:
        rows_f, cols_f, panel_f = "aces_kings", "longest", None
    panels = sorted({c["features"][panel_f] for c in cells}) if panel_f else [None]
    rows = ([c["features"]["pattern"] for c in cells] if rows_f == "pattern" else
            sorted({c["features"][rows_f] for c in cells}, reverse=True))
    cols = (sorted({c["features"][cols_f] for c in cells}, key=lambda v: (v != -1, v))
            if cols_f else [None])
    best = [max((r["gain"] for r in c["options"].values() if r["enough"]), default=np.nan)
            for c in cells]
    finite = [abs(b) for b in best if not np.isnan(b)]
    limit = max(5.0, min(60.0, max(finite))) if finite else 5.0
    share = coverage(chart, cells, class_shares(chart.name, list(seats)))
    heading = title(chart, cells, seats)
    what = "hand points" if "points" in chart.features else "expected tricks"
    subtitle = f"{variant_name} · " + _SUBTITLES[chart.decision].format(what=what)
    grid_rows = len(panels)  # the whist chart's levels one under the other
    left, bar = 1.35 if rows_f == "pattern" else 0.7, 1.05
    width = COLUMN
    cell_w = (width - left - bar) / len(cols)
    caption = textwrap.fill(_caption(chart, share, chart.min_n), int(width * 12.5))
    source_text = source_lines(source, width * 6.5 / _TEXT_POINTS)
    panel_h = len(rows) * _CELL_H + (0.3 if panel_f else 0)
    foot_h = ((0.6 if _AXES[cols_f] else 0.4) + 0.17 * (caption.count("\n") + 1)
              + 0.17 * (source_text.count("\n") + 1))
    with mpl.rc_context(STYLE):
        fig = figure((width, 1.0))
        head_h = charts.heading(fig, heading, subtitle)
        height = head_h + grid_rows * panel_h + (grid_rows - 1) * 0.45 + foot_h
        fig.set_size_inches(width, height)
        image = None
        for r, panel in enumerate(panels):
            x = left
            y = height - head_h - (r + 1) * panel_h - r * 0.45
            ax = fig.add_axes((x / width, y / height, len(cols) * cell_w / width,
                               len(rows) * _CELL_H / height))
            values = np.full((len(rows), len(cols)), np.nan)
            grey = np.ones(values.shape, dtype=bool)
            texts = [["" for _ in cols] for _ in rows]
            for c, gain in zip(cells, best, strict=True):
                f = c["features"]
                if panel_f and f[panel_f] != panel:
                    continue
                i, j = rows.index(f[rows_f]), cols.index(f[cols_f]) if cols_f else 0
                if np.isnan(gain):
                    texts[i][j] = f"n={max(o['n'] for o in c['options'].values()):,}"
                    continue
                grey[i, j], values[i, j] = False, gain
                texts[i][j] = _text(c, gain)
            row_labels = rows if rows_f == "pattern" else [_label(rows_f, v) for v in rows]
            col_labels = ([seats[v] for v in cols] if cols_f == "seat" else
                          [_label(cols_f, v) for v in cols] if cols_f else [""])
            image = heatmap(
                ax, values, texts, grey, rows=row_labels, cols=col_labels, limit=limit,
                xlabel=_AXES[cols_f] if r == grid_rows - 1 else "", ylabel=_AXES[rows_f],
                title=f"contract level {_label('level', panel)}" if panel_f else None,
                fontsize=_TEXT_POINTS)
        bar_ax = fig.add_axes(((width - bar + 0.25) / width,
                               (height - head_h - grid_rows * panel_h) / height,
                               0.14 / width, (grid_rows * panel_h) / height))
        fig.colorbar(image, cax=bar_ax).set_label("best option − pass\n(whists a deal)",
                                                  fontsize=_TEXT_POINTS)
        fig.text(charts.MARGIN / width, (0.12 + 0.17 * (source_text.count("\n") + 1)) / height,
                 caption, fontsize=_TEXT_POINTS, color="#333333", ha="left", va="bottom")
        fig.text(charts.MARGIN / width, 0.06 / height, source_text, fontsize=_TEXT_POINTS,
                 color="#555555", ha="left", va="bottom", gid="source")
    fig.prefstats_alt = alt_text(chart, heading, subtitle, len(rows), len(cols),  # type: ignore[attr-defined]
                                 len(panels), share)
    return fig


_AXES = {"points": "hand points", "expected_tricks": "expected tricks", "seat": "",
         "aces_kings": "A+K held", "trumps": "trumps held", "longest": "longest suit",
         "pattern": "", None: ""}


def alt_text(chart: Chart, heading: str, subtitle: str, rows: int, cols: int, panels: int,
             share: float) -> str:
    """The picture in words, for a reader who cannot see it."""
    grid = f"{rows} rows by {cols} columns" if cols > 1 else f"{rows} rows"
    many = f", in {panels} panels by contract level" if panels > 1 else ""
    return (f"{heading}. Heatmap, {grid}{many}: {subtitle}. Each cell names the advised "
            "call and the best option's gain over passing in whists a deal; blue cells "
            f"gain, red cells lose, grey cells have too few pairs. Coloured cells cover "
            f"{100 * share:.0f}% of the deals of this decision.")


def picture(chart: Chart, seats: dict[int, str], path: Path, source: str,
            variant_name: str) -> tuple[list[Path], str]:
    """:func:`draw` ``chart`` and save it as PNG, SVG and PDF at ``path``: the files and
    the picture's alt text."""
    fig = draw(chart, seats, source=source, variant_name=variant_name)
    alt = fig.prefstats_alt  # type: ignore[attr-defined]
    return save(fig, path, alt=alt), alt
