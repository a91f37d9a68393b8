"""The rows of the books report, section by section (:func:`book_rows`).

Each section turns one part of the books' list into :class:`~.books.Row` records. Sizes
scale with ``scale`` (1 = the committed report); ``seed`` keys every deal and player.
A claim that depends on how the defence plays is reported under both models of the
misère catchers: ``hidden`` (the default players: they cannot see the discard) and
``double_dummy`` (they see it: an upper bound on catching).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from prefstats.analysis import books_play as play
from prefstats.analysis.books import (
    EV_TOL,
    FOLK_TOL,
    RULES_TOL,
    SIM_TOL,
    Row,
    exact_row,
    mean_row,
    preferans_hand_probability,
    proportion_row,
    split_check,
    split_probability,
    talon_check,
    talon_out_probability,
)
from prefstats.analysis.suit_play import at_least, holding, sure_tricks, trick_distribution
from prefstats.game.contracts import OBLIGATION, QUOTA, parse_contract
from prefstats.game.deal import deal
from prefstats.game.exact import Z95
from prefstats.game.scoring import ScoreSheet
from prefstats.game.variants import get_variant

CATCHERS = ("hidden", "double_dummy")
DEFENCE = {"hidden": "default players (catchers cannot see the discard)",
           "double_dummy": "double dummy (catchers see the discard)"}
LESNOI = "Lesnoi, Russian Preferans, App. 2 (Litvin)"
FOLK = "misère folklore (litfond.net 73873; review-pref.ru)"
#: Outs of the one-hole misères played (Table 6 and the curve beside it).
OUTS_PLAYED = (2, 4, 6, 8, 11, 13)


@dataclass(frozen=True)
class Sizes:
    """How much each simulated section plays."""

    check_deals: int  # deals checking the exact split and talon figures
    hands_per_outs: int  # one-hole hands per number of outs
    talons: int  # talons each of them meets (231: every talon once)
    hole_deals: int  # misères per folklore hole and catchers' model
    pulkas: int

    @classmethod
    def of(cls, scale: float) -> Sizes:
        """The committed report's sizes times ``scale`` (at least one of each)."""
        def size(n):
            return max(1, round(n * scale))
        return cls(size(200_000), size(10), min(231, size(231)), size(1500), size(600))


def table4(sizes: Sizes, seed: int) -> list[Row]:
    """Lesnoi's Table 4: how the missing cards of a suit split (exact; a dealt check)."""
    book = {3: [(3, ".2105"), (2, ".7895")], 4: [(4, ".0867"), (3, ".4954"), (2, ".4180")],
            5: [(5, ".0325"), (4, ".2709"), (3, ".6966")], 8: [(8, ".0007"), (4, ".3501")]}
    deals = deal(sizes.check_deals, seed=seed)
    rows = []
    for missing, splits in book.items():
        for larger, printed in splits:
            hits, n = split_check(deals, missing, larger)
            rows.append(exact_row(
                "Table 4: suit splits", LESNOI,
                f"{missing} missing cards split {larger}:{missing - larger}", printed,
                split_probability(missing, larger), n=184_756,
                why="the book's figure differs from the enumeration",
                check=hits / max(n, 1), check_n=n, check_seed=seed))
    return rows


def talon_outs(sizes: Sizes, seed: int) -> list[Row]:
    """The talon's outs (pref-ural.ru) and the rule of 7 (gambiter.ru)."""
    deals = deal(sizes.check_deals, seed=seed + 1)
    rows = []
    for k, printed in ((5, ".411"), (6, ".480"), (7, ".545"), (11, ".762")):
        hits, n = talon_check(deals, k)
        rows.append(exact_row(
            "Talon outs and the rule of 7", "pref-ural.ru/112.html",
            f"P(one of {k} outs in the talon)", printed, talon_out_probability(k), n=231,
            why="the book's figure differs from the enumeration", check=hits / n,
            check_n=n, check_seed=seed + 1))
    fewest = next(k for k in range(23) if talon_out_probability(k) > 0.5)
    rows.append(exact_row(
        "Talon outs and the rule of 7", "gambiter.ru (mizer-preferans)",
        "rule of 7: fewest outs for an out in the talon to be better than even", "7",
        float(fewest), n=None, unit="outs",
        why="the enumeration gives another threshold"))
    return rows


