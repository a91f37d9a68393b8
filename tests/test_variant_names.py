"""A variant named by its preset and every override: the words reports print,
the shortest file that remakes it, and the options that differ between variants."""

from __future__ import annotations

import dataclasses

import pytest

from prefstats.game.variants import (
    PRESETS,
    Variant,
    describe,
    differences,
    get_variant,
    load_variant_text,
    overrides,
    overrides_toml,
)


@pytest.mark.parametrize("name", PRESETS)
def test_a_preset_has_no_overrides(name):
    v = get_variant(name)
    assert overrides(v) == {} and describe(v) == name.capitalize()
    assert load_variant_text(overrides_toml(v)) == v


def test_every_override_is_named():
    v = get_variant("classic", players=4, stalingrad=True, whist_rate="2c",
                    raspasy_rates=[1, 1], whist_split="greedy")
    found = overrides(v)
    preset = get_variant("classic", players=4)
    for f in dataclasses.fields(Variant):
        if f.name not in ("base", "players"):
            assert (f.name in found) == (getattr(v, f.name) != getattr(preset, f.name))
    assert describe(v).startswith("Classic, 4 players, with ")
    for key in found:
        assert key in describe(v)
    assert load_variant_text(overrides_toml(v)) == v


def test_differences_between_variants():
    found = differences({"S": get_variant("sochi"), "L": get_variant("leningrad")})
    assert found["base"] == {"S": '"sochi"', "L": '"leningrad"'}
    assert found["whist_split"] == {"S": '"greedy"', "L": '"gentleman"'}
    assert "players" not in found
    assert differences({"a": get_variant("rostov"), "b": get_variant("rostov")}) == {}
