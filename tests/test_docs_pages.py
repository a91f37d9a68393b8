"""The documentation cites only files the repository has, and every page is in the nav."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path, PurePosixPath

import pytest

from prefstats.reports import manifest

ROOT = Path(__file__).resolve().parents[1]
#: Folders whose files a page cites as sources; ``data/`` and ``reports/`` are checked
#: too, except under a folder the page's own commands write (``--out``).
SOURCE_ROOTS = ("prefstats", "tests", "docs", "scripts", "examples", "notebooks", "data",
                "reports")
#: A cited file: a path in backticks or a Markdown link, optionally ``::test_name``.
CITED = re.compile(r"`([^`\s]+)`|\]\(([^)\s#]+)")
#: Bare names that can only be the repository's own files (CHANGELOG.md, test_x.py).
OWN_NAME = re.compile(r"^(?:[A-Z][A-Z0-9_-]*\.md|test_\w+\.py|\w+\.(?:py|toml))$")
#: A placeholder in a path (``reports/VARIANT-4p/``, ``OUT/x``, ``<name>``, ``*.json``).
PLACEHOLDER = re.compile(r"[<>{}*$~]|(?:^|/)[A-Z]{2,}(?:-[a-z0-9]+)?/")
#: The pages the docs hook writes when the site is built (docs/hooks.py).
GENERATED = ("API.md", "results.md")


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return [f for f in out.stdout.splitlines() if (ROOT / f).exists()]


def pages(files: list[str]) -> list[str]:
    """The pages a reader reads: the README and the site's sources (CHANGELOG is history;
    the seed texts are quoted sources)."""
    return [f for f in files if f == "README.md" or
            (f.startswith("docs/") and f.endswith(".md") and not f.startswith("docs/seeds/"))]


def dangling(page: str, text: str, files: list[str]) -> list[str]:
    """The files ``text`` (the page ``page``) cites that the repository lacks."""
    paths = set(files) | {str(p) for f in files for p in PurePosixPath(f).parents}
    names = {PurePosixPath(f).name for f in files}
    written = tuple(re.findall(r"--out[ =]([^\s`]+)", text))
    here = PurePosixPath(page).parent
    missing = []
    for match in CITED.finditer(text):
        token = (match.group(1) or match.group(2)).split("::")[0].rstrip(".,;:)")
        path = token.rstrip("/")
        if not path or PLACEHOLDER.search(path + "/") or "://" in path:
            continue
        if "/" in path and path.split("/")[0] in SOURCE_ROOTS:
            if path.startswith(written) or path in paths:
                continue
        elif match.group(2) and not page.startswith("docs/"):  # mkdocs checks the site's
            if str(here / path) in paths or path in paths:
                continue
        elif "/" not in path and OWN_NAME.match(path):
            if path in names:
                continue
        else:
            continue
        missing.append(token)
    return missing


def _drawn(files: list[str]) -> list[str]:
    """The pictures `make reports` draws from the committed charts.json files (the docs
    are built after it)."""
    return [f"{PurePosixPath(f).parent}/{e['name']}.{ext}" for f in files
            if PurePosixPath(f).name == manifest.NAME
            for e in manifest.read(ROOT / PurePosixPath(f).parent)["charts"]
            for ext in ("png", "svg", "pdf")]


def test_no_page_cites_a_file_the_repository_lacks():
    files = tracked()
    known = files + [f"docs/{page}" for page in GENERATED] + _drawn(files)
    found = {page: dangling(page, (ROOT / page).read_text("utf-8"), known)
             for page in pages(files)}
    assert not {p: m for p, m in found.items() if m}


def test_a_cited_test_exists_in_its_file():
    files = tracked()
    missing = []
    for page in pages(files):
        text = (ROOT / page).read_text("utf-8")
        for file, name in re.findall(r"(test_\w+\.py)::(test_[\w*]+)", text):
            source = ROOT / "tests" / file
            body = source.read_text("utf-8") if source.is_file() else ""
            pattern = "def " + re.escape(name).replace(r"\*", r"\w*")
            if not re.search(pattern if name.endswith("*") else pattern + r"\b", body):
                missing.append(f"{page}: {file}::{name}")
    assert not missing


def test_the_citation_check_finds_a_missing_file():
    files = ["docs/a.md", "prefstats/x.py", "tests/test_x.py"]
    text = ("See `prefstats/x.py`, `prefstats/gone.py`, `SEED-AUDIT.md`, `test_x.py`, "
            "`test_y.py::test_z`, `reports/VARIANT-4p/`, `result.json`, [b](b.md), "
            "`prefstats report d --out reports/mine` then `reports/mine/index.html`.")
    assert dangling("README.md", text, files) == ["prefstats/gone.py", "SEED-AUDIT.md",
                                                 "test_y.py", "b.md"]


def nav_pages(nav) -> set[str]:
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, list):
        return set().union(*map(nav_pages, nav)) if nav else set()
    if isinstance(nav, dict):
        return set().union(*map(nav_pages, nav.values())) if nav else set()
    return set()


def test_every_page_is_in_the_nav_and_mkdocs_is_told_to_check_it():
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "mkdocs.yml").read_text("utf-8")
    config = yaml.load(re.sub(r"!!python/\S+ \{[^}]*\}", "null", text), Loader=yaml.SafeLoader)
    assert config["validation"]["nav"]["omitted_files"] == "warn"
    assert config["strict"] is True
    listed = nav_pages(config["nav"])
    generated = {p for p in listed if not (ROOT / "docs" / p).is_file()}
    assert all(p.startswith("reference/") or p in GENERATED for p in generated)
    written = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")
               if "seeds" not in p.parts}
    assert written - listed == set()


def test_the_layers_picture_shows_the_import_contract_in_its_order():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    layers = contracts["tool"]["importlinter"]["contracts"][0]["layers"]
    picture = (ROOT / "docs" / "explanation" / "layers.svg").read_text("utf-8")
    shown = re.findall(r">(prefstats\.[a-z]+)</text>", picture)
    assert [name for name in shown if name in layers] == layers


def test_no_docstring_or_comment_cites_a_source_file_the_repository_lacks():
    files = tracked()
    paths = set(files) | {str(p) for f in files for p in PurePosixPath(f).parents}
    cited = re.compile(r"`((?:prefstats|docs|tests|scripts)/[^`\s]+)`")
    missing = [f"{f}: {path}" for f in files if f.startswith("prefstats/") and f.endswith(".py")
               for path in cited.findall((ROOT / f).read_text("utf-8"))
               if not PLACEHOLDER.search(path + "/") and path.rstrip("/") not in paths]
    assert not missing
