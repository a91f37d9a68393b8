"""Every worked example of RULES.md §9, read from docs/RULES.md itself: each ```toml
block of §9 is a score sheet (the format of ``prefstats score``) and its ``[expect]``."""

import re
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from prefstats.game.scoring import settle, sheet_from_records

RULES = Path(__file__).resolve().parents[1] / "docs" / "RULES.md"


def _examples():
    """``(label, block)`` for every TOML block of §9, labelled by its example number."""
    text = RULES.read_text("utf-8")
    section = text.split("\n## 9.", 1)[1].split("\n## ", 1)[0]
    examples, number, count = [], 0, 0
    for line_no, line in enumerate(section.splitlines()):
        item = re.match(r"^(\d+)\. ", line)
        if item:
            number, count = int(item[1]), 0
        if line.strip() == "```toml":
            count += 1
            examples.append((f"9.{number}{'abc'[count - 1]}", line_no))
    blocks = re.findall(r"```toml\n(.*?)```", section, flags=re.S)
    assert len(blocks) == len(examples)
    return [(label, tomllib.loads(_dedent(block))) for (label, _), block in
            zip(examples, blocks, strict=True)]


def _dedent(block):
    lines = block.splitlines()
    indent = min(len(x) - len(x.lstrip()) for x in lines if x.strip())
    return "\n".join(x[indent:] for x in lines)


EXAMPLES = _examples()


def test_every_example_of_section_9_is_read():
    numbers = {label.split(".")[1].rstrip("abc") for label, _ in EXAMPLES}
    assert numbers == {str(n) for n in range(1, 16)}


@pytest.mark.parametrize(("label", "example"), EXAMPLES, ids=[x[0] for x in EXAMPLES])
def test_worked_example(label, example):
    expect = example.pop("expect")
    if "settle" in expect:
        s = expect["settle"]
        n = len(s["pool"])
        scores = settle(s["pool"], s["mountain"], np.zeros((n, n)),
                        mountain_value=s["mountain_value"])
        assert scores.tolist() == s["scores"] and scores.sum() == 0
        return
    sheet = sheet_from_records(example)
    n = sheet.variant.players
    if "pool" in expect:
        assert sheet.pool.tolist() == expect["pool"]
    if "mountain" in expect:
        assert sheet.mountain.tolist() == expect["mountain"]
    if "whists" in expect:
        want = np.zeros((n, n))
        for writer, on, amount in expect["whists"]:
            want[writer, on] = amount
        np.testing.assert_array_equal(sheet.whists, want)
    if "value" in expect:
        assert sheet.value_exact() == [Fraction(x) for x in expect["value"]]
    assert sum(sheet.value_exact()) == 0
