"""``prefstats guide --variant X``: the hand charts of one variant
(:mod:`prefstats.reports.hand_charts`) as pictures
(:mod:`prefstats.reports.hand_pictures`), tidy tables (CSV and Parquet),
``guide.json`` and a ``guide.md`` that leads with the charts and the rules read off
them, then the tables; what simulated players chose comes last, labelled as such.

A rule is one decided cell (``decided`` in the tables): its ``option`` is the cell's
advice and its ``gain`` what that option gains over passing, or for a pass, what
passing gains over the best option with enough pairs (so a rule's gain is positive).
Each rule says whether it is robust (:func:`~prefstats.reports.hand_charts.robustness`:
it holds under every other table of :data:`~prefstats.reports.hand_charts.MODELS`) and,
when not, which tables break it and the range of its gain; a chart stars the cells
whose advice is not robust.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path

import polars as pl

from prefstats.game.variants import Variant, describe
from prefstats.reports import manifest, model_tables
from prefstats.reports.hand_charts import (
    CELL_PAIRS,
    DEAL_BUDGET,
    DEFAULT,
    FEATURES,
    MODEL,
    MODEL_PAIRS,
    MODELS,
    RASPASY_BUDGET,
    VERDICT_PAIRS,
    WHIST_BUDGET,
    Chart,
    Model,
    first_call_chart,
    label,
    misere_chart,
    raspasy_chart,
    whist_chart,
    with_robustness,
)
from prefstats.reports.hand_pictures import picture, seat_names
from prefstats.reports.stats import DECIMALS
from prefstats.sim._chunks import atomic_write

#: Each option in a rule's words, and as a chart cell writes it.
ACTIONS = {"pass": ("pass", "P"), "misere": ("call misère", "M"), "whist": ("whist", "W"),
           "half": ("half-whist", "½"), **{str(v): (f"bid up to {v}", str(v))
                                              for v in range(6, 11)}}
_TITLES = {"first_call_points": "First call by hand points",
           "first_call_expected_tricks": "First call by expected tricks",
           "whist": "Whist", "misere": "Misère", "raspasy": "Raspasy"}


#: What :func:`charts` reports before each chart: charts done, charts in all, the
#: chart's name and the model it is made under (both empty once every chart is made).
Progress = Callable[[int, int, str, str], None]


def charts(variant: Variant, seed: int, min_n: int = CELL_PAIRS, *, workers: int = 1,
           budget: int = DEAL_BUDGET, whist_budget: int = WHIST_BUDGET,
           raspasy_budget: int = RASPASY_BUDGET, models: tuple[Model, ...] = MODELS,
           model_n: int = MODEL_PAIRS, progress: Progress | None = None) -> list[Chart]:
    """Every chart of ``variant`` on the stream of ``seed``, cells filled to ``min_n``
    under the default players and to ``model_n`` under each of ``models`` (with the
    whist and raspasy budgets scaled alike), with its advice's robustness
    (:func:`~prefstats.reports.hand_charts.with_robustness`). ``progress`` is told
    before each chart is made."""
    def makers(n: int, m: Model) -> list[tuple[str, Callable[[], Chart]]]:
        # The whist and raspasy charts roll out deals until their cells fill or their
        # budget runs out; another model's cells hold fewer pairs, so its budget shrinks
        # alike (rare cells would otherwise cost the whole budget, search 20 times over).
        scale = min(1.0, n / min_n)
        return [
            ("first_call_points",
             lambda: first_call_chart(variant, seed, n, "points", budget=budget,
                                      workers=workers, model=m)),
            ("first_call_expected_tricks",
             lambda: first_call_chart(variant, seed, n, "expected_tricks", budget=budget,
                                      workers=workers, model=m)),
            ("whist", lambda: whist_chart(variant, seed, n,
                                          budget=max(1, round(whist_budget * scale)),
                                          workers=workers, model=m)),
            ("misere", lambda: misere_chart(variant, seed, n, budget=budget, workers=workers,
                                            model=m)),
            ("raspasy", lambda: raspasy_chart(variant, seed, n,
                                              budget=max(1, round(raspasy_budget * scale)),
                                              workers=workers, model=m)),
        ]

    plan = [(m, makers(n, m)) for m, n in [(DEFAULT, min_n),
                                           *((m, m.pairs(model_n)) for m in models)]]
    total = sum(len(todo) for _, todo in plan)
    made: list[list[Chart]] = []
    for m, todo in plan:
        made.append([])
        for name, make in todo:
            if progress is not None:
                progress(sum(map(len, made)), total, name, m.name)
            made[-1].append(make())
    if progress is not None:
        progress(total, total, "", "")
    return [with_robustness(chart, [o[i] for o in made[1:]])
            for i, chart in enumerate(made[0])]


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _features(chart: Chart, row: dict) -> dict:
    return {f: row[f] for f in chart.features}


def _cells(chart: Chart) -> list[dict]:
    """One dict per cell: its features, advice, decided, ties and each option's row."""
    out: dict[tuple, dict] = {}
    for row in chart.table.iter_rows(named=True):
        key = tuple(row[f] for f in chart.features)
        cell = out.setdefault(key, {"features": _features(chart, row), "advice": row["advice"],
                                    "decided": row["decided"], "ties": row["ties"],
                                    "options": {}, "catch_rate": row.get("catch_rate"),
                                    "robust": row.get("robust"), "breaks": row.get("breaks"),
                                    "unmeasured": row.get("unmeasured"),
                                    "gain_min": row.get("gain_min"),
                                    "gain_max": row.get("gain_max"),
                                    "raspasy": row.get("raspasy_value")})
        cell["options"][row["option"]] = row
    return list(out.values())


