"""Every text file prefstats writes is UTF-8 whatever the locale (reports hold ♠ and χ²):
no text write in the package leaves the encoding to the platform."""

from __future__ import annotations

import ast
from pathlib import Path

import prefstats

PACKAGE = Path(prefstats.__file__).parent


def _text_writes_without_encoding(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        keywords = {k.arg for k in node.keywords}
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "write_text" and len(node.args) < 2 and "encoding" not in keywords:
            lines.append(node.lineno)
        elif name in ("open", "fdopen") and "encoding" not in keywords:
            mode = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "mode"), None)
            text = isinstance(mode, ast.Constant) and "b" not in mode.value
            if text and any(c in mode.value for c in "wax+"):
                lines.append(node.lineno)
    return lines


def test_no_text_write_without_an_encoding():
    found = {str(p.relative_to(PACKAGE)): bad for p in sorted(PACKAGE.rglob("*.py"))
             if (bad := _text_writes_without_encoding(ast.parse(p.read_text("utf-8"))))}
    assert found == {}


def test_the_check_finds_a_bare_write():
    tree = ast.parse("p.write_text(s)\nopen(f, 'w')\np.write_text(s, encoding='utf-8')\n"
                     "open(f, 'rb')\n")
    assert _text_writes_without_encoding(tree) == [1, 2]
