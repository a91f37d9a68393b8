"""Variants of Preferans as data: Sochi, Leningrad, Rostov and any house convention.

One concept: the :class:`Variant` record, each rule option with its check.

A :class:`Variant` is an immutable, validated record of every rule option of RULES.md;
the rules engine and the scoring read its fields and never its name. The presets ship as
TOML files in ``prefstats/game/presets``: ``base.toml`` sets and documents every option, and
each preset file overrides the few that make it itself. A user file names a ``base``
preset and overrides some options:

>>> v = get_variant("leningrad")
>>> v.whist_split, str(v.whist_rate), v.raspasy_rates
('gentleman', '2c', (2, 4, 6))
>>> get_variant("sochi", players=4).raspasy_talon
'dealer'
>>> get_variant("sochi", hold="bogus")
Traceback (most recent call last):
...
prefstats.errors.VariantError: hold: 'bogus' is not one of 'senior', 'first_hand', 'none'

Rates that depend on the contract price ``c`` are data too (:class:`Rate`): ``"c"``,
``"2c"``, ``"c/2"`` or a fixed number such as ``10``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import textwrap
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from prefstats.errors import VariantError
from prefstats.game.codes import DEALER_SITS_OUT, TABLE_FORMATS, TABLE_PLAYERS, WITH_DUMMY
from prefstats.game.contracts import LEVEL, MISERE, N_CONTRACTS, OBLIGATION, PRICE, QUOTA, STRAIN
from prefstats.game.tricks import RASPASY_TALON_MODES

__all__ = ["Variant", "describe", "differences", "get_variant", "load_variant",
           "load_variant_text", "overrides_toml"]

PRESETS = ("sochi", "leningrad", "rostov", "classic", "gusarik")
#: Highest bomb level of the opening circles (``bomb_level = "round"``): a bomb of 2^8, so
#: a game on it bid dark (x 2^9) fits the ``multiplier`` column.
MAX_BOMB_LEVEL = 8
#: Most opening circles of obligatory raspasy (``bomb_level = "tree"``): "one or 2 rounds
#: (a full circle)" (B:263).
MAX_TREE_CIRCLES = 2

_RATE = re.compile(r"^(?P<num>\d+)?c(?:/(?P<den>\d+))?$")


@dataclass(frozen=True)
class Rate:
    """A rate ``per * base + fixed``, where ``base`` is the contract price ``c(L)``.

    (For the raspasy zero-trick pool, ``base`` is the rate of the current step.)
    ``per`` is a multiple of 1/2 and ``fixed`` an integer, so that every amount of the
    sheet is an exact multiple of 1/2 (prices are even).

    >>> r = Rate.parse("c/2", "shortfall_rate")
    >>> r.at(6), str(r), Rate.parse(10, "x").at(6)
    (Fraction(3, 1), 'c/2', Fraction(10, 1))
    """

    per: Fraction = Fraction(0)
    fixed: int = 0

    @classmethod
    def parse(cls, value: object, key: str) -> Rate:
        """Read a rate from TOML: an integer, or ``"c"``, ``"2c"``, ``"c/2"``, ``"3c/2"``."""
        if isinstance(value, Rate):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 0:
                raise VariantError(f"{key}: a rate cannot be negative, got {value}")
            return cls(Fraction(0), value)
        if isinstance(value, str):
            m = _RATE.match(value.replace(" ", ""))
            if m:
                if int(m["den"] or 1) == 0:
                    raise VariantError(f"{key}: {value!r} divides by zero")
                per = Fraction(int(m["num"] or 1), int(m["den"] or 1))
                if (2 * per).denominator != 1:
                    raise VariantError(f"{key}: {value!r} must be a multiple of c/2")
                return cls(per, 0)
        raise VariantError(
            f"{key}: expected an integer or a multiple of the price like 'c', '2c', 'c/2', "
            f"got {value!r}"
        )

    def at(self, base: int) -> Fraction:
        """The amount per unit for price (or step rate) ``base``."""
        return self.per * base + self.fixed

    def halves(self, base: int) -> int:
        """``at(base)`` in half points (always an integer)."""
        return int(2 * self.at(base))

    def __str__(self) -> str:
        if self.per == 0:
            return str(self.fixed)
        num = "" if self.per.numerator == 1 else str(self.per.numerator)
        den = "" if self.per.denominator == 1 else f"/{self.per.denominator}"
        return f"{num}c{den}"

    def to_toml_value(self) -> int | str:
        return self.fixed if self.per == 0 else str(self)


def _doc(text: str, choices: tuple = ()) -> dict:
    return {"doc": text, "choices": choices}


@dataclass(frozen=True)
class Variant:
    """Every rule option of RULES.md, validated. Build it with :func:`get_variant`.

    Each field's documentation is in its metadata (``Variant.describe(name)``) and is
    written as a comment by :meth:`to_toml`.

    >>> v = get_variant("sochi")
    >>> v.base, v.players, v == get_variant("sochi")
    ('sochi', 3, True)
    """

    base: str = field(metadata=_doc("preset this variant starts from", PRESETS))
    players: int = field(
        metadata=_doc(
            "players at the table: 3, 4 or 5 (table = 'dealer_out': the dealer sits out, "
            "with 5 the next to deal too, B:474) or 2 (table = 'dummy')",
            (2, 3, 4, 5),
        )
    )
    table: str = field(
        metadata=_doc(
            "how the table is seated, read by every rule that depends on it: three "
            "players each playing every deal (three, A:S2), four with the dealer sitting "
            "each deal out (dealer_out, B:233), or Gusarik's two players and a dummy "
            "dealt the third hand (dummy, B:380-386)",
            TABLE_FORMATS,
        )
    )
    hold: str = field(
        metadata=_doc(
            "who may take the current bid by saying 'here': any player seated earlier "
            "than the high bidder, only the first hand, or nobody",
            ("senior", "first_hand", "none"),
        )
    )
    jump_bids: bool = field(
        metadata=_doc(
            "a bid may skip ladder steps (a house option); if false every bid, the "
            "opening one too, is the next step (B:95, B:541)"
        )
    )
    raspasy_exit: int = field(
        metadata=_doc(
            "min_bid: lowest level of a bid in deals after a raspasy, until a game is "
            "played (6 = no restriction)",
            (6, 7, 8, 9, 10),
        )
    )
    half_whist: bool = field(
        metadata=_doc("the second defender may say 'half' on a 6 or 7 after the first passed")
    )
    ten_checked: bool = field(
        metadata=_doc("10-level contracts are always played, no whist obligation or trick whists")
    )
    stalingrad: bool = field(metadata=_doc("6♠ must be whisted by both defenders"))
    whist_split: str = field(
        metadata=_doc(
            "one whister and one passer on a remise: the whister writes all trick whists "
            "(greedy) or whists and consolation are shared half each (gentleman)",
            ("greedy", "gentleman"),
        )
    )
    made_rate: Rate = field(metadata=_doc("made contract: declarer's pool"))
    whist_rate: Rate = field(metadata=_doc("whists per defender trick, whister on declarer"))
    remise_rate: Rate = field(metadata=_doc("remise: declarer's mountain per undertrick"))
    consolation_rate: Rate = field(
        metadata=_doc(
            "remise: whists per undertrick written on the declarer by each defender "
            "(and the 4-player dealer)"
        )
    )
    shortfall_rate: Rate = field(
        metadata=_doc("whister's mountain per trick short of the obligation or quota")
    )
    misere_made: int = field(metadata=_doc("misère made: declarer's pool"))
    misere_failed: int = field(metadata=_doc("misère failed: declarer's mountain per trick"))
    raspasy_rates: tuple[int, ...] = field(
        metadata=_doc(
            "raspasy: mountain per trick at each consecutive step; the last step repeats "
            "([] = no mountain)"
        )
    )
    raspasy_whists: int = field(
        metadata=_doc(
            "raspasy: whists per trick difference, written by the players with the fewest "
            "tricks on each who took more (0 = none)"
        )
    )
    raspasy_zero_pool: Rate = field(
        metadata=_doc("raspasy: pool of a player with no tricks; here 'c' is the step rate")
    )
    raspasy_talon: str = field(
        metadata=_doc(
            "raspasy talon: its cards set the first hand's lead on tricks 1-2 (suit_lead), "
            "are led for the 4-player dealer (dealer), or are not used (none)",
            RASPASY_TALON_MODES,
        )
    )
    pool_value: int = field(metadata=_doc("settlement: whists per pool point"))
    mountain_value: int = field(metadata=_doc("settlement: whists per mountain point"))
    pulka_end: str = field(
        metadata=_doc(
            "end of the pulka: every pool closed, points beyond the target help (help, "
            "B:317, B:376); the pools sum to target x players (total, B:355); or every "
            "player has the target in his own pool, without help (each, B:400)",
            ("help", "total", "each"),
        )
    )

    # Classic, Gusarik and 4-player options (RULES.md §10); off in the first presets.
    no_talon_bids: bool = field(
        default=False,
        metadata=_doc(
            "contracts without the talon (игра без прикупа): each ranks above the same "
            "contract with the talon; the declarer neither sees nor takes the talon"
        ),
    )
    misere_place: str = field(
        default="over_eight",
        metadata=_doc(
            "misère's place on the ladder: above the eights, misère without the talon "
            "above the nines with it (over_eight, B:185, B:418); both misères between the "
            "nines and the tens (over_nine, B:187 by agreement); both above every bid "
            "(top, B:187 by agreement: its bidder takes the talon at once)",
            ("over_eight", "over_nine", "top"),
        ),
    )
    dark_bids: bool = field(
        default=False,
        metadata=_doc(
            "a player may bid in the dark (втёмную) at his first call, before he looks at "
            "his cards; he stays blind for the rest of the auction and a game he wins "
            "scores double"
        ),
    )
    blind_pass: bool = field(
        default=False,
        metadata=_doc(
            "a player may pass in the dark as his first call before anyone bids; the "
            "others may then bid only 7 or more, or in the dark; an all-pass deal earns "
            "each blind passer a bomb"
        ),
    )
    dark_misere_high: bool = field(
        default=False,
        metadata=_doc(
            "a misère bid in the dark is overcalled only by a nine bid in the dark or a "
            "ten in the light (B:105); else like a misère in the light"
        ),
    )
    dark_overcall: str = field(
        default="next",
        metadata=_doc(
            "dark_bids: what overcalls a trick bid made in the dark ('once in the dark', "
            "B:103, B:422): the next step as any bid (next) or only a seven or more "
            "(seven: \"some allow only a seven game\", B:422)",
            ("next", "seven"),
        ),
    )
    dark_switch_to_misere: bool = field(
        default=False,
        metadata=_doc(
            "dark_bids: a dark declarer of a trick bid with the talon may, after looking "
            "at his cards and before he takes the talon, switch to a misère played and "
            "caught in the light, scored as an ordinary misère without the dark double "
            "(B:105, B:414)"
        ),
    )
    bomb_rounds: int = field(
        default=0,
        metadata=_doc(
            "the pulka opens with blind all-pass deals (бомбы) in which every player earns "
            "a bomb: with bomb_level = 'round' this many whole circles, one per bomb level "
            "(B:400, B:406); with 'tree' one or two circles of obligatory raspasy, each "
            "deal a tree (x2) for everyone (B:263-265); with 'passers' this many deals"
        ),
    )
    bomb_level: str = field(
        default="round",
        metadata=_doc(
            "a bomb's multiplier: by the opening circle it is earned in, 2, 4, 8 ... (a "
            "blind pass later earns a single bomb, 2), its raspasy scored at that rate "
            "per trick (round, B:398-406); every one a tree, x2, the opening circles "
            "of obligatory raspasy included (tree, B:263-267); or 2^k for k blind "
            "passers, its raspasy at the ordinary rates (passers)",
            ("round", "tree", "passers"),
        ),
    )
    bomb_circles: str = field(
        default="dealer",
        metadata=_doc(
            "bomb_level = 'round': the opening deals -- each dealer in turn deals every "
            "level, single to the highest (dealer, B:400's first way, B:406's example), or "
            "one circle of dealers per level (circle, B:400's second way)",
            ("dealer", "circle"),
        ),
    )
    underbid_penalty: bool = field(
        default=False,
        metadata=_doc(
            "a declarer who takes more tricks than his contract scores a remise of that "
            "many tricks"
        ),
    )
    whist_responsibility: str = field(
        default="quota",
        metadata=_doc(
            "who pays the defence's shortfall: by personal quota as in §7 (quota), or "
            "every whister the whole team shortfall (full, ответственный вист)",
            ("quota", "full"),
        ),
    )
    talon_whists: bool = field(
        default=False,
        metadata=_doc(
            "4 players: the sitting-out dealer writes whists on the declarer of a played "
            "trick game for talon honours (прикупные висты): an ace or K+Q of a suit one "
            "trick, A+K of a suit two, two aces three"
        ),
    )

    # ---- RULES.md §10: raspasy leads, the lone whister's play, the
    # dealer after a raspasy. Defaults keep the presets unless the seed says otherwise.
    raspasy_first_hand_leads: int = field(
        default=2,
        metadata=_doc(
            "3 players, raspasy_talon = 'suit_lead': how many opening tricks the first "
            "hand leads whoever wins them (2: one per talon card, A:S5; 3: B:227)",
            (2, 3),
        ),
    )
    raspasy_third_lead: str = field(
        default="first_hand",
        metadata=_doc(
            "raspasy_talon = 'dealer' (4 players): who leads trick 3 after the two talon "
            "cards -- the player left of the dealer (first_hand, B:125) or the winner of "
            "trick 2, the first hand if the talon won it (winner)",
            ("first_hand", "winner"),
        ),
    )
    lone_whist_play: str = field(
        default="open",
        metadata=_doc(
            "one whister, one passer: the defence always lies open (open, A:S3) or the "
            "whister chooses to lie open or to stand closed, each defender then playing "
            "his own cards (whister_chooses, B:215, B:259)",
            ("open", "whister_chooses"),
        ),
    )
    dealer_stays: int = field(
        default=1,
        metadata=_doc(
            "after a raspasy the same dealer deals again, at most this many deals running "
            "(1 = the deal always passes on; 3 = B:221)",
            (1, 2, 3),
        ),
    )

    # Rules the seed texts give (docs/RULES.md; each doc names its seed line).
    dealer_raspasy_pool: bool = field(
        default=False,
        metadata=_doc(
            "4 players, raspasy_talon = 'dealer': when the talon takes no trick the "
            "sitting-out dealer writes the zero-trick pool, as a player (B:312, B:355; "
            "by agreement, B:233); ignored with any other raspasy_talon"
        ),
    )
    half_responsible_until_closed: bool = field(
        default=False,
        metadata=_doc(
            "the whisters' shortfall is written at half the shortfall rate until some "
            "player's pool reaches the target, in full from then (B:422, 'in some "
            "companies')"
        ),
    )
    raspasy_ties: str = field(
        default="full",
        metadata=_doc(
            "raspasy_whists: players tied on the fewest tricks each write the whole "
            "amount (full, B:374) or half of it (half, B:593)",
            ("full", "half"),
        ),
    )

    ten_obligation: int = field(
        default=0,
        metadata=_doc(
            "tricks the defence owes on a ten: none, the ten being 'without whists' in the "
            "obligation table (0, B:211; a whisted ten is still played, B:567), or one as "
            "on an eight or a nine (1, the reading before B:211 was checked)",
            (0, 1),
        ),
    )
    dummy_hand: str = field(
        default="first",
        metadata=_doc(
            "table = 'dummy' (Gusarik): the dummy sits on the dealer's left, the first "
            "hand, so the defence leads trick 1 of a game or a misère (first, B:382 with "
            "B:91, B:529, B:257); or it sits last and player 0 leads (third, the reading "
            "before B:382 was checked)",
            ("first", "third"),
        ),
    )

    # Rules the texts name with the amounts left to the table: off by default, the
    # amounts parameters (RULES.md §10.9).
    preference: bool = field(
        default=False,
        metadata=_doc(
            "the 'preference': a declarer who holds A K Q of all four suits after taking "
            "the talon ends the pulka: his mountain written off, every pool filled to the "
            "target, he writing pool_value whists a point on each player he fills (B:189-"
            "201; 'agreed in advance', B:201). The score sheet records it "
            "(record_preference); simulated pulkas end at the talon, the deal not played out"
        ),
    )
    misere_prize: int = field(
        default=0,
        metadata=_doc(
            "whists each other active player writes on a declarer who makes his misère "
            "(Rostov: misère 'is awarded a prize', B:361; the amount is the table's)"
        ),
    )
    race_first_closed: int = field(
        default=0,
        metadata=_doc(
            "races (B:426): whists each other player writes on the first player whose pool "
            "reaches the target, at the settlement (players closing on the same deal share "
            "it)"
        ),
    )
    race_smallest_mountain: int = field(
        default=0,
        metadata=_doc(
            "races (B:426): whists each other player writes on the player with the "
            "smallest mountain at the end of the pulka (ties share it)"
        ),
    )
    suit_price_step: int = field(
        default=0,
        metadata=_doc(
            "the old hierarchy of prices by suit (B:422: spades cheapest, no trump "
            "dearest): a trick contract's price c is raised by this much per strain above "
            "spades (clubs 1, diamonds 2, hearts 3, no trump 4); 0 = the modern single "
            "table"
        ),
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            checked = _check_field(f.name, f.type, value)  # type: ignore[arg-type]  # a str
            if checked is not value:
                object.__setattr__(self, f.name, checked)
            choices = f.metadata["choices"]
            if choices and checked not in choices:
                listed = ", ".join(repr(c) for c in choices)
                raise VariantError(f"{f.name}: {checked!r} is not one of {listed}")
        if self.players not in TABLE_PLAYERS[self.table_format]:
            seats = " or ".join(str(k) for k in TABLE_PLAYERS[self.table_format])
            raise VariantError(f"table: {self.table!r} seats {seats} players, not players = "
                               f"{self.players}")
        if self.raspasy_talon == "dealer" and not self.dealer_sits_out:
            raise VariantError("raspasy_talon: 'dealer' needs table = 'dealer_out' (4 players)")
        if self.bomb_rounds and not self.blind_pass:
            raise VariantError("bomb_rounds: the opening rounds are blind passes; needs blind_pass")
        if self.bomb_level == "round" and self.bomb_rounds > MAX_BOMB_LEVEL:
            raise VariantError(f"bomb_rounds: at most {MAX_BOMB_LEVEL} circles with bomb_level "
                               f"= 'round' (a bomb of 2^{MAX_BOMB_LEVEL}), got {self.bomb_rounds}")
        if self.bomb_level == "tree" and self.bomb_rounds > MAX_TREE_CIRCLES:
            raise VariantError(f"bomb_rounds: bomb_level = 'tree' opens with one or two circles "
                               f"of obligatory raspasy (B:263), got {self.bomb_rounds}")
        if self.bomb_level == "tree" and self.bomb_rounds and self.bomb_circles != "circle":
            raise VariantError("bomb_circles: the obligatory raspasy of bomb_level = 'tree' are "
                               "full circles (B:263); set bomb_circles = 'circle', got "
                               f"{self.bomb_circles!r}")
        if self.dark_overcall != "next" and not self.dark_bids:
            raise VariantError(f"dark_overcall: {self.dark_overcall!r} overcalls a bid in the "
                               "dark; needs dark_bids")
        if self.dark_switch_to_misere and not self.dark_bids:
            raise VariantError("dark_switch_to_misere: a switch from a bid in the dark to a "
                               "light misère (B:414) needs dark_bids")
        if self.dark_misere_high and not self.dark_bids:
            raise VariantError("dark_misere_high: a misère bid in the dark needs dark_bids")
        if self.dark_misere_high and self.misere_place != "over_eight":
            raise VariantError("dark_misere_high: a dark misère between the dark and the light "
                               "nines (B:105) needs misere_place = 'over_eight', got "
                               f"{self.misere_place!r}")
        if self.raspasy_first_hand_leads == 3 and self.raspasy_talon != "suit_lead":
            raise VariantError("raspasy_first_hand_leads: 3 needs raspasy_talon = 'suit_lead' "
                               "(B:227: the talon cards set the suits)")
        if self.lone_whist_play != "open" and self.has_dummy:
            raise VariantError("lone_whist_play: Gusarik's defender always plays the turned "
                               "dummy (table = 'dummy')")
        if self.ten_checked and self.ten_obligation:
            raise VariantError("ten_checked: a ten played without whist calls owes no tricks; "
                               f"it contradicts ten_obligation = {self.ten_obligation}")
        if self.dummy_hand != "first" and not self.has_dummy:
            raise VariantError(f"dummy_hand: {self.dummy_hand!r} needs table = 'dummy' "
                               f"(Gusarik), got table = {self.table!r}")
        if self.talon_whists and not self.dealer_sits_out:
            raise VariantError("talon_whists: needs table = 'dealer_out' (the dealer sits out)")
        if not self.raspasy_rates and not self.raspasy_whists:
            raise VariantError("raspasy_rates: empty while raspasy_whists = 0 scores no raspasy")
        if (self.race_first_closed or self.race_smallest_mountain) and self.has_dummy:
            key = "race_first_closed" if self.race_first_closed else "race_smallest_mountain"
            raise VariantError(f"{key}: a race bonus needs three or four players; "
                             f"table = {self.table!r} has two")
        if self.pool_value <= 0 or self.mountain_value <= 0:
            key = "pool_value" if self.pool_value <= 0 else "mountain_value"
            raise VariantError(f"{key}: must be positive")

    @property
    def table_format(self) -> int:
        """``table`` as its code (:class:`~prefstats.game.codes.TableFormat`)."""
        return TABLE_FORMATS.index(self.table)

    @property
    def has_dummy(self) -> bool:
        """Gusarik's table: seat 2 is a dummy (B:380-386)."""
        return self.table_format == WITH_DUMMY

    @property
    def dealer_sits_out(self) -> bool:
        """A 4-player table: the dealer (seat 3) sits each deal out (B:233)."""
        return self.table_format == DEALER_SITS_OUT

    @staticmethod
    def describe(name: str) -> str:
        """Documentation of option ``name``.

        >>> Variant.describe("hold").split(":")[0]
        "who may take the current bid by saying 'here'"
        """
        return _FIELDS[name].metadata["doc"]

    def scoring_table(self) -> np.ndarray:
        """Every number the compiled scoring reads, as a read-only ``int64`` array.

        Amounts are in half points; the layout is given by this module's ``T_*``,
        ``C_*`` and ``CONTRACT_FIELDS`` constants. Cached: equal variants share it.

        >>> t = get_variant("leningrad").scoring_table()
        >>> int(t[9 * CONTRACT_FIELDS + C_WHIST]), int(t[T_PLAYERS])  # 7NT: 2c = 8 points
        (16, 3)
        """
        return _scoring_table(self)

    def to_toml(self) -> str:
        """The variant as a commented TOML file that :func:`load_variant` reads back.

        >>> v = get_variant("rostov", players=4)
        >>> load_variant_text(v.to_toml()) == v
        True
        """
        lines = [f"# Preferans variant '{self.base}', {self.players} players.", ""]
        for f in dataclasses.fields(self):
            doc = f.metadata["doc"]
            choices = f.metadata["choices"]
            if choices and isinstance(choices[0], str):
                doc += " [" + " | ".join(choices) + "]"
            lines.extend(textwrap.wrap(doc, 98, initial_indent="# ", subsequent_indent="# "))
            lines.append(f"{f.name} = {_toml_value(getattr(self, f.name))}")
        return "\n".join(lines) + "\n"


