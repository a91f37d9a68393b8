"""The declarer's card play in closed trick games: positions where the counted cards (the
trumps still out, the masters of each suit) change his card, and the play is right."""

from test_cardplay import play, position

from prefstats.game import engine

# ---- drawing trumps -------------------------------------------------------------------


def test_declarer_does_not_lead_into_a_trump_that_beats_all_his():
    # ♠KQ8 against the lone ♠A: the ace takes a trick whenever it likes, and leading a
    # trump only spends one of his (the old count, three trumps to one, drew).
    obs = position(engine.GAME, 0, "♠KQ8 ♥K98 ♦87", contract="6♠", declarer=0,
                   gone="♠J1097")
    assert not play(obs).endswith("♠")


def test_declarer_does_not_draw_trumps_without_the_master_unless_two_longer():
    # ♠KQ8 against ♠AJ10: only as many trumps as the defence, so he keeps them (the
    # gauge against PIMC measured drawing here as the declarer's costliest lead; the
    # case with a side ace to cash is in test_cardplay).
    obs = position(engine.GAME, 0, "♠KQ8 ♥K98 ♦87", contract="6♠", declarer=0, gone="♠97")
    assert not play(obs).endswith("♠")
    # Two trumps above his (♠AK over ♠QJ10, with ♠98 out): he does not draw either.
    obs = position(engine.GAME, 0, "♠QJ10 ♥K98 ♦87", contract="6♠", declarer=0, gone="♠7")
    assert not play(obs).endswith("♠")


def test_declarer_forces_out_the_trump_ace_with_a_run_of_three():
    # ♠KQJ against ♠A107: as many trumps, and the run loses only to the ace, so he
    # forces it out before cashing the ♣A (with ♠KQ8 he cashes: test_cardplay).
    obs = position(engine.GAME, 0, "♠KQJ ♣A ♦87", contract="6♠", declarer=0, gone="♠98")
    assert play(obs) == "J♠"


def test_declarer_draws_with_two_masters_one_trump_short():
    # ♠AK8 against ♠QJ109: one trump fewer, but the ace and king draw two rounds.
    obs = position(engine.GAME, 0, "♠AK8 ♥K98 ♦87", contract="6♠", declarer=0, gone="♠7")
    assert play(obs) in ("A♠", "K♠")
    # With the ace alone on top he does not.
    obs = position(engine.GAME, 0, "♠AQ8 ♥K98 ♦87", contract="6♠", declarer=0, gone="♠7")
    assert not play(obs).endswith("♠")


# ---- cashing winners ------------------------------------------------------------------


def test_declarer_cashes_a_suit_of_masters_before_an_ace_with_a_loser_under_it():
    # Both doubletons are sure winners for now; ♦AK cashes two tricks and leaves nothing
    # behind, while cashing the ♣A would leave the eight a loser and the suit unguarded.
    obs = position(engine.GAME, 0, "♠87 ♣A8 ♦AK ♥9", contract="6♠", declarer=0)
    assert play(obs) in ("A♦", "K♦")


def test_declarer_keeps_his_winners_while_a_suit_is_to_set_up_though_one_may_ruff():
    # The defence holds the top trumps; ♦987 is a suit to set up, so the ♣A keeps as a
    # stopper (a defender may ruff it either way) and a diamond is given up.
    obs = position(engine.GAME, 0, "♠87 ♣A ♦987", contract="6♠", declarer=0,
                   gone="♣QJ10987")
    assert play(obs) == "7♦"
