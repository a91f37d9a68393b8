"""Game records: a whole pulka in JSON and text, round-tripped, replayed on the sheet and
refused with the file, deal and field when corrupt; analysed end to end."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefstats.analysis.game import (
    DECISION_TYPES,
    analyze_game,
    dump_game_json,
    dump_game_text,
    load_game,
    place_of,
    play_game,
    player_losses,
    replay_game,
)
from prefstats.analysis.game_record import GameRecord, parse_game_json, parse_game_text
from prefstats.errors import RecordError
from prefstats.game.cards import format_cards, parse_cards
from prefstats.game.scoring import sheet_from_records

EXAMPLE = Path(__file__).parents[1] / "examples" / "pulka.json"


@pytest.fixture(scope="module")
def game() -> GameRecord:
    return load_game(EXAMPLE)


def test_the_json_and_text_examples_are_the_same_game(game):
    assert load_game(EXAMPLE.with_suffix(".txt")) == game


def test_both_forms_round_trip(game):
    assert parse_game_json(dump_game_json(game)) == game
    assert parse_game_text(dump_game_text(game)) == game


_text = st.text(st.characters(codec="utf-8", exclude_characters="\n\r|,#:",
                              exclude_categories=("Cc", "Cs", "Zl", "Zp")),
                min_size=1, max_size=12).map(str.strip).filter(bool)


@settings(max_examples=40, deadline=None)
@given(names=st.lists(_text, min_size=3, max_size=3), comment=st.none() | _text,
       target=st.none() | st.integers(1, 50), take=st.integers(1, 19), half=st.booleans())
def test_any_game_round_trips(game, names, comment, target, take, half):
    header = {"variant": "sochi", "names": names}
    if comment is not None:
        header["comment"] = comment
    if target is not None:
        header["pool_target"] = target
    deals = copy.deepcopy(game.deals[:take])
    if half:
        deals[-1]["mountain"] = [0.5, 2, 3]
    g = GameRecord(header, deals)
    assert parse_game_json(dump_game_json(g)) == g
    assert parse_game_text(dump_game_text(g)) == g


def test_the_example_has_a_misere_and_a_raspasy(game):
    kinds = {d.get("contract", "raspasy") for d in game.deals}
    assert "raspasy" in kinds and "misère" in kinds and len(game.deals) >= 6


def test_the_sheet_is_the_deals_recorded_in_order(game):
    replayed = replay_game(game)
    # A misère: the declarer is credited its price, 10, in his pool when he takes no
    # trick, else 10 a trick on his mountain (Sochi); nothing else moves for him.
    k = next(i for i, d in enumerate(game.deals) if d.get("contract") == "misère")
    declarer = place_of(k, int(replayed.finals[k][0]["declarer"]))
    taken = int(replayed.finals[k][0]["tricks"][int(replayed.finals[k][0]["declarer"])])
    before = replayed.scores[k - 1] if k else {"pool": [0] * 3, "mountain": [0] * 3}
    after = replayed.scores[k]
    assert after["pool"][declarer] - before["pool"][declarer] == (0 if taken else 10)
    assert after["mountain"][declarer] - before["mountain"][declarer] == 10 * taken
    # The same outcomes through the score sheet's own file reader, deal by deal.
    outcomes = []
    for k, final in enumerate(replayed.finals):
        f = final[0]
        tricks = [0, 0, 0]
        for s in range(3):
            tricks[place_of(k, s)] = int(f["tricks"][s])
        declarer = place_of(k, int(f["declarer"]))
        contract = game.deals[k].get("contract")
        if contract is None:
            outcomes.append({"type": "raspasy", "tricks": tricks})
        elif contract == "misère":
            outcomes.append({"type": "misere", "declarer": declarer, "tricks": tricks[declarer]})
        else:
            calls = game.deals[k]["whist"]
            whist = {str(place_of(k, int(f["declarer"]) + 1 + i)): c
                     for i, c in enumerate(calls)}
            outcomes.append({"type": "game", "declarer": declarer, "contract": contract,
                             "tricks": tricks, "whist": whist})
    sheet = sheet_from_records({"variant": "sochi", "pool_target": game.header["pool_target"],
                                "deals": outcomes})
    assert sheet.settle().tolist() == pytest.approx(replayed.sheet.settle().tolist())
    assert replayed.sheet.settle().round(2).tolist() == game.header["result"]


def test_a_deal_after_the_end_of_the_pulka_is_refused():
    ended = play_game(["heuristic"] * 3, 40, seed=1, pool_target=2)
    assert replay_game(ended).sheet.finished
    extra = {**copy.deepcopy(ended.deals[0]), "deal": len(ended.deals) + 1}
    for key in ("pool", "mountain", "whists"):
        del extra[key]
    text = _corrupt(ended, lambda d: d["deals"].append(extra))
    with pytest.raises(RecordError, match=rf"deal {len(ended.deals) + 1}.*the pulka was over"):
        replay_game(parse_game_json(text, "pulka.json"))


def _corrupt(game: GameRecord, edit) -> str:
    data = {**game.header, "deals": copy.deepcopy(game.deals)}
    edit(data)
    return json.dumps(data, ensure_ascii=False, indent=1)


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda d: d["deals"][2]["mountain"].__setitem__(0, 99),
     r"pulka\.json deal 3 line \d+, mountain: the written score disagrees"),
    (lambda d: d.__setitem__("result", [0, 0, 0]),
     r"pulka\.json line \d+, result: the written score disagrees"),
    (lambda d: d["deals"].pop(3),
     r"pulka\.json deal 5 line \d+, deal: deal 4 is missing"),
    (lambda d: d["deals"][0].__setitem__("bid", "6♠"),
     r"pulka\.json deal 1 line \d+, bid: unknown field"),
])
def test_a_corrupt_record_names_the_file_deal_and_field(game, edit, expected):
    with pytest.raises(RecordError, match=expected):
        replay_game(parse_game_json(_corrupt(game, edit), "pulka.json"))


def test_a_repeated_card_across_hands_is_refused(game):
    def repeat(d):
        hands = d["deals"][1]["hands"]
        h0, h1 = parse_cards(hands[0]), parse_cards(hands[1])
        hands[1] = format_cards(h1 & ~(h1 & -h1) | (h0 & -h0))

    with pytest.raises(RecordError, match=r"pulka\.json deal 2 line \d+, hands\[1\]: repeated "
                                          r"card: .* is also in hands\[0\]"):
        replay_game(parse_game_json(_corrupt(game, repeat), "pulka.json"))


def test_the_text_form_names_its_lines(game):
    text = dump_game_text(game).replace("deal 4\n", "deal 5\n", 1)
    line = text.splitlines().index("deal 5") + 1
    with pytest.raises(RecordError, match=rf"pulka\.txt deal 5 line {line}, deal: deal 4 is "
                                          rf"missing"):
        parse_game_text(text, "pulka.txt")


def test_the_game_is_analysed_deal_by_deal(game):
    m = next(i for i, d in enumerate(game.deals) if d.get("contract") == "misère")
    short = GameRecord({"variant": "sochi", "names": game.names()}, [
        {k: v for k, v in d.items() if k not in ("pool", "mountain", "whists")} | {"deal": n}
        for n, d in enumerate([game.deals[m], game.deals[0]], 1)])
    declarer = int(replay_game(short).finals[0][0]["declarer"])  # deal 1: seat = place
    seen = []
    frame = analyze_game(short, deals=4, progress=lambda k, done, total: seen.append(k))
    assert sorted(set(frame["deal"])) == [1, 2] and set(seen) == {1, 2}
    assert set(frame["type"]) <= set(DECISION_TYPES)
    misere = frame.filter(frame["deal"] == 1)
    catching = misere.filter(misere["type"] == "misère catching")
    assert catching.height > 0 and set(catching["player"]) <= {0, 1, 2} - {declarer}
    own = misere.filter((misere["player"] == declarer) & (misere["decision"] == "card"))
    assert "misère catching" not in own["type"].to_list()
    by_type, totals = player_losses(frame, short.names())
    assert totals["loss"].sum() == pytest.approx(frame["loss"].drop_nulls().sum())
    assert by_type["decisions"].sum() == totals["decisions"].sum()


def test_the_command_line_analyses_a_game_and_writes_its_tables(game, tmp_path):
    from typer.testing import CliRunner

    from prefstats.cli import app

    short = GameRecord({"variant": "sochi", "names": game.names()}, game.deals[:1])
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "short.txt").write_text(dump_game_text(short), "utf-8")
    (folder / "deal.json").write_text((EXAMPLE.parent / "deal.json").read_text("utf-8"),
                                      "utf-8")  # one deal, not a game: left alone
    result = CliRunner().invoke(app, ["analyze", str(folder), "--deals", "4",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "Anna:" in result.output and "decisions with a choice" in result.output
    assert "= luck" in result.output and "rating" in result.output
    assert (tmp_path / "out" / "summary_games.csv").exists()
    out = tmp_path / "out" / "short"  # a folder's game: its own subfolder
    tables = {"decisions", "losses", "players", "score", "timeline", "mistakes", "leads"}
    assert {p.name for p in out.iterdir()} >= {f"{t}.{x}" for t in tables
                                               for x in ("csv", "parquet")} | {
        "index.html", "report.md", "timeline.png", "players.png", "train.json", "train.html",
        "result.json"}
    import polars as pl

    players = pl.read_csv(out / "players.csv")
    assert players["name"].to_list() == game.names()
    assert players["result"].sum() == pytest.approx(0, abs=1e-6)
    assert (players["luck"] + players["own"] + players["others"]).to_list() == pytest.approx(
        players["result"].to_list())
    page = (out / "index.html").read_text("utf-8")
    assert "Loss by decision type" in page and "The worst mistakes" in page
    assert "href='train.html'" in page  # the mistakes to practise, beside the page


def test_the_command_line_refuses_a_corrupt_game(game, tmp_path):
    from typer.testing import CliRunner

    from prefstats.cli import app

    path = tmp_path / "bad.json"
    path.write_text(_corrupt(game, lambda d: d["deals"].pop(1)), "utf-8")
    result = CliRunner().invoke(app, ["analyze", str(path)])
    assert result.exit_code != 0
    assert "bad.json deal 3" in result.output and "deal 2 is missing" in result.output