_FIELDS = {f.name: f for f in dataclasses.fields(Variant)}

# ---- the scoring table: a variant as the compiled scoring reads it ----------------------

#: Fields of contract ``c``'s row, at ``c * CONTRACT_FIELDS``: the rates of RULES.md §7
#: in half points (made → pool, whist per defender trick, remise mountain, consolation
#: and shortfall per trick), then the level, ob(L) and q(L). Misère's row is unused.
C_MADE, C_WHIST, C_REMISE, C_CONSOLATION, C_SHORTFALL, C_LEVEL, C_OBLIGATION, C_QUOTA = range(8)
CONTRACT_FIELDS = 8
#: Scalars after the contract rows: misère pool and mountain per trick (halves), raspasy whists per
#: trick (halves), ``whist_split`` (``SPLIT_*``), the flags ``half_whist``, ``ten_checked``,
#: ``stalingrad``, ``raspasy_talon`` (index of ``RASPASY_TALON_MODES``), players, ``table``
#: (``codes.TableFormat``), ``pool_value``, ``mountain_value``, the flag ``underbid_penalty``,
#: ``whist_responsibility`` (``RESPONSIBILITY_*``), the flag ``talon_whists``, the flag
#: ``dealer_raspasy_pool``, ``raspasy_ties`` (``TIES_*``), the flag
#: ``half_responsible_until_closed``, the zero-trick pool of a bomb raspasy (halves per point of
#: its rate, and fixed halves: ``raspasy_zero_pool`` at the bomb's rate), ``misere_prize``
#: (halves), the flag ``preference``, and the count of raspasy steps. The table ends with one
#: pair per raspasy step from ``T_RASPASY`` on: mountain per trick and the zero-trick pool,
#: both in halves; the last step repeats.
(
    T_MISERE_MADE,
    T_MISERE_FAILED,
    T_RASPASY_WHISTS,
    T_WHIST_SPLIT,
    T_HALF_WHIST,
    T_TEN_CHECKED,
    T_STALINGRAD,
    T_RASPASY_TALON,
    T_PLAYERS,
    T_TABLE,
    T_POOL_VALUE,
    T_MOUNTAIN_VALUE,
    T_UNDERBID_PENALTY,
    T_RESPONSIBILITY,
    T_TALON_WHISTS,
    T_DEALER_RASPASY_POOL,
    T_RASPASY_TIES,
    T_HALF_UNTIL_CLOSED,
    T_BOMB_ZERO_PER,
    T_BOMB_ZERO_FIXED,
    T_MISERE_PRIZE,
    T_PREFERENCE,
    T_RASPASY_STEPS,
    T_RASPASY,
) = range(N_CONTRACTS * CONTRACT_FIELDS, N_CONTRACTS * CONTRACT_FIELDS + 24)
WHIST_SPLITS = _FIELDS["whist_split"].metadata["choices"]
SPLIT_GREEDY, SPLIT_GENTLEMAN = range(len(WHIST_SPLITS))
RESPONSIBILITIES = _FIELDS["whist_responsibility"].metadata["choices"]
RESPONSIBILITY_QUOTA, RESPONSIBILITY_FULL = range(len(RESPONSIBILITIES))
TIES = _FIELDS["raspasy_ties"].metadata["choices"]
TIES_FULL, TIES_HALF = range(len(TIES))
PULKA_ENDS = _FIELDS["pulka_end"].metadata["choices"]
END_HELP, END_TOTAL, END_EACH = range(len(PULKA_ENDS))


