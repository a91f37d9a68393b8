"""MkDocs hooks: the pages made from the source tree at build time, so that no number,
name or option is copied by hand into the site.

- ``API.md`` and ``reference/*.md``: what is public by tier, then one page per layer of
  the package, a mkdocstrings block per public module, and the facade's names: all
  read from the one list in ``prefstats/__init__.py`` (``PUBLIC``, ``KERNELS``);
- ``reference/cli.md``: ``prefstats COMMAND --help`` of every command, in one process;
- ``results.md``: the committed reports (``reports/*/report.md``: dataset, command,
  version), the hand guides (one row each: rules, robust rules, what making it took), the
  rating's bands of each table (``prefstats/analysis/data/rating-*.toml``), the players'
  strength (``reports/bench/strength.json``: every side, raspasy and misère too) and
  every other benchmark or report JSON committed under the folders of ``RESULT_GLOBS``,
  each figure with its version, command and date; a new file there appears on the next
  build;
- ``explorer/``: the explorer's static edition (``prefstats site``) over the committed
  guides, linked from the explorer's how-to page.

Nothing here runs the engine: the package is read as text, and the CLI is only asked
for its help.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "prefstats"

#: The layers, top of the import order last, each a reference page.
LAYERS = {
    "game": "The game: cards, deals, contracts, variants, auction, engine, scoring.",
    "solver": "The exact double-dummy solver for trick contracts and misère.",
    "players": "The built-in players: heuristic bidding, card play, the PIMC search player.",
    "sim": "Drivers and datasets: play, pulkas, storage, simulate, rollout.",
    "analysis": "Analysis: played deals, the strength and exploitability gauges, tables.",
    "reports": "The report, comparison and guide writers.",
}

#: Where committed benchmark and report JSON files are looked for (relative to the root).
RESULT_GLOBS = ("reports/**/*.json", "bench/**/*.json", "benchmarks/**/*.json",
                "scripts/results/**/*.json")

#: Files of ``reports/`` and ``examples/`` published with the site, so pages can show them.
REPORT_SUFFIXES = {".md", ".png", ".svg", ".pdf", ".csv", ".json", ".txt"}


def on_files(files, config):
    for path, text in generated_pages().items():
        files.append(File.generated(config, path, content=text))
    published = [*(ROOT / "reports").rglob("*"), *(ROOT / "examples").glob("*.json"),
                 *(ROOT / "examples").glob("*.txt")]
    for path in sorted(published):
        if path.suffix in REPORT_SUFFIXES and path.is_file():
            files.append(File(path.relative_to(ROOT).as_posix(), src_dir=str(ROOT),
                              dest_dir=config["site_dir"],
                              use_directory_urls=config["use_directory_urls"]))
    for path, content in explorer_files().items():
        files.append(File.generated(config, path, content=content))
    return files


def explorer_files() -> dict[str, bytes]:
    """The static edition's files, by their path in the site (under ``explorer/``)."""
    import tempfile

    if str(ROOT) not in sys.path:  # this tree's package, not another one installed
        sys.path.insert(0, str(ROOT))
    from prefstats.serve.site import write_site

    with tempfile.TemporaryDirectory() as tmp:
        out = write_site(Path(tmp) / "explorer", ROOT / "reports")
        return {p.relative_to(tmp).as_posix(): p.read_bytes()
                for p in sorted(out.rglob("*")) if p.is_file()}


def generated_pages() -> dict[str, str]:
    pages = {"reference/index.md": facade_page(), "reference/cli.md": cli_page(),
             "API.md": api_page(), "results.md": results_page()}
    for layer, text in LAYERS.items():
        pages[f"reference/{layer}.md"] = layer_page(layer, text)
    return pages


# --- the API reference -------------------------------------------------------------

def public_list() -> tuple[dict[str, tuple[str, ...]], str]:
    """``prefstats.PUBLIC`` (each tier-1 module and the facade's names from it) and
    ``prefstats.KERNELS`` (tier 2), read from ``prefstats/__init__.py``."""
    found: dict[str, object] = {}
    for node in ast.parse((PACKAGE / "__init__.py").read_text("utf-8")).body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id in ("PUBLIC", "KERNELS"):
            found[target.id] = ast.literal_eval(node.value)
    if set(found) != {"PUBLIC", "KERNELS"}:
        raise RuntimeError("prefstats/__init__.py lacks the PUBLIC list or KERNELS")
    return found["PUBLIC"], found["KERNELS"]  # type: ignore[return-value]


