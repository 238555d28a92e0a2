"""Difícil's searched pass and its moon plan (robots/passing.py, robots/search.py)."""

from __future__ import annotations

import random

import robots
from robots import passing
from robots.know import knowledge_of
from robots.passing import candidates, search_pass
from robots.policy import pass_cards
from robots.search import moon_plausible
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