def _fewest(results: dict, test: Callable[[dict], bool]) -> float | None:
    """The fewest outs whose result passes ``test`` (None if none does)."""
    return next((k for k in sorted(results) if results[k]["n"] and test(results[k])), None)


def table6(variant, sizes: Sizes, seed: int, workers: int,
           log: Callable[[str], None]) -> tuple[list[Row], dict]:
    """Table 6: one-hole misères by outs, under the book's reading (the talon's chance of
    an out) and played by the project (both catchers' models); the curve over every
    number of outs a dealt hand has."""
    section = "Table 6: one-hole misère by outs"
    book = {11: (".76", 39.0), 7: (".55", 7.0), 6: (".48", -3.0), 5: (".41", -13.0)}
    rows = [exact_row(section, LESNOI, f"success with {k} outs, the book's reading (an out "
                      "in the talon; every other hole caught)", printed,
                      talon_out_probability(k), n=231,
                      why="the book's figure is not the talon's chance of an out")
            for k, (printed, _) in book.items()]
    hands = play.one_hole_hands(OUTS_PLAYED, sizes.hands_per_outs, seed=seed + 2)
    curve: dict = {}
    for catchers in CATCHERS:
        results = {}
        for k in OUTS_PLAYED:
            log(f"one-hole misères with {k} outs, {catchers} catchers")
            results[k] = play.misere_by_outs(variant, hands[k], catchers=catchers,
                                             seed=seed + 3, workers=workers,
                                             talons=sizes.talons)
        curve[catchers] = results
        for k, (printed, ev) in book.items():
            r = results.get(k)
            if r is None or not r["n"]:
                rows.append(Row(section, LESNOI, f"success with {k} outs, played", float(printed),
                                None, None, None, 0, "not comparable",
                                f"no dealt one-hole hand has {k} outs when an out is a card "
                                "that fixes the hole with one discard (dealt hands have 0-4, "
                                "6 and 8-13); the book counts outs another way",
                                "simulated", DEFENCE[catchers], seed + 2))
                continue
            caught = r["unfixed_caught"] / max(r["unfixed"], 1)
            why = (f"the book counts every hole the talon leaves unfixed as caught; these "
                   f"catchers caught {caught:.0%} of them ({r['unfixed_caught']} of "
                   f"{r['unfixed']})")
            rows.append(proportion_row(section, LESNOI, f"success with {k} outs, played",
                                       float(printed), r["made"], r["n"],
                                       defence=DEFENCE[catchers], seed=seed + 3, tol=SIM_TOL,
                                       why=why, hands=len(hands[k]),
                                       unfixed_caught=round(caught, 4)))
            rows.append(mean_row(section, LESNOI, f"expected result with {k} outs, played",
                                 ev, r["mean"], r["se"], r["n"], defence=DEFENCE[catchers],
                                 seed=seed + 3, tol=EV_TOL, unit="whists",
                                 why=why + f"; {variant.base.title()} scores a misère ±"
                                 f"{_misere_values(variant)[0]:.1f} whists a trick"))
        fewest = _fewest(results, lambda r: r["made"] / r["n"] > 0.5)
        rows.append(_threshold_row(
            section, "Lesnoi's rule (declare if P > 0.5): fewest outs, played", 7, fewest,
            DEFENCE[catchers], seed + 3, lambda v: v == 7,
            f"the catchers catch only part of the unfixed holes, so the misère is better "
            f"than even from {fewest} outs (the fewest played: {OUTS_PLAYED[0]})" if fewest
            else "no number of outs passes"))
        fewest = _fewest(results, lambda r: r["mean"] >= 15)
        rows.append(_threshold_row(
            section, "Urbanovich's rule (declare if EV ≥ +15 whists): fewest outs, played; the "
            "book's table first passes it between 8 and 11", 11, fewest, DEFENCE[catchers],
            seed + 3, lambda v: 8 <= v <= 11,
            f"played, the expected result reaches +15 whists from {fewest} outs (the fewest "
            f"played: {OUTS_PLAYED[0]})" if fewest else "no number of outs passes"))
    return rows, curve