def source_of(module: str) -> Path:
    path = PACKAGE.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def exported(module: str) -> list[str]:
    """The names of ``module``'s ``__all__``, read as text."""
    for node in ast.parse(source_of(module).read_text("utf-8")).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "__all__"):
            return list(ast.literal_eval(node.value))
    return []


def layer_modules(layer: str) -> list[str]:
    """The public modules of one layer, in the order of the list."""
    public, _ = public_list()
    prefix = f"prefstats.{layer}"
    return [m for m in public if m == prefix or m.startswith(prefix + ".")]


def layer_page(layer: str, text: str) -> str:
    blocks = [f"# `prefstats.{layer}`\n\n{text} Only the public modules are shown (the list "
              "`prefstats.PUBLIC`), each with the names of its `__all__`.\n"]
    modules = layer_modules(layer)
    if f"prefstats.{layer}" not in modules:
        blocks.append(f"::: prefstats.{layer}\n    options:\n      members: false\n"
                      "      show_root_heading: false\n")
    for module in modules:
        blocks.append(f"::: {module}\n    options:\n      heading_level: 2\n")
    return "\n".join(blocks)


def facade_names() -> dict[str, str]:
    """The facade's names and the module each comes from."""
    public, _ = public_list()
    return {name: module for module, names in public.items() for name in names}


def docstring_of(module: str, name: str, seen: int = 0) -> str | None:
    """``name``'s docstring in ``module``, read as text, following a re-export."""
    for node in ast.parse(source_of(module).read_text("utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return ast.get_docstring(node)
        if (isinstance(node, ast.ImportFrom) and node.module and seen < 3
                and node.module.startswith("prefstats")
                and any(alias.name == name for alias in node.names)):
            return docstring_of(node.module, name, seen + 1)
    return None


def first_sentence(doc: str | None) -> str:
    """A docstring's first sentence, its reStructuredText roles and literals as Markdown."""
    if not doc:
        return ""
    text = " ".join(doc.split("\n\n")[0].split())
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text).replace("``", "`")
    cut = min((i for i in (text.find(". "), text.find("; ")) if i > 0), default=len(text))
    text = text[:cut].rstrip(".")
    return text if len(text) <= 160 else text[:157].rsplit(" ", 1)[0] + " …"


def first_line(module: str, name: str) -> str:
    """The first sentence of ``name``'s docstring in ``module``."""
    return first_sentence(docstring_of(module, name))


def module_page(module: str) -> str:
    """The reference page (and anchor) that shows ``module``."""
    layer = module.split(".")[1]
    return f"reference/{layer}.md#{module}" if layer in LAYERS else f"reference/index.md#{module}"


def facade_page() -> str:
    rows, own = [], set()
    for name, module in sorted(facade_names().items(), key=lambda kv: kv[0].lower()):
        layer = module.split(".")[1]
        what = first_line(module, name).replace("|", r"\|")
        if layer not in LAYERS:  # a module of no layer (prefstats.errors): on this page
            own.add(module)
        page = f"{layer}.md" if layer in LAYERS else ""
        rows.append(f"| `ps.{name}` | [`{module}`]({page}#{module}) | {what} |")
    return (
        "# The facade: `import prefstats as ps`\n\n"
        "The everyday names, each imported from its module on first use (so `import "
        "prefstats` stays light). This table is read from the package itself at build "
        "time; the modules' own pages give each name in full.\n\n"
        "| name | defined in | what it is |\n|---|---|---|\n" + "\n".join(rows) + "\n\n"
        "::: prefstats\n    options:\n      members: false\n      show_root_heading: false\n"
        + "".join(f"\n::: {module}\n" for module in sorted(own))
    )


def api_page() -> str:
    """What is public, by tier: made from ``prefstats.PUBLIC`` and the docstrings."""
    public, kernels = public_list()
    parts = [
        "# The public API\n\n"
        "Outside tools, notebooks and users call what this page lists; a change that breaks "
        "one of these is a breaking change (a new minor version before 1.0, and a line in "
        "the changelog); anything may be added. The page is made at build time from the one "
        "list in the package, `prefstats.PUBLIC`, and the modules' docstrings.\n\n"
        "- **Tier 1**: the facade (`import prefstats as ps`, [its page](reference/index.md)) "
        "and the modules below, each listing its names in `__all__`, every name documented "
        "with an example the tests run; they check their input and raise a "
        "`prefstats.PrefstatsError` (a `ValueError`) naming what is wrong.\n"
        f"- **Tier 2**: `{kernels}`, the compiled functions a user's own numba code may "
        "call; they trust their input and stay stable within a minor version.\n"
        "- Everything else is internal, whatever its name: it imports, but may change in "
        "any release. `python -m prefstats` is the `prefstats` command "
        "([its reference](reference/cli.md)).\n\n"
        "## Tier 1\n\n| module | what it is | names |\n|---|---|---|"]
    for module in public:
        what = first_sentence(ast.get_docstring(ast.parse(source_of(module).read_text("utf-8"))))
        what = what.replace("|", r"\|")
        names = ", ".join(f"`{n}`" + (" (`ps`)" if n in public[module] else "")
                          for n in exported(module))
        parts.append(f"| [`{module}`]({module_page(module)}) | {what} | "
                     f"{names} |")
    parts.append(f"\n## Tier 2: `{kernels}`\n")
    parts.append(first_sentence(ast.get_docstring(ast.parse(source_of(kernels).read_text(
        "utf-8")))) + ". Its names: " + ", ".join(f"`{n}`" for n in exported(kernels))
        + ".\n")
    return "\n".join(parts)


# --- the command-line reference ----------------------------------------------------

_HELP = r"""
import click, typer
from prefstats.cli import app

def walk(command, path):
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from walk(sub, [*path, name])

root = typer.main.get_command(app)
out = []
for path, command in walk(root, []):
    with click.Context(command, info_name=" ".join(["prefstats", *path])) as ctx:
        out.append({"path": path, "help": command.get_help(ctx)})
print(__import__("json").dumps(out))
"""


def cli_page() -> str:
    env = dict(os.environ, TYPER_USE_RICH="0", COLUMNS="88", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _HELP], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=True)
    parts = ["# The command line\n\nEvery command's `--help`, as the installed `prefstats` "
             "prints it (rendered at build time). A value that cannot be read exits with "
             "status 2 and a one-line message.\n"]
    for entry in json.loads(done.stdout):
        title = " ".join(["prefstats", *entry["path"]])
        level = "##" if len(entry["path"]) < 2 else "###"
        parts.append(f"{level} `{title}`\n\n```text\n{entry['help'].rstrip()}\n```\n")
    return "\n".join(parts)