def records(chart: Chart) -> list[dict]:
    """guide.json's records of every (cell, option) of ``chart``."""
    return [{"kind": "cell", "decision": chart.decision, "chart": chart.name,
             "features": _features(chart, r), "option": r["option"], "gain": _num(r["gain"]),
             "ci_low": _num(r["ci_low"]), "ci_high": _num(r["ci_high"]), "n": r["n"],
             "enough": r["enough"], "advice": r["advice"], "robust": r.get("robust"),
             "gain_min": _num(r.get("gain_min")), "gain_max": _num(r.get("gain_max")),
             "breaks": _names(r.get("breaks")), "model": r["model"],
             **({"catch_rate": _num(r["catch_rate"])} if "catch_rate" in r else {}),
             **({k: _num(r[k]) for k in ("raspasy_value", "raspasy_low", "raspasy_high")}
                if "raspasy_value" in r else {})}
            for r in chart.table.iter_rows(named=True)]


def rounded(value):
    """``value`` with every float to :data:`~prefstats.reports.stats.DECIMALS` decimals,
    as the tables write them."""
    if isinstance(value, float):
        return round(value, DECIMALS) if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def _names(text: str | None) -> list[str]:
    return [t for t in (text or "").split(",") if t]


def _robust_words(cell: dict) -> str:
    """Whether a cell's advice is robust, in a rule's words."""
    if cell["robust"]:
        return "robust"
    if cell["robust"] is None:
        return f"robustness not measured ({', '.join(_names(cell['unmeasured']))}: " \
               f"n < {VERDICT_PAIRS})"
    return (f"not robust: {', '.join(_names(cell['breaks']))} prefer another option; "
            f"gain {cell['gain_min']:+.1f} to {cell['gain_max']:+.1f} across models")


def seat_words(seat: int, seats: Mapping[int, str] | None) -> str:
    """Where a call is made, as a player says it: "in first hand", "as dealer"."""
    name = (seats or {}).get(seat)
    if name is None:
        return f"at seat {seat}"
    return f"as {name}" if name == "dealer" else f"in {name}"


