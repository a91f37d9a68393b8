"""Heuristic card play: obvious plays on hand-made positions, information, legality."""

import numpy as np
import pytest

from prefstats.analysis import cardplay_gap as gap
from prefstats.game import engine
from prefstats.game.auction import W_PASS, W_WHIST
from prefstats.game.cards import card_name, parse_cards
from prefstats.game.contracts import MISERE, TRUMP, parse_contract
from prefstats.game.deal import deal
from prefstats.game.tricks import legal_cards
from prefstats.game.variants import get_variant
from prefstats.players.builtin import decide, default_params, default_tables
from prefstats.players.cardplay import play_decision, possible_cards
from prefstats.players.knowledge import voids_shown
from prefstats.sim.play import new_state, play_batch

PRESETS = ("sochi", "leningrad", "rostov")


def position(kind, me, hand, *, trick=(), leader=None, gone="", contract=None, declarer=-1,
             visible=None, talon="", voids=None, discard=""):
    """An observation of seat ``me`` holding ``hand`` with ``trick`` (cards in playing
    order) on the table; ``gone`` are cards played before this trick, ``voids`` the
    suits (bits by seat) shown void in them."""
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    obs["phase"] = engine.PLAY
    obs["kind"] = kind
    obs["seat"] = obs["playing_for"] = me
    obs["declarer"] = declarer
    code = -1 if contract is None else parse_contract(contract).code
    obs["contract"] = code
    obs["hand"] = obs["visible"][me] = parse_cards(hand)
    for s, cards in (visible or {}).items():
        obs["visible"][s] = parse_cards(cards)
    obs["talon"] = parse_cards(talon)
    cards = [parse_cards(c).bit_length() - 1 for c in trick]
    obs["leader"] = (me - len(cards)) % 3 if leader is None else leader
    obs["n_in_trick"] = len(cards)
    obs["trick_cards"][:] = -1
    obs["trick_cards"][: len(cards)] = cards
    obs["gone"] = parse_cards(gone) | sum(1 << c for c in cards)
    obs["discard"] = parse_cards(discard)
    trump = int(TRUMP[code]) if kind == engine.GAME else -1
    shown = voids_shown(cards, int(obs["leader"]), trump) if cards else (0, 0, 0)
    obs["voids"] = [v | w for v, w in zip(shown, voids or (0, 0, 0), strict=True)]
    obs["legal"] = legal_cards(parse_cards(hand), cards[0] >> 3 if cards else -1, trump)
    return obs


def play(obs) -> str:
    return card_name(play_decision(obs, None, None, None))


# ---- obvious plays ---------------------------------------------------------------------


# A whister's second-hand card after the declarer (seat 0) leads in a spade game
# (prefstats 0.2.1): why, his hand, the card led, his card.
SECOND_HAND = [
    ("cards out between the eight and the king, the ace above: the partner may win "
     "cheaper, and the king waits", "♦K7 ♣A98 ♥J87 ♠9", "8♦", "7♦"),
    ("nothing out between the queen led and the king: the king wins it now",
     "♦K7 ♣A98 ♥J87 ♠9", "Q♦", "K♦"),
    ("the ace is a master: it wins", "♦A7 ♣A98 ♥J87 ♠9", "8♦", "A♦"),
    ("a trump lead is won at once, cards out between or not", "♠K8 ♣A98 ♥J87 ♦9", "9♠",
     "K♠"),
]


@pytest.mark.parametrize(("why", "hand", "led", "card"), SECOND_HAND,
                         ids=[t[0] for t in SECOND_HAND])
def test_whister_second_hand(why, hand, led, card):
    obs = position(engine.GAME, 1, hand, trick=[led], contract="6♠", declarer=0)
    assert play(obs) == card


def test_raspasy_ducks_with_the_highest_losing_card():
    obs = position(engine.RASPASY, 1, "♠AQ8 ♥K", trick=["K♠"])
    assert play(obs) == "Q♠"


def test_raspasy_takes_an_unavoidable_trick_with_the_highest_card():
    # Last to play, every spade wins: get rid of the ace.
    obs = position(engine.RASPASY, 2, "♠AQ ♥K", trick=["7♠", "8♠"])
    assert play(obs) == "A♠"