def _threshold_row(section, claim, book, project, defence, seed, ok, why) -> Row:
    verdict = "confirmed" if project is not None and ok(project) else "refuted"
    value = None if project is None else float(project)
    return Row(section, "Lesnoi; Urbanovich (shram.kiev.ua)", claim, float(book), value,
               value, value, None, verdict, "" if verdict == "confirmed" else why,
               "simulated", defence, seed, None, "outs")


def table2() -> list[Row]:
    """Table 2: the chance of an extra trick from a holding (one suit, exact)."""
    book = {"AQ10": ".60", "AQ7": ".33", "KJ9": ".79", "KJ7": ".60", "AJ109": ".67",
            "A987": ".42", "KQ109": ".67", "KQ87": ".54", "QJ9": ".51", "QJ7": ".18"}
    names = {"AQ7": "AQx", "KJ7": "KJx", "A987": "Axxx", "KQ87": "KQxx", "QJ7": "QJx"}
    rows = []
    for text, printed in book.items():
        bits = holding(text)
        sure = sure_tricks(bits)
        more = at_least(bits, sure + 2)
        row = exact_row(
            "Table 2: extra trick from a holding", LESNOI,
            f"{names.get(text, text)} ({text}): P(a trick beyond the {sure} sure)", printed,
            at_least(bits, sure + 1), n=None,
            defence="double dummy, the suit alone, the defence choosing every lead",
            why=f"the book counts the trick after the next as the extra one: P({sure + 2} "
                f"tricks) = {more:.3f}", distribution={str(t): round(p, 4) for t, p in
                                                      trick_distribution(bits).items()})
        if row.verdict == "refuted" and abs(more - row.book) <= row.tolerance:
            row.verdict = "not comparable"
        rows.append(row)
    return rows


def first_hand() -> list[Row]:
    """First-hand sure tricks (reg.dorogaved.ru)."""
    rows = []
    for text, shown, tricks, printed in (("KQ10987", "KQxxxx", 5, "1.00"),
                                         ("AQJ87", "AQJxx", 4, "1.00"),
                                         ("AKQ7", "AKQx", 4, ".85")):
        rows.append(exact_row(
            "First-hand sure tricks", "reg.dorogaved.ru (kak igrat pref)",
            f"{shown} ({text}) takes {tricks} tricks", printed,
            at_least(holding(text), tricks), n=None,
            defence="double dummy, the suit alone, the defence choosing every lead",
            why="four tricks fail only when one defender holds all four missing cards "
                "(.087); the book gives no derivation of its 85%"))
    return rows


def _game_value(variant, level: int, taken: int) -> float:
    """The declarer's result in whists of a ``level`` game taking ``taken`` tricks, one
    defender whisting (he takes the rest) and the other passing."""
    sheet = ScoreSheet(variant)
    sheet.record_game(0, parse_contract(f"{level}♠"), [taken, 10 - taken, 0],
                      {1: "whist", 2: "pass"})
    return float(sheet.value()[0])


def _misere_values(variant) -> tuple[float, float]:
    """The misère declarer's result in whists: made, and caught with one trick."""
    made, caught = ScoreSheet(variant), ScoreSheet(variant)
    made.record_misere(0, 0)
    caught.record_misere(0, 1)
    return float(made.value()[0]), float(caught.value()[0])


def break_even(variant, level: int) -> float:
    """The chance of the extra trick at which bidding ``level + 1`` pays as much as
    ``level``, for a hand sure of ``level`` tricks."""
    a0, a1 = _game_value(variant, level, level), _game_value(variant, level, level + 1)
    b0, b1 = _game_value(variant, level + 1, level), _game_value(variant, level + 1, level + 1)
    return (a0 - b0) / ((b1 - b0) - (a1 - a0))