def _where(chart: Chart, f: dict, seats: Mapping[int, str] | None = None) -> str:
    """The cell in words."""
    if chart.decision == "first_call":
        name = "points" if "points" in f else "expected tricks"
        value = f.get("points", f.get("expected_tricks"))
        return f"{seat_words(f['seat'], seats)} with {label(next(iter(f)), value)} {name}"
    if chart.decision == "whist":
        trumps = ("against no trumps" if f["trumps"] == -1 else
                  f"holding {label('trumps', f['trumps'])} of the declarer's trumps")
        article = "an" if f["level"] == 8 else "a"
        return (f"{article} {label('level', f['level'])} with "
                f"{label('aces_kings', f['aces_kings'])} A+K {trumps}")
    if chart.decision == "raspasy":
        return (f"everyone before you passed, with {label('aces_kings', f['aces_kings'])} "
                f"A+K and a longest suit of {label('longest', f['longest'])}")
    return "with " + _pattern(f)


def _pattern(f: dict) -> str:
    return {0: "no hole", 2: "two holes", 3: "three or more holes"}.get(
        f["holes"], f"one hole: {f['hole']}" if f["hole"] != "long" else "one long hole")


def rules(chart: Chart, seats: Mapping[int, str] | None = None) -> list[dict]:
    """One rule per decided cell of ``chart`` (see the module text): its cell, n, gain
    with CI and whether it is robust; ``seats`` names the seats
    (:func:`~prefstats.reports.hand_pictures.seat_names`)."""
    out = []
    for cell in _cells(chart):
        if not cell["decided"]:
            continue
        advice, opts = cell["advice"], cell["options"]
        if advice == "pass":
            best = max((r for r in opts.values() if r["enough"]), key=lambda r: r["gain"])
            gain, low, high = -best["gain"], -best["ci_high"], -best["ci_low"]
            n, against = best["n"], f"over {ACTIONS[best['option']][0]}"
        else:
            r = opts[advice]
            gain, low, high, n, against = r["gain"], r["ci_low"], r["ci_high"], r["n"], \
                "over passing"
        verb = ACTIONS[advice][0]
        if chart.decision == "raspasy" and advice == "pass":
            verb = "pass into the raspasy"
        where = _where(chart, cell["features"], seats)
        text = (f"{verb.capitalize()} {where}" if chart.decision == "whist" and advice != "pass"
                else f"{where[0].upper()}{where[1:]}: {verb}")
        if chart.decision == "whist" and advice == "pass":
            text = f"Pass {where}"
        ties = [ACTIONS[t][0] for t in cell["ties"].split(",") if t]
        text += (f" ({gain:+.1f} whists a deal {against}, 95% CI [{low:+.1f}, {high:+.1f}], "
                 f"n = {n:,}" + (f"; as good: {', '.join(ties)}" if ties else "") + ")")
        if cell["catch_rate"] is not None and advice == "misere":
            text = text[:-1] + f"; caught {100 * cell['catch_rate']:.0f}%)"
        if cell["raspasy"] is not None:
            text = text[:-1] + f"; the raspasy is worth {cell['raspasy']:+.1f} to you)"
        text = text[:-1] + f"; {_robust_words(cell)})"
        out.append({"kind": "rule", "decision": chart.decision, "chart": chart.name,
                    "features": cell["features"], "option": advice, "gain": gain,
                    "ci_low": low, "ci_high": high, "n": n, "advice": advice,
                    "ties": ties, "robust": cell["robust"], "gain_min": _num(cell["gain_min"]),
                    "gain_max": _num(cell["gain_max"]), "breaks": _names(cell["breaks"]),
                    "model": chart.model, "text": text})
    return out


