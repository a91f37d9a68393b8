"""Checks shared by the Hypothesis properties of the score sheet (tests/test_scoring*.py):
a history is a list of ``(method, args, kwargs)`` calls of :class:`ScoreSheet`."""

from fractions import Fraction

from prefstats.game.scoring import (
    ScoreSheet,
    deal_value,
    game_entries,
    misere_entries,
    raspasy_entries,
)


def play(variant, history, pool_target=None):
    """The sheet after ``history`` (stopping when a pool target ends the pulka)."""
    sheet = ScoreSheet(variant, pool_target)
    for method, args, kwargs in history:
        if sheet.finished:
            break
        getattr(sheet, method)(*args, **kwargs)
    return sheet


def assert_settles_to_zero(variant, history, pool_target):
    sheet = play(variant, history, pool_target)
    assert sum(sheet.value_exact()) == 0
    assert abs(sheet.settle().sum()) < 1e-9


def assert_deal_values_add_up(variant, history):
    """Without help, the sheet's value is the sum of its deals' values."""
    total = [Fraction(0)] * variant.players
    step = 0
    for method, args, kwargs in history:
        if method == "record_game":
            entries = game_entries(variant, *args, **kwargs)
        elif method == "record_misere":
            entries = misere_entries(variant, *args, **kwargs)
        else:
            entries = raspasy_entries(variant, *args, step=step, **kwargs)
        if kwargs.get("multiplier", 1) == 1 or method != "record_raspasy":  # a bomb: no step
            step = step + 1 if method == "record_raspasy" else 0
        value = deal_value(variant, entries, exact=True)
        total = [a + b for a, b in zip(total, value, strict=True)]
    assert total == play(variant, history).value_exact()


def relabel(history, perm):
    """``history`` with player ``p`` renamed ``perm[p]``."""

    def moved(counts):
        out = [0] * len(perm)
        for p, t in enumerate(counts):
            out[perm[p]] = t
        return out

    out = []
    for method, args, kwargs in history:
        kwargs = dict(kwargs)
        if kwargs.get("dealer") is not None:
            kwargs["dealer"] = perm[kwargs["dealer"]]
        if method == "record_raspasy":
            args = (moved(args[0]),)
        elif method == "record_misere":
            args = (perm[args[0]], args[1])
        else:
            declarer, code, counts, whist = args
            args = (perm[declarer], code, moved(counts), {perm[d]: c for d, c in whist.items()})
        out.append((method, args, kwargs))
    return out


def assert_relabelling_permutes_the_scores(variant, history, perm):
    original = play(variant, history).value_exact()
    relabelled = play(variant, relabel(history, perm)).value_exact()
    assert [relabelled[perm[p]] for p in range(variant.players)] == original
