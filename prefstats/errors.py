"""The errors prefstats raises on bad input, all under one base, :class:`PrefstatsError`.

Catch :class:`PrefstatsError` for any refusal, or one subclass for one kind of mistake.
Each subclass is also a ``ValueError`` (a bad value given to prefstats), so code that
catches ``ValueError`` keeps working. The command line shows a ``PrefstatsError`` as one
line and exit status 2; any other exception is a bug of prefstats and keeps its traceback.

>>> import prefstats as ps
>>> try:
...     ps.parse_cards("♠AZ")
... except ps.PrefstatsError as exc:
...     print(type(exc).__name__, "-", exc)
CardError - bad card token '♠AZ': 'Z' is not a rank
"""

from __future__ import annotations

__all__ = [
    "CardError",
    "ContractError",
    "DatasetError",
    "IllegalActionError",
    "OptionError",
    "PrefstatsError",
    "RecordError",
    "VariantError",
]


class PrefstatsError(Exception):
    """The base of every error prefstats raises on bad input; its message says what is
    wrong and, where it can, how to put it right.

    >>> import prefstats as ps
    >>> issubclass(ps.CardError, ps.PrefstatsError), issubclass(ps.CardError, ValueError)
    (True, True)
    """


class CardError(PrefstatsError, ValueError):
    """Cards that cannot be read or cannot be dealt: a malformed card token, a card named
    twice or fixed in two hands, a hand of the wrong size, a mask that is not 32 bits.

    >>> from prefstats.game.cards import parse_cards
    >>> parse_cards("♠AKA")
    Traceback (most recent call last):
    ...
    prefstats.errors.CardError: bad card token '♠AKA': A♠ is named twice
    """


class ContractError(PrefstatsError, ValueError):
    """A contract that does not exist, written as text or given as a code.

    >>> from prefstats.game.contracts import parse_contract
    >>> parse_contract("11♠")
    Traceback (most recent call last):
    ...
    prefstats.errors.ContractError: bad contract '11♠': expected a level 6..10 and ♠ ♣ ♦ ♥ or NT
    """


class VariantError(PrefstatsError, ValueError):
    """A variant that cannot be built: an unknown preset or option, a value of the wrong
    type or outside its choices, a forbidden combination of options, a TOML file that
    does not parse. The message names the option.

    >>> from prefstats.game.variants import get_variant
    >>> get_variant("sochi", hold="bogus")
    Traceback (most recent call last):
    ...
    prefstats.errors.VariantError: hold: 'bogus' is not one of 'senior', 'first_hand', 'none'
    """


class RecordError(PrefstatsError, ValueError):
    """A record of play that cannot be read or could not have happened: a deal record, a
    deal outcome to score, a score sheet, a JSON or TOML file of them. The message names
    the file, line and field where it can.

    >>> from prefstats.game.scoring import sheet_from_records
    >>> sheet_from_records({"variant": "sochi", "deals": "none"})
    Traceback (most recent call last):
    ...
    prefstats.errors.RecordError: deals: expected a list of deal outcomes
    """


class DatasetError(PrefstatsError, ValueError):
    """A dataset that cannot be used as asked: missing, corrupt, foreign or mismatched
    (its manifest, a chunk, or a run that does not match the one that made it).

    >>> import prefstats as ps
    >>> ps.load("no-such-dataset")
    Traceback (most recent call last):
    ...
    prefstats.errors.DatasetError: no-such-dataset: no manifest.json; not a prefstats dataset
    """


class IllegalActionError(PrefstatsError, ValueError):
    """A decision the rules forbid, given through the Python protocol of the engine and
    the players: an illegal call in an auction, an illegal whist call or card, a decision
    asked of a seat whose turn it is not.

    >>> import prefstats as ps
    >>> from prefstats.game.auction import PASS, auction_result
    >>> auction_result([PASS], ps.get_variant("sochi"))
    Traceback (most recent call last):
    ...
    prefstats.errors.IllegalActionError: the auction is not over
    """


class OptionError(PrefstatsError, ValueError):
    """An argument prefstats cannot use: an unknown decision, option, policy or player
    parameter, a number out of its range, options that exclude each other.

    >>> import prefstats as ps
    >>> ps.deal(1, seed=-5)
    Traceback (most recent call last):
    ...
    prefstats.errors.OptionError: seed must be a non-negative integer, got -5
    """
