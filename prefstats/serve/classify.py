"""The tables a hand's cell is read from, as data for the static site's JavaScript
(``classify.js``, read by ``static/features.js``): per-suit tables indexed by a suit's
8-bit holding, and the evaluator's coefficients, each taken from the Python classifiers
:func:`~prefstats.serve.guides.hand_features` calls, never copied by hand."""

from __future__ import annotations

import numpy as np


def classify_data() -> dict:
    """The charts of each decision, the most hands dealt to find one of a cell, and the
    classifiers' tables: a suit's ``length``, ``best_key`` (the best suit has the highest
    key plus suit index), ``top`` (A K Q), ``aces``, ``aces_kings`` and misère ``safe``ty,
    each by holding; ``pre``: the evaluator's rows and coefficients of a dealt hand's
    expected tricks."""
    from prefstats.game.cards import ACE, count_rank, suit_lengths
    from prefstats.players.evaluate import (
        BLOCK,
        COEF,
        K_LEAD_NT,
        K_LEAD_TRUMP,
        K_SINGLES,
        K_VOIDS,
        MODEL_ROW,
        NT,
        PRE,
        SAFE,
        SIDE,
        TRUMP,
        load_tables,
    )
    from prefstats.reports.classes import RANK_KEY, bidding_class, high_cards
    from prefstats.serve.guides import CHARTS, SAMPLE_HANDS

    spades = np.arange(256, dtype=np.uint32)  # each holding as a hand of spades alone
    tables = load_tables()
    row, block = MODEL_ROW[PRE], BLOCK * PRE
    return {
        "charts": CHARTS,
        "sample_hands": SAMPLE_HANDS,
        "length": suit_lengths(spades)[:, 0].tolist(),
        "best_key": RANK_KEY.tolist(),
        "top": bidding_class(spades)["top"].tolist(),
        "aces": count_rank(spades, ACE).tolist(),
        "aces_kings": high_cards(spades).tolist(),
        "safe": SAFE.tolist(),
        "pre": {"side": tables[row + SIDE].tolist(), "trump": tables[row + TRUMP].tolist(),
                "nt": tables[row + NT].tolist(),
                **{name: float(tables[COEF, block + k]) for name, k in (
                    ("lead_trump", K_LEAD_TRUMP), ("lead_nt", K_LEAD_NT),
                    ("voids", K_VOIDS), ("singles", K_SINGLES))}},
    }
