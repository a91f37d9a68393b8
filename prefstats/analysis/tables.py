"""Readable tables: a dataset's codes decoded into the game's names, and the states
:func:`~prefstats.sim.play.play_batch` returns as a table with a dataset's columns.

A dataset stores its game codes as ``pl.Enum`` columns of their names (``kind``,
``contract``, ``bid``, the whist roles, ``talon_first``, and the lists ``calls`` and
``whist_calls``; docs/DATA.md lists every column), but hands, talon and discard as
``uint32`` card masks and ``dark``/``blind`` as seat bit masks. :func:`readable` names
those too, and decodes integer codes wherever they come from (the engine's records, a
frame passed through :func:`~prefstats.sim.storage.to_codes`), with vectorised polars
expressions (lookup tables, no Python loop over rows), so it is cheap on millions of
rows and stays lazy on a ``LazyFrame``:

>>> import polars as pl
>>> from prefstats.game.cards import parse_cards
>>> codes = pl.DataFrame({"kind": [1, 3], "contract": [15, -1],
...                       "talon": [parse_cards("♠7 ♥A"), parse_cards("♦KQ")],
...                       "calls": [bytes([0, 15, 26, 26]), bytes([26, 26, 26])]},
...                      schema={"kind": pl.UInt8, "contract": pl.Int8,
...                              "talon": pl.UInt32, "calls": pl.Binary})
>>> for row in readable(codes).iter_rows():
...     print(row)
('game', 'misère', '♠7 ♥A', ['6♠', 'misère', 'pass', 'pass'])
('raspasy', None, '♦KQ', ['pass', 'pass', 'pass'])

Codes that mean "none" (a declarer or contract of -1 on a raspasy) become nulls;
each Enum lists its names in code order (the ladder for contracts), so
``pl.col("contract") >= "8♠"`` works and ``pl.col("contract").to_physical()`` is the code.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np
import polars as pl

from prefstats.errors import OptionError
from prefstats.game.cards import RANKS, SUITS
from prefstats.game.variants import Variant
from prefstats.sim._schema import enum_columns
from prefstats.sim.storage import ENUMS

__all__ = ["readable", "to_frame"]

_CARD_MASKS = ("hand_0", "hand_1", "hand_2", "talon", "discard")
_SEATS = ("declarer",)
_NONE_AS_NULL = ("solver_tricks",)  # -1: no solver call settled the deal
_SEAT_MASKS = ("dark", "blind")


def _lookup(codes: pl.Expr, names: list[str | None], dtype: pl.DataType) -> pl.Expr:
    """``names[code]`` for every code (a gather into a table, not a hash per row); the
    code -1 means none (null). Any other code outside the table raises when evaluated."""
    table = pl.Series([None, *names], dtype=dtype)
    return pl.lit(table).gather((codes.cast(pl.Int64) + 1).cast(pl.UInt32))


def _suit_groups() -> list[list[str | None]]:
    """For each suit, the group ``format_cards`` writes for each of its 256 holdings
    (``None`` for a void, which it leaves out)."""
    def group(suit: int, holding: int) -> str | None:
        ranks = "".join(RANKS[r] for r in range(7, -1, -1) if holding >> r & 1)
        return SUITS[suit] + ranks if ranks else None

    return [[group(s, h) for h in range(256)] for s in range(4)]


_GROUPS = _suit_groups()


def cards_expr(masks: pl.Expr) -> pl.Expr:
    """Card masks as :func:`~prefstats.game.cards.format_cards` writes them (``'-'`` when
    empty), one lookup per suit."""
    masks = masks.cast(pl.Int64)
    groups = [pl.lit(pl.Series(_GROUPS[s], dtype=pl.String)).gather(masks // (1 << 8 * s) % 256)
              for s in range(4)]
    text = pl.concat_str(groups, separator=" ", ignore_nulls=True)
    return pl.when(masks == 0).then(pl.lit("-")).otherwise(text)


def _byte_names(column: str, dtype: pl.Enum) -> pl.Expr:
    """A binary column of one-byte codes as a list of names.

    Every code is below 128, so the bytes are valid one-character UTF-8 strings: the
    column is split into characters and each is looked up by its code point."""
    chars = {chr(code): name for code, name in enumerate(dtype.categories)}
    return (pl.col(column).cast(pl.String).str.split("")
            .list.eval(pl.element().filter(pl.element() != "")
                       .replace_strict(chars, return_dtype=dtype)))


def _list_names(column: str, dtype: pl.Enum) -> pl.Expr:
    """A list column of integer codes (:func:`~prefstats.sim.storage.to_codes`) as names."""
    names = dict(enumerate(dtype.categories))
    return pl.col(column).list.eval(pl.element().replace_strict(names, return_dtype=dtype))


def _seat_list(column: str) -> pl.Expr:
    """A bit mask of seats as the ascending list of those seats."""
    bits = pl.col(column).cast(pl.Int64)
    return pl.concat_list([
        pl.when(bits.floordiv(1 << s).mod(2) == 1).then(pl.lit(s, pl.UInt8))
        for s in range(3)
    ]).list.drop_nulls()


def _decoders(schema: pl.Schema) -> dict[str, pl.Expr]:
    """The expression that decodes each coded column of ``schema``, by column name."""
    out: dict[str, pl.Expr] = {}
    for c, dtype in ENUMS.items():
        if c not in schema:
            continue
        if schema[c] == pl.Binary:
            out[c] = _byte_names(c, dtype)
        elif isinstance(schema[c], pl.List):
            out[c] = _list_names(c, dtype)
        else:
            out[c] = _lookup(pl.col(c), list(dtype.categories), dtype)
    out.update({c: cards_expr(pl.col(c)) for c in _CARD_MASKS})
    out.update({c: pl.when(pl.col(c) >= 0).then(pl.col(c)) for c in (*_SEATS, *_NONE_AS_NULL)})
    out.update({c: _seat_list(c) for c in _SEAT_MASKS})
    return out


def _coded(name: str, dtype: pl.DataType) -> bool:
    """Whether a column still holds codes (so :func:`readable` is idempotent): integers,
    bytes, or a list of integer codes of a code column (``dark`` decoded is a list of
    seats)."""
    if isinstance(dtype, pl.List):
        return name in ENUMS and dtype.inner.is_integer()
    return dtype.is_integer() or dtype == pl.Binary


def readable(frame: pl.LazyFrame | pl.DataFrame | str | Path) -> pl.LazyFrame | pl.DataFrame:
    """Decode the code columns of a dataset's rows (a lazy frame stays lazy).

    Decoded: ``kind`` ("game", "misere", "raspasy"), ``contract`` ("6♠" … "10NT",
    "misère"), ``bid`` and ``calls`` (call names: "pass", "7♥", "7♥ nt" for a bid without
    the talon, "dark", "blind pass"), ``first``, ``second`` and ``whist_calls`` ("pass",
    "whist", "half"), hands, ``talon`` and ``discard`` (card strings), ``talon_first`` (a
    card), ``dark`` and ``blind`` (lists of seats); ``declarer`` and ``solver_tricks`` of -1
    become null. Other columns (numbers, seats, amounts) are kept as they are. A code
    outside its table (a frame that is not a dataset's) raises when the frame is evaluated.

    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.play import play_batch
    >>> v = get_variant("sochi")
    >>> frame = readable(to_frame(play_batch(deal(3, seed=1), v), v))
    >>> frame["hand_0"].dtype, frame.height
    (String, 3)

    :param frame: a dataset frame (:func:`prefstats.load`, lazy or collected, any
        selection of its columns) or a dataset folder.
    :returns: the same rows with their codes decoded.
    """
    if isinstance(frame, str | Path):
        from prefstats.sim.storage import load

        frame = load(frame)
    if not isinstance(frame, pl.LazyFrame | pl.DataFrame):
        raise OptionError(f"readable() takes a polars frame or a dataset folder, "
                          f"got {type(frame).__name__}")
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    decoders = _decoders(schema)
    exprs = [decoders[name].alias(name) for name, dtype in schema.items()
             if name in decoders and _coded(name, dtype)]
    return frame.with_columns(exprs) if exprs else frame


def to_frame(states: np.ndarray, variant: Variant, *, deal_ids: np.ndarray | None = None
             ) -> pl.DataFrame:
    """Turn finished :data:`~prefstats.game.engine.STATE` records into a deals table.

    The columns are those of a deals dataset as :func:`prefstats.load` reads them (Enum
    code columns): pool, mountain and whist entries in points, values in whists (see
    docs/DATA.md). Pass the result to :func:`readable` to name the cards too.

    >>> from prefstats.game.deal import deal
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.play import play_batch
    >>> v = get_variant("sochi")
    >>> frame = to_frame(play_batch(deal(3, seed=1), v), v)
    >>> frame.height, "kind" in frame.columns
    (3, True)

    :param states: records from :func:`~prefstats.sim.play.play_batch` or
        :func:`~prefstats.sim.play.play_hand`.
    :param variant: the rules they were played under.
    :param deal_ids: fills ``deal_id`` (e.g. ``deals.index``; default ``0..n-1``).
    :returns: a polars DataFrame, one row per deal.
    """
    from prefstats.game import engine
    from prefstats.sim._rows import deals_table

    states = np.atleast_1d(states)
    if states.dtype != engine.STATE:
        raise OptionError("to_frame() takes hand-engine states (engine.STATE records), "
                          f"got an array of dtype {states.dtype}")
    unfinished = np.flatnonzero(states["phase"] != engine.DONE)
    if len(unfinished):
        raise OptionError(f"to_frame(): state {int(unfinished[0])} is not a finished deal")
    ids = np.arange(len(states)) if deal_ids is None else np.asarray(deal_ids)
    if ids.shape != (len(states),) or (ids < 0).any():
        raise OptionError(f"deal_ids must be {len(states)} non-negative numbers, one a state")
    return enum_columns(cast(pl.DataFrame, pl.from_arrow(deals_table(states, ids, variant))))
