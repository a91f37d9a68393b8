"""A griffe extension for the reference pages: prefstats docstrings are reStructuredText in
spirit (doctest examples, ``:func:`name``` roles); Markdown would read an example's
``>>>`` as quotes and a printed list under a call as a link. So each doctest run is
fenced as ``pycon`` code and each role becomes the code name it points at."""

from __future__ import annotations

import re

from griffe import Extension

_ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|exc|obj):`~?([^`]+)`")


def markdown_docstring(text: str) -> str:
    """``text`` with its doctest runs fenced and its roles as code spans."""
    text = _ROLE.sub(lambda m: f"``{m[1]}``", text)
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        indent = len(line) - len(line.lstrip())
        if line.lstrip().startswith(">>>") and indent < 4:
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][indent:])
                i += 1
            pad = " " * indent
            if out and out[-1].strip():
                out.append("")
            out.extend([f"{pad}```pycon", *(pad + b for b in block), f"{pad}```"])
            continue
        out.append(line[:-1] if line.endswith("::") else line)  # rst's literal-block mark
        i += 1
    return "\n".join(out)


class DoctestFences(Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