@functools.cache
def _scoring_table(variant: Variant) -> np.ndarray:
    """The table of :meth:`Variant.scoring_table`.

    >>> t = _scoring_table(get_variant("sochi"))
    >>> int(t[T_RASPASY_STEPS]), t[T_RASPASY:].tolist()  # steps 1, 2, 3 points a trick
    (3, [2, 2, 4, 4, 6, 6])
    """
    v = variant
    rows = []
    for code in range(N_CONTRACTS):
        price = contract_price(v, code)
        rates = (v.made_rate, v.whist_rate, v.remise_rate, v.consolation_rate, v.shortfall_rate)
        rows += [r.halves(price) for r in rates]
        obligation, quota = int(OBLIGATION[code]), int(QUOTA[code])
        if LEVEL[code] == 10:  # B:211's "without whists", or one trick by option
            obligation = quota = v.ten_obligation
        rows += [int(LEVEL[code]), obligation, quota]
    steps = v.raspasy_rates or (0,)  # no raspasy mountain: one step of rate 0
    scalars = [
        2 * v.misere_made,
        2 * v.misere_failed,
        2 * v.raspasy_whists,
        WHIST_SPLITS.index(v.whist_split),
        v.half_whist,
        v.ten_checked,
        v.stalingrad,
        RASPASY_TALON_MODES.index(v.raspasy_talon),
        v.players,
        v.table_format,
        v.pool_value,
        v.mountain_value,
        v.underbid_penalty,
        RESPONSIBILITIES.index(v.whist_responsibility),
        v.talon_whists,
        v.dealer_raspasy_pool,
        TIES.index(v.raspasy_ties),
        v.half_responsible_until_closed,
        int(2 * v.raspasy_zero_pool.per),  # a bomb raspasy's zero-trick pool is this x
        2 * v.raspasy_zero_pool.fixed,  # its rate, plus this (halves)
        2 * v.misere_prize,
        v.preference,
        len(steps),
    ]
    for rate in steps:
        scalars += [2 * rate, v.raspasy_zero_pool.halves(rate)]
    table = np.array(rows + scalars, dtype=np.int64)
    table.flags.writeable = False
    return table