# --- the results page --------------------------------------------------------------

def commit_date(path: Path) -> str:
    """The date of the last commit that touched ``path`` (its file date if none)."""
    try:
        done = subprocess.run(["git", "log", "-1", "--format=%cs", "--", str(path)],
                              cwd=ROOT, capture_output=True, text=True, timeout=30)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    except OSError:
        pass
    from datetime import date

    return date.fromtimestamp(path.stat().st_mtime).isoformat()


def report_facts(report: Path) -> dict[str, object]:
    """Title, version and the commands that made a committed report, from its header."""
    lines = report.read_text("utf-8").splitlines()
    facts: dict[str, object] = {"title": lines[0].lstrip("# ").strip(), "commands": [],
                                "datasets": [], "version": "", "date": commit_date(report)}
    for line in lines[1:]:
        if line.startswith("## "):
            break
        if m := re.match(r"- [^:]+: (\S+) \(.*made by `", line):
            facts["datasets"].append(m[1])
        if "made by `" in line:
            facts["commands"].append(line.split("made by `", 1)[1].split("`", 1)[0])
        if line.startswith("- prefstats "):
            facts["version"] = line.split()[2].rstrip(";")
    return facts


def metric_table(path: Path) -> str:
    """``compare_metrics.csv`` as one row per figure, one column per variant."""
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    cells: dict[str, dict[str, str]] = {}
    for r in rows:
        scale, unit = (100, " %") if r["unit"] == "share" else (1, "")
        value, lo, hi = (float(r[k]) * scale for k in ("value", "value_lo", "value_hi"))
        metric = r["metric"].replace("|", r"\|")
        cells.setdefault(metric, {})[r["variant"]] = (
            f"{value:.2f}{unit} [{lo:.2f}, {hi:.2f}]" if r["enough"] == "true" else "—")
    head = "| figure | " + " | ".join(variants) + " |\n|---|" + "---|" * len(variants) + "\n"
    return head + "\n".join(f"| {metric} | " + " | ".join(by.get(v, "") for v in variants)
                            + " |" for metric, by in cells.items()) + "\n"


