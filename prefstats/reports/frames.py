"""Long frames the sections share: one row per (deal, active seat), lazily built from a
dataset's columns, with the hand classes of :mod:`prefstats.reports.classes` added.

:func:`class_sums` reads and classifies the hands a slice of deals at a time and keeps
only sums per class, so memory does not grow with the number of deals.

Seats 0, 1, 2 are the active players (with 4 players seat 3, the dealer, takes no
bid and no whist; with 2, Gusarik, seat 2 is the dummy, which has no row). A seat's
``role``: ``"declarer"`` (trick game or misère), ``"defender"`` or ``"raspasy"``; a
defender's ``call`` is his whist role (:data:`prefstats.game.auction.W_PASS`, ``W_WHIST``,
``W_HALF``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import polars as pl

from prefstats.game.codes import GAME, MISERE_GAME, RASPASY, SEAT_NAMES, W_HALF, W_PASS, W_WHIST
from prefstats.game.contracts import LEVEL, OBLIGATION
from prefstats.reports import classes
from prefstats.reports.stats import moment_sums
from prefstats.sim.storage import to_codes

ACTIVE = 3
#: Seat rows classified at a time by :func:`class_sums`.
BATCH = 250_000
#: The whist calls as the reports' prose names them (the data says "half").
CALL_NAMES = {W_PASS: "pass", W_WHIST: "whist", W_HALF: "half-whist"}


def seat_name(seat: pl.Expr) -> pl.Expr:
    """The name of a seat number (seat 3 is the sitting-out dealer, 4 the 5-player next to
    deal)."""
    return seat.replace_strict(list(range(len(SEAT_NAMES))), list(SEAT_NAMES),
                               return_dtype=pl.String)


def n_players(lf: pl.LazyFrame) -> int:
    """Players at the table of a dataset: its ``value_i`` columns."""
    return sum(c.startswith("value_") for c in lf.collect_schema().names())


def _pick(column: str, index: pl.Expr) -> pl.Expr:
    """Per row, ``column_{index}`` of the three active seats."""
    return pl.coalesce(pl.when(index == s).then(pl.col(f"{column}_{s}")) for s in range(ACTIVE))


def seat_rows(lf: pl.LazyFrame) -> pl.LazyFrame:
    """One row per deal and active seat: the seat's hand, role, call, tricks and value,
    and the deal's kind, contract level (0 for misère), declarer tricks and whether the
    contract was made (a game that is not played counts as made)."""
    lf = to_codes(lf)  # the codes of a dataset's Enum columns
    seats = range(min(n_players(lf), ACTIVE))  # Gusarik's dummy (seat 2) is no player
    codes = list(range(len(LEVEL)))
    declarer = pl.col("declarer")
    code = pl.col("contract").clip(0).cast(pl.Int32)
    deal = lf.select(
        "deal_id", "kind", "declarer", "first", "second", "played", *(
            pl.col(f"{c}_{s}") for c in ("hand", "tricks") for s in range(ACTIVE)),
        *(pl.col(f"value_{s}") for s in seats),
        level=pl.when(pl.col("kind") == GAME).then(
            code.replace_strict(codes, LEVEL.tolist(), return_dtype=pl.Int8)).otherwise(0),
        obligation=code.replace_strict(codes, OBLIGATION.tolist(), return_dtype=pl.Int8),
        declarer_tricks=_pick("tricks", declarer).cast(pl.Int8),
    )
    per_seat = []
    for s in seats:
        offset = (s - declarer) % ACTIVE
        per_seat.append(deal.select(
            "deal_id", "kind", "level", "obligation", "declarer_tricks", "played",
            seat=pl.lit(s, pl.Int8), hand=pl.col(f"hand_{s}"),
            tricks=pl.col(f"tricks_{s}").cast(pl.Int8), value=pl.col(f"value_{s}"),
            role=pl.when(pl.col("kind") == RASPASY).then(pl.lit("raspasy"))
            .when(offset == 0).then(pl.lit("declarer")).otherwise(pl.lit("defender")),
            call=pl.when((pl.col("kind") != GAME) | (offset == 0)).then(None)
            .when(offset == 1).then(pl.col("first")).otherwise(pl.col("second")),
        ))
    return pl.concat(per_seat).with_columns(
        made=pl.when(pl.col("kind") == GAME).then(
            ~pl.col("played") | (pl.col("declarer_tricks") >= pl.col("level")))
        .when(pl.col("kind") == MISERE_GAME).then(pl.col("declarer_tricks") == 0))


def with_classes(df: pl.DataFrame, kinds: tuple[str, ...]) -> pl.DataFrame:
    """Add hand-class columns to a collected frame with a ``hand`` column: ``"bidding"``
    (suit, trumps, top, side_aces, points), ``"evaluator"`` (est_tricks; needs ``seat``),
    ``"whist"`` (high_cards), ``"misere"`` (holes, short_holes)."""
    hands = df["hand"].to_numpy()
    extra: dict[str, np.ndarray] = {}
    if "bidding" in kinds:
        extra |= classes.bidding_class(hands)
    if "evaluator" in kinds:
        est = classes.estimated_tricks(hands, df["seat"].to_numpy() == 0)
        extra["est_tricks"] = (np.rint(2 * est) / 2).astype(np.float32)  # half tricks
    if "whist" in kinds:
        extra["high_cards"] = classes.high_cards(hands)
    if "misere" in kinds:
        extra |= classes.misere_holes(hands)
    return df.with_columns(pl.Series(k, v) for k, v in extra.items())


def class_sums(deals: pl.LazyFrame, rows: Callable[[pl.LazyFrame], pl.LazyFrame],
               kinds: tuple[str, ...], groups: Sequence[Sequence[str]],
               batch: int = BATCH) -> dict[tuple[str, ...], pl.DataFrame]:
    """For each grouping in ``groups`` (columns of ``rows`` and of the hand classes
    ``kinds``, see :func:`with_classes`), one row per group with the
    :func:`~prefstats.reports.stats.moment_sums` of ``value`` (``n``, ``value``,
    ``value_sq``) and, when the rows have it, the count of ``made``. ``rows`` makes the
    rows of a slice of ``deals``: the deals are read and classified ``batch`` seat rows
    at a time (a slice of the scan, which reads only the files that hold it), and only
    these sums are kept, so memory holds one batch and the groups, whatever the number
    of deals. (A streaming collect in batches buffers what the classifier has not yet
    taken: memory that grows with the deals.)"""
    groups = [tuple(g) for g in groups]
    made = "made" in rows(deals).collect_schema().names()
    sums = [*moment_sums(pl.col("value")), *([pl.col("made").sum()] if made else [])]
    totals = [pl.col(c).sum() for c in ("n", "value", "value_sq", *(["made"] if made else []))]
    parts: dict[tuple[str, ...], list[pl.DataFrame]] = {g: [] for g in groups}
    size = max(1, batch // ACTIVE)  # deals a batch
    total = deals.select(pl.len()).collect().item()
    for start in range(0, total, size):
        df = with_classes(rows(deals.slice(start, size)).collect(), kinds)
        for g in groups:
            found = parts[g]
            found.append(df.group_by(g).agg(sums))
            if len(found) > 32:  # fold, so the parts do not grow with the deals
                parts[g] = [pl.concat(found).group_by(g).agg(totals)]
    return {g: pl.concat(found).group_by(g).agg(totals) if found else
            with_classes(rows(deals).head(0).collect(), kinds).group_by(g).agg(sums)
            for g, found in parts.items()}