def table3(variant) -> list[Row]:
    """Table 3: the chance of the extra trick needed to bid one level higher."""
    rows = []
    for level, printed in ((9, ".082"), (8, ".089"), (7, ".100"), (6, ".997")):
        p = break_even(variant, level)
        row = exact_row(
            "Table 3: bid one level higher", LESNOI,
            f"{level + 1} over {level}: chance of the extra trick needed", printed, p,
            n=None, method="rules", defence="one whister takes every trick he can",
            tol=RULES_TOL, why=f"in {variant.base.title()} scoring the extra trick is needed with "
            f"{p:.3f}" + (": a nine taking ten pays more than a made ten, so a ten never "
                          "pays for the extra trick" if p > 1 else ""))
        if row.verdict == "refuted" and abs(1 - p - row.book) <= 0.01:
            row.verdict = "not comparable"
            row.reason = (f"a definition: the book's figure is the chance of failing one "
                          f"may accept, 1 − {p:.3f} = {1 - p:.3f}")
        rows.append(row)
    p = break_even(variant, 6)
    rows.append(exact_row(
        "Table 3: bid one level higher", "reg.dorogaved.ru (kak igrat pref)",
        "bid the higher contract if P(extra trick) ≥ 70% (7 over 6)", ".70", p, n=None,
        method="rules", defence="one whister takes every trick he can", tol=RULES_TOL,
        why=f"in {variant.base.title()} scoring a seven over a six needs the extra trick with "
            f"{p:.3f}: a failed seven costs far more than the six's extra whists"))
    return rows


def folklore(variant, sizes: Sizes, seed: int, log: Callable[[str], None]) -> list[Row]:
    """Misère folklore: the catch chance of a hole by who leads, both catchers' models."""
    holes = (("7-10", "7T", "theirs", 0.50, FOLK_TOL), ("7-9", "79", "own", 0.05, FOLK_TOL),
             ("7-J", "7J", "theirs", 0.80, FOLK_TOL), ("7-Q", "7Q", "theirs", 0.95, FOLK_TOL),
             ("8-9", "89", "theirs", 0.80, FOLK_TOL), ("lone 8", "8", "own", 0.05, FOLK_TOL),
             ("lone 8", "8", "theirs", 0.30, FOLK_TOL), ("lone 9", "9", "own", 0.15, FOLK_TOL),
             ("lone 9", "9", "theirs", 0.85, 2 * FOLK_TOL),
             ("7-8 with Q", "78Q", "theirs", 0.20, FOLK_TOL),
             ("7-8 with K", "78K", "theirs", 0.70, FOLK_TOL),
             ("7-8 with A", "78A", "theirs", 1.00, FOLK_TOL))
    rows = []
    for j, (name, text, lead, book, tol) in enumerate(holes):
        got = {}
        for catchers in CATCHERS:
            log(f"misère hole {name} on {lead} lead, {catchers} catchers")
            got[catchers] = play.hole_catch(variant, holding(text), lead=lead,
                                            catchers=catchers, deals=sizes.hole_deals,
                                            seed=seed + 10 + j)
        rates = {c: h / max(n, 1) for c, (h, n) in got.items()}
        if book > rates["double_dummy"]:
            why = (f"above even what catchers who see the discard catch ("
                   f"{rates['double_dummy']:.0%}), an upper bound: the folklore overstates "
                   "this hole against a clean rest of the hand")
        elif book < rates["hidden"]:
            why = (f"below what even catchers who cannot see the discard catch "
                   f"({rates['hidden']:.0%}): the folklore understates this hole")
        else:
            why = (f"between what catchers who cannot see the discard ({rates['hidden']:.0%})"
                   f" and who see it ({rates['double_dummy']:.0%}) catch")
        for catchers in CATCHERS:
            caught, n = got[catchers]
            rows.append(proportion_row(
                "Misère folklore: catch chance by hole and lead", FOLK,
                f"{name} caught on {lead} lead", book, caught, n, defence=DEFENCE[catchers],
                seed=seed + 10 + j, tol=tol, why=why))
    made, caught = _misere_values(variant)
    even = made / (made - caught)
    rows.append(exact_row(
        "Misère folklore: catch chance by hole and lead", FOLK,
        "declare if the combined catch chance is at most 80%", ".80", even, n=None,
        method="rules", defence="any",
        why=f"in {variant.base.title()} scoring a misère made wins {made:.1f} whists and one "
            f"caught with one trick loses {-caught:.1f}, so against a pass it breaks even at a "
            f"{even:.0%} catch chance; at 80% it loses {0.8 * -caught - 0.2 * made:.0f}"))
    return rows


