"""The whisters' card play in closed trick games: what the play so far tells them (the
partner's suits, the voids shown), on hand-made positions with their history."""


import numpy as np
import pytest
from test_cardplay import play, position

from prefstats.analysis import regret as rg
from prefstats.game import engine
from prefstats.game.cards import parse_cards
from prefstats.game.contracts import TRUMP
from prefstats.game.tricks import beats
from prefstats.game.variants import get_variant


def with_history(obs, tricks):
    """``obs`` after the finished ``tricks``, each ``(leader, [three cards])``: the
    history, who played what, the voids shown and the tricks taken, as the engine keeps
    them (the cards join ``gone``)."""
    trump = int(TRUMP[obs["contract"]])
    n = 0
    for leader, cards in tricks:
        codes = [parse_cards(c).bit_length() - 1 for c in cards]
        best, winner = codes[0], leader
        for i, c in enumerate(codes):
            seat = (leader + i) % 3
            obs["history"][n], obs["history_by"][n] = c, seat
            n += 1
            obs["gone"] |= np.uint32(1 << c)
            if c >> 3 != codes[0] >> 3:
                obs["voids"][seat] |= 1 << (codes[0] >> 3)
                if trump >= 0 and c >> 3 != trump:
                    obs["voids"][seat] |= 1 << trump
            if i and beats(c, best, trump):
                best, winner = c, seat
        obs["tricks"][winner] += 1
    # the current trick's cards follow the finished ones
    for i in range(obs["n_in_trick"]):
        obs["history"][n] = obs["trick_cards"][i]
        obs["history_by"][n] = (obs["leader"] + i) % 3
        n += 1
    obs["n_played"] = n
    obs["trick"] = len(tricks)
    return obs


# ---- leads --------------------------------------------------------------------------------


def test_returns_the_partners_suit():
    # The partner (seat 2) led clubs and I won; the old rule led the longest suit.
    obs = position(engine.GAME, 1, "♣97 ♦J97 ♥J97 ♠8", contract="6♠", declarer=0)
    obs = with_history(obs, [(2, ["10♣", "J♣", "K♣"])])
    assert play(obs) == "7♣"


def test_cashes_the_masters_that_set_the_contract():
    # Three defence tricks in: ♣AK are the two more that beat a six.
    obs = position(engine.GAME, 2, "♣AK ♦J97", contract="6♠", declarer=0,
                   gone="♥AKQ1087 ♠AKQJ")
    obs["tricks"][2], obs["tricks"][1], obs["tricks"][0] = 2, 1, 2
    assert play(obs) == "K♣"


def test_forces_the_declarer_in_the_suit_he_ruffed():
    # The declarer (seat 0) ruffed the ace of hearts: lead hearts again, not diamonds.
    obs = position(engine.GAME, 1, "♥Q98 ♦K987 ♣9", contract="6♠", declarer=0)
    obs = with_history(obs, [(1, ["A♥", "7♥", "7♠"]), (0, ["7♣", "A♣", "8♣"])])
    assert obs["voids"][0] == 1 << (parse_cards("♥7").bit_length() - 1 >> 3)
    assert play(obs) == "8♥"


def test_does_not_lead_the_declarers_side_suit():
    # He led clubs himself: his suit; the diamonds go instead.
    obs = position(engine.GAME, 1, "♣Q1098 ♦Q109 ♠97", contract="6♥", declarer=0)
    obs = with_history(obs, [(0, ["K♣", "A♣", "7♣"])])
    assert play(obs) == "9♦"


def test_no_low_lead_up_to_the_declarer_who_plays_last():
    # The declarer sits on the right and plays last: the sequence, not a low club.
    obs = position(engine.GAME, 1, "♣KJ10987 ♦QJ8", contract="6♥", declarer=0)
    assert play(obs) == "J♦"
    # On the left he plays second: the long suit, led through him, stays.
    obs = position(engine.GAME, 2, "♣KJ10987 ♦QJ8", contract="6♥", declarer=0)
    assert play(obs) == "7♣"


def test_cashes_a_winner_from_the_sixth_trick():
    # Early the ace of clubs keeps; from the sixth trick on it is cashed before the
    # declarer can throw his clubs on his long suit.
    obs = position(engine.GAME, 1, "♣A ♦987 ♠7", contract="6♠", declarer=0, gone="♣K")
    obs["trick"] = 4
    assert play(obs) == "7♦"
    obs["trick"] = 5
    assert play(obs) == "A♣"


def test_keeps_winners_without_trumps_in_the_defence():
    # At no-trumps the masters keep; the declarer may have to come to them.
    obs = position(engine.GAME, 1, "♣AK ♦9", contract="6NT", declarer=0)
    assert play(obs) == "9♦"


# ---- follows and discards -----------------------------------------------------------------


def test_discards_keep_length_against_the_declarers_suit():
    # ♦987 may still be needed to follow the declarer's diamonds; he has no hearts
    # (and ruffs them).
    obs = position(engine.GAME, 1, "♦987 ♥109", trick=["A♣"], contract="6♠", declarer=0)
    obs["voids"][0] = 1 << (parse_cards("♥7").bit_length() - 1 >> 3)
    assert play(obs) == "9♥"


def test_ruffs_a_partners_winner_the_declarer_would_ruff():
    # The partner (seat 0) led the ace of diamonds; the declarer behind showed out of
    # diamonds in an earlier trick, so it is no safe winner: ruff with the master ♠Q.
    obs = position(engine.GAME, 1, "♠Q7 ♣98", trick=["A♦"], contract="6♠", declarer=2,
                   gone="♠AK")
    obs["voids"][2] = 1 << (parse_cards("♦7").bit_length() - 1 >> 3)
    assert play(obs) == "Q♠"


# ---- the regret gauge ---------------------------------------------------------------------

@pytest.mark.slow
def test_regret_rows_are_whisters_legal_cards_never_better_than_pimcs():
    games, ctx = rg.closed_games(400, 5, get_variant("sochi"), 8)
    rows = rg.regret_rows(games, ctx, samples=8, defence=True)
    assert len(rows) > 0
    declarer = games["declarer"][rows[:, rg.R_GAME]]
    assert np.all(rows[:, rg.R_SEAT] != declarer)
    for col in (rg.R_CARD, rg.R_BEST):
        assert np.all(rows[:, rg.R_HAND] >> rows[:, col] & 1)
    # PIMC's best card minimises the declarer's tricks over the same worlds
    assert np.all(rows[:, rg.R_VALUE] >= rows[:, rg.R_BEST_VALUE])
    same = rows[:, rg.R_CARD] == rows[:, rg.R_BEST]
    assert np.all(rows[same, rg.R_VALUE] == rows[same, rg.R_BEST_VALUE])
