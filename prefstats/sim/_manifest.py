"""A dataset's ``manifest.json``: its spec and signature, the finished chunks' entries
(each its own file while a run goes), and the checks that refuse an edited or damaged
one."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from prefstats.errors import DatasetError
from prefstats.sim._chunks import CHUNK_FILE, atomic_write, chunk_name
from prefstats.sim._remote import Remote, location
from prefstats.sim._schema import SCHEMA_VERSION

FORMAT = "prefstats-dataset"
MANIFEST = "manifest.json"
#: Sub-datasets a dataset owns: ``simulate_pulkas(with_deals=True)`` writes ``deals/``.
SUBSETS = ("deals",)
DATASET_KINDS = ("deals", "pulkas", "pulka-deals", "decisions")
#: Kinds whose size is a number of deals (``hands``): deals, and counterfactual decisions
#: on them (:class:`prefstats.sim.rollout.DecisionSpec`).
DEAL_KINDS = ("deals", "decisions")
_PART = re.compile(r"manifest-\d{6,}\.json")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def size_key(spec: dict[str, Any]) -> str:
    """The spec's key of the dataset's size: ``hands`` for deals, else ``pulkas``."""
    return "hands" if spec.get("kind", "deals") in DEAL_KINDS else "pulkas"


def signature(spec: dict[str, Any]) -> str:
    """A short hash of everything that defines a dataset's rows, except how many there
    are: chunk ``k`` depends only on the rest and ``k``, so more deals keep it."""
    content = {k: v for k, v in spec.items() if k != size_key(spec)}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def chunk_units(spec: dict[str, Any], index: int) -> int:
    """The deals (or pulkas) chunk ``index`` covers in a dataset of ``spec``."""
    return max(0, min(spec["chunk_size"], spec[size_key(spec)] - index * spec["chunk_size"]))


def n_chunks(spec: dict[str, Any]) -> int:
    return -(-spec[size_key(spec)] // spec["chunk_size"])


_KEYS = {"format": str, "schema_version": int, "signature": str, "spec": dict,
         "variant_toml": str, "chunks": list}
_ENTRY_KEYS = {"index": int, "file": str, "rows": int, "units": int, "bytes": int,
               "sha256": str}


def typed(value: Any, kind: type) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def part_name(index: int) -> str:
    """The file of chunk ``index``'s manifest entry while its run is going."""
    return f"manifest-{index:06d}.json"


def write_entry(folder: Path | Remote, entry: dict[str, Any]) -> None:
    """List a finished chunk: its entry as its own file beside the manifest."""
    atomic_write(folder / part_name(entry["index"]), json.dumps(entry).encode())


def entry_files(folder: Path | Remote) -> list[Path | Remote]:
    return sorted((p for p in folder.iterdir() if _PART.fullmatch(p.name)),
                  key=lambda p: p.name)


def with_entries(folder: Path | Remote, manifest: dict[str, Any]) -> None:
    """Add to an unfinished run's manifest the entries of the chunks it finished since
    it was written; an entry it already holds is not added twice, a damaged one is kept
    as it reads (the checks then refuse it)."""
    chunks = manifest.get("chunks")
    if manifest.get("finished") is not None or not isinstance(chunks, list):
        return
    for p in entry_files(folder):
        try:
            entry = json.loads(p.read_bytes())
        except (ValueError, OSError):
            entry = p.name
        if entry not in chunks:
            chunks.append(entry)


def parse_manifest(folder: Path | Remote) -> dict[str, Any] | None:
    """The manifest of ``folder`` as written, with the entries of an unfinished run's
    chunks (``None`` when there is none), checked only to be a prefstats manifest of
    this schema version."""
    folder = location(folder)
    path = folder / MANIFEST
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        manifest = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: not a readable manifest ({exc}); it is damaged: "
                           "remake the dataset (--force deletes only its own files)") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DatasetError(f"{path}: not a prefstats dataset manifest")
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise DatasetError(
            f"{path}: a dataset of schema version {manifest.get('schema_version')}, but this "
            f"prefstats reads version {SCHEMA_VERSION}; "
            f"nothing was changed. Remake it with `{remake_command(folder, manifest)}` "
            "(--force deletes only the dataset's own files), or into another folder"
        )
    with_entries(folder, manifest)
    return manifest


