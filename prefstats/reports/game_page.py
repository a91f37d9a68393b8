"""The page of one analysed game (``prefstats analyze GAME``): each player's result split
into luck, his own decisions and the others' decisions, his rating and lead accuracy,
the score after every deal, the loss by decision type, the worst mistakes (knowable),
those seen only in hindsight and the opening leads; every table beside it as CSV and Parquet
(:func:`prefstats.analysis.game_stats.game_tables`)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from prefstats.reports.charts import bar_chart, line_chart
from prefstats.reports.render import Block, Report, Section, write_report

#: The parts of a result: column and the chart's label.
PARTS = (("luck", "luck"), ("own", "own decisions"), ("others", "the others' decisions"))


#: The columns every table of mistakes shows first.
_MISTAKE_COLUMNS = [("deal", "deal", "int"), ("player", "name", "text"),
                    ("decision", "type", "text"), ("in the record", "field", "text"),
                    ("hand", "hand", "text"), ("on the table", "table", "text"),
                    ("made", "done", "text"), ("better", "best", "text"),
                    ("gain", "gain", "num:1")]


def _shown(table: pl.DataFrame) -> pl.DataFrame:
    return table.with_columns(pl.lit(True).alias("enough"))


def _luck_chart(df: pl.DataFrame, path: Path) -> list[Path]:
    return bar_chart(df, path, x="name", y="whists", group="part", errors=False,
                     title="The settled result: what the cards brought, what his own "
                           "decisions and the others' gave",
                     xlabel="player", ylabel="whists",
                     colours=["#4c72b0", "#dd8452", "#55a868"])


def _score_chart(df: pl.DataFrame, path: Path) -> list[Path]:
    return line_chart(df, path, x="deal", y="score", group="name", bands=False,
                      zero_line=True, title="The settled score after each deal",
                      xlabel="deal", ylabel="whists")


def _loss_chart(df: pl.DataFrame, path: Path) -> list[Path]:
    return bar_chart(df, path, x="type", y="mean_loss", group="name", errors=False,
                     title="Mean loss per decision, by type", xlabel="decision",
                     ylabel="whists per decision")


def game_report(title: str, tables: dict[str, pl.DataFrame], *, meta: list[str],
                bands: str, source: str | None = None) -> Report:
    """The :class:`Report` of one analysed game from its ``tables``."""
    players = tables["players"]
    parts = pl.concat([players.select("name", pl.lit(label).alias("part"),
                                      pl.col(part).alias("whists"))
                       for part, label in PARTS]).with_columns(pl.lit(True).alias("enough"))
    blocks = [
        Block("players", "Each player", "The settled result is luck (what the built-in "
              "heuristic, at all three seats with the same cards and sheet, would have "
              "scored), plus his own decisions (what he scores making them against the "
              "heuristic, less the luck), plus the others' decisions (the rest: what his "
              "opponents' and partner's decisions gave him). Rating: whists lost per 100 "
              "decisions with a real choice, each "
              f"capped; lower is better ({bands}). Leads: the opening leads that were "
              "double-dummy best, and those the search player (pimc) would have made.",
              _shown(players),
              [("player", "name", "text"), ("result", "result", "num:1"),
               ("luck", "luck", "num:1"), ("own decisions", "own", "num:1"),
               ("the others' decisions", "others", "num:1"), ("rating", "rating", "num:0"),
               ("band", "band", "text"),
               ("real choices", "choices", "int"), ("leads", "leads", "int"),
               ("double-dummy best", "lead_dd", "pct"),
               ("as the search player", "lead_search", "pct"),
               ("whists lost", "loss", "num:1")],
              chart=_luck_chart, chart_table=parts),
        Block("timeline", "The score", "The sheet's settlement after each deal, per "
              "player, with the deal's luck, own and others' decisions.",
              _shown(tables["timeline"]),
              [("deal", "deal", "int"), ("player", "name", "text"),
               ("score", "score", "num:1"), ("deal's result", "result", "num:1"),
               ("luck", "luck", "num:1"), ("own", "own", "num:1"),
               ("others'", "others", "num:1")],
              chart=_score_chart),
        Block("losses", "Loss by decision type", "Whists lost per player and type of "
              "decision (uncapped; a misère card can cost tens of whists).",
              _shown(tables["losses"]),
              [("player", "name", "text"), ("decision", "type", "text"),
               ("decisions", "decisions", "int"), ("whists lost", "loss", "num:1"),
               ("a decision", "mean_loss", "num:2")],
              chart=_loss_chart),
        Block("mistakes", "The worst mistakes", "The largest charged losses of the game "
              "and each player's largest: the position (the hand held, the cards on the "
              "table), the choice made, the better one and what it would have gained. A "
              "card or discard is charged only when the mistake was knowable: it lost on "
              "average over the layouts the player could not rule out (at least 3 "
              "standard errors), not only in the real one, double dummy.",
              _shown(tables["mistakes"]),
              [*_MISTAKE_COLUMNS, ("± se", "gain_se", "num:1"),
               ("double dummy", "dd_gain", "num:1"), ("layouts", "layouts", "int"),
               ("valued by", "method", "text"), ("mistake", "verdict", "text")]),
        Block("hindsight", "Hindsight mistakes, not charged", "The largest losses only "
              "double dummy sees: with every card in view the choice lost, but over the "
              "layouts the player could not rule out it did not lose on average (by 3 "
              "standard errors), so he could not have known. Shown, not charged.",
              _shown(tables["hindsight"]),
              [*_MISTAKE_COLUMNS, ("layouts", "layouts", "int"),
               ("mistake", "verdict", "text")]),
    ]
    leads = tables["leads"]
    columns = [("deal", "deal", "int"), ("player", "name", "text"), ("led", "done", "text"),
               ("double-dummy best", "best", "text")]
    if "search" in leads.columns:
        columns.append(("search player", "search", "text"))
    blocks.append(Block("leads", "Opening leads", "Each opening lead of a played game.",
                        _shown(leads), columns))
    return Report(title, meta, [Section("The game", "Each player's figures, then the score "
                                        "deal by deal, the losses, the worst mistakes, "
                                        "those seen only in hindsight and the opening "
                                        "leads.", blocks)],
                  source=source,
                  links=[("the mistakes to practise, one position at a time", "train.html")])


def write_game_page(title: str, tables: dict[str, pl.DataFrame], out: str | Path, *,
                    meta: list[str], bands: str, source: str | None = None) -> Path:
    """``index.html`` and ``report.md`` with their charts in ``out``, and every table as
    CSV (a list column as JSON text) and Parquet."""
    out = Path(out)
    report = game_report(title, tables, meta=meta, bands=bands, source=source)
    write_report(report, out)
    shown = {b.name for section in report.sections for b in section.blocks}
    for name, table in tables.items():
        table.write_parquet(out / f"{name}.parquet")
        if name not in shown:  # the page wrote the others
            table.with_columns(pl.col(c).map_elements(
                lambda a: json.dumps(a.to_list() if hasattr(a, "to_list") else a,
                                     ensure_ascii=False), return_dtype=pl.Utf8)
                for c, t in table.schema.items() if isinstance(t, pl.List)).write_csv(
                out / f"{name}.csv")
    return out
