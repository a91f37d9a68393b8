"""The books report: ``books.json``, an HTML page and an article (``article.md``).

The rows come from :func:`prefstats.analysis.books_sections.book_rows`; this module
only writes them: the records as JSON, a page with one table per section, the one-hole
misère chart (success by outs: the book's reading against the two catchers' models)
and an article for Preferans readers, each section saying what the book says, what the
project finds and why they differ.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import matplotlib as mpl

from prefstats.reports.charts import OKABE_ITO, STYLE, figure

CHART = "misere_outs.png"
VERDICT_COLOURS = {"confirmed": "#1a7f37", "refuted": "#b3261e", "not comparable": "#6b5900"}
#: What each section of the article says before its table: the book's claim and how the
#: project tests it (the figures themselves come from the rows).
INTROS = {
    "Table 4: suit splits": (
        "Lesnoi's Table 4 gives how the cards a declarer lacks in a suit lie between the "
        "two defenders. It is pure combinatorics, so every deal of the twenty unseen "
        "cards ten and ten is enumerated; the project's dealing is checked against it."),
    "Talon outs and the rule of 7": (
        "The chance that one of k useful cards (outs) is in the two-card talon, counted "
        "over the 231 talons, and the rule that seven outs make a clean misère better "
        "than even."),
    "Table 6: one-hole misère by outs": (
        "Lesnoi's Table 6 prices a misère with one hole by its outs. Its success figure is "
        "exactly the talon's chance of an out: the book counts every hole the talon does "
        "not fix as caught. The project deals one-hole hands (an out here is a card that, "
        "in the talon, fixes the hole with one discard; with this reading no dealt hand "
        "has 5 or 7 outs), plays each against every talon with the first call forced to "
        "misère and the declarer's own discard, and lets the catchers catch it."),
    "Table 2: extra trick from a holding": (
        "Lesnoi's Table 2: the chance of one more trick than a holding surely takes. The "
        "project plays the suit alone double dummy over every layout of the missing "
        "cards, the defence choosing who leads each trick (good defence). The default "
        "players are not run here: one suit's play cannot be isolated in a whole deal."),
    "Table 3: bid one level higher": (
        "Lesnoi's Table 3: the chance of the extra trick at which bidding one level higher "
        "pays. The project computes it from the variant's scoring for a hand sure of the "
        "lower contract, one whister taking every other trick."),
    "First-hand sure tricks": (
        "Sure tricks of a long holding on the first hand, by the same one-suit play."),
    "Misère folklore: catch chance by hole and lead": (
        "Folklore's catch chance of one hole, by who leads. The project keeps the hole "
        "after the discard (the rest of the hand clean, drawn at random; the talon's two "
        "cards discarded), deals the other cards and lets the catchers play, under both "
        "models; 'theirs' where folklore names no lead."),
    "Whist obligations": ("The defenders' obligations, read from the rules the project plays."),
    "The preferans hand": (
        "A K Q of every suit with the talon ends the pulka. Counted exactly."),
    "Anecdotes": (
        "Skuratov's sayings, with a number attached from whole pulkas to 20 played by the "
        "default players."),
}


def _num(value, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "probability":
        return f"{value:.4f}"
    if unit in ("outs", "tricks"):
        return f"{value:.0f}"
    return f"{value:.4g}" if unit in ("1e-9", "million deals") else f"{value:.1f}"


def _book(value) -> str:
    """The book's figure as the book prints it (no added zeros)."""
    return "–" if value is None else f"{value:g}"


def _ci(row: dict) -> str:
    if row["method"] != "simulated" or row["ci_low"] is None or row["n"] is None:
        return "exact" if row["method"] == "exact" else row["method"]
    return f"{_num(row['ci_low'], row['unit'])} – {_num(row['ci_high'], row['unit'])}"


def sections(records: list[dict]) -> dict[str, list[dict]]:
    """The records by section, in the order they come."""
    out: dict[str, list[dict]] = {}
    for r in records:
        out.setdefault(r["section"], []).append(r)
    return out


def tally(records: list[dict]) -> dict[str, int]:
    """How many rows have each verdict."""
    return {v: sum(r["verdict"] == v for r in records)
            for v in ("confirmed", "refuted", "not comparable")}