def remake_command(folder: Path | Remote, manifest: dict[str, Any]) -> str:
    """The command line that makes the dataset of ``manifest`` afresh in ``folder`` (a
    pulka-deals dataset: its pulka dataset's, with ``--with-deals``)."""
    from prefstats.game.variants import get_variant
    from prefstats.players.builtin import resolve_params
    from prefstats.players.params import parameters

    spec: dict[str, Any] = manifest["spec"] if isinstance(manifest.get("spec"), dict) else {}
    kind = spec.get("kind", "deals")
    if kind == "pulka-deals":
        folder = folder.parent
    size = size_key(spec)
    words = {"deals": ["simulate"], "decisions": ["simulate-decisions"]}.get(
        kind, ["simulate-pulkas"])
    words.append(f"--{'pulkas' if size == 'pulkas' else 'hands'} {spec.get(size)}")
    rules: dict[str, Any] = spec["variant"] if isinstance(spec.get("variant"), dict) else {}
    try:
        preset = get_variant(rules["base"], players=rules["players"])
        words.append(f"--variant {preset.base}" if tomllib.loads(preset.to_toml()) == rules
                     else "--config VARIANT.toml")
        if preset.players != get_variant(preset.base).players:
            words[-1] += f" --players {preset.players}"
    except (KeyError, TypeError, ValueError):
        words.append("--config VARIANT.toml")
    if "--config VARIANT.toml" in words[-1]:
        words[-1] = "--config VARIANT.toml (the manifest's variant_toml)"
    if kind in ("pulkas", "pulka-deals"):
        words.append(f"--pool-target {spec.get('pool_target')}")
        if kind == "pulka-deals" or (folder / SUBSETS[0] / MANIFEST).exists():
            words.append("--with-deals")
    if kind == "decisions":
        words.append(f"--decisions {','.join(spec.get('decisions', {}))}")
    words += [f"--seed {spec.get('seed')}", f"--chunk-size {spec.get('chunk_size')}"]
    players: dict[str, Any] = spec["players"] if isinstance(spec.get("players"), dict) else {}
    policy = players.get("policy", "heuristic")
    if policy != "heuristic":
        words.append(f"--policy {policy}")
    params = players.get("params") or {}
    try:
        default = dict(zip(parameters(policy), resolve_params(policy, None).tolist(),
                           strict=True))
    except (KeyError, ValueError):
        default = {}
    words += [f"--param {k}={v}" for k, v in params.items() if default.get(k) != v]
    return " ".join(["prefstats", *words, f"--out {folder}", "--force"])


def check_spec(path: Path | Remote, manifest: dict[str, Any]) -> None:
    """Refuse a manifest whose required keys, spec or variant are missing, malformed or
    inconsistent with its run signature (``path`` names it in the message)."""
    for key, kind in _KEYS.items():
        if key not in manifest:
            raise DatasetError(f"{path}: no {key!r} key; the manifest is damaged: remake "
                               "the dataset, or rerun its command to rewrite it")
        if not typed(manifest[key], kind):
            raise DatasetError(f"{path}: {key!r} is not a {kind.__name__}; the manifest "
                               "is damaged")
    spec = manifest["spec"]
    if spec.get("kind") not in DATASET_KINDS:
        raise DatasetError(f"{path}: spec kind {spec.get('kind')!r} is not one of {DATASET_KINDS}")
    for key in (size_key(spec), "chunk_size"):
        if not typed(spec.get(key), int) or spec[key] < 1:
            raise DatasetError(f"{path}: spec {key!r} must be a positive integer, got "
                               f"{spec.get(key)!r}")
    if signature(spec) != manifest["signature"]:
        raise DatasetError(f"{path}: the spec does not match the run signature: it was "
                           "edited (relabelled data); rerun the command that made the "
                           "dataset to rewrite its manifest, or remake it")
    try:
        variant = tomllib.loads(manifest["variant_toml"])
    except tomllib.TOMLDecodeError:
        variant = None
    if variant != spec.get("variant"):
        raise DatasetError(f"{path}: 'variant_toml' does not match the spec's variant (edited); "
                           "rerun the command that made the dataset to rewrite its manifest")


def entry_shape(entry: Any) -> str | None:
    """Why a manifest's chunk entry is malformed, or ``None``."""
    if not isinstance(entry, dict):
        return f"chunk entry {entry!r} is not an object"
    for key, kind in _ENTRY_KEYS.items():
        if not typed(entry.get(key), kind):
            return f"chunk entry {entry.get('index', '?')} has no valid {key!r}"
    index = entry["index"]
    if index < 0 or entry["file"] != chunk_name(index):
        return (f"chunk entry {index} names {entry['file']!r}, not the dataset's own file "
                f"{chunk_name(index)} (chunk paths are plain names inside the dataset)")
    if entry["rows"] < 0 or entry["bytes"] < 0 or not _HEX64.fullmatch(entry["sha256"]):
        return f"chunk entry {index} has a malformed rows, bytes or sha256"
    return None


