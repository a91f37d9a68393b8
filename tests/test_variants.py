"""Variants: presets, overrides, TOML round trips and validation."""

import dataclasses
import tomllib
from fractions import Fraction

import pytest

from prefstats.game.variants import (
    PRESETS,
    Rate,
    Variant,
    get_variant,
    load_variant,
    load_variant_text,
)

OPTIONS = [f.name for f in dataclasses.fields(Variant) if f.name != "base"]
#: Every preset at each table size it is played at (Gusarik only two-handed).
TABLES = [(n, p) for n in PRESETS for p in ((2,) if n == "gusarik" else (3, 4, 5))]


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_to_toml_round_trip(tmp_path, name, players):
    v = get_variant(name, players=players)
    path = tmp_path / "v.toml"
    path.write_text(v.to_toml(), encoding="utf-8")
    assert load_variant(path) == v


def test_every_option_is_documented_and_written():
    text = get_variant("sochi").to_toml()
    for name in OPTIONS:
        assert Variant.describe(name)
        assert f"\n{name} = " in text
    assert set(tomllib.loads(text)) == {"base", *OPTIONS}


def _preset_text(name):
    from importlib import resources

    return tomllib.loads(
        resources.files("prefstats.game.presets").joinpath(f"{name}.toml").read_text("utf-8"))


def test_the_base_preset_sets_every_option():
    keys = set(_preset_text("base")) - {"four_players"}
    assert keys == set(OPTIONS) - {"players"}


@pytest.mark.parametrize("name", PRESETS)
def test_preset_files_say_only_what_differs_from_the_base(name):
    """Each preset is the base plus the options that make it itself."""
    base, own = _preset_text("base"), _preset_text(name)
    assert own.pop("base") == "base"
    base_four = {**base, **base.pop("four_players")}
    for table, under in ((own.pop("four_players", {}), base_four), (own, base)):
        for key, value in table.items():
            assert key in OPTIONS, key
            assert value != under.get(key), f"{name}: {key} repeats the base"


def test_four_players():
    assert get_variant("sochi", players=4).raspasy_talon == "dealer"
    assert get_variant("leningrad", players=4).raspasy_talon == "dealer"
    assert get_variant("rostov", players=4).raspasy_talon == "none"
    assert get_variant("sochi").raspasy_talon == "suit_lead"


def test_load_variant_overrides(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "sochi"\nwhist_split = "gentleman"\nwhist_rate = "2c"\n')
    v = load_variant(path)
    assert v.whist_split == "gentleman"
    assert v.whist_rate == Rate(Fraction(2), 0)
    assert v.base == "sochi" and v.remise_rate == get_variant("sochi").remise_rate


def test_variant_is_immutable_and_hashable():
    v = get_variant("rostov")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.hold = "none"
    assert hash(v) == hash(get_variant("rostov"))


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"colour": "red"}, "colour"),
        ({"hold": "junior"}, "hold"),
        ({"jump_bids": 1}, "jump_bids"),
        ({"half_whist": "yes"}, "half_whist"),
        ({"raspasy_exit": 5}, "raspasy_exit"),
        ({"whist_split": "fair"}, "whist_split"),
        ({"whist_rate": "c/3"}, "whist_rate"),
        ({"whist_rate": "x"}, "whist_rate"),
        ({"consolation_rate": -1}, "consolation_rate"),
        ({"misere_made": 1.5}, "misere_made"),
        ({"raspasy_rates": [1, 0]}, "raspasy_rates"),
        ({"raspasy_rates": [], "raspasy_whists": 0}, "raspasy_rates"),
        ({"raspasy_talon": "dealer"}, "raspasy_talon"),
        ({"raspasy_talon": "talon"}, "raspasy_talon"),
        ({"pool_value": 0}, "pool_value"),
        ({"pulka_end": "never"}, "pulka_end"),
        ({"misere_place": "bottom"}, "misere_place"),
        ({"misere_over_nine": "yes"}, "misere_over_nine"),
        ({"bomb_level": "doubled"}, "bomb_level"),
        ({"bomb_circles": "square"}, "bomb_circles"),
        ({"players": 6}, "players"),
        ({"base": "rostov"}, "base"),
    ],
)
def test_invalid_options_name_the_key(options, key):
    players = options.pop("players", 3)
    with pytest.raises(ValueError, match=rf"^{key}:"):
        get_variant("sochi", players=players, **options)


def test_unknown_preset_and_bad_files(tmp_path):
    with pytest.raises(ValueError, match=r"^base:"):
        get_variant("moscow")
    path = tmp_path / "v.toml"
    path.write_text('hold = "none"\n')
    with pytest.raises(ValueError, match=r"^base: missing"):
        load_variant(path)
    path.write_text('base = "sochi"\nstalingrad = "yes"\n')
    with pytest.raises(ValueError, match=r"^stalingrad:"):
        load_variant(path)
    path.write_text("base = \n")
    with pytest.raises(ValueError, match="TOML"):
        load_variant(path)


def test_rates():
    assert Rate.parse("c", "k").at(4) == 4
    assert Rate.parse("2c", "k").at(4) == 8
    assert Rate.parse("c/2", "k").at(6) == 3
    assert Rate.parse("3c/2", "k").halves(2) == 6
    assert Rate.parse(10, "k").at(8) == 10
    for text in ("c", "2c", "c/2", "3c/2"):
        assert str(Rate.parse(text, "k")) == text