def _table_lines(chart: Chart) -> list[str]:
    """The chart's table in markdown: one line per cell, each option's gain and n."""
    opts = chart.options
    head = [*chart.features, "advice", *(f"{o} − pass [95% CI] (n)" for o in opts)]
    if chart.decision == "misere":
        head.append("caught [95% CI]")
    if chart.decision == "raspasy":
        head.append("raspasy value [95% CI]")
    head.append("robust (gain range)")
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for cell in _cells(chart):
        f = cell["features"]
        advice = ACTIONS[cell["advice"]][0] + ("" if cell["decided"] else " (undecided)")
        row = [label(k, v) if isinstance(v, int) else v for k, v in f.items()]
        row.append(advice if any(r["enough"] for r in cell["options"].values()) else "too few")
        for o in opts:
            r = cell["options"].get(o)
            row.append("–" if r is None or r["n"] < 2 else
                       f"{r['gain']:+.1f} [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}] ({r['n']:,})")
        if chart.decision == "misere":
            r = cell["options"]["misere"]
            row.append(f"{100 * r['catch_rate']:.0f}% [{100 * r['catch_low']:.0f}, "
                       f"{100 * r['catch_high']:.0f}]" if r["catch_rate"] is not None else "–")
        if chart.decision == "raspasy":
            r = cell["options"]["6"]
            row.append("–" if r["raspasy_value"] is None else
                       f"{r['raspasy_value']:+.1f}" if r["raspasy_low"] is None else
                       f"{r['raspasy_value']:+.1f} [{r['raspasy_low']:+.1f}, "
                       f"{r['raspasy_high']:+.1f}]")
        robust = {True: "yes", False: "no", None: "–"}[cell["robust"]]
        if cell["gain_min"] is not None:
            robust += f" ({cell['gain_min']:+.1f} to {cell['gain_max']:+.1f})"
        if cell["breaks"]:
            robust += f"; {cell['breaks'].replace(',', ', ')}"
        row.append(robust)
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    return lines


def page(variant: Variant, made: list[Chart], found: dict[str, list[dict]], seed: int,
         min_n: int, command: str, observed: list[str] | None = None,
         models: tuple[Model, ...] = MODELS, model_n: int = MODEL_PAIRS,
         alts: Mapping[str, str] | None = None) -> list[str]:
    """guide.md's lines: charts (``alts``: each one's alt text) and their rules, then the
    tables, then ``observed``."""
    lines = [f"# {describe(variant)}: hand charts", "",
             f"Every cell below is a paired counterfactual: deals of the stream of seed {seed} "
             "dealt to the cell (the first deals of that class, so uniform within it), each "
             "played with the seat's decision forced to every option and to a pass, every "
             "other decision by the built-in heuristic players (model "
             f"`{MODEL}`). **Gain** = the mean of option − pass over the cell's pairs, in "
             "whists a deal to the seat, with its 95% CI; n counts the pairs where both calls "
             f"were legal. A cell needs {min_n:,} pairs: a cell with fewer is grey with its n "
             "and never advised on. The **advice** is the option with the largest gain (a "
             "pass gains 0); a **rule** is stated only where it is decided at 3 standard "
             "errors (the option's gain over passing at least 3 SE above zero, or, to pass, "
             "every option's at least 3 SE below); options within 3 SE of the advice (paired) "
             "are named as good. A bracketed advice in a chart is undecided. The first "
             "call's levels bid up to that level (every call of the seat the lowest legal "
             "bid up to it, in the strain the evaluator rates best); the contract after the "
             "talon is the players'. On misère the catchers see each other's cards and the "
             "talon but not the declarer's discard (`misere_catchers=\"hidden\"`); catchers "
             "who saw it (double dummy) would catch more often: theirs is an upper bound on "
             "the catch rate. The raspasy chart is the last first call after "
             "everyone before passed: pass into the raspasy, or bid up to 6 or call misère "
             "(its first lead is the players', not charted).",
             "", "**Robust** advice holds under every other table of players below, each "
             "table made of one model (every player, the seat's own unforced decisions "
             "included) and each cell filled to the pairs named under it (fewer than the "
             "default's: they only decide robustness): a model breaks a cell's advice "
             "when on its pairs another option beats it by more than 1.96 SE of the "
             "paired difference; a model with "
             f"fewer than {VERDICT_PAIRS} pairs in the cell gives no verdict. A rule "
             "that is not robust names the models that break it and the range of its gain "
             "across the models; the charts star those cells (*).", "",
             *(f"- `{m.name}`: {m.meaning}; {m.pairs(model_n):,} pairs a cell"
               for m in models),
             "" if models else "- (no other model: robustness not measured)",
             "", f"Made by `{command}`.", ""]
    for chart in made:
        alt = (alts or {}).get(chart.name, _TITLES[chart.name])
        lines += [f"## {_TITLES[chart.name]}", "", f"![{alt}]({chart.name}.png)", "",
                  f"Deals dealt per seat to fill the cells: {chart.dealt:,}.", ""]
        rules_here = found[chart.name]
        lines += [f"- {r['text']}" for r in rules_here] or ["- No cell is decided."]
        lines.append("")
    lines += ["## Tables", "",
              "The same cells as CSV and Parquet beside this page (`<chart>.csv`), and every "
              "cell and rule in `guide.json`. Feature names:", "",
              *(f"- `{k}`: {v}" for k, v in FEATURES.items()), ""]
    for chart in made:
        lines += [f"### {_TITLES[chart.name]}", "", *_table_lines(chart), ""]
    return lines + (observed or [])


