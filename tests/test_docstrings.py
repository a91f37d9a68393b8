"""The facade's functions document their parameters in one style: reST fields
(``:param name:``, ``:returns:``), which the reference pages render as tables."""

from __future__ import annotations

import inspect
import re

import pytest

import prefstats

FUNCTIONS = sorted(name for name in prefstats.__all__
                   if inspect.isfunction(getattr(prefstats, name)))
#: The section headings of the other docstring styles (Google, numpy).
OTHER_STYLES = re.compile(r"^\s*(Args|Arguments|Returns|Raises|Parameters)\s*:?\s*$\n"
                          r"(\s*-{3,})?", re.M)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_parameter_of_a_facade_function_has_its_field(name):
    function = getattr(prefstats, name)
    doc = inspect.getdoc(function) or ""
    documented = re.findall(r"^:param (\w+):", doc, re.M)
    assert documented == list(inspect.signature(function).parameters), name
    assert re.search(r"^:returns: ", doc, re.M), name
    assert not OTHER_STYLES.search(doc), name

