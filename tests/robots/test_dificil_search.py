"""Difícil's searched pass and its moon plan (robots/passing.py, robots/search.py)."""

from __future__ import annotations

import random

import robots
from robots import passing
from robots.know import knowledge_of
from robots.passing import candidates, search_pass
from robots.policy import pass_cards
from robots.search import moon_plausible, moon_suspect, not_feeding, rollout
from rules import Game, view_for
from rules.cards import DECK, mask_of

from .test_robot_advice import _deal_with, _trick, _view


def _names(mask: int) -> set[str]:
    return {DECK[c] for c in range(52) if mask >> c & 1}


def test_pass_candidates_are_three_cards_of_the_hand_with_the_normal_pass_first() -> None:
    rng = random.Random(5)
    for _ in range(300):
        hand = 0
        for c in rng.sample(range(52), 13):
            hand |= 1 << c
        cands = candidates(hand)
        assert cands[0] == (pass_cards(hand), False)
        masks = [m for m, _ in cands]
        assert len(set(masks)) == len(masks), "each pass is played out once"
        for m in masks:
            assert m.bit_count() == 3 and not m & ~hand


def test_dificil_pass_is_three_of_its_cards_and_the_same_view_gives_the_same_pass() -> None:
    for seed in range(2):
        g = Game()
        g.apply({"type": "deal", "deck": random.Random(seed).sample(DECK, 52)})
        for seat in (seed, seed + 2):
            v = view_for(g, seat)
            a = robots.decide(v, "dificil", random.Random(9), time_limit=None)
            b = robots.decide(v, "dificil", random.Random(9), time_limit=None)
            assert a == b and a["type"] == "confirm_pass"
            assert len(set(a["cards"])) == 3 and set(a["cards"]) <= set(v["hand"])


def test_dificil_keeps_its_hearts_when_the_moon_is_plausible() -> None:
    """Six hearts headed A♥ K♥ Q♥ and four high side cards: the Normal rule sheds A♥ K♥, the
    search finds the moon pays more and passes the three low side cards."""
    hand = "AH KH QH JH TH 5H AS KS AD QD 4C 3C 2D".split()
    normal = _names(pass_cards(mask_of(hand)))
    assert "AH" in normal
    v = view_for(_deal_with(hand), 0)
    a = robots.decide(v, "dificil", random.Random(0), time_limit=None)
    assert set(a["cards"]) == {"4C", "3C", "2D"}


def test_dificil_pass_follows_the_classic_advice_where_it_is_clear() -> None:
    """The Q♠ with only K♠ 3♠ beside it goes, the A♠ of a short spade suit goes, A♥ K♥ go."""
    for hand, given in (("QS KS 3S 2C 5C 9C JC 4D 8D TD 3H 6H 9H", {"QS", "KS"}),
                        ("AS 4S 2C 3C 5C 9C 4D 5D 8D 9D 3H 6H 9H", {"AS"}),
                        ("AH KH 4H 2S 4S 6S 2C 3C 5C 2D 3D 4D 5D", {"AH", "KH"})):
        v = view_for(_deal_with(hand.split()), 0)
        for seed in range(2):
            a = robots.decide(v, "dificil", random.Random(seed), time_limit=None)
            assert given <= set(a["cards"]), (hand, a)


def test_the_normal_pass_stays_unless_another_saves_more_than_the_noise() -> None:
    """With the bar set out of reach the search gives the Normal pass back, whatever it saw."""
    hand = "AH KH QH JH TH 5H AS KS AD QD 4C 3C 2D".split()
    v = view_for(_deal_with(hand), 0)
    k = knowledge_of(v)
    searched = search_pass(k, v["pass_direction"], random.Random(0), time_limit=None)
    assert searched != pass_cards(k.hand), "this hand's Normal pass is beaten in the search"
    saved = passing.PASS_SE
    passing.PASS_SE = 1e9
    try:
        assert search_pass(k, v["pass_direction"], random.Random(0), time_limit=None) \
            == pass_cards(k.hand)
    finally:
        passing.PASS_SE = saved