def write_guide(variant: Variant, out: str | Path, seed: int, *, min_n: int = CELL_PAIRS,
                workers: int = 1, budget: int = DEAL_BUDGET, whist_budget: int = WHIST_BUDGET,
                raspasy_budget: int = RASPASY_BUDGET, models: tuple[Model, ...] = MODELS,
                model_n: int = MODEL_PAIRS, command: str = "",
                observed: list[str] | None = None, progress: Progress | None = None) -> Path:
    """Make every chart of ``variant`` into the folder ``out``: per chart a PNG, SVG and
    PDF, its table as CSV and Parquet, every model's cells
    (:mod:`~prefstats.reports.model_tables`), ``guide.json``, ``guide.md`` (returned) and the
    charts' entries in ``charts.json`` (:mod:`~prefstats.reports.manifest`);
    ``progress`` as for :func:`charts`."""
    from prefstats import __version__

    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    made = charts(variant, seed, min_n, workers=workers, budget=budget,
                  whist_budget=whist_budget, raspasy_budget=raspasy_budget, models=models,
                  model_n=model_n, progress=progress)
    seats = seat_names(variant)
    found = {c.name: rules(c, seats) for c in made}
    cells = []
    entries, copies = [], []
    for chart in made:
        source = (f"prefstats {__version__} · {describe(variant)} · seed {seed} · "
                  f"{chart.dealt:,} deals dealt a seat · {min_n:,} pairs a cell · {command}")
        _, alt = picture(chart, seats, target / chart.name, source, describe(variant))
        entries.append({"name": chart.name, "hand": True, "source": source, "alt": alt,
                        "variant": describe(variant), "min_n": min_n,
                        "seats": {str(k): v for k, v in seats.items()}})
        for name, table in {chart.name: chart.table, **chart.extra}.items():
            table.write_csv(target / f"{name}.csv", float_precision=DECIMALS)
            table.write_parquet(target / f"{name}.parquet")
            copies.append(name)
        cells += records(chart)
    tables = {c.name: c.models for c in made if c.models is not None}
    models_made = model_tables.write(target, tables, MODEL) if tables else {}
    for name in tables:
        path = target / model_tables.table_name(name)
        pl.read_csv(path.with_suffix(".csv")).write_parquet(path.with_suffix(".parquet"))
        copies.append(path.name)
    manifest.record(target, entries, copies, models=models_made)
    doc = {"variant": describe(variant), "seed": seed, "min_n": min_n, "model": MODEL,
           "models": [{"name": m.name, "policy": m.policy, "params": dict(m.overrides),
                       "meaning": m.meaning, "min_n": m.pairs(model_n)} for m in models],
           "version": __version__, "features": FEATURES,
           "records": cells + [r for c in made for r in found[c.name]]}
    atomic_write(target / "guide.json", json.dumps(rounded(doc), separators=(",", ":"),
                                                   ensure_ascii=False).encode("utf-8"))
    text = "\n".join(page(variant, made, found, seed, min_n, command, observed, models,
                          model_n, {e["name"]: e["alt"] for e in entries})) + "\n"
    atomic_write(target / "guide.md", text.encode("utf-8"))
    return target / "guide.md"