def whist_obligations() -> list[Row]:
    """Whist obligations (oper7.ru): the rules' own figures."""
    rows = []
    for level, both, alone in ((6, "4", "2"), (7, "2", "1")):
        code = parse_contract(f"{level}♠").code
        rows.append(exact_row("Whist obligations", "oper7.ru/?p=61",
                              f"both defenders owe against a {level}", both,
                              float(OBLIGATION[code]), n=None, method="rules", unit="tricks",
                              why="the rules' obligation differs"))
        rows.append(exact_row("Whist obligations", "oper7.ru/?p=61",
                              f"a whister for himself needs against a {level}", alone,
                              float(QUOTA[code]), n=None, method="rules", unit="tricks",
                              why="the rules' personal quota differs"))
    return rows


def preferans_hand() -> list[Row]:
    """The "preferans" hand: A K Q of every suit with the talon."""
    p = preferans_hand_probability()
    return [exact_row("The preferans hand", "chitka.online, book 282, p. 248",
                      "A K Q of every suit with the talon, a hand (in 1e-9)", "4.43", p * 1e9,
                      n=None, unit="1e-9", why="the count differs"),
            exact_row("The preferans hand", "chitka.online, book 282, p. 248",
                      "one deal in this many millions has it (any of three hands)", "75.26",
                      1 / (3 * p) / 1e6, n=None, unit="million deals",
                      why="the count differs")]


def anecdotes(variant, sizes: Sizes, seed: int) -> list[Row]:
    """Skuratov's anecdotes, with a number attached from whole pulkas to 20."""
    got = play.pulka_figures(variant, sizes.pulkas, seed=seed + 40)
    r = got["raspasy"].astype(float)
    share = float((r > 10).mean())
    why = (f"a pulka to 20 of the default players has {r.mean():.1f} raspasy on average; "
           f"{share:.0%} of pulkas have more than ten")
    if len(r) > 1:
        se = float(r.std(ddof=1) / np.sqrt(len(r)))
        low, high = float(r.mean() - Z95 * se), float(r.mean() + Z95 * se)
        verdict = "confirmed" if low > 10 else "refuted" if high < 10 else "not comparable"
    else:
        low = high = None
        verdict, why = "not comparable", "too few pulkas for an interval"
    rows = [Row("Anecdotes", "Skuratov", "all-pass (raspasy) more than ten times a pulka",
                10.0, float(r.mean()), low, high, len(r), verdict,
                "" if verdict == "confirmed" else why,
                "simulated", DEFENCE["hidden"], seed + 40, None, "raspasy a pulka",
                {"share_over_ten": share})]
    rows.append(proportion_row(
        "Anecdotes", "Skuratov", "90% of catastrophes (games down two or more) are sixes "
        "and sevens", 0.90, got["failed2_low"], got["failed2"], defence=DEFENCE["hidden"],
        seed=seed + 40, tol=FOLK_TOL, why="sixes and sevens fail by two or more less often",
        games=got["games"]))
    return rows


def book_rows(variant_name: str = "sochi", *, scale: float = 1.0, seed: int = 1,
              workers: int = 1, log: Callable[[str], None] = lambda _: None
              ) -> tuple[list[Row], dict]:
    """Every row of the books report, and the one-hole misère curve by outs."""
    variant = get_variant(variant_name)
    sizes = Sizes.of(scale)
    rows = table4(sizes, seed) + talon_outs(sizes, seed)
    six, curve = table6(variant, sizes, seed, workers, log)
    rows += six + table2() + table3(variant) + first_hand()
    rows += folklore(variant, sizes, seed, log)
    rows += whist_obligations() + preferans_hand()
    log("pulkas")
    rows += anecdotes(variant, sizes, seed)
    return rows, curve
