"""Reports: the written report, comparison and guide of simulation datasets, from
statistics tables (polars DataFrames) and publishable charts.

:func:`report`, :func:`comparison` and :func:`guide` write them to a folder. The
sections are functions of a dataset's ``LazyFrame`` (see :func:`prefstats.load`) in
the package's private modules: bidding thresholds (``bidding``), whist profitability
(``whist``), raspasy costs (``raspasy``), seat luck (``seats``) and the comparison of
variants (``compare``).
"""

from prefstats.reports.guide import guide
from prefstats.reports.report import comparison, report

__all__ = ["comparison", "guide", "report"]