def flat(value, prefix: str = ""):
    """(key path, number or text) pairs of a JSON document's leaves."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from flat(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, item in enumerate(value):
            yield from flat(item, f"{prefix}[{i}]")
    else:
        yield prefix, value


def json_section(path: Path) -> str:
    relative = path.relative_to(ROOT)
    try:
        data = json.loads(path.read_text("utf-8"))
    except ValueError as e:
        return f"### `{relative}`\n\nNot valid JSON: {e}\n"
    meta = data if isinstance(data, dict) else {}
    version = meta.get("version") or meta.get("prefstats") or "not recorded"
    command = meta.get("command") or "not recorded"
    when = meta.get("date") or commit_date(path)
    rows = [(k, v) for k, v in flat(data) if k not in ("version", "command", "date")]
    table = "\n".join(f"| `{k}` | {v if isinstance(v, str) else json.dumps(v)} |"
                      for k, v in rows)
    return (f"### `{relative}`\n\n- version: {version}\n- command: `{command}`\n"
            f"- date: {when}\n\n| figure | value |\n|---|---|\n{table}\n")


def shown_as_guide(path: Path) -> bool:
    """A guide's records and times, summed up in the guides' table rather than listed;
    the books' records, which their own article shows."""
    return path.name in ("guide.json", "books.json") or (
        path.parent.name == "bench" and path.name.startswith("guide-"))


def cold_start_section(path: Path) -> str:
    """The first run against a warm rerun (``scripts/bench_cold_start.py``), with the
    machine and its load: a first run compiles the engine once."""
    data = json.loads(path.read_text("utf-8"))
    seconds, machine = data.get("seconds", {}), data.get("machine", {})
    def shown(figure) -> str:  # wall seconds, and the CPU seconds where recorded
        if isinstance(figure, dict):
            return f"{figure['wall']:,.0f} s ({figure['cpu']:,.0f} s CPU)"
        return f"{figure:,.0f} s"

    rows = []
    for name, command in data.get("commands", {}).items():
        cold, warm = seconds.get(f"{name} (cold)"), seconds.get(f"{name} (warm)")
        if cold is not None:
            rows.append(f"| {name} | {shown(cold)} | {shown(warm) if warm else '—'} | "
                        f"`{command}` |")
    steps = "; ".join(f"{k} {v:,.0f} s" for k, v in data.get("compile_steps_seconds", {}).items())
    return ("## Cold start\n\n"
            "A first run compiles the engine (once per version, kept in the cache); later runs "
            "load it. Measured by `" + data.get("command", "python scripts/bench_cold_start.py")
            + f"` with prefstats {data.get('version', '?')} on {data.get('date', '?')}, "
            f"{machine.get('cores', '?')} cores ({machine.get('cpu', '?')}), "
            f"{machine.get('load', 'load not recorded')}.\n\n"
            "| step | empty cache | warm cache | command |\n|---|---|---|---|\n"
            + "\n".join(rows) + "\n\n"
            + (f"Compile time by warm-up step: {steps}.\n" if steps else ""))


def strength_section(path: Path) -> str:
    """The heuristic's card play against the search player (``scripts/bench_strength.py``):
    each side's tricks given away with n and its 95% interval, beside its target, and the
    raspasy tricks; with the command, the machine and its load."""
    if not path.is_file():
        return ""
    data = json.loads(path.read_text("utf-8"))

    def interval(ci: dict) -> str:
        return f"{ci['mean']:+.3f} [{ci['low']:+.3f}, {ci['high']:+.3f}]"

    rows = []
    for side, part in data["sides"].items():
        target = part.get("target")
        verdict = "—" if target is None else (
            f"≤ {target}: " + ("met" if part["given_away"]["mean"] <= target else "not met")
            if part.get("judged") else f"≤ {target}: too few games to judge")
        rows.append(f"| {side.replace('_', ' ')} | {part['games']:,} games | "
                    f"{interval(part['given_away'])} | {verdict} |")
    r = data["raspasy"]
    rows.append(f"| raspasy (tricks a seat takes, fewer is better) | {r['deals']:,} deals | "
                f"{interval(r['difference'])} | — |")
    return ("## The players' strength\n\n"
            f"The heuristic's card play against `{data['against']}` (K = {data['samples']}) on "
            f"{data['deals']:,} {data['variant']} deals, seed {data['seed']}: the tricks each "
            "side gives away (positive: the heuristic does worse), with the 95% interval. "
            f"Measured by `{data['command']}` with prefstats {data['version']} on "
            f"{data['date']} ({data['machine']}; {data['seconds']:,.0f} s).\n\n"
            "| side | n | tricks given away [95%] | target |\n|---|---|---|---|\n"
            + "\n".join(rows) + "\n")