def contract_price(variant: Variant, code: int) -> int:
    """The price ``c`` of contract ``code`` under ``variant``: the single table (B:16-21),
    raised by ``suit_price_step`` per strain above spades on the old hierarchy (B:422).

    >>> contract_price(get_variant("sochi", suit_price_step=1), 9)  # 7NT: 4 + 4 x 1
    8
    """
    price = int(PRICE[code])
    if code == MISERE:
        return price
    return price + variant.suit_price_step * int(STRAIN[code])


def _check_field(key: str, kind: str, value: Any) -> Any:
    """``value`` checked against the annotation ``kind``, converted from TOML if needed."""
    if kind == "Rate":
        return Rate.parse(value, key)
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    elif kind == "str":
        ok = isinstance(value, str)
    else:  # tuple[int, ...]
        ok = isinstance(value, list | tuple) and all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value
        )
        value = tuple(value) if ok else value
    if not ok:
        want = {"int": "a non-negative integer", "tuple[int, ...]": "a list of positive integers"}
        raise VariantError(f"{key}: expected {want.get(kind, kind)}, got {value!r}")
    return value


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Rate):
        value = value.to_toml_value()
    if isinstance(value, tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


#: The preset every preset file overrides (``base = "base"``); not a variant itself.
BASE_PRESET = "base"


def _preset_file(name: str) -> dict[str, Any]:
    text = resources.files("prefstats.game.presets").joinpath(f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def _preset(name: str) -> dict[str, Any]:
    """Preset ``name``'s options: the base preset's, overridden by the preset file's
    (its ``[four_players]`` table too)."""
    if name not in PRESETS:
        raise VariantError(f"base: unknown variant {name!r}; presets are {', '.join(PRESETS)}")
    values = _preset_file(BASE_PRESET)
    own = _preset_file(name)
    if own.pop("base", None) != BASE_PRESET:
        raise VariantError(f"preset {name!r}: must start from base = {BASE_PRESET!r}")
    four = {**values.pop("four_players", {}), **own.pop("four_players", {})}
    values.update(own, four_players=four)
    return values


def get_variant(name: str, *, players: int | None = None, **options: Any) -> Variant:
    """The preset ``name`` for ``players``, with ``options`` overriding its fields.

    A preset's ``[four_players]`` table holds what changes with 4 players.

    >>> get_variant("sochi", whist_split="gentleman").whist_split
    'gentleman'
    >>> get_variant("sochi", colour="red")
    Traceback (most recent call last):
    ...
    prefstats.errors.VariantError: colour: unknown option

    :param name: a preset: ``sochi``, ``leningrad``, ``rostov``, ``classic`` or ``gusarik``.
    :param players: players at the table (default: the preset's own, 2 for ``gusarik``,
        else 3).
    :param options: rule options overriding the preset's, by field name of :class:`Variant`.
    :returns: the validated variant.
    :raises VariantError: naming the option that is unknown, of a wrong type or impossible.
    """
    options = _renamed(options)
    for key in options:
        if key not in _FIELDS or key == "base":
            raise VariantError(f"{key}: unknown option")
    values = _preset(name)
    four = values.pop("four_players", {})
    if players is None:
        players = values.get("players", 3)
    elif "players" in values and players != values["players"]:  # a preset of a fixed table
        raise VariantError(f"players: {name} is played by {values['players']}, got {players}")
    if players in (4, 5):  # the dealer_out table (with five the next to deal sits out too)
        values.update(four)
    values.update(options, base=name, players=players)
    return Variant(**values)


def opening_bombs(variant: Variant) -> list[tuple[int, int]]:
    """The pulka's opening bomb deals (``bomb_rounds``, RULES.md §10.1), one pair each:
    the dealer's place (places 0 .. N-1, the first dealer N-1) and the bomb level's
    multiplier (1: a bomb of ``2^k`` for ``k`` blind passers).

    With ``bomb_level = "round"`` there are ``bomb_rounds`` whole circles, the sitting-out
    dealer's deals included (B:400, B:406): each dealer in turn deals every level, from
    the single bomb up (``bomb_circles = "dealer"``), or one circle per level
    (``"circle"``); afterwards the first dealer deals again. With ``"tree"`` the
    ``bomb_rounds`` circles (at most two, B:263) are of obligatory raspasy, each deal a
    tree (x2) for every player (B:265). With ``"passers"`` the
    ``bomb_rounds`` deals are dealt in the usual rotation.

    >>> opening_bombs(get_variant("classic", players=4, bomb_rounds=1, bomb_circles="circle"))
    [(3, 2), (0, 2), (1, 2), (2, 2)]
    """
    n, rounds = variant.players, variant.bomb_rounds
    if variant.bomb_level == "passers":
        return [((n - 1 + k) % n, 1) for k in range(rounds)]
    if variant.bomb_level == "tree":  # each obligatory raspasy: a tree, x2 (B:265)
        return [((n - 1 + i) % n, 2) for _ in range(rounds) for i in range(n)]
    if variant.bomb_circles == "dealer":
        return [((n - 1 + i) % n, 2 << level) for i in range(n) for level in range(rounds)]
    return [((n - 1 + i) % n, 2 << level) for level in range(rounds) for i in range(n)]


#: Options renamed: the old key, the new one and the new value of each old one. Files and
#: dataset specs written with the old key still load.
_RENAMED = {"misere_over_nine": ("misere_place", {True: "over_nine", False: "over_eight"})}


def _renamed(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with each old key of :data:`_RENAMED` replaced by its new one.

    >>> _renamed({"misere_over_nine": True})
    {'misere_place': 'over_nine'}
    """
    out = dict(options)
    for old, (new, values) in _RENAMED.items():
        if old not in out:
            continue
        value = out.pop(old)
        if not isinstance(value, bool):
            raise VariantError(f"{old}: expected true or false, got {value!r}")
        if new in out and out[new] != values[value]:
            raise VariantError(f"{old}: the old name of {new}; {old} = {_toml_value(value)} "
                               f"contradicts {new} = {_toml_value(out[new])}")
        out[new] = values[value]
    return out


def load_variant_text(text: str) -> Variant:
    """A variant from TOML text: ``base = "sochi"`` plus options (see :func:`load_variant`).

    >>> load_variant_text('base = "rostov"').base
    'rostov'
    """
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(f"not valid TOML: {exc}") from None
    return variant_from_mapping(values)


def variant_from_mapping(values: Mapping[str, Any]) -> Variant:
    """A variant from ``{"base": "sochi", "players": 4, **options}`` (as read from TOML).

    >>> variant_from_mapping({"base": "rostov", "players": 4}).raspasy_talon
    'none'
    """
    values = dict(values)
    if "base" not in values:
        raise VariantError('base: missing; name a preset, e.g. base = "sochi"')
    base = values.pop("base")
    players = values.pop("players", None)
    return get_variant(base, players=players, **values)


def load_variant(path: str | Path) -> Variant:
    """Read a variant from a TOML file with ``base = "..."`` plus option overrides.

    It reads back what :meth:`Variant.to_toml` writes.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "house.toml"
    >>> _ = path.write_text(get_variant("rostov", players=4).to_toml(), "utf-8")
    >>> load_variant(path) == get_variant("rostov", players=4)
    True

    :param path: the TOML file.
    :returns: the validated variant.
    :raises VariantError: naming the key for unknown keys, wrong types and impossible
        combinations.
    """
    return load_variant_text(Path(path).read_text("utf-8"))


# ---- naming a variant: its preset and what it changes -----------------------------------


def overrides(variant: Variant) -> dict[str, Any]:
    """The options in which ``variant`` differs from its preset at its table size, as
    TOML values (in field order).

    >>> overrides(get_variant("leningrad", stalingrad=True, raspasy_rates=[1, 2]))
    {'stalingrad': True, 'raspasy_rates': [1, 2]}
    >>> overrides(get_variant("sochi", players=4))
    {}
    """
    preset = get_variant(variant.base, players=variant.players)
    out = {}
    for f in dataclasses.fields(variant):
        value = getattr(variant, f.name)
        if f.name not in ("base", "players") and value != getattr(preset, f.name):
            value = value.to_toml_value() if isinstance(value, Rate) else value
            out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def describe(variant: Variant) -> str:
    """The variant in words: its preset, the table size when not the preset's, and
    every option it changes.

    >>> describe(get_variant("leningrad", stalingrad=True))
    'Leningrad with stalingrad = true'
    >>> describe(get_variant("sochi", players=4, whist_split="gentleman", half_whist=True))
    'Sochi, 4 players, with half_whist = true and whist_split = "gentleman"'
    >>> describe(get_variant("gusarik"))
    'Gusarik'
    """
    text = variant.base.capitalize()
    if variant.players != get_variant(variant.base).players:
        text += f", {variant.players} players,"
    changed = [f"{k} = {_toml_value(getattr(variant, k))}" for k in overrides(variant)]
    if not changed:
        return text.rstrip(",")
    listed = changed[0] if len(changed) == 1 else ", ".join(changed[:-1]) + " and " + changed[-1]
    return f"{text} with {listed}"


def overrides_toml(variant: Variant) -> str:
    """The shortest variant file of ``variant``: ``base``, ``players`` and its overrides.

    >>> v = get_variant("sochi", players=4, whist_split="gentleman")
    >>> print(overrides_toml(v), end="")
    base = "sochi"
    players = 4
    whist_split = "gentleman"
    >>> load_variant_text(overrides_toml(v)) == v
    True
    """
    names = ["base", "players", *overrides(variant)]
    return "".join(f"{k} = {_toml_value(getattr(variant, k))}\n" for k in names)


def differences(variants: Mapping[str, Variant]) -> dict[str, dict[str, str]]:
    """The options (table size and preset included) in which the named variants differ,
    each with every variant's value as TOML text.

    >>> differences({"a": get_variant("sochi"), "b": get_variant("sochi", stalingrad=True)})
    {'stalingrad': {'a': 'false', 'b': 'true'}}
    """
    out = {}
    for f in dataclasses.fields(Variant):
        values = {label: getattr(v, f.name) for label, v in variants.items()}
        if len(set(values.values())) > 1:
            out[f.name] = {label: _toml_value(v) for label, v in values.items()}
    return out