def test_raspasy_throws_the_dangerous_ace_when_void():
    obs = position(engine.RASPASY, 2, "♣A ♦87 ♥9", trick=["7♠", "8♠"])
    assert play(obs) == "A♣"


def test_raspasy_leads_a_card_others_must_overtake():
    # ♥7 is the lowest heart: whoever follows must go over it.
    obs = position(engine.RASPASY, 0, "♠A ♣K ♥7", gone="")
    assert play(obs) == "7♥"


def test_defender_follows_low_when_partner_wins_last():
    # Declarer seat 0 led, partner (seat 1) holds the trick with the ace.
    obs = position(engine.GAME, 2, "♣KQ8 ♦9", trick=["7♣", "A♣"], contract="6♠",
                   declarer=0)
    assert play(obs) == "8♣"


def test_defender_does_not_overtake_partners_sure_winner():
    # The partner (seat 1) leads the ace; the declarer plays after us.
    obs = position(engine.GAME, 2, "♣Q8 ♦9", trick=["A♣"], contract="6♠", declarer=0)
    assert play(obs) == "8♣"


def test_declarer_ruffs_with_the_lowest_trump_when_void_and_last():
    obs = position(engine.GAME, 0, "♠Q87 ♦A", trick=["K♣", "A♣"], contract="6♠",
                   declarer=0)
    assert play(obs) == "7♠"


def test_last_hand_wins_cheaply():
    obs = position(engine.GAME, 2, "♥AQ8", trick=["10♥", "7♥"], contract="6♠", declarer=0)
    assert play(obs) == "Q♥"


def test_declarer_draws_trumps_with_the_master():
    obs = position(engine.GAME, 0, "♠AKQ7 ♣A8 ♦K9 ♥8", contract="6♠", declarer=0)
    assert play(obs) in ("A♠", "K♠", "Q♠")


def test_declarer_cashes_a_winner_once_trumps_are_out():
    # Every trump but his own is gone: cash the ace rather than give up the lead.
    obs = position(engine.GAME, 0, "♠7 ♣A ♦98", contract="6♠", declarer=0,
                   gone="♠AKQJ1098 ♥AKQJ10987 ♣KQJ1098 ♦AKQJ")
    assert play(obs) == "A♣"


def test_declarer_cashes_a_master_card_a_defender_may_ruff():
    # The defence holds the top trumps, so he cannot draw them; ♣K is the one club out
    # (a defender may be void): the ace is cashed now rather than a diamond given up
    # (with no diamond suit to set up: with ♦987 the ace keeps, test_declarer_play).
    obs = position(engine.GAME, 0, "♠87 ♣A ♦98", contract="6♠", declarer=0,
                   gone="♣QJ10987")
    assert play(obs) == "A♣"


def test_declarer_leads_a_sequence_not_away_from_a_tenace():
    # No winner to cash and no trumps to draw: ♦KQ forces out the ace, while a low club
    # from ♣KJ98 would let the defence take the queen under the king.
    obs = position(engine.GAME, 0, "♠87 ♣KJ98 ♦KQ9", contract="6♠", declarer=0)
    assert play(obs) == "Q♦"


def test_declarer_draws_trumps_without_the_master_when_two_longer():
    # ♠KQJ7 against ♠A10: four trumps to two, so the declarer forces out the ace now
    # rather than letting the defence ruff his side cards.
    obs = position(engine.GAME, 0, "♠KQJ7 ♥K98 ♦87", contract="6♠", declarer=0, gone="♠98")
    assert play(obs) == "J♠"


def test_declarer_does_not_draw_trumps_without_the_master_when_only_as_long():
    # ♠KQ8 against ♠AJ10: as many trumps, the ace above them. Leading one gives the
    # defence the lead to cash or ruff; the side ace is cashed first instead.
    obs = position(engine.GAME, 0, "♠KQ8 ♣A ♦87", contract="6♠", declarer=0, gone="♠97")
    assert play(obs) == "A♣"


def test_declarer_keeps_trumps_for_ruffing_with_a_void():
    # ♠AQ107 against four trumps, hearts void: the ace alone would draw two of theirs
    # and leave the king and jack over his ten; he pushes ♦KQJ9 (not ♣A) and ruffs hearts.
    obs = position(engine.GAME, 0, "♠AQ107 ♣A9 ♦KQJ9", contract="6♠", declarer=0)
    assert play(obs) == "J♦"
    # Without a void he draws with the ace.
    obs = position(engine.GAME, 0, "♠AQ107 ♣A ♦KQJ9 ♥8", contract="6♠", declarer=0)
    assert play(obs) == "A♠"