def misere_chart(curve: dict, path: Path) -> None:
    """Success of one-hole misères by outs: the book's reading and both catchers' models."""
    from prefstats.analysis.books import talon_out_probability
    from prefstats.game.exact import wilson_interval

    with mpl.rc_context(STYLE):
        fig = figure((7.5, 4.2))
        ax = fig.add_subplot()
        ks = list(range(1, 14))
        ax.plot(ks, [talon_out_probability(k) for k in ks], color="#444444", ls="--",
                label="the book: an out in the talon")
        for (name, results), colour in zip(curve.items(), OKABE_ITO, strict=False):
            done = [(k, r) for k, r in sorted(results.items()) if r["n"]]
            x = [k for k, _ in done]
            y = [r["made"] / r["n"] for _, r in done]
            lo, hi = zip(*[(float(a[0]), float(b[0])) for a, b in
                           (wilson_interval([r["made"]], r["n"]) for _, r in done)],
                         strict=True) if done else ((), ())
            label = {"hidden": "catchers who cannot see the discard",
                     "double_dummy": "catchers who see it (double dummy)"}[name]
            ax.errorbar(x, y, yerr=[[a - b for a, b in zip(y, lo, strict=True)],
                                    [b - a for a, b in zip(y, hi, strict=True)]],
                        marker="o", color=colour, label=label, capsize=2)
        ax.axhline(0.5, color="#999999", lw=0.8)
        ax.set_xlabel("outs (cards that, in the talon, fix the hole)")
        ax.set_ylabel("misères made")
        ax.set_ylim(0, 1)
        ax.set_title("One-hole misères made, by outs: the book against the play",
                     loc="left")
        ax.legend(frameon=False, loc="lower right")
        fig.savefig(path, pil_kwargs={"optimize": True}, dpi=110)


def unfixed_caught(records: list[dict], defence: str) -> float | None:
    """The share of the one-hole misères the talon left unfixed that the catchers of
    ``defence`` caught, over the played rows of Table 6 (None without any)."""
    shares = [r["extra"]["unfixed_caught"] for r in records
              if "unfixed_caught" in r["extra"] and r["defence"] == defence]
    return sum(shares) / len(shares) if shares else None


def findings(records: list[dict]) -> list[str]:
    """One Markdown bullet a section: how many of its figures hold, and the first that
    does not, with both figures and the reason."""
    out = []
    for name, rows in sections(records).items():
        held = sum(r["verdict"] == "confirmed" for r in rows)
        line = f"- **{name}**: {held} of {len(rows)} confirmed."
        other = next((r for r in rows if r["verdict"] == "refuted"),
                     next((r for r in rows if r["verdict"] != "confirmed"), None))
        if other is not None:
            ci = _ci(other)
            within = f" (95% CI {ci})" if other["method"] == "simulated" else ""
            line += (f" {other['claim'][0].upper()}{other['claim'][1:]} "
                     f"({other['defence']}): the book says {_book(other['book'])}, "
                     f"the project {_num(other['project'], other['unit'])}{within}; "
                     f"{other['reason']}.")
        out.append(line)
    return out