def scale_section(path: Path) -> str:
    """Peak memory by deals (``scripts/bench_scale.py``): the report's and the run's main
    process's at two sizes each, with the ratio and its limit, and the chart beside."""
    if not path.is_file():
        return ""
    data = json.loads(path.read_text("utf-8"))
    lines = ["## Memory by deals\n",
             f"prefstats {data['version']}, {data['date']}; `{data['command']}` on "
             f"{data['machine']['cpu']} ({data['machine']['load']}).\n",
             "| measured | deals | peak RSS, GiB | seconds |\n|---|---|---|---|"]
    for name, key, label in (("report", "peak_gib", "`prefstats report`"),
                             ("run", "main_peak_gib", "`simulate`, main process")):
        part = data[name]
        lines += [f"| {label} | {r['deals']:,} | {r[key]:.2f} | {r['seconds']} |"
                  for r in sorted(part["sizes"], key=lambda r: r["deals"])]
    lines.append("")
    for name, label in (("report", "The report"), ("run", "The run's main process")):
        part = data[name]
        lines.append(f"- {label}: the larger size's peak over the smaller's {part['ratio']:.2f}"
                     f" (at most {part['limit']}): {'pass' if part['pass'] else 'FAIL'}")
    chart = path.with_suffix(".png")
    if chart.is_file():
        lines.append(f"\n![Peak RSS by deals]({chart.relative_to(ROOT).as_posix()})")
    return "\n".join(lines) + "\n"


def guides_section(root: Path) -> str:
    """One row per committed hand guide (``reports/<dir>/guide.json``): its rules, how many
    hold under every other table of players, and what making it took
    (``reports/bench/guide-<dir>.json``, with the machine's load)."""
    rows = []
    for path in sorted(root.glob("reports/*/guide.json")):
        data = json.loads(path.read_text("utf-8"))
        rules = [r for r in data.get("records", []) if r.get("kind") == "rule"]
        robust = sum(r.get("robust") is True for r in rules)
        models = ", ".join(m["name"] for m in data.get("models", [])) or "none"
        folder = path.parent.name
        timing = root / "reports" / "bench" / f"guide-{folder}.json"
        took = "not recorded"
        if timing.is_file():
            t = json.loads(timing.read_text("utf-8"))
            wall = t.get("wall_seconds", {})
            took = (f"{minutes(wall.get(data.get('model', 'heuristic')))} default players, "
                    f"{minutes(wall.get('all'))} in all ({t.get('cpu_seconds', 0) / 60:,.0f}"
                    f" CPU min; {t.get('machine', 'load not recorded')})")
        rows.append(f"| [{folder}]({path.parent.relative_to(root).as_posix()}/guide.md) | "
                    f"{data.get('version', '—')} | {data.get('seed', '—')} | {len(rules)} "
                    f"({robust} robust) | {models} | {took} | {commit_date(path)} |")
    if not rows:
        return ""
    return ("## Hand guides\n\n"
            "Each committed guide (`prefstats guide --variant X`, by `sh scripts/make_guide.sh "
            "VARIANT [PLAYERS]`): its rules, each read off a cell of at least "
            "the guide's minimum pairs, how many of them hold under every other table of "
            "players, and what making it took.\n\n"
            "| guide | version | seed | rules | other tables | time | committed |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")