def test_declarer_keeps_his_winners_while_a_suit_is_to_set_up():
    # No trumps: the ♣A stopper stays while ♠KQJ9 forces out the ace.
    obs = position(engine.GAME, 0, "♠KQJ9 ♣A ♦J8 ♥AK7", contract="6NT", declarer=0)
    assert play(obs) == "J♠"
    # So in a suit game once the defence has no trumps left: ♦KQJ forces out the ace.
    obs = position(engine.GAME, 0, "♠7 ♣A ♦KQJ9", contract="6♠", declarer=0,
                   gone="♠AKQJ1098")
    assert play(obs) == "J♦"


# The declarer's trump play (prefstats 0.2.0): why, hand, contract, cards gone, his lead.
TRUMP_LEADS = [
    ("the defence is out of trumps: three run, the defenders must discard",
     "♠Q87 ♣A ♦K98", "6♠", "♠AKJ109", {"Q♠"}),
    ("with two he leads one rather than cash a side winner",
     "♠87 ♣A ♦98", "6♠", "♠AKQJ109", {"8♠"}),
    ("but not rather than set up a suit: the last two stay for ruffing",
     "♠87 ♦KQJ9", "6♠", "♠AKQJ109", {"J♦"}),
    ("a trump before the side ace against the lone ace over his four (one run)",
     "♠KQJ9 ♣A ♦87", "6♠", "♠1087", {"K♠", "Q♠", "J♠", "9♠"}),
    ("so against three with the ace over his four",
     "♠KQ87 ♣A ♦87", "6♠", "♠9", {"K♠", "Q♠"}),
    ("against two higher trumps he cashes the ace",
     "♠QJ109 ♣A ♦87", "6♠", "♠87", {"A♣"}),
    ("at no-trumps the longest suit of masters goes first",
     "♠AKQ ♣AK ♦87", "6NT", "", {"A♠", "K♠", "Q♠"}),
]


@pytest.mark.parametrize(("why", "hand", "contract", "gone", "leads"), TRUMP_LEADS,
                         ids=[t[0] for t in TRUMP_LEADS])
def test_declarer_trump_play(why, hand, contract, gone, leads):
    obs = position(engine.GAME, 0, hand, contract=contract, declarer=0, gone=gone)
    assert play(obs) in leads, why


def test_declarer_second_hand_splits_touching_honours():
    # ♦7 led into ♦KQ9 with the ace out: the queen, not the nine the third hand could beat.
    obs = position(engine.GAME, 2, "♣AKJ9 ♦KQ9 ♥AK", trick=["7♦"], contract="7♣", declarer=2)
    assert play(obs) == "Q♦"
    # Without touching honours second hand stays low.
    obs = position(engine.GAME, 2, "♣AKJ9 ♦K98 ♥AK", trick=["7♦"], contract="7♣", declarer=2)
    assert play(obs) == "8♦"


def test_declarer_cashes_the_longest_suit_of_masters_first():
    # The defence is out of trumps: ♦AK goes before the lone ♣A, in a suit game too.
    obs = position(engine.GAME, 0, "♠7 ♣A ♦AK", contract="6♠", declarer=0,
                   gone="♠AKQJ1098")
    assert play(obs) in ("A♦", "K♦")


def test_declarer_second_hand_finesses_with_a_tenace():
    # ♦7 led into ♦AQ9 with the king out: the queen wins when the leader holds the king,
    # and the ace still wins later when the third hand does (the ace alone took one).
    obs = position(engine.GAME, 2, "♣AKJ9 ♦AQ9 ♥A", trick=["7♦"], contract="7♣", declarer=2)
    assert play(obs) == "Q♦"
    # The king led: the ace takes it.
    obs = position(engine.GAME, 2, "♣AKJ9 ♦AQ9 ♥A", trick=["K♦"], contract="7♣", declarer=2)
    assert play(obs) == "A♦"


def test_defender_leads_a_side_ace_not_trumps():
    obs = position(engine.GAME, 1, "♠A8 ♣A97 ♥Q", contract="6♠", declarer=0)
    assert play(obs) == "A♣"