def test_the_moon_is_searched_only_while_nobody_else_has_a_point() -> None:
    hand = "AH KH QH JH TH 9H 3H AS KS QS AD 4D".split()
    v = _view(tricks=[_trick(1, 1, ["2C", "5C", "9C", "AC"], 0)], trick=[], hand=hand,
              legal=["4D", "AD", "QS", "KS", "AS"], leader=0, hearts_broken=False,
              points_taken=[0, 0, 0, 0], cards_left=[12, 12, 12, 12])
    assert moon_plausible(knowledge_of(v))
    taken = _view(**{**v, "tricks": [_trick(1, 1, ["2C", "5C", "9C", "AC"], 0),
                                     _trick(2, 0, ["4D", "KD", "2H", "5D"], 2)],
                     "hand": hand[:-1], "legal": ["AD", "QS", "KS", "AS"],
                     "points_taken": [0, 0, 1, 0], "cards_left": [11, 11, 11, 11],
                     "hearts_broken": True})
    assert not moon_plausible(knowledge_of(taken))
    weak = _view(**{**v, "hand": "2H 3H 4H 5H 6H 2S 3S 4S 5S 6S 7S 8D".split(),
                    "legal": ["8D"]})
    assert not moon_plausible(knowledge_of(weak))


def test_dificil_brings_home_a_moon_it_is_dealt() -> None:
    """Eight hearts from the ace, A♠ K♠ Q♠, A♣ A♦: against three Normal robots Difícil takes
    every point in most deals (the others then score 26 each)."""
    hand = "AH KH QH JH TH 9H 8H 7H AS KS QS AC AD".split()
    moons = 0
    for seed in range(4):
        rest = [c for c in DECK if c not in hand]
        random.Random(seed).shuffle(rest)
        deck: list[str] = []
        for i in range(13):
            deck.append(hand[i])
            deck.extend(rest[3 * i: 3 * i + 3])
        g = Game()
        g.hand_number = 3  # no pass: the hand stays as dealt
        g.apply({"type": "deal", "deck": deck})
        rng = random.Random(seed)
        while g.phase == "playing" and g.hand_scores is None:
            seat = g.turn
            assert seat is not None
            level = "dificil" if seat == 0 else "normal"
            a = robots.decide(view_for(g, seat), level, rng, time_limit=None)
            g.apply({**a, "seat": seat})
        moons += g.moon == 0
    assert moons >= 3


def _seat_one_took_the_queen(**kw: object) -> dict[str, object]:
    """Seven tricks: seat 1 took the Q♠ and nobody else a point; seat 1 leads J♦, seats 2 and 3
    follow, and seat 0 (void in diamonds) holds three low clubs and the A♥ J♥ 5♥."""
    tricks = [
        _trick(1, 1, ["2C", "9C", "QC", "TC"], 3),
        _trick(2, 3, ["5S", "2S", "8S", "AS"], 2),
        _trick(3, 2, ["QD", "3D", "9D", "AD"], 1),
        _trick(4, 1, ["KD", "AC", "5D", "8D"], 1),
        _trick(5, 1, ["6S", "3S", "TS", "KS"], 0),
        _trick(6, 0, ["6C", "8C", "KC", "JC"], 2),
        _trick(7, 2, ["9S", "4S", "JS", "QS"], 1),
    ]
    hand = ["3C", "4C", "5C", "5H", "JH", "AH"]
    v = _view(tricks=tricks, trick=[{"seat": 1, "card": "JD"}, {"seat": 2, "card": "7S"},
                                    {"seat": 3, "card": "2D"}],
              hand=hand, legal=hand, leader=1, hearts_broken=False,
              points_taken=[0, 13, 0, 0], cards_left=[6, 5, 5, 5])
    v.update(kw)
    return v


def test_the_moon_suspect_is_the_lone_point_holder_or_a_low_passer() -> None:
    v = _seat_one_took_the_queen()
    assert moon_suspect(knowledge_of(v)) == 1
    # two seats with points: nobody is going for the moon any more
    shared = _seat_one_took_the_queen(points_taken=[0, 13, 1, 0], tricks=[
        *v["tricks"][:6], _trick(7, 2, ["9S", "4S", "JS", "QS"], 1),  # type: ignore[index]
        _trick(8, 1, ["7D", "2H", "4D", "6D"], 2)])
    assert moon_suspect(knowledge_of(shared)) == -1
    # the points are mine: nobody else is a suspect
    mine = _seat_one_took_the_queen(points_taken=[13, 0, 0, 0], tricks=[
        *v["tricks"][:6], _trick(7, 2, ["9S", "4S", "QS", "JS"], 0)])  # type: ignore[index]
    assert moon_suspect(knowledge_of(mine)) == -1
    # Before any point: the seat that passed me three low side cards (a moon pass) ...
    early = _view(tricks=[], trick=[], hand=["2C", "3C", "4D"], legal=["2C"], leader=0,
                  hearts_broken=False, points_taken=[0, 0, 0, 0], cards_left=[13, 13, 13, 13],
                  pass_direction="left", pass_to=1, passed=["AS", "KS", "AH"],
                  received=["2C", "3C", "4D"])
    assert moon_suspect(knowledge_of(early)) == 3
    # ... not one that passed me the Q♠ or a heart or a high card
    for cards in (["QS", "3C", "4D"], ["2H", "3C", "4D"], ["2C", "3C", "JD"]):
        assert moon_suspect(knowledge_of({**early, "received": cards})) == -1
    assert moon_suspect(knowledge_of({**early, "pass_to": 3})) == 1  # passing right: from 1