def article(records: list[dict], meta: dict) -> str:
    """The article in Markdown."""
    t = tally(records)
    caught = unfixed_caught(records, "default players (catchers cannot see the discard)")
    share = "an unmeasured share" if caught is None else f"about {caught:.0%}"
    lines = [
        "# The books count every open hole as caught: what Preferans books say, checked",
        "",
        f"{len(records)} figures from the Russian Preferans literature, each set beside what "
        f"the project finds by exact enumeration, by the rules, or by playing with its own "
        f"dealing and players: {t['confirmed']} confirmed, {t['refuted']} refuted, "
        f"{t['not comparable']} not comparable (the book measures something else). The "
        "combinatorics of the books hold to the last printed digit; the misère figures do "
        "not: the book counts every hole the talon leaves open as caught, while catchers "
        f"who cannot see the discard catch {share} of them.",
        "",
        "How to read the tables: *book* is the published figure, *project* the project's "
        "with its 95% interval (simulated rows) and the number of cases n. A simulated "
        "figure confirms the book when the book's figure lies within its interval widened "
        "by a stated tolerance (0.02 for a probability, 0.05 for folklore's round "
        "percentages, 5 whists for an expected result); an exact one when it agrees to "
        "the book's last printed digit. Where the defence matters, the row is given for "
        "the default players (misère catchers who cannot see the discard) and for double "
        "dummy catchers (who see it: an upper bound on catching).",
        "",
        "## What the checks found",
        "",
        *findings(records),
        "",
        f"![One-hole misères made, by outs: the book's reading against the project's]"
        f"({CHART})",
        "",
        "*Figure 1. One-hole misères made, by outs (an out: a card that, in the talon, "
        "fixes the hole with one discard), with 95% intervals; the dashed line is the "
        "book's reading, the talon's chance of an out.*",
        "",
    ]
    for name, rows in sections(records).items():
        lines += [f"## {name}", "", INTROS.get(name, ""), "",
                  "| claim | source | defence | book | project | 95% CI | n | verdict | why |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            cells = [r["claim"], r["source"], r["defence"], _book(r["book"]),
                     _num(r["project"], r["unit"]), _ci(r),
                     "" if r["n"] is None else f"{r['n']:,}", r["verdict"], r["reason"]]
            lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
        lines.append("")
    lines += ["## Methods", "",
              f"Variant {meta['variant']}, seed {meta['seed']}, scale {meta['scale']:g}; "
              f"prefstats {meta['version']}. Made by `{meta['command']}`. Every record, "
              "with its method, defence model and seed, is in `books.json`.", ""]
    return "\n".join(lines)


_CSS = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:auto;padding:1rem;"
        "line-height:1.45}table{border-collapse:collapse;font-size:.9rem}td,th{border-bottom:"
        "1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}"
        ".t{overflow-x:auto}img{max-width:100%;height:auto}")


def page(records: list[dict], meta: dict) -> str:
    """The HTML page: the summary, the chart and one table per section."""
    e = html.escape
    t = tally(records)
    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>"
             "<meta name='viewport' content='width=device-width, initial-scale=1'>"
             "<title>What the Preferans books say, checked</title>"
             f"<style>{_CSS}</style></head><body>",
             "<h1>What the Preferans books say, checked</h1>",
             f"<p>{len(records)} published figures: {t['confirmed']} confirmed, "
             f"{t['refuted']} refuted, {t['not comparable']} not comparable. Read the "
             "<a href='article.md'>article</a>; the records are in "
             "<a href='books.json'>books.json</a>.</p>",
             f"<figure><img src='{CHART}' alt='One-hole misères made, by outs: the book's "
             "line (the talon's chance of an out) beside what the project's declarers make "
             "against both catchers' models, with 95% intervals'><figcaption>One-hole "
             "misères made, by outs, with 95% intervals.</figcaption></figure>"]
    for name, rows in sections(records).items():
        parts.append(f"<h2>{e(name)}</h2><p>{e(INTROS.get(name, ''))}</p><div class='t'>"
                     "<table><tr><th>claim</th><th>source</th><th>defence</th><th>book</th>"
                     "<th>project</th><th>95% CI</th><th>n</th><th>verdict</th>"
                     "<th>why</th></tr>")
        for r in rows:
            colour = VERDICT_COLOURS[r["verdict"]]
            cells = [r["claim"], r["source"], r["defence"], _book(r["book"]),
                     _num(r["project"], r["unit"]), _ci(r),
                     "" if r["n"] is None else f"{r['n']:,}"]
            parts.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in cells)
                         + f"<td style='color:{colour}'><b>{e(r['verdict'])}</b></td>"
                         f"<td>{e(r['reason'])}</td></tr>")
        parts.append("</table></div>")
    parts.append(f"<p>Variant {e(meta['variant'])}, seed {meta['seed']}, scale "
                 f"{meta['scale']:g}, prefstats {e(meta['version'])}: "
                 f"<code>{e(meta['command'])}</code></p></body></html>")
    return "\n".join(parts) + "\n"


def write_books(records: list[dict], curve: dict, out: str | Path, meta: dict) -> Path:
    """Write ``books.json``, ``index.html``, ``article.md`` and the chart into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "books.json").write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n",
                                    "utf-8")
    misere_chart(curve, out / CHART)
    (out / "article.md").write_text(article(records, meta), "utf-8")
    (out / "index.html").write_text(page(records, meta), "utf-8")
    return out
