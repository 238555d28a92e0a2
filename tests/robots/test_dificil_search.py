"""Difícil's searched pass and its moon plan (robots/passing.py, robots/search.py)."""

from __future__ import annotations

import random

import robots
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


def test_a_normal_pass_stays_when_no_other_pass_is_clearly_better() -> None:
    """Q♠ with four low spades to guard it, a void to make in clubs: the Normal pass is good
    advice, and the search keeps it for every seed."""
    hand = "QS 2S 4S 6S 8S 2C 5C 9C 4D 8D AD 3H 9H".split()
    v = view_for(_deal_with(hand), 0)
    k = knowledge_of(v)
    normal = pass_cards(k.hand)
    assert "QS" not in _names(normal)
    for seed in range(3):
        assert search_pass(k, v["pass_direction"], random.Random(seed), time_limit=None) \
            == normal


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
