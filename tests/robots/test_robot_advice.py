"""The Normal robot follows the classic Hearts advice it was built on; the arena runs."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import robots
from robots.know import knowledge_of
from robots.policy import play_card
from rules import Game, view_for
from rules.cards import DECK


def _deal_with(hand: list[str], hand_number: int = 0) -> Game:
    """A game whose seat 0 holds ``hand``; the other cards go round the other seats."""
    rest = [c for c in DECK if c not in hand]
    random.Random(1).shuffle(rest)
    deck: list[str] = []
    for i in range(13):
        deck.append(hand[i])
        deck.extend(rest[3 * i: 3 * i + 3])
    g = Game()
    g.hand_number = hand_number
    g.apply({"type": "deal", "deck": deck})
    assert sorted(view_for(g, 0)["hand"]) == sorted(hand)
    return g


def _pass_of(hand: str) -> set[str]:
    g = _deal_with(hand.split())
    a = robots.decide(view_for(g, 0), "normal", random.Random(0))
    assert a["type"] == "confirm_pass"
    return set(a["cards"])


def test_pass_queen_and_high_spades_when_spades_are_short() -> None:
    p = _pass_of("QS KS 3S 2C 5C 9C JC 4D 8D TD 3H 6H 9H")
    assert p >= {"QS", "KS"}


def test_pass_ace_of_spades_when_short_without_queen() -> None:
    p = _pass_of("AS 4S 2C 3C 5C 9C 4D 5D 8D 9D 3H 6H 9H")
    assert "AS" in p


def test_keep_queen_guarded_by_four_low_spades() -> None:
    p = _pass_of("QS 2S 4S 6S 8S 2C 5C 9C 4D 8D AD 3H 9H")
    assert "QS" not in p
    assert not p & {"2S", "4S", "6S", "8S"}, "the guards stay"


def test_make_a_void_in_a_short_suit() -> None:
    p = _pass_of("KD 2S 4S 6S 3C 5C 7C 8C 2H 3H 4H 5H 6H")
    assert "KD" in p
    p = _pass_of("KD 9D 2S 4S 6S 3C 5C 7C 8C 2H 3H 4H 5H")
    assert {"KD", "9D"} <= p


def test_shed_high_hearts() -> None:
    p = _pass_of("AH KH 4H 2S 4S 6S 2C 3C 5C 2D 3D 4D 5D")
    assert {"AH", "KH"} <= p


def _view(**kw: Any) -> dict[str, Any]:
    v: dict[str, Any] = {
        "seat": 0, "phase": "playing", "options": {"target": 100, "renege": "impedido"},
        "pass_direction": "none", "pass_confirmed": [True] * 4, "turn": 0, "to_act": [0],
        "hearts_broken": True, "passed": [], "received": [], "pass_to": None, "pass_from": None,
        "renege_cards": [], "illegal": {},
    }
    v.update(kw)
    return v


def _trick(n: int, leader: int, cards: list[str], winner: int) -> dict[str, Any]:
    return {"number": n, "leader": leader, "winner": winner,
            "cards": [{"seat": (leader + i) % 4, "card": c} for i, c in enumerate(cards)]}


def test_stop_the_moon_by_taking_a_heart() -> None:
    """Seat 3 took every point so far; I can win this heart trick with A♥ instead of ducking."""
    tricks = [
        _trick(1, 1, ["2C", "AC", "3C", "KC"], 2),
        _trick(2, 2, ["4C", "QC", "JC", "5C"], 3),
        _trick(3, 3, ["AD", "2D", "3D", "QS"], 3),   # seat 2 dumps Q♠ on seat 3 (not on me)
        _trick(4, 3, ["KD", "2H", "4D", "5D"], 3),   # seat 0 sheds 2H
    ]
    hand = ["AH", "3H", "6C", "7C", "8C", "9C", "6D", "7D", "TS"]
    trick = [{"seat": 2, "card": "5H"}, {"seat": 3, "card": "KH"}]
    v = _view(
        tricks=tricks, trick=trick, hand=hand, legal=["3H", "AH"], leader=2,
        points_taken=[0, 0, 0, 15], cards_left=[9, 9, 8, 8], moon_threat=3, turn=0,
    )
    # Without a threat the Normal robot ducks under K♥ ...
    calm = _view(**{**v, "points_taken": [1, 0, 0, 14], "moon_threat": None})
    assert robots.decide(calm, "normal", random.Random(0)) == {"type": "play", "card": "3H"}
    # ... with one it takes the trick.
    assert robots.decide(v, "normal", random.Random(0)) == {"type": "play", "card": "AH"}
    # (Difícil may rather keep A♥ as a sure stopper for later: its choice is its search's.)
    assert robots.decide(v, "dificil", random.Random(0), time_limit=None)["card"] in v["legal"]


def test_dificil_stops_the_moon_at_the_last_chance() -> None:
    """Two tricks to go, seat 3 holds 22 points; ducking with 3H would hand it the moon."""
    groups = [
        ["2C", "3C", "4C", "5C"], ["6C", "8C", "9C", "TC"], ["JC", "QC", "KC", "AC"],
        ["2D", "3D", "4D", "5D"], ["6D", "7D", "9D", "TD"], ["JD", "QD", "KD", "AD"],
        ["2S", "3S", "4S", "5S"], ["6S", "7S", "8S", "JS"], ["KS", "AS", "QS", "2H"],
        ["4H", "6H", "7H", "8H"], ["9H", "TH", "JH", "QH"],
    ]
    tricks = []
    leader = 0
    for n, cards in enumerate(groups):
        winner = 3 if any(c[1] == "H" or c == "QS" for c in cards) else (leader + 3) % 4
        tricks.append(_trick(n + 1, leader, cards, winner))
        leader = winner
    assert leader == 3
    trick = [{"seat": 3, "card": "KH"}]
    v = _view(tricks=tricks, trick=trick, hand=["3H", "AH"], legal=["3H", "AH"], leader=3,
              points_taken=[0, 0, 0, 22], cards_left=[2, 2, 2, 1], moon_threat=3, turn=0)
    assert robots.decide(v, "dificil", random.Random(0), time_limit=None) == {
        "type": "play", "card": "AH"}
    assert robots.hint(v) == {"type": "play", "card": "AH"}


def test_duck_under_the_winning_card_and_dump_the_queen() -> None:
    tricks = [_trick(1, 0, ["2C", "3C", "4C", "5C"], 3)]
    hand = ["QS", "TD", "6D", "2D", "7H", "8H", "9H", "3S", "4S", "9S", "JS", "KC"]
    v = _view(tricks=tricks, hand=hand, trick=[{"seat": 3, "card": "8D"}],
              legal=["2D", "6D", "TD"], points_taken=[0, 0, 0, 0], cards_left=[12, 12, 12, 11],
              leader=3, hearts_broken=False)
    assert robots.decide(v, "normal", random.Random(0))["card"] == "6D"
    void = _view(**{**v, "hand": ["QS", "7H", "8H", "9H", "3S", "4S", "9S", "JS", "KC", "AH",
                                  "2H", "5S"],
                    "legal": ["QS", "7H", "8H", "9H", "3S", "4S", "9S", "JS", "KC", "AH", "2H",
                              "5S"]})
    assert robots.decide(void, "normal", random.Random(0))["card"] == "QS"


def test_last_to_play_wins_a_trick_without_points_with_the_highest_card() -> None:
    """Last on a trick with no points: take it with the K♦ (it would catch points later) rather
    than duck with the 3♦; with a heart on the trick, duck; never win it with the Q♠."""
    tricks = [_trick(1, 0, ["2C", "3C", "4C", "5C"], 3)]
    hand = ["3D", "KD", "2S", "QS", "KS", "7H", "8H", "9H", "4S", "9S", "JS", "KC"]
    v = _view(tricks=tricks, hand=hand, leader=1, hearts_broken=False,
              trick=[{"seat": 1, "card": "5D"}, {"seat": 2, "card": "9D"},
                     {"seat": 3, "card": "6D"}],
              legal=["3D", "KD"], points_taken=[0, 0, 0, 0], cards_left=[12, 11, 11, 11])
    assert robots.decide(v, "normal", random.Random(0))["card"] == "KD"
    hearts = _view(**{**v, "trick": [{"seat": 1, "card": "5D"}, {"seat": 2, "card": "9D"},
                                     {"seat": 3, "card": "2H"}], "hearts_broken": True})
    assert robots.decide(hearts, "normal", random.Random(0))["card"] == "3D"
    spades = _view(**{**v, "trick": [{"seat": 1, "card": "5S"}, {"seat": 2, "card": "TS"},
                                     {"seat": 3, "card": "6S"}],
                      "legal": ["2S", "4S", "9S", "JS", "QS", "KS"]})
    assert robots.decide(spades, "normal", random.Random(0))["card"] == "KS"
    # Difícil's play-outs duck there (the rule made the search no stronger).
    k = knowledge_of(v)
    ducked = play_card(k.me, k.hand, k.legal, [c for _, c in k.trick], k.played, k.first_trick,
                       k.points, k.voids, win_free_last=False)
    assert DECK[ducked] == "3D"


def _arena() -> Any:
    path = Path(__file__).resolve().parents[2] / "bench" / "arena.py"
    spec = importlib.util.spec_from_file_location("arena_for_tests", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["arena_for_tests"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("renege", ["impedido", "permitido"])
def test_arena_smoke(renege: str) -> None:
    arena = _arena()
    decks = arena.deals(16, 77)
    ref = arena.reference(decks, renege)
    row = arena.duplicate(lambda: arena.Robot("normal", random.Random(1)), "normal", decks, ref,
                          renege, progress=False)
    assert row.deals == 16 and row.hands == 64
    assert row.mean_diff() < 0, "Normal takes fewer points than Básico in the same seats"
    assert len(row.__dict__["times"]) > 64 * 10
    easy = arena.duplicate(lambda: arena.Robot("facil", random.Random(1)), "facil", decks[:4],
                           ref, renege, progress=False)
    assert easy.hands == 16
    hard = arena.duplicate(lambda: arena.Robot("dificil", random.Random(1), kw={"worlds": 10}),
                           "dificil",
                           decks[:2], ref, renege, progress=False)
    assert hard.hands == 8 and all(0 <= p <= 26 for p in hard.points)


def test_arena_hard_fields_with_common_random_numbers_pair_equal_players_exactly() -> None:
    """Seeded from the view, two copies of one robot play every deal alike: a field compared
    with itself differs by exactly nothing, so the paired difference measures decisions."""
    arena = _arena()
    decks = arena.deals(3, 11)
    v1 = arena.DificilV1(random.Random(1), seeded=7)
    v1.kw["worlds"] = 8
    twin = arena.DificilV1(random.Random(2), seeded=7)
    twin.kw["worlds"] = 8
    row = arena.field_run("twin", twin, None, v1, decks, per_deal=1, progress=False)
    assert row.diffs == [0.0, 0.0, 0.0]
    draw = [arena.view_rng({"seat": s, "hand": ["2C"]}, 7).random() for s in (0, 0, 1)]
    assert draw[0] == draw[1] != draw[2]


def test_arena_ismcts_reference_plays_legally() -> None:
    arena = _arena()
    decks = arena.deals(2, 5)
    ref = arena.reference(decks)
    row = arena.duplicate(lambda: arena.Ismcts(50, 1), "ismcts", decks, ref, progress=False)
    assert row.hands == 8  # play_hand applies every card through the rules, which refuse illegal


def test_go_for_the_moon_with_a_strong_hand() -> None:
    hand = "AH KH QH JH TH 9H 3H AS KS QS AD AC 2C"
    p = _pass_of(hand)
    assert not any(c.endswith("H") for c in p), "a shooter keeps its hearts"
    assert "QS" not in p and "2C" in p
    # Playing it: it leads its sure winners instead of its low diamond.
    hand2 = "AH KH QH JH TH 9H 3H AS KS QS AD 4D".split()
    v = _view(tricks=[_trick(1, 1, ["2C", "5C", "9C", "AC"], 0)], trick=[], hand=hand2,
              legal=["4D", "AD", "QS", "KS", "AS"], leader=0, hearts_broken=False,
              points_taken=[0, 0, 0, 0], cards_left=[12, 12, 12, 12])
    assert robots.decide(v, "normal", random.Random(0))["card"] in ("AS", "AD")
    calm = _view(**{**v, "hand": [c for c in hand2 if c != "AH"] + ["2D"],
                    "legal": ["2D", "4D", "AD", "QS", "KS", "AS"]})
    assert robots.decide(calm, "normal", random.Random(0))["card"] not in ("AS", "AD", "KS")
