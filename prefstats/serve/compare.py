"""Compare: the rule-comparison article of ``prefstats compare`` over the variants a
request picks, made as a job in the server's data folder and served from it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from prefstats.errors import OptionError
from prefstats.serve import inputs

#: A comparison's folder under the data folder: its name is its key.
_KEY = re.compile(r"[0-9a-f]{32}")
#: The files of an article the server hands out.
_FILE = re.compile(r"[\w.-]+\.(html|png|svg|pdf|csv|json|md|toml)")
#: Most variants one comparison may hold.
MAX_VARIANTS = 6


def compare_variants(names: Sequence[str], players: int | None, folder: Path) -> list:
    """The rules of each named variant (a preset, at ``players`` when given, or an
    uploaded house variant), two to :data:`MAX_VARIANTS` and none twice."""
    if not 2 <= len(names) <= MAX_VARIANTS:
        raise OptionError(f"variants: 2 to {MAX_VARIANTS} variants to compare, got {len(names)}")
    if len(set(names)) != len(names):
        raise OptionError("variants: a variant is named twice")
    if players is not None and players not in (3, 4):
        raise OptionError(f"players: 3 or 4, got {players}")
    return [inputs.variant(name, players, folder) for name in names]


def compare_work(rules: Sequence, out: Path, *, deals: int, pulkas: int, pool_target: int,
                 seed: int, command: str):
    """The job writing the article over ``rules`` into ``out/article``: each variant's
    deals and pulkas simulated in turn (a step each), then the article."""
    from prefstats.reports.article import article_report, make_datasets
    from prefstats.reports.render import write_report

    sets = []
    for i, variant in enumerate(rules):
        yield i / (len(rules) + 1), None
        # a folder a variant: two house variants of one preset must not share one
        sets += make_datasets(out / "data" / str(i), deals=deals, pulkas=pulkas,
                              pool_target=pool_target, seed=seed, variants=[variant],
                              workers=1, progress=False)
    yield len(rules) / (len(rules) + 1), None
    write_report(article_report(sets, command), out / "article")
    return {"variants": [s.label for s in sets], "deals": deals, "pulkas": pulkas,
            "seed": seed, "page": f"/compare/{out.name}/index.html"}


def article_file(folder: Path, key: str, name: str) -> Path:
    """A file of a comparison's article, by names the server checks (never a path given)."""
    path = folder / key / "article" / name
    if not (_KEY.fullmatch(key) and _FILE.fullmatch(name)) or not path.is_file():
        raise OptionError(f"file: no article file {key}/{name} on this server")
    return path
