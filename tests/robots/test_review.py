"""Análisis (robots/review.py): a decision is judged from the player's view alone, the same view
gives the same review, a known blunder is marked with a reason, a forced card never is."""

from __future__ import annotations

import copy

import robots
from robots.review import review_pass, review_play
from rules import Game, Options, view_for
from tests.robots.review_kit import dealt_for, game_at, view_at
from tests.robots.test_dificil_search import _seat_one_took_the_queen

WORLDS = 96  # the tests check judgement and determinism; at 24 deals one seed in four missed the A♠

# Seat 1 leads the 2♣, seat 2 takes the trick with the A♣ and leads the 5♠; seat 3's only spade
# is the Q♠; seat 0 (the player) follows with 3♠, 7♠ or A♠.
AFTER = [
    ["4C", "3S", "AS", "7S", "2H", "3H", "4H", "5D", "6D", "7D", "8D", "9D", "TD"],
    ["2C", "5C", "6C", "7C", "8C", "9C", "8S", "9S", "TS", "5H", "6H", "7H", "JD"],
    ["AC", "5S", "6S", "JS", "KS", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "QD"],
    ["3C", "TC", "JC", "QC", "KC", "QS", "4S", "2S", "2D", "3D", "4D", "KD", "AD"],
]
PASSES = [["5C", "6C", "7C"], ["QD", "QH", "KH"], ["2D", "3D", "4D"], ["5D", "6D", "7D"]]
TO_SPADES = ["2C", "AC", "3C", "4C", "5S", "QS"]


def test_dropping_the_ace_of_spades_under_the_queen_is_marked_with_its_reason() -> None:
    view = view_at(AFTER, PASSES, TO_SPADES, 0)
    assert view["turn"] == 0 and set(view["legal"]) == {"3S", "7S", "AS"}
    r = review_play(view, "AS", worlds=WORLDS)
    assert r["marked"] and not r["forced"]
    # The A♠ takes the Q♠'s 13 points in every deal; a low spade leaves them with seat 3, which
    # then goes for the moon in the deals where it holds six hearts with the A♥ (and only the
    # reviewed seat stops it): the low spade costs about 5 points on average, the A♠ 13.
    assert r["best"] in ("3S", "7S") and r["cost"] >= 6
    assert "Q♠" in r["reason"] and "A♠" in r["reason"]
    points = {o["card"]: o["points"] for o in r["options"]}
    assert set(points) == {"3S", "7S", "AS"} and points["AS"] >= 13 > points["3S"] + 6
    good = review_play(view, "3S", worlds=WORLDS)
    assert not good["marked"] and good["reason"] is None


def test_leading_the_ace_of_spades_with_the_queen_out_and_low_spades_in_hand_is_marked() -> None:
    # Seat 0 takes the first trick (A♣) and leads: A♠ while the Q♠ is out, or a low spade.
    after = [
        ["AC", "3S", "4S", "AS", "2H", "3H", "4H", "5D", "6D", "7D", "8D", "9D", "TD"],
        ["2C", "5C", "6C", "7C", "8C", "9C", "8S", "9S", "TS", "5H", "6H", "7H", "JD"],
        ["3C", "5S", "6S", "JS", "KS", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "QD"],
        ["4C", "TC", "JC", "QC", "KC", "QS", "7S", "2S", "2D", "3D", "4D", "KD", "AD"],
    ]
    passes = [["5C", "6C", "7C"], ["QD", "QH", "KH"], ["2D", "3D", "4D"], ["5D", "6D", "7D"]]
    view = view_at(after, passes, ["2C", "3C", "4C", "AC"], 0)
    assert view["turn"] == 0 and "AS" in view["legal"]
    r = review_play(view, "AS", worlds=48)
    assert r["marked"], r
    assert r["best"] != "AS" and "Q♠" in r["reason"]


def test_a_forced_card_is_never_marked() -> None:
    # Seat 0 must follow the 2♣ and the 4♣ is its only club.
    view = view_at(AFTER, PASSES, TO_SPADES[:3], 0)
    assert view["turn"] == 0 and view["legal"] == ["4C"]
    r = review_play(view, "4C", worlds=WORLDS)
    assert r["forced"] and not r["marked"] and r["reason"] is None


def test_the_same_view_gives_the_same_review_whatever_the_hidden_cards() -> None:
    view = view_at(AFTER, PASSES, TO_SPADES, 0)
    first = review_play(view, "7S", worlds=WORLDS)
    assert review_play(copy.deepcopy(view), "7S", worlds=WORLDS) == first
    # Swap two cards seat 0 cannot see between seats 1 and 2 (a heart for a heart, neither one
    # passed by seat 0, nobody showed out of hearts): seat 0's view is the same, so is the review.
    other = [list(h) for h in AFTER]
    other[1][other[1].index("5H")] = "8H"
    other[2][other[2].index("8H")] = "5H"
    passes = [list(p) for p in PASSES]
    g1 = game_at(AFTER, PASSES, TO_SPADES)
    g2 = game_at(other, passes, TO_SPADES)
    assert g1.hands != g2.hands
    assert view_for(g1, 0) == view_for(g2, 0)
    assert review_play(view_for(g2, 0), "7S", worlds=WORLDS) == first
    # ... while the review of another seat's view does change.
    assert view_for(g1, 1) != view_for(g2, 1)


def test_the_pass_is_judged_against_dificils_and_the_same_view_gives_the_same_review() -> None:
    g = Game(Options(target=100, renege="impedido"))
    g.apply({"type": "deal", "deck": dealt_for(AFTER, PASSES)})
    view = view_for(g, 0)
    mine = PASSES[0]
    r = review_pass(view, mine, worlds=WORLDS)
    assert r["kind"] == "pass" and sorted(r["chosen"]) == sorted(mine)
    who = {o["who"] for o in r["options"]}
    assert "tú" in who and "Difícil" in who and len(r["options"]) >= 2
    assert all(len(o["cards"]) == 3 and set(o["cards"]) <= set(view["hand"]) for o in r["options"])
    assert review_pass(copy.deepcopy(view), mine, worlds=WORLDS) == r
    if r["marked"]:
        assert r["reason"] and r["cost"] >= 1


def test_a_moon_suspects_trick_is_judged_as_dificil_and_la_pista_play_it() -> None:
    """Seat 1 took the Q♠ alone and wins the J♦ trick; the player, void in diamonds, holds three
    low clubs and A♥ J♥ 5♥. Its play-outs alone would shed the A♥ (fewest points in them), but
    Difícil keeps its hearts off a moon suspect's trick: the best card is a club, the one La Pista
    gives, and the hearts the rule keeps are not offered unless they were the player's."""
    view = _seat_one_took_the_queen()
    hint = robots.hint(view)["card"]
    assert hint in {"3C", "4C", "5C"}
    r = review_play(view, "5H", worlds=WORLDS)
    assert r["best"] in {"3C", "4C", "5C"}
    assert {o["card"] for o in r["options"]} == {"3C", "4C", "5C", "5H"}
    shed = review_play(view, "AH", worlds=WORLDS)
    assert shed["best"] == r["best"] and not shed["marked"]
    assert {o["card"] for o in shed["options"]} == {"3C", "4C", "5C", "AH"}