def test_defender_leads_trumps_that_are_all_masters():
    # A lone master trump, or A-K, is led to draw the declarer's trumps; beside a lower
    # trump (♠A8 above) or when the declarer has shown void in trumps it waits.
    obs = position(engine.GAME, 1, "♠K ♣K97 ♥Q8", contract="6♠", declarer=0, gone="♠A")
    assert play(obs) == "K♠"
    obs = position(engine.GAME, 1, "♠AK ♣K97 ♥Q8", contract="6♠", declarer=0)
    assert play(obs) in ("A♠", "K♠")
    obs = position(engine.GAME, 1, "♠K ♣K97 ♥Q8", contract="6♠", declarer=0, gone="♠A",
                   voids=(0b0001, 0, 0))
    assert play(obs) != "K♠"


def test_misere_catcher_plays_under_the_declarer():
    # The declarer (seat 0) led ♦9; the catchers see each other's hands.
    obs = position(engine.MISERE_GAME, 1, "♦J87 ♥A", trick=["9♦"], contract="misere",
                   declarer=0, visible={2: "♦10 ♠AKQ"})
    obs["contract"] = MISERE
    assert play(obs) == "8♦"


# ---- information -----------------------------------------------------------------------


def _reshuffled(st, seat, rng):
    """A copy of ``st`` where the cards ``seat`` cannot see are dealt anew between the
    hidden seats (each keeps its count)."""
    other = st.copy()
    obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
    engine.observe(st, engine.rules_array(get_variant("sochi")), obs)
    hidden = [s for s in range(3) if s != seat and obs["visible"][s] == 0]
    cards = [c for s in hidden for c in range(32) if int(st["hands"][s]) >> c & 1]
    rng.shuffle(cards)
    for s in hidden:
        n = bin(int(st["hands"][s])).count("1")
        other["hands"][s] = sum(1 << c for c in cards[:n])
        cards = cards[n:]
    return other


def _positions(variant, deals, closed):
    """Every card decision of ``deals`` played by the heuristic: constructed closed games
    (``closed``) or raspasy (all pass). Yields the state, the deciding seat's
    observation and the engine's rules."""
    rules = engine.rules_array(variant)
    prm, tb = default_params("heuristic"), default_tables("heuristic")
    for i in range(len(deals)):
        if closed:
            st = gap.constructed_closed_games(deals[i], variant)[0]
        else:
            st = new_state(deals.hands[i], deals.talon[i],
                           talon_first=int(deals.talon_first[i]))[0]
            engine.advance_forced(st, rules)
            while st["phase"] == engine.AUCTION:
                engine.apply(st, rules, 26)  # all pass
        engine.advance_forced(st, rules)
        obs = np.zeros(1, dtype=engine.OBSERVATION)[0]
        while st["phase"] != engine.DONE:
            engine.observe(st, rules, obs)
            yield st, obs, rules
            engine.apply(st, rules, decide(1, obs, rules, prm, tb, np.uint64(0)))
            engine.advance_forced(st, rules)


@pytest.mark.parametrize("closed", [True, False])
def test_decision_is_unchanged_when_hidden_hands_change(closed):
    """Same observation, other hidden cards: same card (closed games and raspasy)."""
    prm, tb = default_params("heuristic"), default_tables("heuristic")
    rng = np.random.default_rng(1)
    obs2 = np.zeros(1, dtype=engine.OBSERVATION)[0]
    checked = 0
    for st, obs, rules in _positions(get_variant("sochi"), deal(60, seed=4), closed):
        card = decide(1, obs, rules, prm, tb, np.uint64(0))
        other = _reshuffled(st, int(st["controller"]), rng)
        engine.observe(other, rules, obs2)
        assert obs.tobytes() == obs2.tobytes()
        assert decide(1, obs2, rules, prm, tb, np.uint64(0)) == card
        checked += 1
    assert checked > 500


# ---- what the seat knows ---------------------------------------------------------------


def test_possible_cards_keep_voids_shown_in_earlier_tricks():
    # Seat 1 showed out of clubs in an earlier trick: every club left is seat 2's.
    obs = position(engine.GAME, 0, "♠AK ♦A", contract="6♠", declarer=0,
                   voids=(0, 1 << 1, 0))
    (_, p1, p2), hidden = possible_cards(obs)
    clubs = parse_cards("♣AKQJ10987")
    assert p1 & clubs == 0 and p2 & clubs == clubs and hidden == (False, True, True)


