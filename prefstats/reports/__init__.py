"""Reports: statistics tables (polars DataFrames), publishable charts and the written
report, comparison and guide of simulation datasets.

Each section is a function of a dataset's ``LazyFrame`` (see :func:`prefstats.load`):

- :func:`bidding_table`, :func:`misere_table`, :func:`thresholds` -- bidding thresholds
  (:func:`hand_sums` classifies the hands once for several tables, a batch at a time);
- :func:`whist_table` -- whist profitability;
- :func:`raspasy_tricks`, :func:`raspasy_costs`, :func:`raspasy_chain` -- raspasy costs;
- :func:`seat_luck`, :func:`pulka_seat_luck`, :func:`pulkas_to_detect` -- seat luck;
- :func:`variant_metrics`, :func:`paired_differences` -- variant comparison.

:func:`report`, :func:`comparison` and :func:`guide` write them to a folder.
"""

from prefstats.reports.bidding_section import bidding_table, hand_sums, misere_table, thresholds
from prefstats.reports.compare import paired_differences, variant_metrics
from prefstats.reports.guide import guide
from prefstats.reports.raspasy import raspasy_chain, raspasy_costs, raspasy_tricks
from prefstats.reports.report import comparison, report
from prefstats.reports.seats import pulka_seat_luck, pulkas_to_detect, seat_luck
from prefstats.reports.whist import whist_table

__all__ = ["comparison", "guide", "report"]
