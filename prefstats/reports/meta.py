"""What a report says about its datasets: the variant in words (preset plus every
override), the command that remakes each dataset, and the checks that a dataset is of
the kind and variant a report expects.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prefstats.game.variants import (
    Variant,
    get_variant,
    overrides,
    overrides_toml,
    variant_from_mapping,
)
from prefstats.players.params import PARAMETERS
from prefstats.sim.storage import DatasetError, manifest_of


def dataset_variant(path: str | Path, manifest: Mapping[str, Any]) -> Variant:
    """The variant a dataset was made with, from its manifest."""
    try:
        return variant_from_mapping(manifest["spec"]["variant"])
    except (KeyError, TypeError, ValueError) as exc:
        raise DatasetError(f"{path}: the manifest's variant is not valid ({exc}); remake the "
                           "dataset") from None


def expect_kind(path: str | Path, manifest: Mapping[str, Any], kind: str, hint: str) -> None:
    """Refuse a dataset of the wrong kind (deals or pulkas) by name."""
    found = manifest["spec"].get("kind", "deals")
    if found != kind:
        raise DatasetError(f"{path}: a dataset of {found}, not of {kind}; {hint}")


def deal_dataset(path: str | Path, hint: str) -> tuple[dict[str, Any], Variant]:
    """The manifest and variant of the deal dataset at ``path`` (refused with ``hint``
    if of pulkas)."""
    manifest = manifest_of(path)
    expect_kind(path, manifest, "deals", hint)
    return manifest, dataset_variant(path, manifest)


def config_name(variant: Variant) -> str:
    """The file name a report gives the variant file of a variant with overrides
    (distinct variants get distinct names)."""
    digest = hashlib.sha1(overrides_toml(variant).encode()).hexdigest()[:6]
    return f"variant-{variant.base}-{variant.players}p-{digest}.toml"


def own_table(variant: Variant) -> bool:
    """Whether the variant is played by its preset's number of players."""
    return variant.players == get_variant(variant.base).players


def short_name(variant: Variant) -> str:
    """A chart title's name of the variant: its preset, the table size when not the
    preset's, and "house rules" when it overrides the preset."""
    name = variant.base.capitalize()
    if not own_table(variant):
        name += f" ({variant.players} players)"
    return name + (" + house rules" if overrides(variant) else "")


def remake_command(spec: Mapping[str, Any], variant: Variant) -> str:
    """The ``prefstats simulate`` (or ``simulate-pulkas``) command that remakes a dataset
    of ``spec``: ``--config FILE`` (see :func:`config_name`) when the variant overrides
    its preset, ``--param`` for every player parameter that is not the default."""
    size = (f"simulate-pulkas --pulkas {spec['pulkas']} --pool-target {spec['pool_target']}"
            if spec.get("kind") == "pulkas" else f"simulate --hands {spec['hands']}")
    rules = (f"--config {config_name(variant)}" if overrides(variant)
             else f"--variant {variant.base} --players {variant.players}")
    players = spec["players"]
    params = "".join(f" --param {k}={v:g}" for k, v in players.get("params", {}).items()
                     if k in PARAMETERS and v != PARAMETERS[k][1])
    return (f"prefstats {size} {rules} --seed {spec['seed']} --policy {players['policy']}"
            f"{params}")


def variant_files(*variants: Variant) -> dict[str, str]:
    """The variant files the remake commands of ``variants`` name, by file name."""
    return {config_name(v): overrides_toml(v) for v in variants if overrides(v)}