def test_possible_cards_leave_out_the_talon_and_discard_the_seat_knows():
    talon, discard = "♥AK", "♦87"
    # The declarer: his discard is out of play, the talon is his.
    obs = position(engine.GAME, 0, "♠AKQJ10987 ♥AK", contract="6♠", declarer=0,
                   talon=talon, discard=discard)
    p = possible_cards(obs)[0]
    for s in (1, 2):
        assert p[s] & parse_cards(f"{talon} {discard}") == 0
    # A whister: the shown talon went to the declarer (or his discard), not the partner.
    obs = position(engine.GAME, 1, "♣AKQJ10987 ♦AK", contract="6♠", declarer=0,
                   talon=talon)
    p = possible_cards(obs)[0]
    assert p[2] & parse_cards(talon) == 0 and p[0] & parse_cards(talon) == parse_cards(talon)


def test_possible_cards_count_the_cards_only_one_seat_may_hold():
    # Three cards each left; seat 1 is void in clubs, seat 2 in hearts and diamonds: the
    # three cards seat 2 cannot hold are seat 1's, so ♠Q is seat 2's.
    obs = position(engine.GAME, 0, "♠AK ♦A", contract="6♠", declarer=0, discard="♠87",
                   gone="♠J109 ♣AK10987 ♦KJ10987 ♥QJ10987",
                   voids=(0, 1 << 1, 1 << 2 | 1 << 3))
    obs["played_by"][:3] = [parse_cards("♠J109 ♣AK ♦K ♥Q"), parse_cards("♣10 ♦J1098 ♥J10"),
                            parse_cards("♣987 ♦7 ♥987")]
    (_, p1, p2), _ = possible_cards(obs)
    assert (p1, p2) == (parse_cards("♥AK ♦Q"), parse_cards("♣QJ ♠Q"))


@pytest.mark.parametrize(("name", "closed"), [("sochi", True), ("sochi", False),
                                              ("gusarik", False)])
def test_possible_cards_always_hold_the_hidden_cards(name, closed):
    """In real play every seat's cards lie within its possible set."""
    checked = 0
    for st, obs, rules in _positions(get_variant(name), deal(80, seed=9), closed):
        skip = int(rules[engine.R_DUMMY]) if obs["kind"] == engine.RASPASY else -1
        poss, _ = possible_cards(obs, skip)
        for s in range(3):
            if s != skip:
                assert int(st["hands"][s]) & ~int(poss[s]) == 0
                checked += 1
    assert checked > 1000


# ---- legality and quality over many deals ------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("name", PRESETS)
def test_batch_play_is_always_legal(name, players):
    """play_batch raises on any illegal decision; no solver, so every card is ours."""
    states = play_batch(deal(3000, seed=21), get_variant(name, players=players),
                            double_dummy=False)
    assert (states["phase"] == engine.DONE).all()
    played = states["played"]
    assert (states["tricks"][played].sum(axis=1) == 10).all()


@pytest.mark.parametrize("setup", ["closed", "open", "misere"])
def test_constructed_games_are_played_legally(setup):
    variant = get_variant("sochi")
    d = deal(400, seed=2)
    states = []
    for i in range(len(d)):
        declarer = i % 3
        if setup == "misere":
            st = gap.start_of_play(d.hands[i], d.talon[i], variant, declarer=declarer,
                                   contract=MISERE)
        else:
            whist = (W_WHIST, W_WHIST) if setup == "closed" else (W_WHIST, W_PASS)
            st = gap.start_of_play(d.hands[i], d.talon[i], variant, declarer=declarer,
                                   contract=i % 4, whist=whist)
        states.append(st)
    out = gap.play_closed(np.array(states), variant, measure=False)
    assert ((out[:, 1] >= 0) & (out[:, 1] <= 10)).all()


def test_closed_play_is_close_to_double_dummy():
    """Loose guard on quality: tricks a deal given away against double-dummy play."""
    variant = get_variant("sochi")
    states = gap.constructed_closed_games(deal(150, seed=7), variant)
    out = gap.play_closed(states, variant)
    assert (out[:, 1] - out[:, 0] == out[:, 3] - out[:, 2]).all()  # losses add up
    assert out[:, 3].mean() < 1.0 and out[:, 2].mean() < 1.0
