"""`prefstats analyze`: one played deal's decisions against their best alternatives.

The card values are checked against plain minimax on the last tricks, an optimal line
(finished by minimax) loses nothing, a known blunder loses what the scoring says, every
kind of bad record is refused naming its line and field, and the example file runs end
to end through the command line.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from prefstats.analysis.analyze import (
    RecordError,
    _matches,
    _unforced,
    analyze,
    load_record,
    max_bid_levels,
    parse_record,
    replay,
)
from prefstats.analysis.layouts import tricks_to_whists
from prefstats.cli import app
from prefstats.game import engine
from prefstats.game.auction import PASS, W_WHIST
from prefstats.game.cards import card_name, parse_cards
from prefstats.game.contracts import MISERE, N_CONTRACTS, TRUMP, parse_contract
from prefstats.game.scoring import GAME, deal_values, score_batch
from prefstats.game.variants import get_variant
from tests.solver_checks import minimax_cards

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "deal.json"
SOCHI = get_variant("sochi")
#: The example's one blunder: Vera (seat 2) drops K♠ under the ace at trick 0, where
#: 9♠ keeps the declarer to six tricks.
BLUNDER = "play[0][2]"


@pytest.fixture(scope="module")
def example() -> dict:
    return json.loads(EXAMPLE.read_text("utf-8"))


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return analyze(load_record(EXAMPLE), deals=40)


def record(data: dict) -> object:
    return parse_record(json.dumps(data, ensure_ascii=False, indent=1), "deal.json")


def cards_row(frame: pl.DataFrame, field: str, decision: str | None = None) -> dict:
    rows = frame.filter(pl.col("field") == field)
    if decision is not None:
        rows = rows.filter(pl.col("decision") == decision)
    (row,) = rows.to_dicts()
    return row


# ---- card play against brute force ---------------------------------------------------


def end_position_checks(data: dict, from_trick: int) -> int:
    """Compare every card row from ``from_trick`` on with plain minimax; the number of
    decisions checked."""
    steps, _ = replay(record(data), SOCHI)
    frame = analyze(record(data), deals=1)
    checked = 0
    for i, step in enumerate(steps):
        st = step.state[0]
        if step.phase != engine.PLAY or int(st["trick"]) < from_trick:
            continue
        rows = frame.filter((pl.col("step") == i) & (pl.col("decision") == "card"))
        if not step.legal & (step.legal - 1):
            assert rows.height == 0  # one legal card: no decision
            continue
        decl = int(st["declarer"])
        brute = minimax_cards([int(h) for h in st["hands"]],
                              np.asarray(st["trick_cards"][:3], dtype=np.int64),
                              int(st["n_in_trick"]), int(st["leader"]), decl,
                              int(TRUMP[int(st["contract"])]), False)
        got = {a["option"]: a["tricks"] for a in rows.to_dicts()[0]["alternatives"]}
        assert got == {card_name(c): int(st["tricks"][decl]) + t for c, t in brute.items()}
        checked += 1
    return checked


def test_card_values_match_brute_force_on_the_last_tricks(example):
    assert end_position_checks(example, from_trick=6) >= 6


def test_card_whists_follow_the_contracts_scoring(frame):
    """Each card's value in whists is the scoring of the declarer's tricks after it, for
    the seat's side (the two defenders together): the blunder's K♠ gives the declarer 7
    tricks, 9♠ holds him to 6, the trick coming off the seat that played it (Vera)."""
    row = cards_row(frame, BLUNDER)
    assert (row["done"], row["tricks_done"]) == ("K♠", 7)
    assert (row["best"], row["tricks_best"]) == ("9♠", 6)
    six, seven = deal_values(SOCHI, *score_batch(
        SOCHI, GAME, 0, parse_contract("6♠").code, [[6, 2, 2], [7, 2, 1]], W_WHIST, W_WHIST))
    assert row["value_best"] == pytest.approx(six[1] + six[2])
    assert row["value_done"] == pytest.approx(seven[1] + seven[2])
    assert row["loss"] == pytest.approx(six[1] + six[2] - seven[1] - seven[2])
    assert row["loss"] > 0


def test_a_defenders_card_is_valued_for_the_defence(frame):
    """Boris's J♣ at trick 4 keeps the declarer to 7 tricks; 10♥ would give him 8 (a
    trick off Vera, who then misses her quota): no loss for the defence."""
    row = cards_row(frame, "play[4][0]")
    values = {a["option"]: (a["tricks"], a["value"]) for a in row["alternatives"]}
    assert values["10♥"][0] == 8 and values["J♣"][0] == 7
    assert values["10♥"][1] < values["J♣"][1] and row["loss"] == 0


# ---- zero loss on an optimal line, the blunder's loss --------------------------------


def finish_by_minimax(data: dict, from_trick: int) -> dict:
    """``data`` with its tricks from ``from_trick`` on replaced by a line where every
    card is one that minimax calls best for the side playing it."""
    steps, _ = replay(record(data), SOCHI)
    (start,) = [s for s in steps if s.path == ("play", from_trick, 0)]
    st = start.state.copy()[0]
    rules = engine.rules_array(SOCHI)
    tricks: list[list[str]] = []
    while st["phase"] != engine.DONE:
        decl = int(st["declarer"])
        values = minimax_cards([int(h) for h in st["hands"]],
                               np.asarray(st["trick_cards"][:3], dtype=np.int64),
                               int(st["n_in_trick"]), int(st["leader"]), decl,
                               int(TRUMP[int(st["contract"])]), False)
        pick = max if int(st["to_act"]) == decl else min
        card = pick(sorted(values), key=lambda c: values[c])
        if int(st["n_in_trick"]) == 0:
            tricks.append([])
        tricks[-1].append(card_name(card))
        engine.apply(st, rules, card)
    return dict(copy.deepcopy(data), play=data["play"][:from_trick] + tricks)


def test_an_optimal_line_loses_nothing(example):
    line = finish_by_minimax(example, from_trick=6)
    frame = analyze(record(line), deals=1)
    late = frame.filter((pl.col("decision") == "card")
                        & (pl.col("field").str.extract(r"play\[(\d+)\]").cast(int) >= 6))
    assert late.height >= 6
    assert (late["loss"] == 0).all() and (late["tricks_done"] == late["tricks_best"]).all()


def test_a_known_blunder_shows_its_loss(frame, example):
    """The example's K♠ costs Vera a trick; played the other way round (9♠ at trick 0,
    K♠ later) the same deal shows no loss at that card."""
    assert cards_row(frame, BLUNDER)["loss"] > 5
    fixed = copy.deepcopy(example)
    fixed["play"][0][2], fixed["play"][7][1] = "9♠", "K♠"
    row = cards_row(analyze(record(fixed), deals=1), BLUNDER)
    assert row["done"] == "9♠" and row["loss"] == 0


def test_every_seat_and_decision_has_a_row(frame):
    assert set(frame["seat"]) == {0, 1, 2}
    assert {"call", "discard", "whist", "card", "contract"} <= set(frame["decision"])
    analysed = frame.filter(pl.col("method") != "not analysed")
    assert (analysed.filter(pl.col("loss").is_not_null())["loss"] >= -1e-9).all()
    # every seat's calls here are first calls, and the contract is rolled out: a reason is
    # given wherever a decision is not analysed
    assert (frame.filter(pl.col("method") == "not analysed")["note"].str.len_chars() > 10).all()
    assert "max_bid" in _unforced(engine.AUCTION) and "whist" in _unforced(engine.WHIST)


def test_discard_values_come_from_the_solver(frame):
    row = cards_row(frame, "discard")
    assert row["method"] == "double dummy" and row["done"] == "♣K ♥8"
    assert len(row["alternatives"]) == 66  # every pair of the declarer's twelve cards
    assert row["loss"] >= 0


def test_tricks_to_whists_takes_a_defenders_trick_from_him_first(example):
    """The example ends 6-2-2; the declarer's extra tricks come off defender 1 until he
    is down to what he had taken (none here), then off his partner."""
    _, final = replay(record(example), SOCHI)
    assert final[0]["tricks"][:3].tolist() == [6, 2, 2]
    values = tricks_to_whists(SOCHI, final, [5, 6, 7, 8, 9], defender=1,
                              taken=np.zeros(4, dtype=np.uint8))
    expect = deal_values(SOCHI, *score_batch(
        SOCHI, GAME, 0, parse_contract("6♠").code,
        [[5, 3, 2], [6, 2, 2], [7, 1, 2], [8, 0, 2], [9, 0, 1]], W_WHIST, W_WHIST))
    np.testing.assert_allclose(values, expect)


# ---- rollouts of the calls -----------------------------------------------------------


def test_calls_are_rolled_out_with_the_acceptance_shown(frame):
    calls = frame.filter(pl.col("method") == "rollout")
    assert set(calls["decision"]) == {"call", "max_bid", "contract", "whist"}
    first = cards_row(frame, "calls[0]", "call")
    assert first["acceptance"] == 1.0 and first["n"] == 40  # nothing heard before it
    assert {a["option"] for a in first["alternatives"]} == {"pass", "bid", "misere"}
    later = cards_row(frame, "calls[2]", "call")
    assert later["acceptance"] < 1.0  # two calls heard: rejection keeps fewer


def test_how_high_to_compete_is_rolled_out_at_the_first_call(frame):
    """Anna's one call, 6♠, is what competing to any level in spades makes first: every
    level did what she did, the lowest is named."""
    row = cards_row(frame, "calls[0]", "max_bid")
    assert row["method"] == "rollout" and row["n"] == 40
    assert [a["option"] for a in row["alternatives"]] == ["6", "7", "8", "9", "10"]
    assert row["done"] == "6" and "levels 6, 7, 8, 9, 10 alike" in row["note"]
    assert "6♠ .. 10♠" in row["note"]
    assert row["loss"] == pytest.approx(row["value_best"] - row["value_done"])


def test_max_bid_levels_are_those_whose_calls_the_seat_made(example):
    steps, _ = replay(record(example), SOCHI)
    first = steps[0]
    assert max_bid_levels(steps, first, SOCHI) == ["6", "7", "8", "9", "10"]
    # a pass where 6♠ was legal is no level's call
    passed = dataclasses.replace(first, action=PASS)
    assert max_bid_levels([passed], passed, SOCHI) == []
    # 6♠, then 7♠ over a 7-level call: competing to 7 or more
    seven = parse_contract("7♠").code
    rank = engine.rules_array(SOCHI)[engine.R_RANK:]
    above = sum(1 << c for c in range(N_CONTRACTS) if c != MISERE
                and rank[c] >= rank[seven]) | 1 << PASS
    again = dataclasses.replace(first, legal=above, action=seven)
    assert max_bid_levels([first, again], first, SOCHI) == ["7", "8", "9", "10"]


def test_the_contract_is_rolled_out_over_every_legal_contract(example, frame):
    row = cards_row(analyze(record(example), deals=40, condition="none"), "contract",
                    "contract")
    assert row["method"] == "rollout" and row["done"] == "6♠" and row["n"] > 0
    names = [a["option"] for a in row["alternatives"]]
    assert names[0] == "6♠" and "10NT" in names and "misère" not in names
    assert len(names) == 25  # 6♠ and every contract above it
    kept = cards_row(frame, "contract", "contract")  # the same 40 deals, conditioned
    assert 0 < kept["n"] <= row["n"] and "record conditioning" in kept["note"]


def test_a_contract_rollout_keeps_only_the_recorded_discard(example):
    """The declarer names the contract with the hand left after his discard: a deal where
    the policy put away other cards is not the decision recorded."""
    steps, final = replay(record(example), SOCHI)
    (step,) = [s for s in steps if s.phase == engine.CONTRACT]
    finals = np.repeat(final, 2)
    finals[1]["discard"] = parse_cards("♦Q ♦10")
    assert _matches(finals, step.state[0]).tolist() == [True, False]


def test_unconditioned_rollouts_keep_every_deal(example):
    frame = analyze(record(example), deals=20, condition="none")
    assert (frame.filter(pl.col("decision") == "call")["acceptance"] == 1.0).all()


def test_progress_reaches_the_total(example):
    seen = []
    analyze(record(example), deals=5, progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1]
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


# ---- bad records ---------------------------------------------------------------------


def edited(example: dict, **changes) -> dict:
    data = copy.deepcopy(example)
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return data


def replaced_card(example: dict, trick: int, j: int, card: str) -> dict:
    data = copy.deepcopy(example)
    data["play"][trick][j] = card
    return data


BAD = {
    "unknown card": (lambda e: edited(e, hands=["♠AQ1087 ♦Q10 ♥AQX", *e["hands"][1:]]),
                     r"deal.json line \d+, hands\[0\]: unknown card"),
    "repeated card": (lambda e: edited(e, talon="♣K ♠A"),
                      r"deal.json line \d+, talon: repeated card: A♠ is also in hands\[0\]"),
    "wrong count in a hand": (lambda e: edited(e, hands=["♠AQ1087 ♦Q10 ♥AQ", *e["hands"][1:]]),
                              r"deal.json line \d+, hands\[0\]: expected 10 cards, got 9"),
    "three hands": (lambda e: edited(e, hands=e["hands"][:2]), r"hands: expected three hands"),
    "illegal call": (lambda e: edited(e, calls=["7♠", "pass", "pass"]),
                     r"deal.json line \d+, calls\[0\]: illegal call: seat 0 may not say '7♠'"),
    "unknown call": (lambda e: edited(e, calls=["6X", "pass", "pass"]),
                     r"calls\[0\]: unknown call"),
    "short auction": (lambda e: edited(e, calls=["6♠", "pass"]),
                      r"calls: the record ends after 2 calls; seat 2 is to speak"),
    "call after the auction": (lambda e: edited(e, calls=["6♠", "pass", "pass", "pass"]),
                               r"calls\[3\]: the auction was over"),
    "contract below the bid": (
        lambda e: edited(e, calls=["6♠", "6♣", "pass", "pass"], discard="♣K ♦A"),
        r"contract: contract below the bid: 6♠ is below 6♣"),
    "discard not held": (lambda e: edited(e, discard="♣Q ♥8"), r"discard: card not in the hand"),
    "no discard": (lambda e: edited(e, discard=None), r"no \"discard\""),
    "illegal whist": (lambda e: edited(e, whist=["half", "whist"]), r"whist\[0\]: illegal"),
    "card not in the hand": (lambda e: replaced_card(e, 0, 0, "K♣"),
                             r"deal.json line \d+, play\[0\]\[0\]: card not in the hand: K♣ was "
                             r"discarded"),
    "wrong turn": (lambda e: replaced_card(e, 0, 0, "7♣"),
                   r"deal.json line \d+, play\[0\]\[0\]: wrong turn: 7♣ is seat 1's card, "
                   r"but seat 0"),
    "repeated card in play": (lambda e: replaced_card(e, 1, 0, "A♠"),
                              r"play\[1\]\[0\]: repeated card: A♠ was already played"),
    "short trick": (lambda e: edited(e, play=[e["play"][0][:2], *e["play"][1:]]),
                    r"play\[0\]: wrong count: trick 0 has 2 cards"),
    "missing tricks": (lambda e: edited(e, play=e["play"][:9]),
                       r"play: the record ends after 9 tricks; a played deal has 10"),
    "unknown field": (lambda e: edited(e, contrat="6♠"), r"contrat: unknown field"),
    "two cards as one": (lambda e: replaced_card(e, 0, 0, "A♠ 7♠"),
                         r"play\[0\]\[0\]: expected 1 card, got 2"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_records_are_refused_naming_line_and_field(case, example):
    make, message = BAD[case]
    text = json.dumps(make(example), ensure_ascii=False, indent=1)
    with pytest.raises(RecordError, match=message):
        analyze(parse_record(text, "deal.json"), deals=1)


def test_illegal_card_names_the_suit_to_follow(example):
    # Trick 0: A♠ led, Boris holds no spade, so any card is legal for him; Vera holds
    # spades and must follow: 9♦ is refused.
    data = replaced_card(example, 0, 2, "8♦")
    with pytest.raises(RecordError, match=r"illegal card: seat 2 may not play 8♦ here; "
                                          r"legal: 9♠, J♠, K♠"):
        analyze(record(data), deals=1)


def test_json_syntax_error_names_its_line():
    text = '{\n  "variant": "sochi",\n  "hands": [\n    "♠AK" "♣7"\n  ]\n}\n'
    with pytest.raises(RecordError, match=r"deal.json line 4, column 11: not valid JSON"):
        parse_record(text, "deal.json")


def test_errors_name_the_line_in_the_file(tmp_path):
    text = EXAMPLE.read_text("utf-8")
    lines = text.splitlines()
    trick = next(i for i, line in enumerate(lines, 1) if '["J♣", "A♣", "7♠"]' in line)
    bad = tmp_path / "deal.json"
    bad.write_text(text.replace('["J♣", "A♣", "7♠"]', '["J♣", "A♣", "7♦"]'), "utf-8")
    with pytest.raises(RecordError, match=rf"^deal.json line {trick}, play\[4\]\[2\]: "
                                          r"repeated card: 7♦ was already played"):
        analyze(load_record(bad), deals=1)
    rec = load_record(EXAMPLE)
    assert "contract" in lines[rec.line(("contract",)) - 1]


def test_tricks_written_as_strings_name_each_card(example):
    """A trick may be one string; its cards are still play[t][j], on the string's line."""
    data = edited(example, play=[" ".join(t) for t in example["play"]])
    frame = analyze(record(data), deals=1)
    row = cards_row(frame, BLUNDER)
    assert row["done"] == "K♠" and row["loss"] > 5 and row["line"] is not None
    with pytest.raises(RecordError, match=r"deal.json line \d+, play\[1\]\[2\]: illegal card"):
        analyze(record(edited(data, play=[data["play"][0], "A♥ 7♥ J♠", *data["play"][2:]])),
                deals=1)


