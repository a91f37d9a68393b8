"""A dataset's columns that hold game codes, stored as the codes' names (Enums), and
the schema's version."""

from __future__ import annotations

import functools
from typing import TypeVar

import numpy as np
import polars as pl
import pyarrow as pa

from prefstats.game.auction import BLIND_PASS, DARK, N_CALLS, NO_TALON_BID, PASS, call_name
from prefstats.game.cards import N_CARDS, card_name
from prefstats.game.codes import KINDS, WHIST_CALL_NAMES
from prefstats.game.contracts import LADDER, N_CONTRACTS

#: 2: columns ``no_talon``, ``dark``, ``blind``, ``multiplier`` and Gusarik's dummy.
#: 3: the signature leaves out the size (extension); chunks record the units they cover;
#: ``deal_id`` uint64 and ``multiplier`` uint16 everywhere; pulkas deal from their own
#: stream.
#: 4: the code columns are Enums of their names, calls lists of call names.
#: 5: deals have ``sat_out``, the places that sat the deal out (4 and 5 players).
SCHEMA_VERSION = 5


def _call_names() -> list[str]:
    """Every call code's name, by code (:func:`~prefstats.game.auction.call_name`: "7♥ nt" for
    a bid without the talon); the codes between ``dark`` and the first bid without the
    talon name no call and hold placeholders, so that a name's position is its code."""
    calls = {*range(N_CONTRACTS), PASS, BLIND_PASS, DARK, *range(NO_TALON_BID, N_CALLS)}
    return [call_name(c) if c in calls else f"unused {c}" for c in range(N_CALLS)]


#: What a deal became (``kind`` 0..3; 0, still in the auction, ends only a pulka's deal stopped
#: by the preference, at the talon).
KIND = pl.Enum(KINDS)
#: The 26 contracts in ladder order (``contract`` 0..25: "6♠" … "10NT", "misère").
CONTRACT = pl.Enum([str(c) for c in LADDER])
#: Every call by its code (``calls``, and the winning ``bid``): contracts, "pass",
#: "blind pass", "dark", then the bids without the talon ("6♠ nt" …).
CALL = pl.Enum(_call_names())
#: A whist call, or a defender's final role (``first``, ``second``): 0, 1, 2.
ROLE = pl.Enum(WHIST_CALL_NAMES)
#: One card (``talon_first``), as :func:`~prefstats.game.cards.card_name` names it.
CARD = pl.Enum([card_name(c) for c in range(N_CARDS)])
#: The code columns of a dataset and their Enums; ``calls`` and ``whist_calls`` are lists
#: of them (one entry a call, in the order spoken).
ENUMS: dict[str, pl.Enum] = {"kind": KIND, "contract": CONTRACT, "bid": CALL, "first": ROLE,
                             "second": ROLE, "talon_first": CARD, "calls": CALL,
                             "whist_calls": ROLE}
#: The integer dtype of each code column under :func:`to_codes` (the engine's; the
#: signed ones hold -1 for none, stored as null); lists hold ``UInt8`` codes.
_CODES = {"kind": pl.UInt8, "contract": pl.Int8, "bid": pl.Int8, "first": pl.Int8,
          "second": pl.Int8, "talon_first": pl.UInt8}


#: The code columns that hold a list of codes.
_LISTS = ("calls", "whist_calls")


@functools.cache
def _field(name: str) -> pa.Field:
    """The Arrow field polars gives code column ``name`` (its Enum, or a list of it):
    its metadata names the Enum's categories, so polars reads the stored column back as
    that Enum without a cast, and other readers see a dictionary of names."""
    dtype = pl.List(ENUMS[name]) if name in _LISTS else ENUMS[name]
    return pl.DataFrame({name: pl.Series([], dtype=dtype)}).to_arrow().schema.field(name)


def _dictionary(name: str, codes: np.ndarray, kind: pa.DictionaryType) -> pa.DictionaryArray:
    """Codes of column ``name`` as a dictionary array of its names; -1 (none) is null.
    A code outside its Enum raises."""
    codes = np.asarray(codes).astype(np.int16)
    none = codes < 0
    indices = pa.array(np.where(none, 0, codes), mask=none, type=kind.index_type)
    names = pa.array(ENUMS[name].categories.to_list(), type=kind.value_type)
    return pa.DictionaryArray.from_arrays(indices, names, ordered=kind.ordered, safe=True)


def enum_table(table: pa.Table) -> pa.Table:
    """``table`` with its code columns (:data:`ENUMS`, as integers, or one code a byte in
    a binary column) stored as their names; other columns, and code columns already
    encoded, are kept."""
    for name in [c for c in table.column_names if c in ENUMS]:
        column, field = table.column(name).combine_chunks(), _field(name)
        if pa.types.is_integer(column.type):
            array = _dictionary(name, column.to_numpy(zero_copy_only=False), field.type)
        elif pa.types.is_binary(column.type):
            _, offsets, data = column.buffers()
            ends = np.frombuffer(offsets, np.int32)[column.offset:column.offset + len(column) + 1]
            codes = (np.zeros(0, np.uint8) if data is None else
                     np.frombuffer(data, np.uint8)[ends[0]:ends[-1]])
            values = _dictionary(name, codes, field.type.value_type)
            array = pa.LargeListArray.from_arrays(pa.array((ends - ends[0]).astype(np.int64)),
                                                  values, type=field.type)
        else:
            continue
        table = table.set_column(table.column_names.index(name), field, array)
    return table


Frame = TypeVar("Frame", pl.LazyFrame, pl.DataFrame)


def enum_columns(frame: Frame) -> Frame:
    """``frame`` (a dataset's rows as read) with its code columns typed as their Enums
    (a no-op on the files prefstats writes, which polars reads as those Enums)."""
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    casts = [pl.col(c).cast(pl.List(dtype) if c in _LISTS else dtype)
             for c, dtype in ENUMS.items()
             if c in schema and schema[c] != (pl.List(dtype) if c in _LISTS else dtype)]
    return frame.with_columns(casts) if casts else frame


def to_codes(frame: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame | pl.DataFrame:
    """The same rows with each Enum code column as its integer codes: ``kind`` 1..3,
    ``contract`` 0..25, ``bid``, ``first``, ``second`` (-1 for none), ``talon_first``,
    and ``calls``/``whist_calls`` as lists of ``UInt8`` codes. Columns that already hold
    codes are kept, so any dataset frame can be passed (lazy or not)."""
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    exprs = []
    for name, dtype in schema.items():
        if name not in ENUMS:
            continue
        if isinstance(dtype, pl.Enum):
            code = pl.col(name).to_physical().cast(_CODES[name])
            exprs.append(code.fill_null(-1) if _CODES[name].is_signed_integer() else code)
        elif isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Enum):
            exprs.append(pl.col(name).list.eval(pl.element().to_physical().cast(pl.UInt8)))
    return frame.with_columns(exprs) if exprs else frame