def test_dificil_keeps_its_hearts_off_the_trick_of_a_moon_suspect() -> None:
    """Seat 1 took the Q♠ alone and wins the J♦ trick: Difícil, void in diamonds, sheds a club,
    not a heart (the A♥ is the card that can stop the moon later)."""
    v = _seat_one_took_the_queen()
    k = knowledge_of(v)
    assert {DECK[c] for c in not_feeding(k, [1, 2, 3, 29, 35, 38])} == {"3C", "4C", "5C"}
    for seed in range(3):
        card = robots.decide(v, "dificil", random.Random(seed), time_limit=None)["card"]
        assert card in {"3C", "4C", "5C"}, card
    # Below the worry mark (one point) the search is free to shed a heart on the holder.
    small = knowledge_of(_seat_one_took_the_queen(points_taken=[0, 1, 0, 0]))
    assert not_feeding(small, [1, 38]) == [1, 38]
    # Only hearts left: one of them must go.
    hearts = knowledge_of(_seat_one_took_the_queen(hand=["5H", "JH", "AH"],
                                                   legal=["5H", "JH", "AH"]))
    assert not_feeding(hearts, [29, 35, 38]) == [29, 35, 38]


def test_dificil_keeps_its_high_hearts_under_a_moon_suspects_heart_lead() -> None:
    """Seat 1 took the Q♠ alone and leads the A♥: Difícil follows with its lowest heart and keeps
    Q♥ J♥, the cards that can take a heart from it later; one it can beat is the search's."""
    hand = ["3C", "4C", "5C", "5H", "JH", "QH"]
    v = _seat_one_took_the_queen(
        hand=hand, legal=["5H", "JH", "QH"], hearts_broken=True,
        trick=[{"seat": 1, "card": "AH"}, {"seat": 2, "card": "2H"}, {"seat": 3, "card": "3H"}])
    k = knowledge_of(v)
    assert [DECK[c] for c in not_feeding(k, [29, 35, 36])] == ["5H"]
    assert robots.decide(v, "dificil", random.Random(0), time_limit=None)["card"] == "5H"
    beatable = _seat_one_took_the_queen(
        hand=hand, legal=["5H", "JH", "QH"], hearts_broken=True,
        trick=[{"seat": 1, "card": "9H"}, {"seat": 2, "card": "2H"}, {"seat": 3, "card": "3H"}])
    assert not_feeding(knowledge_of(beatable), [29, 35, 36]) == [29, 35, 36]


def test_a_sampled_shooter_is_stopped_only_by_the_seat_that_searches() -> None:
    """Two tricks left, seat 1 holds every point but two hearts and leads A♣. Seat 2, void in
    clubs, stops the moon only by keeping its 9♥ for the 2♥ that follows: it does when it is the
    searching seat, not when another seat searches (the search counts on nobody else to stop a
    moon), and every other seat stops a moon the searching seat itself goes for."""
    def cards(*names: str) -> int:
        return mask_of(list(names))

    hands = [cards("3C", "3D"), cards("AC", "2H"), cards("9H", "KD"), cards("4C", "4D")]
    played = ((1 << 52) - 1) & ~(hands[0] | hands[1] | hands[2] | hands[3])

    def finish(me: int, shooter: int) -> list[int]:
        return rollout(hands, [], 1, played, 11, True, [0, 24, 0, 0], [0, 0, 1, 0], me, shooter)

    assert finish(0, 1) == [26, 0, 26, 26]
    assert finish(3, 1) == [26, 0, 26, 26]
    assert finish(2, 1) == [0, 24, 2, 0]
    assert finish(1, 1) == [0, 24, 2, 0]