def entry_problem(entry: Any, spec: dict[str, Any]) -> str | None:
    """Why a manifest's chunk entry is malformed for a dataset of ``spec``, or ``None``."""
    problem = entry_shape(entry)
    if problem:
        return problem
    index = entry["index"]
    if index >= n_chunks(spec):
        return f"chunk entry {index} lies beyond the {spec[size_key(spec)]:,} {_unit(spec)}"
    if entry["units"] != chunk_units(spec, index):
        return (f"chunk entry {index} covers {entry['units']:,} {_unit(spec)}, not "
                f"{chunk_units(spec, index):,}")
    return None


def check_manifest(folder: Path | Remote, manifest: dict[str, Any]) -> None:
    """Refuse a manifest that is damaged, edited or lists a chunk twice."""
    path = location(folder) / MANIFEST
    check_spec(path, manifest)
    seen: set[int] = set()
    for entry in manifest["chunks"]:
        problem = entry_problem(entry, manifest["spec"])
        if problem is None and entry["index"] in seen:
            problem = f"chunk {entry['index']} is listed twice"
        if problem:
            raise DatasetError(f"{path}: {problem}; the manifest was edited or damaged: "
                               "rerun the command that made the dataset to rewrite it")
        seen.add(entry["index"])


def read_manifest(folder: Path | Remote) -> dict[str, Any] | None:
    """The validated manifest of ``folder``, ``None`` when there is none."""
    manifest = parse_manifest(folder)
    if manifest is not None:
        check_manifest(location(folder), manifest)
    return manifest


def write_manifest(folder: Path | Remote, manifest: dict[str, Any]) -> None:
    atomic_write(location(folder) / MANIFEST, json.dumps(manifest, indent=1).encode())


def manifest_of(path: str | Path | Remote) -> dict[str, Any]:
    """The validated manifest of the dataset at ``path`` (raises if there is none)."""
    manifest = read_manifest(location(path))
    if manifest is None:
        raise DatasetError(f"{path}: no {MANIFEST}; not a prefstats dataset")
    return manifest


def _unit(spec: dict[str, Any]) -> str:
    return "deals" if spec.get("kind", "deals") in DEAL_KINDS else "pulkas"


def progress(manifest: dict[str, Any]) -> tuple[int, int]:
    """``(finished, asked)``: the deals (or pulkas) of the finished chunks and of the spec."""
    spec = manifest["spec"]
    return sum(e["units"] for e in manifest["chunks"]), spec[size_key(spec)]


def describe(manifest: dict[str, Any]) -> str:
    """The dataset's size in words: ``"40,000 deals"``, or ``"unfinished: 16,000 of
    40,000 deals"`` for a run that did not finish."""
    done, asked = progress(manifest)
    unit = _unit(manifest["spec"])
    return f"{asked:,} {unit}" if done == asked else f"unfinished: {done:,} of {asked:,} {unit}"


def lenient_manifest(path: Path | Remote) -> dict[str, Any] | None:
    """The manifest at ``path`` if it is one of prefstats (any schema version), else None."""
    try:
        manifest = json.loads(path.read_bytes())
    except (ValueError, OSError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == FORMAT else None


def says_prefstats(path: Path | Remote) -> bool:
    return lenient_manifest(path) is not None


def listed_files(folder: Path | Remote) -> set[str]:
    """The chunk files the manifest of ``folder`` (and its chunks' entries) list by a
    plain chunk name, however damaged the rest of it is: files prefstats wrote there."""
    folder = location(folder)
    manifest = lenient_manifest(folder / MANIFEST) or {}
    chunks = manifest.get("chunks")
    if isinstance(chunks, list):
        with_entries(folder, {"chunks": chunks, "finished": None})
    return listed_in(manifest)


def listed_in(manifest: dict[str, Any]) -> set[str]:
    """The chunk files ``manifest`` lists by a plain chunk name."""
    chunks = manifest.get("chunks")
    return {e["file"] for e in chunks if isinstance(e, dict) and isinstance(e.get("file"), str)
            and CHUNK_FILE.fullmatch(e["file"])} if isinstance(chunks, list) else set()