@pytest.mark.parametrize("players", [3, 4])
def test_variants_show_prints_loadable_toml(tmp_path, players):
    from typer.testing import CliRunner

    from prefstats.cli import app

    result = CliRunner().invoke(app, ["variants", "show", "leningrad", "--players", str(players)])
    assert result.exit_code == 0, result.output
    path = tmp_path / "leningrad.toml"
    path.write_text(result.output, encoding="utf-8")
    assert load_variant(path) == get_variant("leningrad", players=players)
    shown = CliRunner().invoke(app, ["variants", "show", str(path)])
    assert shown.output == result.output
    result = CliRunner().invoke(app, ["variants", "show", "moscow"])
    assert result.exit_code != 0 and "unknown variant" in result.output


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_scoring_table(name, players):
    import numpy as np

    from prefstats.game import variants as V
    from prefstats.game.contracts import parse_contract

    v = get_variant(name, players=players)
    t = v.scoring_table()
    assert t is v.scoring_table() and t.dtype == np.int64 and not t.flags.writeable
    row = parse_contract("8♥").code * V.CONTRACT_FIELDS
    rates = [v.made_rate, v.whist_rate, v.remise_rate, v.consolation_rate, v.shortfall_rate]
    assert t[row : row + 5].tolist() == [r.halves(6) for r in rates]  # c(8) = 6
    assert t[row + V.C_LEVEL : row + V.C_QUOTA + 1].tolist() == [8, 1, 1]
    assert t[V.T_MISERE_MADE] == 2 * v.misere_made and t[V.T_PLAYERS] == players
    assert V.WHIST_SPLITS[t[V.T_WHIST_SPLIT]] == v.whist_split
    steps = t[V.T_RASPASY :].reshape(-1, 2)
    assert len(steps) == t[V.T_RASPASY_STEPS] == max(1, len(v.raspasy_rates))
    if v.raspasy_rates:  # the zero-trick pool is the step rate
        assert steps.tolist() == [[2 * r, 2 * r] for r in v.raspasy_rates]
    else:  # Rostov: no mountain, 1 into the pool
        assert steps.tolist() == [[0, 2]]
    for bomb in (2, 4, 8):  # a bomb raspasy's zero-trick pool: raspasy_zero_pool at 2, 4, 8
        halves = t[V.T_BOMB_ZERO_PER] * bomb + t[V.T_BOMB_ZERO_FIXED]
        assert halves == v.raspasy_zero_pool.halves(bomb)


@pytest.mark.parametrize(
    ("toml", "keys"),
    [
        ('raspasy_talon = "dealer"', ("raspasy_talon", "table")),
        ("bomb_rounds = 1", ("bomb_rounds", "blind_pass")),
        ("talon_whists = true", ("talon_whists", "table")),
        ('table = "dummy"', ("table", "players")),
        ("raspasy_rates = []\nraspasy_whists = 0", ("raspasy_rates", "raspasy_whists")),
        ("dark_misere_high = true", ("dark_misere_high", "dark_bids")),
        ('dark_bids = true\ndark_misere_high = true\nmisere_place = "top"',
         ("dark_misere_high", "misere_place")),
        ('misere_over_nine = true\nmisere_place = "top"', ("misere_over_nine", "misere_place")),
        ("blind_pass = true\nbomb_rounds = 9", ("bomb_rounds", "bomb_level")),
    ],
)
def test_a_forbidden_combination_names_both_keys(toml, keys):
    """A TOML combining options the spec forbids names both keys."""
    from prefstats.game.variants import load_variant_text

    with pytest.raises(ValueError) as err:
        load_variant_text(f'base = "sochi"\n{toml}\n')
    assert str(err.value).startswith(f"{keys[0]}:") and keys[1] in str(err.value)


def test_the_table_format_is_a_field_each_preset_sets():
    """docs/RULES.md §1: three (A:S2), dealer_out (B:233), dummy (B:380-386)."""
    from prefstats.game.codes import TableFormat
    from prefstats.game.variants import T_TABLE

    assert get_variant("sochi").table == "three"
    assert get_variant("classic", players=4).table == "dealer_out"
    gusarik = get_variant("gusarik")
    assert gusarik.table == "dummy" and gusarik.has_dummy and not gusarik.dealer_sits_out
    four = get_variant("rostov", players=4)
    assert four.dealer_sits_out and four.table_format == TableFormat.DEALER_OUT
    assert four.scoring_table()[T_TABLE] == TableFormat.DEALER_OUT
    assert "table = " in four.to_toml() and load_variant_text(four.to_toml()) == four


@pytest.mark.parametrize("players, table", [(3, "dummy"), (3, "dealer_out"), (4, "three")])
def test_a_table_that_does_not_seat_the_players_is_refused(players, table):
    with pytest.raises(ValueError, match=rf"table: '{table}' seats [\d or]+ players, not players"):
        get_variant("sochi", players=players, table=table)
    with pytest.raises(ValueError, match="table: 'round' is not one of"):
        get_variant("sochi", table="round")