def rating_section(root: Path) -> str:
    """One row per table whose rating bands are shipped
    (``prefstats/analysis/data/rating-<preset>-<players>.toml``): the calibrated players'
    mean ratings, the bands' edges, the cap and the command that made them."""
    rows = []
    for path in sorted((root / "prefstats" / "analysis" / "data").glob("rating-*.toml")):
        data = tomllib.loads(path.read_text("utf-8"))
        means = data.get("calibration", {})
        players = " / ".join(f"{means[p]['mean']:,.0f} ± {means[p]['se']:,.0f}"
                             if p in means else "—" for p in ("pimc", "heuristic", "random"))
        edges = ", ".join(f"{b['name']} ≤ {b['up_to']:,.0f}" for b in data.get("bands", [])
                          if b["up_to"] != float("inf"))
        table = path.stem.removeprefix("rating-")
        rows.append(f"| {table} | {players} | {edges} | {data.get('cap', 0):.1f} | "
                    f"`{data.get('source', 'not recorded')}` |")
    if not rows:
        return ""
    return ("## Rating bands\n\n"
            "The performance rating's bands of each table (`docs/ANALYZE.md`, \"Performance "
            "rating\"): the search (`pimc`), heuristic and random players' mean ratings ± "
            "their standard errors over the calibration's pulkas, the bands' edges midway "
            "between them (`beginner` above the last), one decision's cap in whists, and the "
            "command that made them.\n\n"
            "| table | search / heuristic / random | bands | cap | made by |\n"
            "|---|---|---|---|---|\n" + "\n".join(rows) + "\n")


def minutes(seconds: float | None) -> str:
    """As the guide prints its times (the package is not imported here)."""
    if seconds is None:
        return "—"
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s"


def results_page() -> str:
    parts = [
        "# Results\n\n"
        "Generated at build time from the files committed under `reports/` (and any "
        "benchmark JSON beside them), so every figure here is the one the repository holds, "
        "with the version, command and date that made it. Rerun the command to reproduce "
        "a figure; the same seed, variant and version give the same data.\n"
    ]
    compare = ROOT / "reports" / "compare"
    if (compare / "compare_metrics.csv").is_file():
        facts = report_facts(compare / "report.md")
        parts.append("## Headline figures of the variants\n")
        version = f"prefstats {facts['version']}" if facts["version"] else (
            "the report records no version")
        parts.append(f"{facts['title']} ({version}; committed {facts['date']}); made by:\n")
        parts.extend(f"- `{c}`" for c in facts["commands"])
        parts.append(f"- then `prefstats compare {' '.join(facts['datasets'])} "
                     "--out reports/compare`\n")
        parts.append("Each figure: estimate [95 % interval]; shares in percent.\n")
        parts.append(metric_table(compare / "compare_metrics.csv"))
        if (compare / "compare_paired.png").is_file():
            parts.append("![Paired against unpaired intervals](reports/compare/"
                         "compare_paired.png)\n")
        parts.append("The whole comparison: [reports/compare/report.md]"
                     "(reports/compare/report.md).\n")
    parts.append(scale_section(ROOT / "reports" / "bench" / "scale.json"))
    parts.append("## The committed reports\n")
    parts.append("| report | version | date | made by |\n|---|---|---|---|")
    for report in sorted((ROOT / "reports").glob("*/report.md")):
        facts = report_facts(report)
        link = report.relative_to(ROOT).as_posix()
        commands = "<br>".join(f"`{c}`" for c in facts["commands"])
        parts.append(f"| [{facts['title']}]({link}) | {facts['version'] or '—'} | "
                     f"{facts['date']} | {commands} |")
    parts.append("")
    cold = ROOT / "reports" / "bench" / "cold_start.json"
    if cold.is_file():
        parts.append(cold_start_section(cold))
    parts.append(strength_section(ROOT / "reports" / "bench" / "strength.json"))
    parts.append(guides_section(ROOT))
    parts.append(rating_section(ROOT))
    found = sorted({p for pattern in RESULT_GLOBS for p in ROOT.glob(pattern)
                    if p.is_file() and not shown_as_guide(p)})
    parts.append("## Benchmarks and report data (JSON)\n")
    if found:
        parts.extend(json_section(p) for p in found)
    else:
        parts.append("No benchmark JSON is committed yet. `make bench` measures every hot "
                     "path against a baseline in the same run; a JSON file it writes under "
                     f"{', '.join(f'`{g}`' for g in RESULT_GLOBS)} appears here on the next "
                     "build.\n")
    return "\n".join(parts)