def test_bad_arguments_are_refused(example):
    with pytest.raises(ValueError, match="deals must be at least 1"):
        analyze(record(example), deals=0)
    with pytest.raises(ValueError, match="condition must be one of"):
        analyze(record(example), condition="some")


# ---- the command line ----------------------------------------------------------------


def test_the_example_end_to_end_as_json():
    done = CliRunner().invoke(app, ["analyze", str(EXAMPLE), "--deals", "10", "--format",
                                    "json"])
    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    assert out["deal"]["contract"] == "6♠" and out["deal"]["tricks"] == [6, 2, 2]
    rows = {r["field"]: r for r in out["decisions"]}
    assert rows[BLUNDER]["loss"] > 5 and rows[BLUNDER]["method"] == "double dummy"
    assert rows["calls[0]"]["method"] == "rollout" and rows["calls[0]"]["dealt"] == 10


def test_the_table_names_the_players():
    done = CliRunner().invoke(app, ["analyze", str(EXAMPLE), "--deals", "10"],
                              env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    assert "Vera" in done.stdout and "whists lost" in done.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--deals", "0"], "--deals must be at least 1"),
    (["--format", "xml"], "--format must be table or json"),
    (["--policy", "smart"], "--policy must be one of"),
])
def test_bad_options_exit_2(args, message):
    done = CliRunner().invoke(app, ["analyze", str(EXAMPLE), *args])
    assert done.exit_code == 2 and message in done.stderr


def test_bad_file_exits_2_with_its_line(tmp_path):
    bad = tmp_path / "deal.json"
    bad.write_text('{"hands": ["♠AK",\n  ]}', "utf-8")
    done = CliRunner().invoke(app, ["analyze", str(bad)])
    assert done.exit_code == 2
    assert re.search(r"error: deal.json line 2, column \d+: not valid JSON", done.stderr)
    assert "Traceback" not in done.output
    missing = CliRunner().invoke(app, ["analyze", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read" in missing.stderr


def readme_command() -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("\n## Analysing a played deal\n", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S)[1].strip()


def test_readme_command_runs_as_written():
    written = readme_command()
    assert written.startswith("prefstats analyze examples/deal.json --deals ")
    # as written but on fewer deals: the command and its output's form are what is checked
    command = re.sub(r"--deals \d+", "--deals 10", written)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               COLUMNS="200")
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Vera" in done.stdout


def test_the_documented_python_example_runs():
    text = (ROOT / "docs" / "ANALYZE.md").read_text("utf-8")
    source = re.search(r"```python\n(.*?)```", text, re.S)[1].replace("deals=200", "deals=10")
    done = subprocess.run([sys.executable, "-c", source], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "K♠" in done.stdout and "double dummy" in done.stdout
